package io.rvt.driver.jni;

import aQute.bnd.annotation.service.ServiceCapability;
import io.rvt.api.Gid;
import io.rvt.api.PathMtu;
import io.rvt.api.spi.RvtDriver;
import io.rvt.api.spi.agent.ThreadingMode;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.osgi.annotation.bundle.Requirement;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * A {@link JniDriver} configured through Config Admin: one factory configuration of PID {@value #PID} per HCA, whose
 * properties are those of {@link Config}. Activation binds the sockets and registers the driver as an
 * {@link RvtDriver} service; rvt-core tracks those and registers one device each, calling
 * {@link JniDriver#unregistering} (threads stopped, sockets closed) before the service goes away. The service is the
 * {@link JniDriver} itself, registered by hand, so rvt-core sees the same callbacks as for a
 * {@code JniDriver.builder()} one, and a changed configuration can replace it.
 *
 * <p>A changed configuration ({@link Modified}): the {@code peers} table changes live (entries added, changed and
 * removed); any other change (name, address, UDP port, MTU, source ports, threading, UDP GSO or GRO, the pollers'
 * wait) re-creates the device, the old
 * one removed first. A configuration applied again with the same values (Karaf's fileinstall does this) changes nothing.
 *
 * <p>For resolvers: it provides the {@code RvtDriver} services it registers by code ({@link ServiceCapability}) and,
 * since every HCA is a configuration, requires Config Admin's service (effective time {@code active}: frameworks do
 * not enforce it, resolvers add a Config Admin).
 */
@ServiceCapability(RvtDriver.class)
@Requirement(namespace = "osgi.service", filter = "(objectClass=org.osgi.service.cm.ConfigurationAdmin)",
        effective = "active")
@Component(service = {}, configurationPid = JniDriverComponent.PID, configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = JniDriverComponent.Config.class, factory = true)
public final class JniDriverComponent {
    /** The configuration PID (factory PID). */
    public static final String PID = "io.rvt.driver.jni";

    /** The configuration of one RoCEv2 HCA. */
    @ObjectClassDefinition(id = PID, name = "rvt RoCEv2 driver (driver-jni)",
            description = "An RDMA device whose wire is RoCEv2 over UDP sockets")
    public @interface Config {
        /** @return the device name, or a pattern with one {@code %d} (the lowest free index); empty: roce%d */
        @AttributeDefinition(description = "Device name, or a pattern such as roce%d (lowest free index); empty "
                + "for roce0, roce1, ...", required = false)
        String name() default "";

        /** @return the IP address the port binds (IPv4 or IPv6); its GID */
        @AttributeDefinition(description = "Local IP address (IPv4 or IPv6); the port's GID")
        String address();

        /** @return the UDP port to bind */
        @AttributeDefinition(description = "UDP port (RoCEv2: 4791)")
        int udp_port() default JniDriver.ROCEV2_PORT;

        /** @return the ports' max MTU in bytes, 256..4096 (their active MTU: their interface's, at most this) */
        @AttributeDefinition(description = "max MTU in bytes: 256, 512, 1024, 2048 or 4096 (the active MTU is the"
                + " interface's, at most this)")
        int mtu() default 4096;

        /** @return most UDP source sockets per port (flow entropy; 1: all from the port's own socket) */
        @AttributeDefinition(description = "UDP source ports per port: each flow (QP pair) sends from its own port "
                + "in 0xC000-0xFFFF, up to this many sockets, so that ECMP spreads flows; 1 = every packet from the "
                + "port's own socket")
        int source_ports() default JniDriverBuilder.DEFAULT_SOURCE_PORTS;

        /** @return peer table entries {@code gid-or-ip=udpport} */
        @AttributeDefinition(description = "Peers that do not listen on 4791: entries gid-or-ip=udpport",
                required = false)
        String[] peers() default {};

        /**
         * @return who runs the port engines: {@code progress} (the default: a thread that polls the device's CQs, each
         *         port's thread a backstop) or {@code dedicated} (only the ports' threads)
         */
        @AttributeDefinition(description = "Who runs the port engines: progress (default: the threads that poll the "
                + "device's CQs, the port's thread when none has for 1 ms) or dedicated (only the port's thread)",
                required = false)
        String threading() default "progress";

        /**
         * @return whether an IPv6 port sends runs of equal datagrams with UDP GSO ({@link JniDriverBuilder#udpGso});
         *         false sends one datagram per {@code sendmmsg} entry, e.g. to capture single packets on {@code lo}
         */
        @AttributeDefinition(description = "IPv6 ports: send runs of equal datagrams to one destination as one UDP "
                + "GSO message (true, the default); false: one datagram per message (never GSO on IPv4)",
                required = false)
        boolean udp_gso() default true;

        /**
         * @return whether the ports' sockets take coalesced datagrams, UDP GRO ({@link JniDriverBuilder#udpGro});
         *         false: one datagram per packet
         */
        @AttributeDefinition(description = "Receive with UDP GRO: the kernel may hand a run of packets of one flow "
                + "as one coalesced datagram, split here into its packets (true, the default); false: one datagram "
                + "per packet", required = false)
        boolean udp_gro() default true;

        /**
         * @return the most a polling thread spins on an idle port before it waits in {@code poll}, in nanoseconds
         *         ({@link JniDriverBuilder#pollerWaitNanos}); 0: never wait
         */
        @AttributeDefinition(description = "Nanoseconds a thread polling an idle port asks its socket again before "
                + "it waits in poll (the most, when the spin adapts); 0: never wait (spin, as a NIC's poller)",
                required = false)
        long poller_wait_nanos() default JniDriverBuilder.DEFAULT_POLLER_WAIT_NANOS;

        /**
         * @return whether that spin adapts to the port's idle gaps ({@link JniDriverBuilder#adaptivePollerSpin})
         */
        @AttributeDefinition(description = "The spin before a poller waits follows the port's idle gaps: none "
                + "where the peer answers far later than poller.wait.nanos (a busy machine), up to it where the peer "
                + "answers sooner (true); false, the default: always poller.wait.nanos", required = false)
        boolean poller_spin_adaptive() default false;
    }

    /**
     * The properties that only a new device can take. A property added to {@link Config} belongs here unless
     * {@link #modified} applies it to the running driver.
     */
    record Fixed(String name, String address, int udpPort, int mtu, int sourcePorts, String threading,
            boolean udpGso, boolean udpGro, long pollerWaitNanos, boolean pollerSpinAdaptive) {
        static Fixed of(Config c) {
            return new Fixed(c.name(), c.address(), c.udp_port(), c.mtu(), c.source_ports(), c.threading(),
                    c.udp_gso(), c.udp_gro(), c.poller_wait_nanos(), c.poller_spin_adaptive());
        }
    }

    private final BundleContext context;
    /** Guarded by {@code this}; null after a re-creation failed. */
    private JniDriver driver;
    private ServiceRegistration<RvtDriver> registration;
    private Fixed fixed;
    private Map<Gid, Integer> peers;

    /**
     * Binds the sockets from the configuration and registers the driver service.
     *
     * @param context driver-jni's bundle context
     * @param config  the configuration
     * @throws IllegalArgumentException naming the bad property
     * @throws UdpException if a socket cannot be bound
     */
    @Activate
    public JniDriverComponent(BundleContext context, Config config) {
        this.context = context;
        start(config);
    }

    private void start(Config config) {
        JniDriverBuilder b = toBuilder(config);
        JniDriver d = b.build();
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("rvt.driver.name", d.name());
        ServiceRegistration<RvtDriver> r = context.registerService(RvtDriver.class, d, props);
        synchronized (this) {
            driver = d;
            registration = r;
            fixed = Fixed.of(config);
            peers = b.peers();
        }
    }

    /**
     * The configuration changed: the peer table changes live; any other change re-creates the device.
     *
     * @param config the new configuration
     * @throws IllegalArgumentException naming the bad property (after a re-creation the device is then gone until a
     *                                  valid configuration arrives)
     */
    @Modified
    void modified(Config config) {
        JniDriverBuilder b = toBuilder(config); // checks every property before anything changes
        synchronized (this) {
            if (driver != null && fixed.equals(Fixed.of(config))) {
                Map<Gid, Integer> next = b.peers();
                for (Gid gone : List.copyOf(peers.keySet())) {
                    if (!next.containsKey(gone)) {
                        driver.removePeer(gone);
                    }
                }
                next.forEach((gid, port) -> {
                    if (!port.equals(peers.get(gid))) {
                        driver.addPeer(gid, port);
                    }
                });
                peers = next;
                return;
            }
        }
        stop();
        start(config);
    }

    /** Withdraws the driver service (rvt-core removes the device), then stops threads and closes the sockets. */
    @Deactivate
    void deactivate() {
        stop();
    }

    private void stop() {
        JniDriver d;
        ServiceRegistration<RvtDriver> r;
        synchronized (this) {
            d = driver;
            r = registration;
            driver = null;
            registration = null;
        }
        if (d == null) {
            return;
        }
        try {
            r.unregister(); // rvt-core removes the device synchronously
        } catch (IllegalStateException alreadyGone) {
            // the framework withdrew it already
        }
        d.close();
    }

    /** @return the running driver, or null while a re-creation has failed */
    synchronized JniDriver driver() {
        return driver;
    }

    static JniDriverBuilder toBuilder(Config c) {
        String name = c.name().isBlank() ? JniDriverBuilder.DEFAULT_NAME : c.name();
        JniDriverBuilder b = JniDriver.builder().name(name).address(c.address()).udpPort(c.udp_port());
        try {
            b.mtu(PathMtu.ofBytes(c.mtu()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("mtu must be 256, 512, 1024, 2048 or 4096, got " + c.mtu(), e);
        }
        try {
            b.sourcePorts(c.source_ports());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("source.ports must be in 1.." + JniDriverBuilder.MAX_SOURCE_PORTS
                    + ", got " + c.source_ports(), e);
        }
        b.threading(threading(c.threading()));
        b.udpGso(c.udp_gso());
        b.udpGro(c.udp_gro());
        try {
            b.pollerWaitNanos(c.poller_wait_nanos());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("poller.wait.nanos must be at least 0, got " + c.poller_wait_nanos(),
                    e);
        }
        b.adaptivePollerSpin(c.poller_spin_adaptive());
        for (String entry : c.peers()) {
            if (entry.isBlank()) {
                continue; // a console's empty list comes as [""]
            }
            int eq = entry.lastIndexOf('=');
            if (eq <= 0 || eq == entry.length() - 1) {
                throw new IllegalArgumentException("peers entry must be gid-or-ip=udpport, got '" + entry + "'");
            }
            int port;
            try {
                port = Integer.parseInt(entry.substring(eq + 1).trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("peers entry '" + entry + "': UDP port is not a number", e);
            }
            b.peer(entry.substring(0, eq), port);
        }
        return b;
    }

    /** {@code progress} or {@code dedicated}, any case: INVOKER has no place here (no one could call doWork). */
    private static ThreadingMode threading(String v) {
        String t = v == null ? "" : v.trim().toLowerCase(Locale.ROOT);
        return switch (t) {
            case "", "progress" -> ThreadingMode.PROGRESS;
            case "dedicated" -> ThreadingMode.DEDICATED;
            default -> throw new IllegalArgumentException("threading must be progress or dedicated, got '" + v + "'");
        };
    }
}
