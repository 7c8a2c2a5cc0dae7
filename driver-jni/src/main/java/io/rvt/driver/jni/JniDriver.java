package io.rvt.driver.jni;

import io.rvt.api.AhAttr;
import io.rvt.api.Errno;
import io.rvt.api.Gid;
import io.rvt.api.PathMtu;
import io.rvt.api.PortAttr;
import io.rvt.api.PortCounter;
import io.rvt.api.PortState;
import io.rvt.api.VerbsException;
import io.rvt.api.spi.DriverAh;
import io.rvt.api.spi.DriverDevice;
import io.rvt.api.spi.DriverParams;
import io.rvt.api.spi.DriverPort;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.OperationTable;
import io.rvt.api.spi.agent.ProgressEngine;
import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.transport.PacketDriver;
import io.rvt.transport.Packets;
import io.rvt.transport.QpSendEngine;
import io.rvt.transport.RxInfo;
import io.rvt.transport.Transport;
import io.rvt.transport.TxInfo;
import io.rvt.transport.header.Framing;
import io.rvt.transport.header.Icrc;
import io.rvt.transport.header.PacketHeaders;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * <p>How packets become datagrams and back (addresses and GIDs, UDP source ports, ICRC, multicast, zero copy):
 * the {@linkplain io.rvt.driver.jni package documentation}.
 *
 * <h2>Threads</h2>
 * A QP's send engine runs on the poster's thread ({@code do_send}) and otherwise on its port's engine thread, which
 * also receives (see {@link PortEngine}); a per-QP counter lets only one thread drain a QP at a time, and a drainer
 * hands its packets to the kernel before it lets go of the QP, so no later packet overtakes them. By default
 * ({@link Builder#threading(ThreadingMode) ThreadingMode.PROGRESS}) a thread that polls one of the device's CQs and
 * finds it empty runs the port engines itself (the progress hook, {@link #progress(int)}), and the ports' threads
 * only step in when no one has for a while. With
 * {@link Builder#ownThreads(boolean) ownThreads(false)} the caller runs the engines ({@link #doWork()}), e.g. one
 * thread for every HCA of a JVM, which suits a 2-core machine.
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
    private final boolean ownThreads;
    /** PROGRESS (the default) or DEDICATED when {@link #ownThreads}; INVOKER otherwise. */
    private final ThreadingMode threading;
    private final long backstopQuietNanos;
    /** The wire's two halves: RoCEv2 framing of what the transport sends, and of what the sockets receive. */
    private final RoceSender roce;
    private final RoceReceiver receiver;
    /** Each posting thread's send scratch. */
    private final TxScratch.PerThread txScratch;
    private final Sockets sockets;
    private final int sourcePorts;
    private volatile DriverDevice device;
    private volatile boolean closed;

    JniDriver(Builder b) {
        if (b.wire == Wire.NATIVE) {
            NativeUdp.ensureAvailable();
        }
        this.name = b.name;
        this.mtu = b.mtu;
        this.wire = b.wire;
        this.ownThreads = b.ownThreads && b.threading != ThreadingMode.INVOKER;
        this.threading = ownThreads ? b.threading : ThreadingMode.INVOKER;
        this.backstopQuietNanos = b.backstopQuietNanos;
        this.nodeGuid = GUID_BASE + GUIDS.getAndIncrement() * 16;
        this.sockets = new Sockets(b.wire, b.socketBufferBytes, b.decorator);
        this.sourcePorts = b.sourcePorts;
        int nports = b.addresses.size();
        this.params = packetHcaParams(nodeGuid, 0x4A4E, b.maxQp, nports);
        int slotSize = slotSize(mtu);
        this.txScratch = new TxScratch.PerThread(b.batch, slotSize, b.wire == Wire.NATIVE);
        this.ports = new PortEngine[nports];
        this.roce = new RoceSender(this, b.defaultPeerPort);
        this.receiver = new RoceReceiver(this, nports, b.checkIpv4Icrc, mtu.bytes());
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
        return sockets.open(address, udpPort, reusePort);
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
        int work = 0;
        for (PortEngine p : ports) {
            work += p.progress(budget);
        }
        return work;
    }

    /** @return who runs the port engines */
    public ThreadingMode threading() {
        return threading;
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
        closed = true;
        sockets.closeAll();
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
        receiver.attach(port, mgid, mlid);
    }

    @Override
    public void notifyMcastDetach(DriverDevice rdi, DriverPort port, Gid mgid, int mlid) {
        receiver.detach(port, mgid, mlid);
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
        return txScratch.get();
    }

    /** Out before another thread may take the QP over: its later packets must not overtake these. */
    @Override
    protected void packetsOut(QpSendEngine s, TxScratch sc) {
        flush(sc);
    }

    /** Drains a QP the port engine took from its queue, with the engine's scratch. */
    void drainQueued(QpSendEngine s, TxScratch sc) {
        drain(s, sc);
    }

    /** A port engine's receive batch ended: its RX counters, then the sends its packets deferred. */
    void batchEnded(PortEngine p) {
        endBatch(p.delivery, p.tx);
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
        tx.payloadInto(b.nextPayload()); // a referenced payload is recorded in the packet's slot itself
        int n = transport().makePacket(qp, b.data, off, tx);
        if (n <= 0) {
            return 0;
        }
        int copies = roce.frame(sc, p, off, n);
        for (int k = 0; k < copies; k++) {
            countSent(s, p.portNum, n + Icrc.LENGTH);
        }
        return 1;
    }

    // ------------------------------------------------------------------ receive path

    /** A port's datagram: RoCEv2 checks and parsing ({@link RoceReceiver}), then the packet skeleton's receive. */
    void onDatagram(PortEngine p, int i) {
        receiver.onDatagram(p, i);
    }

    /** Hands a parsed unicast packet of port {@code p} to the skeleton ({@link #receive}). */
    void deliver(PortEngine p, ByteBuffer buf, PacketHeaders h, RxInfo rx) {
        receive(p.delivery, buf, h, rx);
    }

    /** Hands a parsed multicast packet of port {@code p}'s receive batch to the skeleton. */
    void deliverMulticast(PortEngine p, Gid mgid, int mlid, RxInfo rx) {
        receiveMulticast(p.delivery, mgid, mlid, p.rx.data, p.headers, rx);
    }

    @Override
    protected boolean admits(DriverQp qp, DriverPort port) {
        return receiver.admits(qp, port);
    }

    /** Sends what {@code sc}'s batch holds through its port. */
    void flush(TxScratch sc) {
        roce.flush(sc);
    }

    /** @return the registered device, or null before registration */
    DriverDevice device() {
        return device;
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
        /** The name of an HCA that is given none: rvt-core names its device roce0, roce1, ... (lowest free index). */
        public static final String DEFAULT_NAME = "roce%d";
        /** Source sockets per port by default ({@link #sourcePorts(int)}). */
        public static final int DEFAULT_SOURCE_PORTS = 16;
        /** The most source sockets per port: every port of 0xC000-0xFFFF. */
        public static final int MAX_SOURCE_PORTS = 0x4000;
        private final List<InetAddress> addresses = new ArrayList<>();
        private final Map<Gid, Integer> peers = new LinkedHashMap<>();
        private String name = DEFAULT_NAME;
        private int udpPort = ROCEV2_PORT;
        private int defaultPeerPort = ROCEV2_PORT;
        private PathMtu mtu = PathMtu.MTU_4096;
        private int maxQp = 4096;
        private Wire wire = Wire.NATIVE;
        private boolean busyPoll;
        private boolean checkIpv4Icrc = true;
        private boolean ownThreads = true;
        private ThreadingMode threading = ThreadingMode.PROGRESS;
        private long backstopQuietNanos = ProgressEngine.DEFAULT_QUIET_NANOS;
        private int batch = 32;
        private int socketBufferBytes = 4 << 20;
        private int sourcePorts = DEFAULT_SOURCE_PORTS;
        private UnaryOperator<Datagrams> decorator;

        Builder() {
        }

        /**
         * @param v the device name, or a pattern with one {@code %d} that rvt-core fills with the lowest free index
         *          (default {@value #DEFAULT_NAME})
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

        /** @return the peers given so far: GID → UDP port, in the order given */
        Map<Gid, Integer> peers() {
            return new LinkedHashMap<>(peers);
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
         * @param v who runs the port engines: {@link ThreadingMode#PROGRESS} (the default), the threads that poll the
         *          device's CQs through the progress hook, with each port's thread as the backstop;
         *          {@link ThreadingMode#DEDICATED}, only the ports' threads; {@link ThreadingMode#INVOKER}, only
         *          {@link JniDriver#doWork()} (as {@code ownThreads(false)})
         * @return this
         */
        public Builder threading(ThreadingMode v) {
            if (v == null) {
                throw new IllegalArgumentException("threading must not be null");
            }
            threading = v;
            return this;
        }

        /**
         * @param nanos with {@link ThreadingMode#PROGRESS}: how long no poller may have run a port's engine before its
         *        thread does, at least 1 (default {@value ProgressEngine#DEFAULT_QUIET_NANOS})
         * @return this
         */
        public Builder backstopQuietNanos(long nanos) {
            if (nanos < 1) {
                throw new IllegalArgumentException("backstopQuietNanos must be at least 1, got " + nanos);
            }
            backstopQuietNanos = nanos;
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
