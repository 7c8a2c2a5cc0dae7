package io.rvt.driver.jni;

import io.rvt.api.Gid;
import io.rvt.api.PathMtu;
import io.rvt.api.spi.agent.ProgressEngine;
import io.rvt.api.spi.agent.ThreadingMode;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/** Configures a {@link JniDriver} ({@link JniDriver#builder()}). */
public final class JniDriverBuilder {
    /** The name of an HCA that is given none: rvt-core names its device roce0, roce1, ... (lowest free index). */
    public static final String DEFAULT_NAME = "roce%d";
    /** Source sockets per port by default ({@link #sourcePorts(int)}). */
    public static final int DEFAULT_SOURCE_PORTS = 16;
    /** The most source sockets per port: every port of 0xC000-0xFFFF. */
    public static final int MAX_SOURCE_PORTS = 0x4000;
    /** How long a poller spins on an idle port before it waits in {@code poll}, by default ({@link #pollerWaitNanos}). */
    public static final long DEFAULT_POLLER_WAIT_NANOS = 50_000L;
    final List<InetAddress> addresses = new ArrayList<>();
    final Map<Gid, Integer> peers = new LinkedHashMap<>();
    String name = DEFAULT_NAME;
    int udpPort = JniDriver.ROCEV2_PORT;
    int defaultPeerPort = JniDriver.ROCEV2_PORT;
    PathMtu mtu = PathMtu.MTU_4096;
    int maxQp = 4096;
    Wire wire = Wire.NATIVE;
    boolean busyPoll;
    boolean checkIpv4Icrc = true;
    boolean solveIpv4Id = true;
    boolean ownThreads = true;
    ThreadingMode threading = ThreadingMode.PROGRESS;
    long backstopQuietNanos = ProgressEngine.DEFAULT_QUIET_NANOS;
    long pollerWaitNanos = DEFAULT_POLLER_WAIT_NANOS;
    boolean adaptivePollerSpin;
    int batch = 32;
    int socketBufferBytes = 4 << 20;
    int sourcePorts = DEFAULT_SOURCE_PORTS;
    boolean udpGso = true;
    boolean udpGro = true;
    boolean retryBackoff = true;
    UnaryOperator<Datagrams> decorator;

    JniDriverBuilder() {
    }

    /**
     * @param v the device name, or a pattern with one {@code %d} that rvt-core fills with the lowest free index
     *          (default {@value #DEFAULT_NAME})
     * @return this
     */
    public JniDriverBuilder name(String v) {
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
    public JniDriverBuilder address(String v) {
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
    public JniDriverBuilder address(InetAddress v) {
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
    public JniDriverBuilder udpPort(int v) {
        JniDriver.checkPort("udpPort", v, true);
        udpPort = v;
        return this;
    }

    /**
     * @param v the UDP port of peers missing from the peer table (default 4791)
     * @return this
     */
    public JniDriverBuilder defaultPeerPort(int v) {
        JniDriver.checkPort("defaultPeerPort", v, false);
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
    public JniDriverBuilder peer(String gidOrIp, int udpPort) {
        JniDriver.checkPort("peer UDP port", udpPort, false);
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
     * @param v the ports' max MTU (default 4096; it sizes their receive slots): each port's active MTU, the largest
     *          path MTU its QPs may use, is its interface's ({@code iboe_get_mtu}: 1024 on a 1500-byte Ethernet), at
     *          most this
     * @return this
     */
    public JniDriverBuilder mtu(PathMtu v) {
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
    public JniDriverBuilder maxQp(int v) {
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
    public JniDriverBuilder wire(Wire v) {
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
    public JniDriverBuilder busyPoll(boolean v) {
        busyPoll = v;
        return this;
    }

    /**
     * @param v true (the default): each port has an engine thread of its own; false: the driver starts no thread
     *          and the caller runs {@link JniDriver#doWork()} (one thread may serve several drivers)
     * @return this
     */
    public JniDriverBuilder ownThreads(boolean v) {
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
    public JniDriverBuilder threading(ThreadingMode v) {
        if (v == null) {
            throw new IllegalArgumentException("threading must not be null");
        }
        threading = v;
        return this;
    }

    /**
     * @param nanos with {@link ThreadingMode#PROGRESS}: how long no poller may have run a port's engine before its
     *        thread does, and how long a poller may stay inside one duty cycle (taken off its core there) before the
     *        port's thread stands in beside it with a receive and send lane of its own, at least 1 (default
     *        {@value ProgressEngine#DEFAULT_QUIET_NANOS})
     * @return this
     */
    public JniDriverBuilder backstopQuietNanos(long nanos) {
        if (nanos < 1) {
            throw new IllegalArgumentException("backstopQuietNanos must be at least 1, got " + nanos);
        }
        backstopQuietNanos = nanos;
        return this;
    }

    /**
     * rvt extension. With {@link ThreadingMode#PROGRESS}: how long a thread's progress calls must have found a port
     * idle (nothing received, nothing to send) before its next one waits in {@code poll} on the port's socket (up to
     * a millisecond, or until a datagram arrives or another thread queues a send), instead of asking the socket again
     * at once. Only while the port is the only running PROGRESS port of the JVM (between two processes, one HCA
     * each): with two, the datagram a poller waits for may be the other's to receive. A spinning poller keeps a core
     * from the peer process it waits for when the machine has more busy threads than cores. 0: never wait (spin, as
     * a NIC's poller does). Default {@value #DEFAULT_POLLER_WAIT_NANOS}.
     *
     * @param nanos the idle time before a poller waits, at least 0
     * @return this
     */
    public JniDriverBuilder pollerWaitNanos(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("pollerWaitNanos must be at least 0, got " + nanos);
        }
        pollerWaitNanos = nanos;
        return this;
    }

    /**
     * rvt extension. Whether the spin before a poller waits ({@link #pollerWaitNanos}, then the most it spins) follows
     * the port's idle gaps, after KVM's halt polling: a gap the spin caught keeps it; a gap that ended in a wait,
     * judged with its wake-up in it, doubles it (from 2 µs) within twice the maximum, halves it beyond (below 2 µs:
     * none, the poller waits at once) and stops it beyond four times. Where the peer answers within the spin (a quiet
     * machine) a wait would cost a wake-up; where it answers far later (more runnable threads than cores) a spinning
     * poller is one more hog to the scheduler, while one that waits at once is woken ahead of the hogs. Two-process
     * {@code pingpong -s 64} against the fixed spin: 1.01-1.06x the round trip quiet, 0.78-0.85x beside two CPU hogs.
     * Default false (the whole {@link #pollerWaitNanos} every time): a poller that waits at once exposes a stall not
     * yet explained. Beside two CPU hogs a bidirectional two-process {@code perf --test send -b -s 4096 -n 1000}
     * stalled (no completion for 10 s on the server, both sides idle) in 6 of 18 runs adaptive and 6 of 16 with a
     * fixed 1 µs spin, 0 of 8 with the fixed 50 µs (docs/driver-jni.md).
     *
     * @param v whether the spin adapts
     * @return this
     */
    public JniDriverBuilder adaptivePollerSpin(boolean v) {
        adaptivePollerSpin = v;
        return this;
    }

    /**
     * @param v whether IPv4 packets' ICRC is checked at all (default true; off only for senders whose ICRC cannot
     *          match, e.g. ones that clear DF: a packet is then taken unchecked)
     * @return this
     */
    public JniDriverBuilder checkIpv4Icrc(boolean v) {
        checkIpv4Icrc = v;
        return this;
    }

    /**
     * rvt extension. A UDP socket does not show the sender's IPv4 Identification, which the ICRC covers: rvt sends
     * ID 0, Linux (rxe) numbers it per packet. On (the default), an IPv4 packet whose ICRC does not match under ID 0
     * is accepted if it matches under the one ID its ICRC can be solved for ({@link
     * io.rvt.transport.header.Icrc#recoverRoceV4Id}), keeping 16 of the 32 check bits for it, and counted as {@code
     * RX_IPV4_ID_SOLVED}. Off: only ID 0 matches, the full 32 bits for every packet, and Linux's IPv4 packets are
     * ICRC errors; for networks of rvt HCAs only.
     *
     * @param v whether IPv4 packets may match under a solved non-zero Identification (default true)
     * @return this
     */
    public JniDriverBuilder solveIpv4Id(boolean v) {
        solveIpv4Id = v;
        return this;
    }

    /**
     * rvt extension. On (the default), an RC QP's retry timer backs off: the n-th retransmission since the last ACK
     * that made progress waits the QP's local ACK timeout times 2^n, up to 1.07 s ({@link
     * io.rvt.transport.Transport#backOffRcRetries}), so a peer that a busy machine does not run for longer than
     * {@code retry_cnt + 1} timeouts (0.54 s with the examples' 67 ms and 7 retries) is not given up; the retry count
     * keeps its meaning. Off: every retry waits the same timeout, as rxe's and hfi1's.
     *
     * @param v whether RC retries back off (default true)
     * @return this
     */
    public JniDriverBuilder retryBackoff(boolean v) {
        retryBackoff = v;
        return this;
    }

    /**
     * @param v datagrams per {@code sendmmsg}/{@code recvmmsg}, 1..64 (default 32)
     * @return this
     */
    public JniDriverBuilder batch(int v) {
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
    public JniDriverBuilder socketBufferBytes(int v) {
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
    public JniDriverBuilder sourcePorts(int v) {
        if (v < 1 || v > MAX_SOURCE_PORTS) {
            throw new IllegalArgumentException("sourcePorts must be in 1.." + MAX_SOURCE_PORTS + ", got " + v);
        }
        sourcePorts = v;
        return this;
    }

    /**
     * rvt extension: UDP GSO on IPv6 ports ({@code UDP_SEGMENT}, Linux 4.18). With it (the default) consecutive
     * datagrams of one send batch to the same destination, with the same size (the last may be shorter), traffic
     * class, flow label and hop limit leave in one {@code sendmmsg} entry that the kernel cuts into those datagrams,
     * each with its own IPv6 and UDP header: each is exactly one RoCEv2 packet with its own ICRC, as without it. It
     * passes the kernel's send path once per run instead of once per datagram (loopback, or a device that segments
     * in hardware or in its driver). Never on IPv4: the kernel numbers the segments' IP Identification fields, which
     * the ICRC covers (driver-jni's sender computes it with ID 0). {@link Wire#NATIVE} only; a route whose device
     * refuses GSO (no checksum offload) turns it off for that socket.
     *
     * @param v false to send one datagram per {@code sendmmsg} entry on IPv6 too
     * @return this
     */
    public JniDriverBuilder udpGso(boolean v) {
        udpGso = v;
        return this;
    }

    /**
     * rvt extension: UDP GRO on receive ({@code UDP_GRO}, Linux 5.0). With it (the default) each port's socket may
     * take a run of same-size datagrams of one flow as one coalesced datagram (the kernel's GRO on a NIC's receive
     * path; on this host a UDP GSO message reaches it whole instead of being cut per datagram), which the receive
     * path splits into its RoCEv2 packets at the segment size the kernel reports, each checked (ICRC included) and
     * handed to the transport one by one, as if it had come alone; a short or bad trailing segment is dropped and
     * counted as any bad datagram. The receive slots then hold 64 KiB each (a batch of 32: 2 MiB per port).
     * {@link Wire#NATIVE} only; a kernel without {@code UDP_GRO} leaves it off (logged at INFO).
     *
     * @param v false to receive one datagram per packet, in slots of one packet
     * @return this
     */
    public JniDriverBuilder udpGro(boolean v) {
        udpGro = v;
        return this;
    }

    /** Tests: wraps each socket (fault injection). */
    JniDriverBuilder decorate(UnaryOperator<Datagrams> v) {
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
