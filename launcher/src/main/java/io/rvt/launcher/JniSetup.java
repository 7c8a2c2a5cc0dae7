package io.rvt.launcher;

import io.rvt.api.PathMtu;
import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.driver.jni.JniDriver;
import io.rvt.driver.jni.JniDriverBuilder;
import io.rvt.driver.jni.JniDriverComponent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The RoCEv2 HCAs of {@code --driver jni}: in one process two, {@code roce0} and {@code roce1}, each bound to its IP
 * address and UDP port, each with the other in its peer table (two HCAs on one address differ only by their UDP port, so the peer
 * table is what routes a packet for the shared GID to the other one). The same configuration serves both hosts: as a
 * {@link JniDriverBuilder} on the plain class path and as Config Admin properties of factory PID
 * {@value JniDriverComponent#PID} under OSGi.
 *
 * @param addresses the two HCAs' IP addresses, as given (both of one family; often the same)
 * @param udpPorts the two HCAs' UDP ports
 * @param mtu the ports' MTU in bytes
 * @param sourcePorts UDP source sockets per port ({@code --source-ports}; {@link JniDriverBuilder#sourcePorts})
 * @param threading who runs the port engines ({@code --threading}): {@link Threading#PROGRESS}, the driver's default
 *        (the command's polls, each port's thread a backstop), or {@link Threading#DEDICATED} (only the ports' threads,
 *        {@link ThreadingMode#DEDICATED})
 * @param udpGso whether IPv6 ports send runs of equal datagrams as UDP GSO messages ({@code --udp-gso};
 *        {@link JniDriverBuilder#udpGso})
 * @param udpGro whether the ports receive coalesced datagrams ({@code --udp-gro}; {@link JniDriverBuilder#udpGro})
 * @param pollerWaitMicros the most a poller spins on an idle port before it waits in {@code poll}, µs
 *        ({@code --poller-wait}; {@link JniDriverBuilder#pollerWaitNanos}), 0: never wait
 * @param pollerSpinAdaptive whether that spin adapts to the port's idle gaps ({@code --poller-spin};
 *        {@link JniDriverBuilder#adaptivePollerSpin})
 * @param peer one HCA: the address of a peer on {@link #ROCEV2_PORT} in its peer table ({@link #peer(String)}), or
 *        null for none
 */
record JniSetup(List<String> addresses, List<Integer> udpPorts, int mtu, int sourcePorts, Threading threading,
        boolean udpGso, boolean udpGro, int pollerWaitMicros, boolean pollerSpinAdaptive, String peer) {
    /** The address both HCAs bind unless {@code --address} says otherwise. */
    static final String DEFAULT_ADDRESS = "127.0.0.1";
    /** The MTU of both HCAs' ports. */
    static final int DEFAULT_MTU = 4096;
    /** The RoCEv2 UDP port (IANA), which a process with one HCA binds. */
    static final int ROCEV2_PORT = 4791;
    /** The pollers' wait, µs, unless {@code --poller-wait} says otherwise. */
    static final int DEFAULT_POLLER_WAIT_MICROS = (int) (JniDriverBuilder.DEFAULT_POLLER_WAIT_NANOS / 1000);

    /**
     * A setup whose one HCA has no peer in its table (two HCAs have each other).
     *
     * @param addresses the HCAs' IP addresses
     * @param udpPorts their UDP ports
     * @param mtu the ports' MTU in bytes
     * @param sourcePorts UDP source sockets per port
     * @param threading who runs the port engines
     * @param udpGso IPv6 UDP GSO
     * @param udpGro UDP GRO
     */
    JniSetup(List<String> addresses, List<Integer> udpPorts, int mtu, int sourcePorts, Threading threading,
            boolean udpGso, boolean udpGro) {
        this(addresses, udpPorts, mtu, sourcePorts, threading, udpGso, udpGro, DEFAULT_POLLER_WAIT_MICROS, false,
                null);
    }

    /**
     * One HCA, {@code roce0}, on UDP 4791 of {@code address}: a {@code --server} or client process.
     *
     * @param address the HCA's IP address
     * @param sourcePorts UDP source sockets per port
     * @return the setup
     */
    static JniSetup single(String address, int sourcePorts) {
        resolve(address);
        return new JniSetup(List.of(address), List.of(ROCEV2_PORT), DEFAULT_MTU, sourcePorts, Threading.PROGRESS, true,
                true);
    }

    /**
     * @param t {@link Threading#PROGRESS} or {@link Threading#DEDICATED} ({@code --threading shared} and
     *        {@code invoker} are refused for {@code --driver jni} before this)
     * @return this setup with the port engines run as {@code t} says
     */
    JniSetup threading(Threading t) {
        if (t == Threading.INVOKER || t == Threading.SHARED) {
            throw new IllegalArgumentException("driver-jni runs each port's engine on a thread of its own or from the "
                    + "command's polls (dedicated or progress), not " + t.option());
        }
        return new JniSetup(addresses, udpPorts, mtu, sourcePorts, t, udpGso, udpGro, pollerWaitMicros,
                pollerSpinAdaptive, peer);
    }

    /**
     * @param gso {@code --udp-gso}
     * @param gro {@code --udp-gro}
     * @return this setup with UDP GSO and GRO on or off
     */
    JniSetup offloads(boolean gso, boolean gro) {
        return new JniSetup(addresses, udpPorts, mtu, sourcePorts, threading, gso, gro, pollerWaitMicros,
                pollerSpinAdaptive, peer);
    }

    /**
     * @param waitMicros {@code --poller-wait}
     * @param adaptive {@code --poller-spin adaptive} (else {@code fixed})
     * @return this setup with the pollers' wait so
     */
    JniSetup pollers(int waitMicros, boolean adaptive) {
        return new JniSetup(addresses, udpPorts, mtu, sourcePorts, threading, udpGso, udpGro, waitMicros, adaptive,
                peer);
    }

    /**
     * A process's one HCA with another process's in its peer table: driver-jni sends a multicast SEND as one unicast
     * copy to each peer of the table ({@code rvt perf -g}'s client, which sends to the server's group).
     *
     * @param address the peer's IP address (its HCA on {@link #ROCEV2_PORT})
     * @return this setup with the peer
     */
    JniSetup peer(String address) {
        if (count() != 1) {
            throw new IllegalStateException("two HCAs have each other as peers, not " + address);
        }
        String literal = resolve(address).getHostAddress(); // the table takes GIDs and IP literals
        return new JniSetup(addresses, udpPorts, mtu, sourcePorts, threading, udpGso, udpGro, pollerWaitMicros,
                pollerSpinAdaptive, literal);
    }

    /** @return the peers of HCA {@code i}, as {@code address=udpport} */
    private List<String> peers(int i) {
        if (count() == 2) {
            return List.of(addresses.get(1 - i) + "=" + udpPorts.get(1 - i));
        }
        return peer == null ? List.of() : List.of(peer + "=" + ROCEV2_PORT);
    }

    /** @return the driver's threading mode for {@link #threading()} */
    private ThreadingMode mode() {
        return threading == Threading.DEDICATED ? ThreadingMode.DEDICATED : ThreadingMode.PROGRESS;
    }

    /** @return how many HCAs: 1 or 2 */
    int count() {
        return addresses.size();
    }

    /**
     * Checks {@code --address A[,B]}: one address for both HCAs or one each, IP literals or host names of one family.
     *
     * @param v the option's value
     * @return the two addresses
     * @throws UsageException naming the bad address
     */
    static List<String> parseAddresses(String v) {
        String[] parts = v.split(",", -1);
        if (parts.length > 2) {
            throw new UsageException("option --address: '" + v + "' names " + parts.length + " addresses (one for "
                    + "both HCAs, or two: A,B)");
        }
        String a = parts[0].trim();
        String b = parts.length == 2 ? parts[1].trim() : a;
        if (resolve(a) instanceof Inet4Address != resolve(b) instanceof Inet4Address) {
            throw new UsageException("option --address: " + a + " and " + b + " are not of one IP family (the two "
                    + "HCAs must reach each other)");
        }
        return List.of(a, b);
    }

    /**
     * @param a an IP literal or host name
     * @return its address
     * @throws UsageException naming it if it does not resolve
     */
    static InetAddress resolve(String a) {
        try {
            if (a.isEmpty()) {
                throw new UnknownHostException("empty");
            }
            return InetAddress.getByName(a);
        } catch (UnknownHostException e) {
            throw new UsageException("option --address: '" + a + "' is not an IP address or known host");
        }
    }

    /**
     * The setup for two addresses: UDP ports {@code udpPort} and {@code udpPort + 1}, or with {@code udpPort} 0 two
     * ports free right now (there is a short window in which another program could take one; binding then fails
     * with {@code EADDRINUSE}, named).
     *
     * @param addresses the two addresses ({@link #parseAddresses})
     * @param udpPort the first HCA's UDP port, or 0 for free ports
     * @param sourcePorts UDP source sockets per port
     * @return the setup
     */
    static JniSetup of(List<String> addresses, int udpPort, int sourcePorts) {
        List<Integer> ports = udpPort > 0 ? List.of(udpPort, udpPort + 1) : freePorts(addresses);
        return new JniSetup(addresses, ports, DEFAULT_MTU, sourcePorts, Threading.PROGRESS, true, true);
    }

    /** Two UDP ports free on the two addresses now: both sockets are bound at once, so the ports differ. */
    private static List<Integer> freePorts(List<String> addresses) {
        try (DatagramSocket a = new DatagramSocket(new InetSocketAddress(resolve(addresses.get(0)), 0));
                DatagramSocket b = new DatagramSocket(new InetSocketAddress(resolve(addresses.get(1)), 0))) {
            return List.of(a.getLocalPort(), b.getLocalPort());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find free UDP ports on " + String.join(" and ", addresses) + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * @param i 0 or 1
     * @return the HCA's (driver's) name, {@code roce0} or {@code roce1}
     */
    String name(int i) {
        return "roce" + i;
    }

    /**
     * @param i 0 or 1
     * @return a builder of HCA {@code i} (its own thread per port, run as {@link #threading()} says; native sockets)
     */
    JniDriverBuilder builder(int i) {
        JniDriverBuilder b = JniDriver.builder().name(name(i)).address(addresses.get(i)).udpPort(udpPorts.get(i))
                .mtu(PathMtu.ofBytes(mtu)).sourcePorts(sourcePorts).threading(mode()).udpGso(udpGso).udpGro(udpGro)
                .pollerWaitNanos(pollerWaitMicros * 1000L).adaptivePollerSpin(pollerSpinAdaptive);
        for (String p : peers(i)) {
            int eq = p.lastIndexOf('=');
            b.peer(p.substring(0, eq), Integer.parseInt(p.substring(eq + 1)));
        }
        return b;
    }

    /**
     * @param i 0 or 1
     * @return HCA {@code i} as a configuration of {@link JniDriverComponent} (its {@code udp_port()} is the property
     *         {@code udp.port}, Declarative Services' mapping of the method name)
     */
    Map<String, Object> properties(int i) {
        Map<String, Object> p = new HashMap<>();
        p.put("name", name(i));
        p.put("address", addresses.get(i));
        p.put("udp.port", udpPorts.get(i));
        p.put("mtu", mtu);
        p.put("source.ports", sourcePorts);
        p.put("threading", mode().name().toLowerCase(Locale.ROOT));
        p.put("udp.gso", udpGso);
        p.put("udp.gro", udpGro);
        p.put("poller.wait.nanos", pollerWaitMicros * 1000L);
        p.put("poller.spin.adaptive", pollerSpinAdaptive);
        p.put("peers", peers(i).toArray(new String[0]));
        return p;
    }

    /** @return e.g. {@code RoCEv2 over UDP on 127.0.0.1, ports 40100 and 40101} */
    String describe() {
        if (count() == 1) {
            return "RoCEv2 over UDP on " + addresses.get(0) + " port " + udpPorts.get(0);
        }
        if (addresses.get(0).equals(addresses.get(1))) {
            return "RoCEv2 over UDP on " + addresses.get(0) + ", ports " + udpPorts.get(0) + " and "
                    + udpPorts.get(1);
        }
        return "RoCEv2 over UDP on " + addresses.get(0) + " port " + udpPorts.get(0) + " and " + addresses.get(1)
                + " port " + udpPorts.get(1);
    }

    /**
     * Fails unless driver-jni's native library loaded on this platform.
     *
     * @throws IllegalStateException quoting why it did not
     */
    static void requireNativeLibrary() {
        requireNativeLibrary(JniDriver.isAvailable(), JniDriver.unavailabilityCause());
    }

    /**
     * @param available whether the library loaded
     * @param cause why not
     * @throws IllegalStateException quoting {@code cause} unless {@code available}
     */
    static void requireNativeLibrary(boolean available, Throwable cause) {
        if (!available) {
            throw new IllegalStateException("--driver jni: driver-jni's native library is not available: "
                    + (cause == null ? "no cause given" : cause.getMessage() != null ? cause.getMessage()
                            : cause.toString()));
        }
    }
}
