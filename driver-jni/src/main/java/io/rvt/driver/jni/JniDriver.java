package io.rvt.driver.jni;

import io.rvt.api.AhAttr;
import io.rvt.api.Errno;
import io.rvt.api.Gid;
import io.rvt.api.PathMtu;
import io.rvt.api.PortAttr;
import io.rvt.api.PortCounter;
import io.rvt.api.PortState;
import io.rvt.api.QpType;
import io.rvt.api.VerbsException;
import io.rvt.api.spi.DriverAh;
import io.rvt.api.spi.DriverDevice;
import io.rvt.api.spi.DriverParams;
import io.rvt.api.spi.DriverPort;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.OperationTable;
import io.rvt.transport.Packets;
import io.rvt.transport.QpSendEngine;
import io.rvt.transport.Transport;
import io.rvt.transport.PacketDriver;
import io.rvt.transport.TxInfo;
import io.rvt.transport.header.BthDescriptor;
import io.rvt.transport.header.Framing;
import io.rvt.transport.header.GrhDescriptor;
import io.rvt.transport.header.Icrc;
import io.rvt.transport.header.Opcode;
import io.rvt.transport.header.PacketHeaders;
import io.rvt.transport.header.RejectReason;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.lang.ref.WeakReference;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

/**
 * An rvt driver ({@code struct rvt_driver_provided}) whose wire is RoCEv2 (IBTA Annex A17) over UDP: every packet is
 * one UDP datagram holding BTH, extension headers, payload, pad and ICRC; IP and UDP headers are the kernel's. It runs
 * {@link Transport}'s RC/UC/UD engines exactly as driver-sim does, over sockets of {@code librvtjni.so}
 * ({@link Wire#NATIVE}, batched with {@code sendmmsg}/{@code recvmmsg}) or of the JDK ({@link Wire#JDK}).
 *
 * <pre>{@code
 * JniDriver hca = JniDriver.builder().name("roce0").address("192.168.1.10")   // one port per address
 *         .peer("192.168.1.11", 4791)                                         // optional: a peer's UDP port
 *         .build();                                                           // binds 192.168.1.10:4791
 * Device dev = RvtDevice.register(hca);                                       // or Rvt/OSGi: rvt-core registers it
 * }</pre>
 *
 * <h2>Addresses</h2>
 * Each configured IP address is a port with one GID: the address itself as an IPv6 address, IPv4 as the IPv4-mapped
 * {@code ::ffff:a.b.c.d} (what Linux RoCE drivers put in their GID tables for RoCEv2). RoCE has no LIDs: ports report
 * LID 0 and address handles must be global (a GRH with the peer's GID); a packet for a non-global address is dropped
 * and counted. The destination of a packet is its DGID as an IP address, and the UDP port from the peer table
 * ({@link Builder#peer}, {@link #addPeer}) or else the default peer port (4791, the RoCEv2 port). A peer table is
 * what lets two devices on one host (one IP address, two UDP ports) talk: each device maps the other's GID to the
 * other's port.
 *
 * <h2>UDP source port</h2>
 * RoCEv2 senders pick the source port from a flow hash so that ECMP spreads QPs over paths. As Linux rxe does, a
 * flow's source port is derived from its QP numbers (or the path's flow label, when it has one) in 0xC000-0xFFFF
 * ({@link #flowSourcePort}); with an ordinary socket the source port is the socket's bound port, so a port opens a
 * sending socket bound to a flow's port when that flow first sends ({@code SO_REUSEPORT}: other HCAs of the host may
 * send from the same port), up to {@link Builder#sourcePorts(int)} sockets (default
 * {@value Builder#DEFAULT_SOURCE_PORTS}); flows beyond share them. {@code sourcePorts(1)} sends everything from the
 * port's own socket (4791 by default). Replies always go to the peer's listening port, as RoCEv2 wants; the ICRC
 * covers the real source port either way.
 *
 * <h2>ICRC</h2>
 * Written on every packet as hardware expects it: over IPv6 with the real addresses and ports; over IPv4 with
 * Identification 0 and DF set, which is what the kernel sends for an unconnected socket with
 * {@code IP_MTU_DISCOVER = IP_PMTUDISC_DO} (the native layer sets it). Checked on receive over IPv6 always, and over
 * IPv4 under the same ID-0 convention unless {@link Builder#checkIpv4Icrc(boolean)} turns it off (a UDP socket does
 * not show the sender's IP header). A packet that fails is dropped and counted ({@link #icrcErrors},
 * {@code RX_MALFORMED}).
 *
 * <h2>Multicast</h2>
 * Without a subnet manager or IP multicast routing, a UD packet to a multicast GID is sent as one unicast copy to
 * every peer in the peer table, each with the ICRC the real multicast packet would carry (destination address: the
 * MGID; IPv4: the group address of an IPv4-mapped MGID, else {@code 239.x.y.z} from the MGID's low 24 bits). The
 * receiver finds the group by that ICRC among the groups its port joined.
 *
 * <h2>Threads</h2>
 * A QP's send engine runs on the poster's thread ({@code do_send}) and otherwise on its port's engine thread, which
 * also receives (see {@link PortEngine}); a per-QP counter lets only one thread drain a QP at a time, and a drainer
 * hands its packets to the kernel before it lets go of the QP, so no later packet overtakes them. With
 * {@link Builder#ownThreads(boolean) ownThreads(false)} the caller runs the engines ({@link #doWork()}), e.g. one
 * thread for every HCA of a JVM, which suits a 2-core machine.
 *
 * <h2>Zero copy</h2>
 * On the native wire the transport references a packet's payload in registered memory instead of copying it
 * ({@link TxInfo#payloadByReference}): the datagram is gathered by {@code sendmmsg} from the transport headers in the
 * batch slot, up to {@value TxBatch#MAX_PAYLOAD_SEGMENTS} slices of the regions' direct buffers, and the pad and ICRC
 * in the slot; the ICRC reads the payload where it lies ({@link #zeroCopyPackets}). Payloads under 512 bytes,
 * heap-buffer regions, more slices, packets that complete their WQE at once (UD, a UC message's last) and the JDK wire
 * copy.
 *
 * <p>{@link #unregistering} (or {@link #close()}) stops the engine threads and closes the sockets.
 */
public class JniDriver extends PacketDriver<QpSendEngine, TxScratch> implements AutoCloseable {
    /** The RoCEv2 UDP port, {@value}. */
    public static final int ROCEV2_PORT = Framing.ROCEV2_UDP_PORT;
    private static final AtomicLong GUIDS = new AtomicLong(1);
    private static final long GUID_BASE = 0x0052_5654_4A4E_0000L; // "RVTJN"

    private final String name;
    private final PathMtu mtu;
    private final Wire wire;
    private final long nodeGuid;
    private final DriverParams params;
    private final PortEngine[] ports;
    private final boolean checkIpv4Icrc;
    private final boolean ownThreads;
    private final int defaultPeerPort;
    /** Configured peers: GID → destination (multicast copies go to each). */
    private final ConcurrentHashMap<Gid, Peer> peers = new ConcurrentHashMap<>();
    /** Every destination resolved so far (configured or default port), so that the send path allocates nothing. */
    private final ConcurrentHashMap<Gid, Peer> resolved = new ConcurrentHashMap<>();
    /**
     * Each posting thread's scratch, weakly: the thread's map then holds only a JDK object, so a thread that outlives
     * the driver (an application thread under OSGi, across an update of this bundle) keeps neither the driver nor its
     * class loader. A plain {@code ThreadLocal} for the same reason (a subclass or a supplier would be this loader's).
     */
    private final ThreadLocal<WeakReference<TxScratch>> txScratch = new ThreadLocal<>();
    /** What keeps each posting thread's scratch alive: until that thread ends or the driver is garbage. */
    private final Map<Thread, TxScratch> txScratchByThread = Collections.synchronizedMap(new WeakHashMap<>());
    private final int txBatch;
    private final int txSlotSize;
    private volatile McastJoin[][] joins;
    /** Every socket opened, to close them all (also when building fails half-way); guarded by itself. */
    private final List<Datagrams> openSockets = new ArrayList<>();
    private final UnaryOperator<Datagrams> decorator;
    private final int socketBufferBytes;
    private final int sourcePorts;
    private volatile DriverDevice device;
    private volatile boolean closed;

    /** A multicast group a port joined, with the group address its ICRC is computed over. */
    private static final class McastJoin {
        final Gid mgid;
        final int mlid;
        final int v4;

        McastJoin(Gid mgid, int mlid) {
            this.mgid = mgid;
            this.mlid = mlid;
            this.v4 = groupV4(mgid);
        }
    }

    JniDriver(Builder b) {
        if (b.wire == Wire.NATIVE) {
            NativeUdp.ensureAvailable();
        }
        this.name = b.name;
        this.mtu = b.mtu;
        this.wire = b.wire;
        this.checkIpv4Icrc = b.checkIpv4Icrc;
        this.ownThreads = b.ownThreads;
        this.defaultPeerPort = b.defaultPeerPort;
        this.nodeGuid = GUID_BASE + GUIDS.getAndIncrement() * 16;
        this.decorator = b.decorator;
        this.socketBufferBytes = b.socketBufferBytes;
        this.sourcePorts = b.sourcePorts;
        int nports = b.addresses.size();
        this.params = packetHcaParams(nodeGuid, 0x4A4E, b.maxQp, nports);
        int slotSize = slotSize(mtu);
        this.txBatch = b.batch;
        this.txSlotSize = slotSize;
        this.ports = new PortEngine[nports];
        this.joins = new McastJoin[nports][0];
        try {
            for (int i = 0; i < nports; i++) {
                // The port's own socket receives, and sends unless flows have source ports of their own.
                Datagrams io = open(b.addresses.get(i), b.udpPort, false);
                ports[i] = new PortEngine(this, i + 1, io, b.sourcePorts, b.maxQp, b.batch, slotSize, b.busyPoll,
                        newDelivery(i + 1));
            }
        } catch (RuntimeException e) {
            closeSockets();
            throw e;
        }
        b.peers.forEach(this::addPeer);
    }

    /**
     * Opens (and decorates, for tests) a socket of this driver's wire, kept for {@link #close()}.
     *
     * @return the socket, or null if the driver is closed
     * @throws UdpException if it cannot be bound
     */
    Datagrams open(InetAddress address, int udpPort, boolean reusePort) {
        synchronized (openSockets) {
            if (closed) {
                return null;
            }
            Datagrams io = Datagrams.open(wire, address, udpPort, socketBufferBytes, reusePort);
            Datagrams d = decorator != null ? decorator.apply(io) : io;
            openSockets.add(d);
            return d;
        }
    }

    /**
     * A flow's UDP source port, in 0xC000-0xFFFF (the range RoCEv2 senders use, as rxe does): from the path's flow
     * label if it has one (folded to 14 bits), else a hash of the two QP numbers, so that ECMP routers spread QPs over
     * paths. Every packet of a flow leaves from the same port, so a flow stays on one path and in order.
     *
     * @param qpn the sending QP
     * @param destQpn the destination QP
     * @param flowLabel the path's IPv6 flow label, 0 if none
     * @return the source port
     */
    public static int flowSourcePort(int qpn, int destQpn, int flowLabel) {
        int h;
        if (flowLabel != 0) {
            h = flowLabel ^ (flowLabel >>> 14);
        } else {
            h = qpn * 0x9E3779B1 + destQpn * 0x85EBCA6B;
            h ^= h >>> 16;
            h *= 0x7FEB352D;
            h ^= h >>> 15;
        }
        return 0xC000 | (h & 0x3FFF);
    }

    /** A slot holds the largest packet: transport headers, one path MTU of payload, pad and ICRC. */
    private static int slotSize(PathMtu mtu) {
        int n = Packets.MAX_TRANSPORT_HEADER + mtu.bytes() + 4 + Icrc.LENGTH;
        return (n + 63) & ~63;
    }

    /** @return a builder with the defaults (port 4791, MTU 4096, native wire; an address is required) */
    public static Builder builder() {
        return new Builder();
    }

    /** @return true if {@code librvtjni.so} loaded and its ABI matches ({@link Wire#NATIVE} can be used) */
    public static boolean isAvailable() {
        return NativeUdp.isAvailable();
    }

    /** @return why {@link Wire#NATIVE} cannot be used, or null if it can */
    public static Throwable unavailabilityCause() {
        return NativeUdp.unavailabilityCause();
    }

    /**
     * @param portNum a port, 1-based
     * @return the UDP port its socket is bound to (the ephemeral one if configured as 0)
     */
    public int localPort(int portNum) {
        return port(portNum).io.localPort();
    }

    /**
     * @param portNum a port, 1-based
     * @return its GID (index 0): the port's IP address as an IPv6 address, IPv4-mapped for IPv4
     */
    public Gid gid(int portNum) {
        return port(portNum).localGid;
    }

    /** @return the most UDP source sockets per port ({@link Builder#sourcePorts(int)}) */
    public int sourcePorts() {
        return sourcePorts;
    }

    /** @return the socket layer */
    public Wire wire() {
        return wire;
    }

    /**
     * Adds or replaces a peer: packets whose DGID is {@code gid} go to that GID's IP address at {@code udpPort}, and
     * multicast copies go to it too.
     *
     * @param gid the peer's GID
     * @param udpPort its UDP port
     */
    public void addPeer(Gid gid, int udpPort) {
        if (gid == null || gid.isMulticast() || Gid.ZERO.equals(gid)) {
            throw new IllegalArgumentException("peer GID must be a unicast GID, got " + gid);
        }
        checkPort("peer UDP port", udpPort, false);
        Peer p = new Peer(gid, udpPort);
        peers.put(gid, p);
        resolved.put(gid, p);
    }

    /**
     * @param portNum a port, 1-based
     * @return packets dropped on it because their ICRC did not match
     */
    public long icrcErrors(int portNum) {
        return port(portNum).icrcErrors;
    }

    /**
     * @param portNum a port, 1-based
     * @return packets sent from it whose payload went from registered memory to the socket without a Java copy
     *         (native wire, direct-buffer regions, payloads of at least 512 bytes; see {@link TxInfo})
     */
    public long zeroCopyPackets(int portNum) {
        return port(portNum).zeroCopyPackets.sum();
    }

    /**
     * @param portNum a port, 1-based
     * @return datagrams dropped on it as malformed: truncated, unparsable, bad ICRC, unknown QP, wrong family
     */
    public long malformed(int portNum) {
        return port(portNum).malformed;
    }

    /**
     * @param portNum a port, 1-based
     * @return datagrams the kernel dropped before the port could read them (its socket's receive buffer was full;
     *         {@code SO_MEMINFO}'s drop count, read when a burst of traffic ends), also the port's
     *         {@code RX_KERNEL_DROPS}; always 0 on {@link Wire#JDK}, which cannot see it
     */
    public long kernelDrops(int portNum) {
        return port(portNum).kernelDrops;
    }

    /**
     * @param portNum a port, 1-based
     * @return datagrams the kernel refused to send (dropped)
     */
    public long sendErrors(int portNum) {
        return port(portNum).sendErrors;
    }

    private PortEngine port(int portNum) {
        if (portNum < 1 || portNum > ports.length) {
            throw new IllegalArgumentException("port " + portNum + " does not exist on " + name + " (1.."
                    + ports.length + ")");
        }
        return ports[portNum - 1];
    }

    // ------------------------------------------------------------------ identity

    @Override
    public String name() {
        return name;
    }

    @Override
    public DriverParams params() {
        return params;
    }

    @Override
    public OperationTable postParms() {
        return OperationTable.standard();
    }

    @Override
    public String getPciDev() {
        StringBuilder s = new StringBuilder("roce:");
        for (PortEngine p : ports) {
            s.append(p == ports[0] ? "" : ",").append(Peer.format(p.io.localAddress(), p.io.localPort()));
        }
        return s.toString();
    }

    @Override
    public void registered(DriverDevice dev) {
        if (closed) {
            throw new IllegalStateException(name + " is closed: build a new JniDriver");
        }
        attach(dev);
        this.device = dev;
        for (PortEngine p : ports) {
            dev.port(p.portNum).gidPrefix(p.localGid.subnetPrefix());
            dev.port(p.portNum).lid(0);
        }
        if (ownThreads) {
            for (PortEngine p : ports) {
                p.start("rvt-jni-" + name + "-port" + p.portNum);
            }
        }
    }

    /**
     * Runs one duty cycle of every port (receive a batch, process it, send what was scheduled) on the calling thread,
     * for a driver built with {@link Builder#ownThreads(boolean) ownThreads(false)}: the caller then is the engine,
     * e.g. one thread serving several HCAs of one JVM. Call it from one thread only, after registration.
     *
     * @return the work done (datagrams received plus QPs drained); 0 means idle
     * @throws IllegalStateException if the driver runs its own threads
     */
    public int doWork() {
        if (ownThreads) {
            throw new IllegalStateException(name + " runs its own engine threads; doWork is for ownThreads(false)");
        }
        int work = 0;
        for (PortEngine p : ports) {
            if (!p.isEngineThread()) {
                p.adopt();
            }
            work += p.cycle();
        }
        return work;
    }

    @Override
    public void unregistering(DriverDevice dev) {
        close();
    }

    /** Stops the port engines and closes the sockets; idempotent. Called by {@link #unregistering}. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        for (PortEngine p : ports) {
            if (p != null) {
                p.stop();
            }
        }
        closeSockets();
    }

    private void closeSockets() {
        synchronized (openSockets) {
            closed = true; // no socket opens from now on
            for (Datagrams d : openSockets) {
                d.close();
            }
        }
    }

    // ------------------------------------------------------------------ QP lifecycle

    @Override
    protected PathMtu portMtu() {
        return mtu;
    }

    @Override
    public void flushQpWaiters(DriverQp qp) {
        // No I/O wait lists: the send path never waits for a resource.
    }

    @Override
    public void quiesceQp(DriverQp qp) {
        // Datagrams handed to the kernel are the kernel's: nothing in flight belongs to the QP.
    }

    // ------------------------------------------------------------------ ports

    @Override
    public long getGuidBe(DriverDevice rdi, DriverPort port, int guidIndex) {
        if (guidIndex != 0) {
            throw new VerbsException(Errno.EINVAL, "gid index " + guidIndex + " does not exist on " + name
                    + " port " + port.portNum() + " (its GID table has 1 entry: its IP address)");
        }
        return ports[port.portNum() - 1].localGid.interfaceId();
    }

    @Override
    public int queryPortState(DriverDevice rdi, int portNum, PortAttr props) {
        boolean up = !closed;
        props.state(up ? PortState.ACTIVE : PortState.DOWN).physState(up ? 5 : 3).maxMtu(mtu).activeMtu(mtu)
                .lid(0).gidTblLen(1).maxVlNum(1).activeWidth(2).activeSpeed(1);
        return 0;
    }

    @Override
    public int shutDownPort(DriverDevice rdi, int portNum) {
        return 0;
    }

    @Override
    public void notifyMcastAttach(DriverDevice rdi, DriverPort port, Gid mgid, int mlid) {
        synchronized (this) {
            McastJoin[][] all = joins.clone();
            McastJoin[] cur = all[port.portNum() - 1];
            for (McastJoin j : cur) {
                if (j.mgid.equals(mgid) && j.mlid == mlid) {
                    return;
                }
            }
            McastJoin[] next = Arrays.copyOf(cur, cur.length + 1);
            next[cur.length] = new McastJoin(mgid, mlid);
            all[port.portNum() - 1] = next;
            joins = all;
        }
    }

    @Override
    public void notifyMcastDetach(DriverDevice rdi, DriverPort port, Gid mgid, int mlid) {
        synchronized (this) {
            McastJoin[][] all = joins.clone();
            McastJoin[] cur = all[port.portNum() - 1];
            List<McastJoin> keep = new ArrayList<>();
            for (McastJoin j : cur) {
                if (!(j.mgid.equals(mgid) && j.mlid == mlid)) {
                    keep.add(j);
                }
            }
            all[port.portNum() - 1] = keep.toArray(new McastJoin[0]);
            joins = all;
        }
    }

    @Override
    public void notifyNewAh(DriverDevice rdi, AhAttr attr, DriverAh ah) {
        // UD messages may be one path MTU long: the port's MTU.
        ah.vl(0);
        ah.logPmtu(31 - Integer.numberOfLeadingZeros(mtu.bytes()));
    }

    @Override
    public void capMaskChg(DriverDevice rdi, int portNum) {
        // No subnet manager.
    }

    // ------------------------------------------------------------------ send engine

    private PortEngine portOf(DriverQp qp) {
        int n = qp.portNum();
        return ports[(n >= 1 && n <= ports.length ? n : 1) - 1];
    }

    /** QP locks may be held: the QP's port engine drains it. */
    @Override
    protected void schedule(QpSendEngine s) {
        portOf(s.qp).schedule(s);
    }

    @Override
    protected boolean acceptsSends() {
        return !closed;
    }

    /** A post on a port's engine thread is drained later in that engine's cycle. */
    @Override
    protected boolean drainsHere(QpSendEngine s) {
        return !portOf(s.qp).isEngineThread();
    }

    @Override
    protected TxScratch sendScratch() {
        return txScratch();
    }

    /** Out before another thread may take the QP over: its later packets must not overtake these. */
    @Override
    protected void packetsOut(QpSendEngine s, TxScratch sc) {
        flush(sc);
    }

    /** @return the calling thread's scratch, made on its first post (no allocation afterwards) */
    private TxScratch txScratch() {
        WeakReference<TxScratch> ref = txScratch.get();
        TxScratch sc = ref != null ? ref.get() : null;
        if (sc == null) {
            sc = new TxScratch(txBatch, txSlotSize, wire == Wire.NATIVE);
            txScratchByThread.put(Thread.currentThread(), sc);
            txScratch.set(new WeakReference<>(sc));
        }
        return sc;
    }

    /** Drains a QP the port engine took from its queue, with the engine's scratch. */
    void drainQueued(QpSendEngine s, TxScratch sc) {
        drain(s, sc);
    }

    /** A port engine's receive batch ended: its RX counters, then the sends its packets deferred. */
    void batchEnded(PortEngine p) {
        endBatch(p.delivery, p.tx);
    }

    /** Sends what {@code sc}'s batch holds through its port. */
    void flush(TxScratch sc) {
        TxBatch b = sc.batch;
        PortEngine p = sc.port;
        if (b.count == 0 || p == null) {
            return;
        }
        int dropped = sc.sender.send(b);
        if (dropped > 0) {
            p.sendErrors += dropped;
            DriverDevice dev = device;
            if (dev != null) {
                dev.port(p.portNum).addCounter(PortCounter.PKT_DROPS, dropped);
            }
        }
    }

    /** @return 1 if a packet was made (sent, queued or dropped), 0 if the QP has nothing to send now */
    @Override
    protected int sendPacket(QpSendEngine s, TxScratch sc) {
        DriverQp qp = s.qp;
        PortEngine p = portOf(qp);
        if (sc.port != p) {
            flush(sc);
            sc.port = p;
        }
        TxBatch b = sc.batch;
        if (b.isFull()) {
            flush(sc);
        }
        TxInfo tx = sc.info;
        int off = b.nextOffset();
        int n = transport().makePacket(qp, b.data, off, tx);
        if (n <= 0) {
            return 0;
        }
        int total = n + Icrc.LENGTH;
        // By reference, the slot holds the headers and the pad (the ICRC goes after them); otherwise the packet.
        int inSlot = tx.isPayloadByReference() ? n - tx.payloadLength() : n;
        AhAttr ah = tx.ah();
        DriverPort dp = device.port(p.portNum);
        if (!ah.isGlobal()) {
            dp.addCounter(PortCounter.PKT_DROPS, 1); // RoCE needs a GRH: no GID, no IP address
            return 1;
        }
        Gid dgid = ah.dgid();
        off = chooseSender(sc, p, tx, off, inSlot);
        int srcPort = sc.sender.localPort();
        if (dgid.isMulticast()) {
            sendMulticast(s, sc, p, dgid, srcPort, off, inSlot, dp);
            return 1;
        }
        Peer to = resolve(dgid);
        if (to.ipv6 != p.ipv6) {
            dp.addCounter(PortCounter.PKT_DROPS, 1); // an IPv4 port cannot reach an IPv6 peer and vice versa
            return 1;
        }
        queue(sc, p, srcPort, to, dgid, to.v4, off, inSlot);
        countSent(s, p.portNum, total);
        return 1;
    }

    /**
     * Writes the ICRC of the packet whose slot part is at {@code off} (its last slot, {@code inSlot} bytes) and
     * queues it to {@code to}: the slot alone, or, when the transport referenced the payload, the slot's headers, the
     * payload's slices of registered memory and the slot's pad and ICRC.
     */
    private void queue(TxScratch sc, PortEngine p, int srcPort, Peer to, Gid dst, int dstV4, int off, int inSlot) {
        TxInfo tx = sc.info;
        TxBatch b = sc.batch;
        AhAttr ah = tx.ah();
        // RoCEv2 (Annex A17) maps the GRH onto the IP header; the ICRC masks these fields, so it does not change.
        b.ipHeader(ah.trafficClass(), ah.hopLimit(), ah.flowLabel());
        ByteBuffer buf = b.data;
        Icrc icrc = sc.icrc;
        if (!tx.isPayloadByReference()) {
            int total = inSlot + Icrc.LENGTH;
            if (p.ipv6) {
                icrc.writeRoceV6(p.localGid, dst, srcPort, to.port, buf, off, total);
            } else {
                icrc.writeRoceV4(p.localV4, dstV4, 0, true, srcPort, to.port, buf, off, total);
            }
            b.add(to, total, p.scopeId);
            return;
        }
        int length = inSlot + tx.payloadLength();
        if (p.ipv6) {
            icrc.startRoceV6(p.localGid, dst, srcPort, to.port, buf, off, length);
        } else {
            icrc.startRoceV4(p.localV4, dstV4, 0, true, srcPort, to.port, buf, off, length);
        }
        int head = tx.headerLength();
        icrc.add(buf, off + BthDescriptor.LENGTH, head - BthDescriptor.LENGTH);
        for (int i = 0; i < tx.segments(); i++) {
            icrc.add(tx.segmentBuffer(i), tx.segmentOffset(i), tx.segmentLength(i));
        }
        icrc.add(buf, off + head, inSlot - head);
        Icrc.write(buf, off + inSlot, icrc.value());
        b.addReferenced(to, head, tx, inSlot - head + Icrc.LENGTH, p.scopeId);
        p.zeroCopyPackets.increment();
    }

    private Peer resolve(Gid dgid) {
        Peer p = resolved.get(dgid);
        return p != null ? p : resolved.computeIfAbsent(dgid, g -> new Peer(g, defaultPeerPort));
    }

    /**
     * Picks the socket of the packet's flow (its UDP source port, {@link #flowSourcePort}). A batch goes out through
     * one socket, so a packet of another flow first sends what is queued, and moves to the first slot.
     *
     * @param inSlot the packet's bytes in its slot
     * @return where the packet is now
     */
    private static int chooseSender(TxScratch sc, PortEngine p, TxInfo tx, int off, int inSlot) {
        Datagrams want = p.sender(tx.qpn(), tx.destQpn(), tx.ah().flowLabel());
        if (want == sc.sender) {
            return off;
        }
        TxBatch b = sc.batch;
        if (b.count > 0) {
            p.driver.flush(sc);
            b.data.put(0, b.data, off, inSlot);
            off = 0;
        }
        sc.sender = want;
        return off;
    }

    /** One unicast copy per configured peer of the port's family, each with the group's ICRC. */
    private void sendMulticast(QpSendEngine s, TxScratch sc, PortEngine p, Gid mgid, int srcPort, int off,
            int inSlot, DriverPort dp) {
        TxBatch b = sc.batch;
        int v4 = groupV4(mgid);
        TxInfo tx = sc.info;
        int total = inSlot + (tx.isPayloadByReference() ? tx.payloadLength() : 0) + Icrc.LENGTH;
        int copies = 0;
        for (Peer to : peers.values()) {
            if (to.ipv6 != p.ipv6) {
                continue;
            }
            if (b.isFull()) {
                // The packet sits in the next free slot: move it to slot 0 after the flush.
                ByteBuffer tmp = sc.batch.data;
                flush(sc);
                tmp.put(0, tmp, off, inSlot);
                off = 0;
            }
            int at = b.nextOffset();
            if (at != off) {
                b.data.put(at, b.data, off, inSlot);
            }
            queue(sc, p, srcPort, to, mgid, v4, at, inSlot);
            copies++;
            countSent(s, p.portNum, total);
        }
        if (copies == 0) {
            dp.addCounter(PortCounter.PKT_DROPS, 1);
        }
    }

    /** The IPv4 group address of an MGID: the address of an IPv4-mapped one, else 239.x.y.z from its low 24 bits. */
    static int groupV4(Gid mgid) {
        return Peer.isIpv4Mapped(mgid) ? (int) mgid.interfaceId()
                : 0xEF00_0000 | (int) (mgid.interfaceId() & 0xFF_FFFF);
    }

    // ------------------------------------------------------------------ receive path

    /** Datagram {@code i} of the port's receive batch: check, parse, find the QP, run the transport. Never throws. */
    void onDatagram(PortEngine p, int i) {
        DriverDevice dev = device;
        if (dev == null) {
            return;
        }
        RxBatch rx = p.rx;
        ByteBuffer buf = rx.data;
        int off = rx.offset(i);
        int len = rx.length(i);
        DriverPort port = dev.port(p.portNum);
        p.delivery.received(len);
        boolean v6 = rx.sourceIsIpv6(i);
        if (rx.truncated(i) || len < BthDescriptor.LENGTH + Icrc.LENGTH || v6 != p.ipv6) {
            dropMalformed(port);
            return;
        }
        PacketHeaders h = p.headers;
        if (p.parser.parse(buf, off, len, Framing.ROCEV2, h) != RejectReason.OK) {
            dropMalformed(port);
            return;
        }
        int srcPort = rx.sourcePort(i);
        int srcV4 = v6 ? 0 : rx.sourceV4(i);
        Gid src = v6 ? p.sourceGid(rx.sourceHi(i), rx.sourceLo(i))
                : p.sourceGid(0, 0x0000_FFFF_0000_0000L | (srcV4 & 0xFFFF_FFFFL));
        boolean check = v6 || checkIpv4Icrc;
        if (h.destQp() == BthDescriptor.MULTICAST_QPN) {
            deliverMulticast(p, i, port, src, srcV4, srcPort, off, len, check);
            return;
        }
        if (check && !icrcMatches(p, src, srcV4, srcPort, p.localGid, p.localV4, off, len)) {
            p.icrcErrors++;
            dropMalformed(port);
            return;
        }
        if (oversizeUd(h, port)) {
            return;
        }
        synthesizeGrh(p, i, src, p.localGid, len);
        p.rxSource = src;
        receive(p.delivery, buf, h, p.info.set(p.portNum, 0, 0, 0, p.grh, 0));
    }

    /** rxe's {@code check_addr} on the packet's sender ({@link #fromRemote}), counted as {@code RX_ADDR_MISMATCH}. */
    @Override
    protected boolean admits(DriverQp qp, DriverPort port) {
        QpType type = qp.type();
        if ((type == QpType.RC || type == QpType.UC) && !fromRemote(qp, ports[port.portNum() - 1].rxSource)) {
            port.addCounter(PortCounter.RX_ADDR_MISMATCH, 1);
            return false;
        }
        return true;
    }

    /**
     * A UD message is one packet of at most the path MTU, which for UD is the port's MTU: a longer payload is dropped
     * and counted ({@code RX_UD_OVERSIZE}), as a NIC drops a frame larger than its MTU.
     */
    private boolean oversizeUd(PacketHeaders h, DriverPort port) {
        if (Opcode.transport(h.opcode()) == Opcode.UD && h.payloadLength() > mtu.bytes()) {
            port.addCounter(PortCounter.RX_UD_OVERSIZE, 1);
            return true;
        }
        return false;
    }

    /**
     * rxe's {@code check_addr}: a connected QP takes packets only from its peer's address, its primary path's DGID
     * (or its alternate path's, for path migration). The UDP source port is flow entropy and identifies nothing.
     */
    private static boolean fromRemote(DriverQp qp, Gid src) {
        AhAttr primary = qp.remoteAhAttr();
        if (primary != null && src.equals(primary.dgid())) {
            return true;
        }
        AhAttr alt = qp.altAhAttr();
        return alt != null && alt.isGlobal() && src.equals(alt.dgid());
    }

    private void deliverMulticast(PortEngine p, int i, DriverPort port, Gid src, int srcV4,
            int srcPort, int off, int len, boolean check) {
        McastJoin[] js = joins[p.portNum - 1];
        int delivered = 0;
        for (McastJoin j : js) {
            if (check && !icrcMatches(p, src, srcV4, srcPort, j.mgid, j.v4, off, len)) {
                continue;
            }
            if (oversizeUd(p.headers, port)) {
                return;
            }
            synthesizeGrh(p, i, src, j.mgid, len);
            receiveMulticast(p.delivery, j.mgid, j.mlid, p.rx.data, p.headers,
                    p.info.set(p.portNum, 0, 0, 0, p.grh, 0));
            delivered++;
            if (check) {
                break; // the ICRC names exactly one group
            }
        }
        if (js.length == 0) {
            // No group joined here: nothing to check the ICRC against, and nobody to deliver to.
            port.addCounter(PortCounter.RX_MCAST_NO_GROUP, 1);
        } else if (delivered == 0) {
            if (check) {
                p.icrcErrors++; // corrupt, or for a group this port has not joined: the ICRC cannot tell which
            }
            dropMalformed(port);
        }
    }

    private boolean icrcMatches(PortEngine p, Gid src, int srcV4, int srcPort, Gid dst, int dstV4, int off,
            int len) {
        ByteBuffer buf = p.rx.data;
        if (p.ipv6) {
            return p.icrc.checkRoceV6(src, dst, srcPort, p.io.localPort(), buf, off, len);
        }
        return p.icrc.checkRoceV4(srcV4, dstV4, 0, true, srcPort, p.io.localPort(), buf, off, len);
    }

    /**
     * The GRH a UD receive gets, from the IP header as RoCEv2 maps it: traffic class, flow label and hop limit as
     * received (when the socket layer reports them; else 0, 0 and 64), payload length, next header UDP, SGID and
     * DGID.
     */
    private static void synthesizeGrh(PortEngine p, int i, Gid src, Gid dst, int len) {
        RxBatch rx = p.rx;
        if (rx.hasIpInfo(i)) {
            GrhDescriptor.write(p.grh, 0, rx.trafficClass(i), rx.flowLabel(i), len, rx.hopLimit(i), src, dst);
        } else {
            GrhDescriptor.write(p.grh, 0, 0, 0, len, 64, src, dst);
        }
    }

    void countKernelDrops(PortEngine p, long n) {
        DriverDevice dev = device;
        if (dev != null) {
            dev.port(p.portNum).addCounter(PortCounter.RX_KERNEL_DROPS, n);
        }
    }

    @Override
    protected void dropMalformed(DriverPort port) {
        ports[port.portNum() - 1].malformed++;
        super.dropMalformed(port);
    }

    @Override
    public String toString() {
        return "JniDriver{" + name + ", " + getPciDev() + ", wire=" + wire + ", mtu=" + mtu.bytes() + '}';
    }

    private static void checkPort(String what, int v, boolean zeroOk) {
        if (v < (zeroOk ? 0 : 1) || v > 0xFFFF) {
            throw new IllegalArgumentException(what + " must be in " + (zeroOk ? 0 : 1) + "..65535, got " + v);
        }
    }

    /** Configures a {@link JniDriver}. */
    public static final class Builder {
        /** Source sockets per port by default ({@link #sourcePorts(int)}). */
        public static final int DEFAULT_SOURCE_PORTS = 16;
        /** The most source sockets per port: every port of 0xC000-0xFFFF. */
        public static final int MAX_SOURCE_PORTS = 0x4000;
        private final List<InetAddress> addresses = new ArrayList<>();
        private final Map<Gid, Integer> peers = new LinkedHashMap<>();
        private String name = "roce0";
        private int udpPort = ROCEV2_PORT;
        private int defaultPeerPort = ROCEV2_PORT;
        private PathMtu mtu = PathMtu.MTU_4096;
        private int maxQp = 4096;
        private Wire wire = Wire.NATIVE;
        private boolean busyPoll;
        private boolean checkIpv4Icrc = true;
        private boolean ownThreads = true;
        private int batch = 32;
        private int socketBufferBytes = 4 << 20;
        private int sourcePorts = DEFAULT_SOURCE_PORTS;
        private UnaryOperator<Datagrams> decorator;

        Builder() {
        }

        /**
         * @param v the driver (and device) name
         * @return this
         */
        public Builder name(String v) {
            if (v == null || v.isBlank()) {
                throw new IllegalArgumentException("name must be a non-empty string, got '" + v + "'");
            }
            name = v;
            return this;
        }

        /**
         * Adds a port bound to this address (IPv4 or IPv6, a literal or a host name); its GID is the address. A
         * link-local IPv6 address names its interface ({@code fe80::1%eth0}); its peers' link-local GIDs are then
         * reached through that interface.
         *
         * @param v the address
         * @return this
         */
        public Builder address(String v) {
            if (v == null || v.isBlank()) {
                throw new IllegalArgumentException("address must be an IP address, got '" + v + "'");
            }
            try {
                return address(InetAddress.getByName(v.trim()));
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("address '" + v + "' is not an IP address or known host", e);
            }
        }

        /**
         * Adds a port bound to this address.
         *
         * @param v the address
         * @return this
         */
        public Builder address(InetAddress v) {
            if (v == null || v.isAnyLocalAddress() || v.isMulticastAddress()) {
                throw new IllegalArgumentException("address must be a unicast IP address of this host (its GID), got "
                        + v);
            }
            if (v instanceof Inet6Address && v.isLinkLocalAddress() && ((Inet6Address) v).getScopeId() == 0) {
                throw new IllegalArgumentException("address " + v.getHostAddress() + " is link-local: name its "
                        + "interface, e.g. fe80::1%<interface>");
            }
            addresses.add(v);
            return this;
        }

        /**
         * @param v the UDP port every port binds (default 4791; 0: an ephemeral port each, see
         *          {@link JniDriver#localPort})
         * @return this
         */
        public Builder udpPort(int v) {
            checkPort("udpPort", v, true);
            udpPort = v;
            return this;
        }

        /**
         * @param v the UDP port of peers missing from the peer table (default 4791)
         * @return this
         */
        public Builder defaultPeerPort(int v) {
            checkPort("defaultPeerPort", v, false);
            defaultPeerPort = v;
            return this;
        }

        /**
         * Adds a peer table entry: packets to this GID or IP address go to {@code udpPort}.
         *
         * @param gidOrIp the peer's GID ({@code fe80::...} or {@code ::ffff:10.0.0.2}) or IP address
         * @param udpPort its UDP port
         * @return this
         */
        public Builder peer(String gidOrIp, int udpPort) {
            checkPort("peer UDP port", udpPort, false);
            InetAddress a;
            try {
                a = InetAddress.getByName(gidOrIp == null ? "" : gidOrIp.trim());
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("peer '" + gidOrIp + "' is not a GID or IP address", e);
            }
            if (gidOrIp == null || gidOrIp.isBlank()) {
                throw new IllegalArgumentException("peer must be a GID or IP address, got '" + gidOrIp + "'");
            }
            peers.put(Peer.gidOf(a), udpPort);
            return this;
        }

        /**
         * @param v the ports' MTU (the largest path MTU QPs may use)
         * @return this
         */
        public Builder mtu(PathMtu v) {
            if (v == null) {
                throw new IllegalArgumentException("mtu must not be null");
            }
            mtu = v;
            return this;
        }

        /**
         * @param v most QPs (and CQs)
         * @return this
         */
        public Builder maxQp(int v) {
            if (v < 1) {
                throw new IllegalArgumentException("maxQp must be at least 1, got " + v);
            }
            maxQp = v;
            return this;
        }

        /**
         * @param v the socket layer (default {@link Wire#NATIVE})
         * @return this
         */
        public Builder wire(Wire v) {
            if (v == null) {
                throw new IllegalArgumentException("wire must not be null");
            }
            wire = v;
            return this;
        }

        /**
         * @param v true: the port engines spin on the socket when idle (lowest latency, a core each); false (the
         *          default): spin briefly, then wait in {@code poll}
         * @return this
         */
        public Builder busyPoll(boolean v) {
            busyPoll = v;
            return this;
        }

        /**
         * @param v true (the default): each port has an engine thread of its own; false: the driver starts no thread
         *          and the caller runs {@link JniDriver#doWork()} (one thread may serve several drivers)
         * @return this
         */
        public Builder ownThreads(boolean v) {
            ownThreads = v;
            return this;
        }

        /**
         * @param v whether IPv4 packets are checked under the ID-0 convention (default true; turn off for peers that
         *          do not send IPv4 Identification 0, e.g. {@link Wire#JDK} senders)
         * @return this
         */
        public Builder checkIpv4Icrc(boolean v) {
            checkIpv4Icrc = v;
            return this;
        }

        /**
         * @param v datagrams per {@code sendmmsg}/{@code recvmmsg}, 1..64 (default 32)
         * @return this
         */
        public Builder batch(int v) {
            if (v < 1 || v > NativeUdp.MAX_BATCH) {
                throw new IllegalArgumentException("batch must be in 1.." + NativeUdp.MAX_BATCH + ", got " + v);
            }
            batch = v;
            return this;
        }

        /**
         * @param v SO_SNDBUF/SO_RCVBUF to ask for, bytes (default 4 MiB; the kernel caps it at
         *          {@code net.core.[rw]mem_max})
         * @return this
         */
        public Builder socketBufferBytes(int v) {
            if (v < 0) {
                throw new IllegalArgumentException("socketBufferBytes must be >= 0, got " + v);
            }
            socketBufferBytes = v;
            return this;
        }

        /**
         * @param v most UDP source sockets per port, 1..{@value #MAX_SOURCE_PORTS} (default
         *          {@value #DEFAULT_SOURCE_PORTS}): each flow (QP pair) sends from its own source port in
         *          0xC000-0xFFFF ({@link JniDriver#flowSourcePort}), whose socket the port opens when the flow first
         *          sends, so that ECMP routers spread QPs over paths as they do for RoCE NICs; flows beyond {@code v}
         *          sockets share them; 1: every packet leaves from the port's own socket (e.g. 4791)
         * @return this
         */
        public Builder sourcePorts(int v) {
            if (v < 1 || v > MAX_SOURCE_PORTS) {
                throw new IllegalArgumentException("sourcePorts must be in 1.." + MAX_SOURCE_PORTS + ", got " + v);
            }
            sourcePorts = v;
            return this;
        }

        /** Tests: wraps each socket (fault injection). */
        Builder decorate(UnaryOperator<Datagrams> v) {
            decorator = v;
            return this;
        }

        /**
         * Binds the sockets; the engine threads start when the driver is registered.
         *
         * @return the driver
         * @throws IllegalArgumentException if no address was given
         * @throws IllegalStateException if {@link Wire#NATIVE} is chosen and the library is not available
         * @throws UdpException if a socket cannot be bound (e.g. {@code EADDRINUSE}, {@code EADDRNOTAVAIL})
         */
        public JniDriver build() {
            if (addresses.isEmpty()) {
                throw new IllegalArgumentException("at least one address is required (one port per address)");
            }
            return new JniDriver(this);
        }
    }
}
