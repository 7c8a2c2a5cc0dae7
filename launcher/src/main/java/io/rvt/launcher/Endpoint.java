package io.rvt.launcher;

import io.rvt.api.AccessFlag;
import io.rvt.api.AddressHandle;
import io.rvt.api.AhAttr;
import io.rvt.api.CompletionHandler;
import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
import io.rvt.api.Gid;
import io.rvt.api.MemoryRegion;
import io.rvt.api.PathMtu;
import io.rvt.api.PortAttr;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SharedReceiveQueue;
import io.rvt.api.SigType;
import io.rvt.api.SrqInitAttr;
import io.rvt.cm.Connection;
import io.rvt.cm.ConnectOptions;
import io.rvt.cm.DatagramPeer;
import io.rvt.cm.QpOptions;
import io.rvt.launcher.pingpong.CqEvents;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * One device's side of a test: a protection domain, a send and a receive completion queue, one registered buffer
 * with every access right, and the connections whose QPs the CM created on them ({@link Connector}): RC and UC QPs
 * are built from {@link #qpOptions} and brought to RTS by rvt-cm; a UD QP is created here and served and resolved by
 * SIDR, its peer reached through an address handle from the {@link DatagramPeer}.
 *
 * <p>A peer is reached by GID: on driver-sim its port's GID (the CM's first REQ is routed by GID; the connection then
 * uses the LID), on RoCE (driver-jni, no LID) its IP address, whose GID the CM derives and puts in rdma_cm's IP
 * header. {@link LinkOptions} choose the port, cap the path MTU and pick the source GID index (perftest's {@code -x}).
 */
final class Endpoint implements AutoCloseable {
    /** Access rights of the buffer and of the QPs: everything a test may do to it. */
    static final int ALL_ACCESS = AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);
    /** The Q_Key of the launcher's UD QPs. */
    static final int QKEY = 0x11111111;
    /** Bytes a UD receive buffer needs before the payload: the GRH area. */
    static final int GRH_BYTES = 40;
    /** RDMA READs and atomics in flight per QP (the simulated HCA's limit). */
    static final int RD_ATOMIC = 16;
    private static final SecureRandom PSN_RANDOM = new SecureRandom();

    /** The device. */
    final Device device;
    /** The protection domain everything else is created in. */
    final ProtectionDomain pd;
    /** The completion queue of the QPs' sends. */
    final CompletionQueue sendCq;
    /** The completion queue of the QPs' receives. */
    final CompletionQueue recvCq;
    /**
     * perftest's {@code -e}: the completion channels the send and receive CQs were created on ({@code send_channel},
     * {@code recv_channel}), waited on where a loop finds nothing to poll; null when busy-polling.
     */
    final CqEvents sendEvents;
    /** The receive CQ's channel with {@code -e}; else null. */
    final CqEvents recvEvents;
    /** perftest's {@code --use-srq}: the shared receive queue of this endpoint's QPs; null for their own. */
    private SharedReceiveQueue srq;
    /** The registered memory (direct). */
    final ByteBuffer buffer;
    /** The region over {@link #buffer}, with {@link #ALL_ACCESS}. */
    final MemoryRegion mr;
    /** The port, path MTU and GID index. */
    final LinkOptions link;
    /** The port's LID; 0 on RoCE, which has none. */
    private final int lid;
    /** The port's GID at the GID index (default 0): on RoCE its IP address (IPv4-mapped for IPv4). */
    final Gid gid;
    /** The index of {@link #gid}. */
    private final int gidIndex;
    /** perftest's {@code -T}: the traffic class the CM's connections ask for ({@link #trafficClass(int)}). */
    private int trafficClass;
    /** The connections made on this endpoint, closed (their QPs destroyed) by {@link #close()}. */
    private final List<Connection> connections = new ArrayList<>();
    /** The UD QPs created here, destroyed by {@link #close()}. */
    private final List<QueuePair> udQps = new ArrayList<>();
    /** Each UD QP's send PSN. */
    private final Map<QueuePair, Integer> udPsns = new IdentityHashMap<>();
    private final List<AddressHandle> ahs = new ArrayList<>();
    /** The multicast groups UD QPs were attached to here ({@link #attachMcast}), left by {@link #close()} first. */
    private final List<Attachment> attachments = new ArrayList<>();

    /** The endpoints of this one's other ports ({@link #onPort}), closed first by {@link #close()}. */
    private final List<Endpoint> views = new ArrayList<>();
    /** Whether this is another port's view of an endpoint, whose PD, CQs and region it does not close. */
    private final boolean view;

    /** A UD QP's multicast group: its MGID and MLID. */
    private record Attachment(QueuePair qp, Gid mgid, int mlid) {
    }

    /**
     * @param device the device
     * @param bufferBytes size of the registered buffer (direct)
     * @param cqDepth entries of each completion queue
     */
    Endpoint(Device device, int bufferBytes, int cqDepth) {
        this(device, bufferBytes, cqDepth, LinkOptions.DEFAULT);
    }

    /**
     * @param device the device
     * @param bufferBytes size of the registered buffer (direct)
     * @param cqDepth entries of each completion queue
     * @param link the port, path MTU and GID index ({@link LinkOptions#check checked} against the device)
     */
    Endpoint(Device device, int bufferBytes, int cqDepth, LinkOptions link) {
        this(device, bufferBytes, cqDepth, link, null);
    }

    /**
     * @param device the device
     * @param bufferBytes size of the registered buffer (direct)
     * @param cqDepth entries of each completion queue
     * @param link the port, path MTU and GID index ({@link LinkOptions#check checked} against the device)
     * @param recvHandler called when the armed receive CQ gets a completion, or null
     */
    Endpoint(Device device, int bufferBytes, int cqDepth, LinkOptions link, CompletionHandler recvHandler) {
        this(device, bufferBytes, cqDepth, link, recvHandler, false);
    }

    /**
     * @param device the device
     * @param bufferBytes size of the registered buffer (direct)
     * @param cqDepth entries of each completion queue
     * @param link the port, path MTU and GID index ({@link LinkOptions#check checked} against the device)
     * @param recvHandler called when the armed receive CQ gets a completion, or null
     * @param events perftest's {@code -e}: each CQ on a completion channel of its own ({@link #sendEvents},
     *               {@link #recvEvents}), armed
     */
    Endpoint(Device device, int bufferBytes, int cqDepth, LinkOptions link, CompletionHandler recvHandler,
            boolean events) {
        link.check(device);
        this.device = device;
        this.link = link;
        this.pd = device.allocPd();
        this.sendEvents = events ? new CqEvents(device) : null;
        this.recvEvents = events ? new CqEvents(device) : null;
        this.sendCq = events ? device.createCq(cqDepth, 0, sendEvents.channel(), null, null)
                : device.createCq(cqDepth, 0, null, null);
        this.recvCq = events ? device.createCq(cqDepth, 0, recvEvents.channel(), recvHandler, null)
                : device.createCq(cqDepth, 0, recvHandler, null);
        if (events) {
            sendEvents.arm(sendCq);
            recvEvents.arm(recvCq);
        }
        this.buffer = ByteBuffer.allocateDirect(bufferBytes);
        this.mr = pd.regMr(buffer, ALL_ACCESS);
        this.lid = device.queryPort(link.port(), new PortAttr()).lid();
        this.gidIndex = Math.max(0, link.gidIndex());
        this.gid = device.queryGid(link.port(), gidIndex);
        this.view = false;
    }

    /** Another port's view of {@code of}: the same PD, CQs, region and SRQ; QPs, LID and GID of {@code link}'s port. */
    private Endpoint(Endpoint of, LinkOptions link) {
        link.check(of.device);
        this.device = of.device;
        this.link = link;
        this.pd = of.pd;
        this.sendEvents = of.sendEvents;
        this.recvEvents = of.recvEvents;
        this.sendCq = of.sendCq;
        this.recvCq = of.recvCq;
        this.srq = of.srq;
        this.buffer = of.buffer;
        this.mr = of.mr;
        this.trafficClass = of.trafficClass;
        this.lid = device.queryPort(link.port(), new PortAttr()).lid();
        this.gidIndex = Math.max(0, link.gidIndex());
        this.gid = device.queryGid(link.port(), gidIndex);
        this.view = true;
    }

    /**
     * perftest's dual-port mode ({@code -O}, one context and its CQs and region for the QPs of both ports): this
     * endpoint as seen from another port of its device, whose QPs ({@link #qpOptions}, {@link #createUdQp},
     * {@link #connectOptions}) are on that port and complete on this endpoint's CQs. Its QPs and address handles
     * are destroyed by this endpoint's {@link #close()}, first.
     *
     * @param port the other port
     * @return the view
     */
    Endpoint onPort(int port) {
        Endpoint v = new Endpoint(this, new LinkOptions(port, link.mtu(), link.gidIndex(), link.qpTimeout(),
                link.retryCount()));
        views.add(v);
        return v;
    }

    /** @return the LID of the port (0 on RoCE) */
    int lid() {
        return lid;
    }

    /** @return whether peers address this endpoint with a GRH: its port has no LID, or a GID index was asked for */
    boolean global() {
        return lid == 0 || link.gidIndex() >= 0;
    }

    /**
     * How rvt-cm builds an RC or UC QP on this endpoint's CQs: every access right, 16 RDMA READs and atomics each
     * way, the ACK timeout of {@link LinkOptions} ({@code -u}, 67 ms unless given), retries and RNR retries 7, its path MTU.
     *
     * @param type RC or UC
     * @param sendDepth send queue entries
     * @param recvDepth receive queue entries
     * @param sigType whether every send completes or only signaled ones
     * @return the options
     */
    QpOptions qpOptions(QpType type, int sendDepth, int recvDepth, SigType sigType) {
        QpOptions o = new QpOptions().pd(pd).sendCq(sendCq).recvCq(recvCq).srq(srq).type(type).sigType(sigType)
                .accessFlags(ALL_ACCESS).responderResources(RD_ATOMIC).initiatorDepth(RD_ATOMIC)
                .localAckTimeout(link.qpTimeout()).retryCount(link.retryCount()).rnrRetryCount(link.retryCount());
        o.cap().maxSendWr(sendDepth).maxRecvWr(recvDepth).maxSendSge(1).maxRecvSge(1);
        if (link.mtu() > 0) {
            o.pathMtu(PathMtu.ofBytes(link.mtu()));
        }
        return o;
    }

    /**
     * The CM's options to reach {@code destination} from this endpoint's port and GID.
     *
     * @param destination the peer's {@link Gid}, or its {@link InetAddress} on RoCE
     * @param port the CM port
     * @param qp how to build the QP
     * @param privateData the REQ's private data, or null
     * @return the options
     */
    ConnectOptions connectOptions(Object destination, int port, QpOptions qp, byte[] privateData) {
        ConnectOptions o = new ConnectOptions().port(port).qp(qp).privateData(privateData).hcaPort(link.port())
                .sgidIndex(gidIndex).trafficClass(trafficClass);
        return destination instanceof InetAddress a ? o.destination(a) : o.destination((Gid) destination);
    }

    /**
     * @return how a peer reaches this endpoint: its IP address on RoCE (no LID), else its port's GID
     */
    Object destination() {
        if (lid != 0) {
            return gid;
        }
        try {
            return InetAddress.getByAddress(gid.toBytes()); // IPv4-mapped GIDs come back as IPv4 addresses
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException("GID " + gid + " of " + device.name() + " is no IP address", e);
        }
    }

    /**
     * @param c a connection whose QP is on this endpoint's CQs, closed with it
     */
    void track(Connection c) {
        connections.add(c);
    }

    /**
     * Creates a UD QP on this endpoint's CQs and brings it to RTS with {@link #QKEY} (a UD QP has no connection: it
     * is served and found by SIDR).
     *
     * @param sendDepth send queue entries
     * @param recvDepth receive queue entries
     * @param sigType whether every send completes or only signaled ones
     * @return the QP, in RTS
     */
    QueuePair createUdQp(int sendDepth, int recvDepth, SigType sigType) {
        return createUdQp(sendDepth, recvDepth, sigType, QKEY);
    }

    /**
     * Creates a UD QP as {@link #createUdQp(int, int, SigType)} does, with another Q_Key.
     *
     * @param sendDepth send queue entries
     * @param recvDepth receive queue entries
     * @param sigType which sends complete
     * @param qkey its Q_Key ({@code RDMA_UDP_QKEY} for a QP that rdma_cm's SIDR serves or resolves)
     * @return the QP, in RTS
     */
    QueuePair createUdQp(int sendDepth, int recvDepth, SigType sigType, int qkey) {
        QpInitAttr init = new QpInitAttr().qpType(QpType.UD).sendCq(sendCq).recvCq(recvCq).sigType(sigType);
        init.cap().maxSendWr(sendDepth).maxRecvWr(recvDepth).maxSendSge(1).maxRecvSge(1);
        QueuePair qp = pd.createQp(init);
        udQps.add(qp);
        // RoCE faces a real network: a random 24-bit PSN, as rdma_cm picks it. A simulated fabric starts at 0 (a
        // deterministic run's trace stays a function of its seed).
        int psn = lid == 0 ? PSN_RANDOM.nextInt(1 << 24) : 0;
        udPsns.put(qp, psn);
        qp.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(link.port()).qkey(qkey),
                QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.QKEY));
        qp.modifyQp(new QpAttr().qpState(QpState.RTR), QpAttrMask.STATE.bit());
        qp.modifyQp(new QpAttr().qpState(QpState.RTS).sqPsn(psn), QpAttrMask.mask(QpAttrMask.STATE,
                QpAttrMask.SQ_PSN));
        return qp;
    }

    /**
     * Creates an RC or UC QP on this endpoint's CQs and brings it to INIT (P_Key index 0, this endpoint's port, every
     * access right RC has, UC's RDMA WRITE): for a peer that connects it from its own data, as perftest's
     * {@code ctx_connect} does, not through rvt-cm. Destroyed by {@link #close()}.
     *
     * @param type RC or UC
     * @param sendDepth send queue entries
     * @param recvDepth receive queue entries
     * @param sigType whether every send completes or only signaled ones
     * @return the QP, in INIT
     */
    QueuePair createQp(QpType type, int sendDepth, int recvDepth, SigType sigType) {
        QpInitAttr init = new QpInitAttr().qpType(type).sendCq(sendCq).recvCq(recvCq).sigType(sigType).srq(srq);
        init.cap().maxSendWr(sendDepth).maxRecvWr(recvDepth).maxSendSge(1).maxRecvSge(1);
        QueuePair qp = pd.createQp(init);
        udQps.add(qp);
        int access = type == QpType.RC ? ALL_ACCESS
                : AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE);
        qp.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(link.port()).qpAccessFlags(access),
                QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        return qp;
    }

    /**
     * perftest's {@code --use-srq}: the QPs created from now on take their receives from one shared receive queue
     * ({@code ibv_create_srq}, as perftest's {@code ctx_init} creates it for a SEND test's receiving side), which
     * {@link #postRecv} posts to.
     *
     * @param maxWr the SRQ's entries: room for every receive kept posted
     * @return this
     */
    Endpoint useSrq(int maxWr) {
        srq = pd.createSrq(new SrqInitAttr().maxWr(maxWr).maxSge(1));
        return this;
    }

    /** @return whether the QPs share a receive queue ({@link #useSrq}) */
    boolean hasSrq() {
        return srq != null;
    }

    /**
     * Posts a receive for {@code qp}: to the shared receive queue with {@code --use-srq}, else to the QP's own.
     *
     * @param qp the QP whose receive completed, or that is to receive
     * @param wr the receive
     */
    void postRecv(QueuePair qp, RecvWorkRequest wr) {
        if (srq != null) {
            srq.postSrqRecv(wr);
        } else {
            qp.postRecv(wr);
        }
    }

    /**
     * perftest's {@code -T} with {@code -R}: the type of service its {@code rdma_set_option(RDMA_OPTION_ID_TOS)} gives
     * each cm_id, which rdma_cm makes the path's traffic class (the GRH's, on RoCEv2 the IP header's DS field); here
     * the traffic class of the path in the REQ of every connection this endpoint makes through rvt-cm.
     *
     * @param tclass 0 to 255
     * @return this
     */
    Endpoint trafficClass(int tclass) {
        this.trafficClass = tclass;
        return this;
    }

    /**
     * perftest's {@code -I}: asks this endpoint's device for a QP with {@code requested} bytes of inline data, as
     * perftest's {@code ctx_qp_create} sets {@code max_inline_data}, and reads what the created QP's caps say it has
     * (rvt-core's, as rdmavt's {@code rvt_create_qp}, always 0: a software QP reads every message from its SGEs); the
     * QP is destroyed at once.
     *
     * @param requested bytes of inline data asked for; 0 or less asks nothing
     * @return perftest's line when the QP has less, {@code "  Actual inline-size(G) < requested inline-size(R)"}
     *         with its line end; "" when it has enough or nothing was asked
     */
    String inlineReport(int requested) {
        if (requested <= 0) {
            return "";
        }
        QpInitAttr init = new QpInitAttr().qpType(QpType.RC).sendCq(sendCq).recvCq(recvCq).sigType(SigType.SIGNAL_ALL_WR);
        init.cap().maxSendWr(1).maxRecvWr(1).maxSendSge(1).maxRecvSge(1).maxInlineData(requested);
        pd.createQp(init).destroyQp();
        int granted = init.cap().maxInlineData();
        return granted >= requested ? "" : "  Actual inline-size(" + granted + ") < requested inline-size("
                + requested + ")" + System.lineSeparator();
    }

    /**
     * @param attr an address vector (its source GID index is used as given)
     * @return an address handle on this endpoint's PD (destroyed by {@link #close()})
     */
    AddressHandle addressHandle(AhAttr attr) {
        AddressHandle ah = pd.createAh(attr);
        ahs.add(ah);
        return ah;
    }

    /**
     * Attaches a UD QP of {@link #createUdQp} to a multicast group ({@code ibv_attach_mcast}); {@link #close()}
     * detaches it ({@code ibv_detach_mcast}) before the QP is destroyed, which a QP in a group cannot be.
     *
     * @param qp the QP
     * @param mgid the group's GID
     * @param mlid its LID
     */
    void attachMcast(QueuePair qp, Gid mgid, int mlid) {
        qp.attachMcast(mgid, mlid);
        attachments.add(new Attachment(qp, mgid, mlid));
    }

    /**
     * @param qp a UD QP of {@link #createUdQp}
     * @return its send PSN
     */
    int udPsn(QueuePair qp) {
        return udPsns.getOrDefault(qp, 0);
    }

    /**
     * @param peer a UD peer that SIDR resolved
     * @return an address handle to it from this endpoint's port and GID (destroyed by {@link #close()})
     */
    AddressHandle addressHandle(DatagramPeer peer) {
        AhAttr attr = peer.address(new AhAttr(), link.port()).sgidIndex(gidIndex);
        AddressHandle ah = pd.createAh(attr);
        ahs.add(ah);
        return ah;
    }

    /**
     * @param peer the other endpoint
     * @return the path MTU to it: the smaller of both ends' {@link LinkOptions#pathMtu}
     */
    PathMtu pathMtu(Endpoint peer) {
        PathMtu mine = link.pathMtu(device);
        PathMtu theirs = peer.link.pathMtu(peer.device);
        return mine.bytes() <= theirs.bytes() ? mine : theirs;
    }

    /** Destroys the QPs, address handles, CQs, region and PD (best effort: the device may be gone). */
    @Override
    public void close() {
        if (!device.isAlive()) {
            return;
        }
        for (Endpoint v : views) {
            v.close();
        }
        views.clear();
        for (Connection c : connections) {
            c.close(); // disconnects and destroys the QP
        }
        connections.clear();
        for (Attachment a : attachments) {
            a.qp().detachMcast(a.mgid(), a.mlid());
        }
        attachments.clear();
        for (QueuePair qp : udQps) {
            qp.destroyQp();
        }
        udQps.clear();
        for (AddressHandle ah : ahs) {
            ah.destroyAh();
        }
        ahs.clear();
        if (view) {
            return; // the PD, CQs, SRQ and region are the endpoint's whose view this is
        }
        if (sendEvents != null) {
            sendEvents.ack(sendCq);
            recvEvents.ack(recvCq);
        }
        if (srq != null) {
            srq.destroySrq();
            srq = null;
        }
        sendCq.destroyCq();
        recvCq.destroyCq();
        if (sendEvents != null) {
            sendEvents.close();
            recvEvents.close();
        }
        mr.deregMr();
        pd.deallocPd();
    }
}
