package io.rvt.driver.jni;

import io.rvt.api.AhAttr;
import io.rvt.api.Errno;
import io.rvt.api.Gid;
import io.rvt.api.PathMtu;
import io.rvt.api.PortAttr;
import io.rvt.api.PortState;
import io.rvt.api.QpAttr;
import io.rvt.api.QpType;
import io.rvt.api.VerbsException;
import io.rvt.api.spi.GidLookup;
import io.rvt.api.spi.PortModify;
import io.rvt.api.spi.PortQuery;
import io.rvt.api.spi.DriverAh;
import io.rvt.api.spi.DriverDevice;
import io.rvt.api.spi.DriverParams;
import io.rvt.api.spi.DriverPort;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.OperationTable;
import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.transport.PacketDriver;
import io.rvt.transport.engine.Packets;
import io.rvt.transport.QpSendEngine;
import io.rvt.transport.RcInFlight;
import io.rvt.transport.engine.RxInfo;
import io.rvt.transport.ThreadScratch;
import io.rvt.transport.Transport;
import io.rvt.transport.engine.TxInfo;
import io.rvt.transport.header.Framing;
import io.rvt.transport.header.Icrc;
import io.rvt.transport.header.Opcode;

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
 * <p>How packets become datagrams and back (addresses and GIDs, UDP source ports, ICRC, multicast, zero copy):
 * the {@linkplain io.rvt.driver.jni package documentation}.
 *
 * <h2>Threads</h2>
 * A QP's send engine runs on the poster's thread ({@code do_send}) and otherwise on its port's engine thread, which
 * also receives (see {@link PortEngine}); a per-QP counter lets only one thread drain a QP at a time, and a drainer
 * hands its packets to the kernel before it lets go of the QP, so no later packet overtakes them. By default
 * ({@link JniDriverBuilder#threading(ThreadingMode) ThreadingMode.PROGRESS}) a thread that polls one of the device's CQs and
 * finds it empty runs the port engines itself (the progress hook, {@link #progress(int)}), and the ports' threads
 * only step in when no one has for a while. With
 * {@link JniDriverBuilder#ownThreads(boolean) ownThreads(false)} the caller runs the engines ({@link #doWork()}), e.g. one
 * thread for every HCA of a JVM, which suits a 2-core machine.
 *
 * <p>{@link #unregistering} (or {@link #close()}) stops the engine threads and closes the sockets.
 */
public class JniDriver extends PacketDriver<QpSendEngine, TxScratch>
        implements PortQuery, PortModify, GidLookup, AutoCloseable {
    /** The RoCEv2 UDP port, {@value}. */
    public static final int ROCEV2_PORT = Framing.ROCEV2_UDP_PORT;

    private final String name;
    private final PathMtu mtu;
    private final Wire wire;
    private final long nodeGuid;
    private final DriverParams params;
    private final PortEngine[] ports;
    private final boolean ownThreads;
    /** PROGRESS (the default) or DEDICATED when {@link #ownThreads}; INVOKER otherwise. */
    private final ThreadingMode threading;
    private final long backstopQuietNanos;
    /** RC retries back off ({@link JniDriverBuilder#retryBackoff}). */
    private final boolean retryBackoff;
    /** The wire's two halves: RoCEv2 framing of what the transport sends, and of what the sockets receive. */
    private final RoceSender roce;
    private final RoceReceiver receiver;
    /** Each sending thread's scratch, kept by the driver, not by the threads (no pinning of this bundle's loader). */
    private final ThreadScratch<TxScratch> txScratch;
    private final Sockets sockets;
    private final int sourcePorts;
    private volatile boolean closed;
    private final UdQpCount udQps;

    JniDriver(JniDriverBuilder b) {
        super(QpSendEngine.class); // no per-QP state beyond the engine's counter
        if (b.wire == Wire.NATIVE) {
            NativeUdp.ensureAvailable();
        }
        this.name = b.name;
        this.mtu = b.mtu;
        this.wire = b.wire;
        this.ownThreads = b.ownThreads && b.threading != ThreadingMode.INVOKER;
        this.threading = ownThreads ? b.threading : ThreadingMode.INVOKER;
        this.backstopQuietNanos = b.backstopQuietNanos;
        this.retryBackoff = b.retryBackoff;
        this.sockets = new Sockets(b.wire, b.socketBufferBytes, b.udpGso, b.decorator);
        this.sourcePorts = b.sourcePorts;
        int nports = b.addresses.size();
        int slotSize = slotSize(mtu);
        int batch = b.batch;
        boolean gather = b.wire == Wire.NATIVE;
        this.txScratch = new ThreadScratch<>(() -> new TxScratch(batch, slotSize, gather));
        this.ports = new PortEngine[nports];
        this.udQps = new UdQpCount(on -> {
            for (PortEngine p : ports) {
                p.io.receiveIpInfo(on);
            }
        });
        this.roce = new RoceSender(b.defaultPeerPort);
        this.receiver = new RoceReceiver(nports, b.checkIpv4Icrc, b.solveIpv4Id, mtu.bytes());
        try {
            for (int i = 0; i < nports; i++) {
                // The port's own socket receives, and sends unless flows have source ports of their own.
                Datagrams io = sockets.open(b.addresses.get(i), b.udpPort, false);
                int rxSlotSize = b.udpGro && io.receiveCoalesced() ? GRO_SLOT_SIZE : slotSize;
                int portNum = i + 1;
                ports[i] = new PortEngine(b, portNum, io, slotSize, rxSlotSize, sockets, roce, receiver,
                        sc -> newDelivery(portNum, sc));
            }
        } catch (RuntimeException e) {
            closeSockets();
            throw e;
        }
        this.nodeGuid = NodeGuid.of(name, b.addresses, ports);
        this.params = packetHcaParams(nodeGuid, 0x4A4E, b.maxQp, nports);
        b.peers.forEach(this::addPeer);
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

    /**
     * A receive slot of a socket with UDP GRO holds the largest coalesced datagram, 65,535 bytes of UDP payload at
     * most; one cache line more, so that consecutive slots do not start in the same cache sets.
     */
    static final int GRO_SLOT_SIZE = 65536 + 64;

    /** A slot holds the largest packet: transport headers, one path MTU of payload, pad and ICRC. */
    private static int slotSize(PathMtu mtu) {
        int n = Packets.MAX_TRANSPORT_HEADER + mtu.bytes() + 4 + Icrc.LENGTH;
        return (n + 63) & ~63;
    }

    /** @return a builder with the defaults (port 4791, MTU 4096, native wire; an address is required) */
    public static JniDriverBuilder builder() {
        return new JniDriverBuilder();
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

    /**
     * @param portNum a port, 1-based
     * @return whether its socket receives datagrams the kernel coalesced ({@link JniDriverBuilder#udpGro}: asked for
     *         and granted)
     */
    public boolean receivesCoalesced(int portNum) {
        return port(portNum).lane.rx.slotSize == GRO_SLOT_SIZE;
    }

    /** @return the most UDP source sockets per port ({@link JniDriverBuilder#sourcePorts(int)}) */
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
        roce.addPeer(new Peer(gid, udpPort));
    }

    /**
     * Forgets a peer that {@link #addPeer} or the builder gave: packets whose DGID is {@code gid} go to the default
     * UDP port again.
     *
     * @param gid the peer's GID
     * @return whether it was a peer
     */
    public boolean removePeer(Gid gid) {
        return roce.removePeer(gid);
    }

    /**
     * @param dgid a destination GID
     * @return the UDP port packets to it go to: its peer entry's, else the default
     */
    int peerPort(Gid dgid) {
        return roce.peerPort(dgid);
    }

    /**
     * rvt extension: what port {@code portNum} counted since its socket opened (ICRC errors, malformed datagrams,
     * the kernel's drops, zero-copy packets, its system calls) and what the kernel granted its socket.
     *
     * @param portNum a port, 1-based
     * @return the port's statistics, live
     */
    public PortStatistics statistics(int portNum) {
        return port(portNum).stats;
    }

    /**
     * @param portNum a port, 1-based
     * @return {@link PortStatistics#icrcErrors()} of the port
     * @deprecated {@code statistics(portNum).icrcErrors()}
     */
    @Deprecated
    public long icrcErrors(int portNum) {
        return statistics(portNum).icrcErrors();
    }

    /**
     * @param portNum a port, 1-based
     * @return {@link PortStatistics#zeroCopyPackets()} of the port
     * @deprecated {@code statistics(portNum).zeroCopyPackets()}
     */
    @Deprecated
    public long zeroCopyPackets(int portNum) {
        return statistics(portNum).zeroCopyPackets();
    }

    /**
     * @param portNum a port, 1-based
     * @return {@link PortStatistics#socketCalls()} of the port
     * @deprecated {@code statistics(portNum).socketCalls()}
     */
    @Deprecated
    public SocketCalls socketCalls(int portNum) {
        return statistics(portNum).socketCalls();
    }

    /**
     * @param portNum a port, 1-based
     * @return {@link PortStatistics#malformed()} of the port
     * @deprecated {@code statistics(portNum).malformed()}
     */
    @Deprecated
    public long malformed(int portNum) {
        return statistics(portNum).malformed();
    }

    /**
     * @param portNum a port, 1-based
     * @return {@link PortStatistics#kernelDrops()} of the port
     * @deprecated {@code statistics(portNum).kernelDrops()}
     */
    @Deprecated
    public long kernelDrops(int portNum) {
        return statistics(portNum).kernelDrops();
    }

    /**
     * @param portNum a port, 1-based
     * @return {@link PortStatistics#sendErrors()} of the port
     * @deprecated {@code statistics(portNum).sendErrors()}
     */
    @Deprecated
    public long sendErrors(int portNum) {
        return statistics(portNum).sendErrors();
    }

    /**
     * @param portNum a port, 1-based
     * @return {@link PortStatistics#receiveBufferBytes()} of the port
     * @deprecated {@code statistics(portNum).receiveBufferBytes()}
     */
    @Deprecated
    public int receiveBufferBytes(int portNum) {
        return statistics(portNum).receiveBufferBytes();
    }

    /**
     * @param portNum a port, 1-based
     * @return {@link PortStatistics#sendBufferBytes()} of the port
     * @deprecated {@code statistics(portNum).sendBufferBytes()}
     */
    @Deprecated
    public int sendBufferBytes(int portNum) {
        return statistics(portNum).sendBufferBytes();
    }

    /**
     * The RC window of a port: how many RC PSNs its QPs together may have in flight, derived from the receive buffer
     * the kernel granted ({@link #rcWindowPackets(int, int)}), so that a stream does not overrun the peer's socket;
     * a requester at the window waits for an ACK.
     *
     * @param portNum a port, 1-based
     * @return the window in packets, 0 if the wire cannot tell the buffer (no window)
     */
    public int rcWindowPackets(int portNum) {
        return statistics(portNum).rcWindowPackets();
    }

    /**
     * @param portNum a port, 1-based
     * @return how its RC window is used (PSNs in flight now, the most at once, waits), or null before registration
     *         or without a window
     */
    public RcInFlight rcInFlight(int portNum) {
        port(portNum);
        Transport t = transport();
        return t == null ? null : t.rcInFlight(portNum);
    }

    /**
     * What one datagram of {@code udpPayloadBytes} takes of a Linux socket's receive buffer (its {@code truesize}):
     * the kernel's allocation for the packet, rounded up to a power of two, plus its {@code sk_buff} bookkeeping.
     * Measured on loopback (a 4,200-byte datagram takes 8,448 bytes, a 100-byte one 832); NICs that receive into
     * pages charge a page or less for an MTU-sized frame, so this errs on the safe side.
     *
     * @param udpPayloadBytes the datagram's UDP payload
     * @return the bytes it is charged
     */
    static int datagramTruesize(int udpPayloadBytes) {
        int data = udpPayloadBytes + 384; // IP, UDP and link headers, skb_shared_info
        return Integer.highestOneBit(data - 1) * 2 + 320;
    }

    /**
     * The RC window for a granted receive buffer: half the datagrams of the largest size it holds, so that after a
     * loss the rewound requester's window fits beside the stale packets of the old one still queued (go-back-N),
     * and a requester's ACKs and other peers' traffic have room.
     *
     * @param receiveBufferBytes {@code SO_RCVBUF} as granted (the kernel's doubled figure, which it compares the
     *        datagrams' truesize against)
     * @param mtuBytes the path MTU
     * @return the window in packets, at least 1; 0 if the buffer is unknown
     */
    static int rcWindowPackets(int receiveBufferBytes, int mtuBytes) {
        if (receiveBufferBytes <= 0) {
            return 0;
        }
        int datagram = Packets.MAX_TRANSPORT_HEADER + mtuBytes + Icrc.LENGTH;
        return Math.max(1, receiveBufferBytes / datagramTruesize(datagram) / 2);
    }

    private void logBuffers(PortEngine p) {
        System.Logger log = System.getLogger(JniDriver.class.getName());
        // A buffer below what was asked (Linux reports twice the request) means the kernel capped it.
        boolean capped = sockets.bufferBytes() > 0 && p.stats.receiveBufferBytes() >= 0
                && p.stats.receiveBufferBytes() < 2L * sockets.bufferBytes();
        System.Logger.Level level = capped ? System.Logger.Level.INFO : System.Logger.Level.DEBUG;
        if (log.isLoggable(level)) {
            log.log(level, name + " port " + p.portNum + " (" + Peer.format(p.io.localAddress(), p.io.localPort())
                    + "): the kernel granted SO_RCVBUF " + p.stats.receiveBufferBytes() + " B, SO_SNDBUF "
                    + p.stats.sendBufferBytes() + " B (asked " + sockets.bufferBytes() + " B each"
                    + (capped ? "; capped: raise net.core.rmem_max or run with CAP_NET_ADMIN" : "")
                    + "); RC window " + p.stats.rcWindowPackets() + " packets");
        }
    }

    PortEngine port(int portNum) {
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

    /**
     * @return {@code roce:<address>:<port>,...}, the device for logs: what rdmavt's {@code get_pci_dev} gave, no
     *         longer a callback
     */
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
        Transport t = attach(dev);
        for (PortEngine p : ports) {
            p.registered(dev.port(p.portNum));
            dev.port(p.portNum).gidPrefix(p.localGid.subnetPrefix());
            dev.port(p.portNum).lid(0);
            t.limitRcInFlight(p.portNum, p.stats.rcWindowPackets());
            t.backOffRcRetries(retryBackoff);
            logBuffers(p);
        }
        if (ownThreads) {
            for (PortEngine p : ports) {
                p.start("rvt-jni-" + name + "-port" + p.portNum, threading, backstopQuietNanos);
            }
        }
    }

    /**
     * rvt extension, the progress hook: with {@link ThreadingMode#PROGRESS} (the default) the calling thread runs
     * each port's duty cycle that no other thread is in (receives a batch, processes it, sends what was scheduled),
     * and the ports' threads are the backstop; otherwise nothing.
     */
    @Override
    public int progress(int budget) {
        if (threading != ThreadingMode.PROGRESS) {
            return 0;
        }
        OwedSends owed = OwedSends.progressing();
        // first what this thread posted, here or on other HCAs (an in-process ping-pong posts on one, polls the other)
        int work = owed.isEmpty() ? 0 : owed.sendOwed(budget);
        for (PortEngine p : ports) {
            work += p.progress(budget);
        }
        if (!owed.isEmpty()) {
            owed.prune();
        }
        return work;
    }

    /** @return who runs the port engines */
    public ThreadingMode threading() {
        return threading;
    }

    /**
     * Runs one duty cycle of every port (receive a batch, process it, send what was scheduled) on the calling thread,
     * for a driver built with {@link JniDriverBuilder#ownThreads(boolean) ownThreads(false)}: the caller then is the engine,
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
        txScratch.release();
    }

    private void closeSockets() {
        closed = true;
        sockets.closeAll();
    }

    // ------------------------------------------------------------------ QP lifecycle

    /** @return the MTU the ports were built with: their max MTU; each port's active MTU is its link's, at most this */
    @Override
    protected PathMtu portMtu() {
        return mtu;
    }

    /**
     * Mirrors {@code get_pmtu_from_attr} as hfi1 has it: a path MTU above the active MTU of the QP's port (its
     * interface's, {@link #queryPortState}) is lowered to it.
     */
    @Override
    public int getPmtuFromAttr(DriverDevice rdi, DriverQp qp, QpAttr attr) {
        return Math.min(attr.pathMtu().value(), activeMtu(qp.portNum()).value());
    }

    /** @return port {@code portNum}'s active MTU now (port 1's for a number out of range) */
    private PathMtu activeMtu(int portNum) {
        return ports[(portNum >= 1 && portNum <= ports.length ? portNum : 1) - 1].linkMtu.active();
    }

    /**
     * Mirrors {@code qp_priv_alloc}, and counts the HCA's UD QPs: while it has one, its ports' sockets report the
     * received IP header's traffic class, hop limit and flow label, which a UD receive's GRH carries
     * ({@link Datagrams#receiveIpInfo}); with none (RC, UC and the GSI's MADs, which use only the GRH's GIDs) the
     * kernel is spared writing them on every receive.
     */
    @Override
    public Object qpPrivAlloc(DriverDevice rdi, DriverQp qp) {
        boolean ud = qp.type() == QpType.UD;
        if (ud) {
            udQps.add(1);
        }
        try {
            return super.qpPrivAlloc(rdi, qp);
        } catch (RuntimeException e) {
            if (ud) {
                udQps.add(-1);
            }
            throw e;
        }
    }

    /** Mirrors {@code qp_priv_free}; a UD QP's end may stop the sockets reporting the IP header ({@link #qpPrivAlloc}). */
    @Override
    public void qpPrivFree(DriverDevice rdi, DriverQp qp) {
        super.qpPrivFree(rdi, qp);
        if (qp.type() == QpType.UD) {
            udQps.add(-1);
        }
    }

    /** @return whether port {@code portNum}'s socket reports the received IP header's fields (tests) */
    boolean receivesIpInfo(int portNum) {
        return port(portNum).io.receivesIpInfo();
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
        props.state(up ? PortState.ACTIVE : PortState.DOWN).physState(up ? 5 : 3).maxMtu(mtu)
                .activeMtu(activeMtu(portNum))
                .lid(0).gidTblLen(1).maxVlNum(1).activeWidth(2).activeSpeed(1);
        return 0;
    }

    @Override
    public int shutDownPort(DriverDevice rdi, int portNum) {
        return 0;
    }

    @Override
    public void notifyMcastAttach(DriverDevice rdi, DriverPort port, Gid mgid, int mlid) {
        receiver.attach(port, mgid, mlid);
    }

    @Override
    public void notifyMcastDetach(DriverDevice rdi, DriverPort port, Gid mgid, int mlid) {
        receiver.detach(port, mgid, mlid);
    }

    @Override
    public void notifyNewAh(DriverDevice rdi, AhAttr attr, DriverAh ah) {
        // UD messages may be one path MTU long: the port's active MTU (rxe's mtu_cap).
        ah.vl(0);
        ah.logPmtu(31 - Integer.numberOfLeadingZeros(activeMtu(attr.portNum()).bytes()));
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

    /**
     * A post on a port's engine thread is drained later in that engine's cycle. With {@link ThreadingMode#PROGRESS}
     * so is a post of a polling thread: it owes the port a progress ({@link OwedSends}), which it pays at its next
     * progress call on any driver-jni HCA, sending all it posted meanwhile in batches (one {@code sendmmsg} per post
     * before); the backstop sends what a thread that never progresses again left. A thread that does not poll drains
     * and sends on its own stack, unless another thread is in the port's engine (whose unsent batch it must not
     * overtake).
     */
    @Override
    protected boolean drainsHere(QpSendEngine s) {
        PortEngine p = portOf(s.qp);
        if (p.isEngineThread()) {
            return false;
        }
        return threading != ThreadingMode.PROGRESS || !OwedSends.leaveToProgress(p);
    }

    @Override
    protected TxScratch sendScratch() {
        return txScratch.get();
    }

    /**
     * Out before another thread may take the QP over: its later packets must not overtake these. With
     * {@link ThreadingMode#PROGRESS} only a port engine's holder drains (posts are queued, {@link #drainsHere}), and
     * it sends its batch at its cycle's end, before it lets go of the engine: the ACKs of a receive batch and the
     * packets of every QP drained in the cycle leave together.
     */
    @Override
    protected void packetsOut(QpSendEngine s, TxScratch sc) {
        if (threading != ThreadingMode.PROGRESS || sc.port == null || sc != sc.port.lane.tx) {
            roce.flush(sc);
        }
    }

    /** @return 1 if a packet was made (sent, queued or dropped), 0 if the QP has nothing to send now */
    @Override
    protected int sendPacket(QpSendEngine s, TxScratch sc) {
        DriverQp qp = s.qp;
        PortEngine p = portOf(qp);
        if (sc.port != p) {
            roce.flush(sc);
            sc.port = p;
        }
        TxBatch b = sc.batch;
        if (b.isFull()) {
            roce.flush(sc);
        }
        TxInfo tx = sc.info;
        int off = b.nextOffset();
        tx.payloadInto(b.nextPayload()); // a referenced payload is recorded in the packet's slot itself
        int n = transport().makePacket(qp, b.data, off, tx);
        if (n <= 0) {
            return 0;
        }
        boolean ack = (b.data.get(off) & 0xFF) == Opcode.RC_ACKNOWLEDGE; // BTH byte 0; framing may move the slot
        int copies = roce.frame(sc, p, off, n);
        for (int k = 0; k < copies; k++) {
            countSent(s, p.portNum, n + Icrc.LENGTH);
        }
        if (ack && copies > 0) {
            p.stats.countAck();
        }
        return 1;
    }

    // ------------------------------------------------------------------ receive path

    @Override
    protected boolean admits(DriverQp qp, DriverPort port) {
        return receiver.admits(qp, port, port(port.portNum()).receivingLane().rxSource);
    }

    @Override
    protected void dropMalformed(DriverPort port) {
        ports[port.portNum() - 1].dropMalformed(port); // the port's count and RX_MALFORMED
    }

    @Override
    public String toString() {
        return "JniDriver{" + name + ", " + getPciDev() + ", wire=" + wire + ", mtu=" + mtu.bytes() + '}';
    }

    static void checkPort(String what, int v, boolean zeroOk) {
        if (v < (zeroOk ? 0 : 1) || v > 0xFFFF) {
            throw new IllegalArgumentException(what + " must be in " + (zeroOk ? 0 : 1) + "..65535, got " + v);
        }
    }
}
