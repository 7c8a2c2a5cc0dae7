package io.rvt.launcher;

import io.rvt.api.AccessFlag;
import io.rvt.api.AddressHandle;
import io.rvt.api.AhAttr;
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
import io.rvt.api.SigType;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * One device's side of a test: a protection domain, a send and a receive completion queue, one registered buffer
 * with every access right, and the queue pairs created on them. {@link #connect} brings a QP to RTS talking to a
 * peer the way ibv_rc_pingpong and perftest do (RC and UC: INIT, RTR with the peer's address and QPN, RTS; UD: INIT
 * with a Q_Key, RTR, RTS, plus an address handle to the peer).
 *
 * <p>A peer's address is its port's LID on InfiniBand (driver-sim); a port without a LID is RoCE (driver-jni), whose
 * packets are routed by GID, so the address is global: a GRH to the peer's GID 0 (its IP address), as
 * ibv_rc_pingpong {@code -g 0} does. {@link LinkOptions} choose the port, cap the path MTU and, with a GID index,
 * make the address global from that GID on InfiniBand too (perftest's {@code -x}).
 */
final class Endpoint implements AutoCloseable {
    /** Access rights of the buffer and of the QPs: everything a test may do to it. */
    static final int ALL_ACCESS = AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);
    /** The Q_Key of the launcher's UD QPs. */
    static final int QKEY = 0x11111111;
    /** Bytes a UD receive buffer needs before the payload: the GRH area. */
    static final int GRH_BYTES = 40;
    /**
     * RC local ACK timeout code: 4.096 µs × 2^14 ≈ 67 ms per try, 8 tries: a 2-core machine busy with other work can
     * starve the network thread for tens of milliseconds, which a shorter timeout turns into spurious
     * retransmissions (and, eight in a row, into a failed QP).
     */
    private static final int RC_TIMEOUT = 14;
    /** RDMA READs and atomics in flight per QP (the simulated HCA's limit). */
    static final int RD_ATOMIC = 16;
    /** The GRH hop limit of a global address. */
    private static final int HOP_LIMIT = 64;
    private static final SecureRandom PSN_RANDOM = new SecureRandom();

    /** The device. */
    final Device device;
    /** The protection domain everything else is created in. */
    final ProtectionDomain pd;
    /** The completion queue of the QPs' sends. */
    final CompletionQueue sendCq;
    /** The completion queue of the QPs' receives. */
    final CompletionQueue recvCq;
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
    /** The QPs created here, destroyed by {@link #close()}. */
    final List<QueuePair> qps = new ArrayList<>();
    /** Each QP's initial send PSN, the peer's expected receive PSN ({@link #initialPsn}). */
    private final Map<QueuePair, Integer> initialPsns = new IdentityHashMap<>();
    private final List<AddressHandle> ahs = new ArrayList<>();

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
        link.check(device);
        this.device = device;
        this.link = link;
        this.pd = device.allocPd();
        this.sendCq = device.createCq(cqDepth, 0, null, null);
        this.recvCq = device.createCq(cqDepth, 0, null, null);
        this.buffer = ByteBuffer.allocateDirect(bufferBytes);
        this.mr = pd.regMr(buffer, ALL_ACCESS);
        this.lid = device.queryPort(link.port(), new PortAttr()).lid();
        this.gidIndex = Math.max(0, link.gidIndex());
        this.gid = device.queryGid(link.port(), gidIndex);
    }

    /**
     * Creates a QP in RESET on this endpoint's CQs.
     *
     * @param type RC, UC or UD
     * @param sendDepth send queue entries
     * @param recvDepth receive queue entries
     * @param sigType whether every send completes or only signaled ones
     * @return the QP (also in {@link #qps})
     */
    QueuePair createQp(QpType type, int sendDepth, int recvDepth, SigType sigType) {
        QpInitAttr init = new QpInitAttr().qpType(type).sendCq(sendCq).recvCq(recvCq).sigType(sigType);
        init.cap().maxSendWr(sendDepth).maxRecvWr(recvDepth).maxSendSge(1).maxRecvSge(1);
        QueuePair qp = pd.createQp(init);
        qps.add(qp);
        // RoCE faces a real network: a random 24-bit PSN, as rdma_cm picks it, so that an attacker cannot guess the
        // expected one. A simulated fabric starts at 0 (a deterministic run's trace stays a function of its seed).
        initialPsns.put(qp, lid == 0 ? PSN_RANDOM.nextInt(1 << 24) : 0);
        return qp;
    }

    /**
     * @param qp a QP of this endpoint
     * @return its initial send PSN
     */
    int initialPsn(QueuePair qp) {
        return initialPsns.getOrDefault(qp, 0);
    }

    /** @return the LID of the port (0 on RoCE) */
    int lid() {
        return lid;
    }

    /**
     * @return whether this endpoint is reached by a global address (a GRH to its GID): its port has no LID, or a GID
     *         index was asked for
     */
    boolean global() {
        return lid == 0 || link.gidIndex() >= 0;
    }

    /**
     * Fills {@code out} with the address of {@code peer} as seen from this endpoint's port: the peer's LID, and if
     * either end is {@link #global()} a GRH from this end's GID to the peer's.
     *
     * @param peer the other endpoint
     * @param out the address to fill
     * @return {@code out}
     */
    AhAttr addressOf(Endpoint peer, AhAttr out) {
        out.dlid(peer.lid).portNum(link.port());
        if (global() || peer.global()) {
            out.dgid(peer.gid).sgidIndex(gidIndex).hopLimit(HOP_LIMIT);
        }
        return out;
    }

    /**
     * Brings {@code qp} (of this endpoint) to RTS talking to {@code peerQp} of {@code peer}.
     *
     * @param qp a QP of this endpoint in RESET
     * @param peer the other endpoint
     * @param peerQp the QP there
     * @return for UD, an address handle to the peer's port; null otherwise
     */
    AddressHandle connect(QueuePair qp, Endpoint peer, QueuePair peerQp) {
        if (qp.type() == QpType.UD) {
            qp.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(link.port()).qkey(QKEY),
                    QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.QKEY));
            qp.modifyQp(new QpAttr().qpState(QpState.RTR), QpAttrMask.STATE.bit());
            qp.modifyQp(new QpAttr().qpState(QpState.RTS).sqPsn(initialPsn(qp)),
                    QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.SQ_PSN));
            AddressHandle ah = pd.createAh(addressOf(peer, new AhAttr()));
            ahs.add(ah);
            return ah;
        }
        boolean rc = qp.type() == QpType.RC;
        qp.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(link.port()).qpAccessFlags(ALL_ACCESS),
                QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(pathMtu(peer)).destQpNum(peerQp.qpNum())
                .rqPsn(peer.initialPsn(peerQp));
        addressOf(peer, rtr.ahAttr());
        int mask = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                QpAttrMask.RQ_PSN);
        if (rc) {
            rtr.maxDestRdAtomic(RD_ATOMIC).minRnrTimer(1);
            mask |= QpAttrMask.mask(QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER);
        }
        qp.modifyQp(rtr, mask);
        QpAttr rts = new QpAttr().qpState(QpState.RTS).sqPsn(initialPsn(qp));
        mask = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.SQ_PSN);
        if (rc) {
            rts.timeout(RC_TIMEOUT).retryCnt(7).rnrRetry(7).maxRdAtomic(RD_ATOMIC);
            mask |= QpAttrMask.mask(QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY,
                    QpAttrMask.MAX_QP_RD_ATOMIC);
        }
        qp.modifyQp(rts, mask);
        return null;
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
        for (QueuePair qp : qps) {
            qp.destroyQp();
        }
        qps.clear();
        for (AddressHandle ah : ahs) {
            ah.destroyAh();
        }
        ahs.clear();
        sendCq.destroyCq();
        recvCq.destroyCq();
        mr.deregMr();
        pd.deallocPd();
    }
}
