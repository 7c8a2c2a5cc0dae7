package io.rvt.driver.jni;

import io.rvt.api.PathMtu;
import io.rvt.api.spi.RvtDriver;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * A {@link JniDriver} configured through Config Admin: one factory configuration of PID {@value #PID} per HCA, whose
 * properties are those of {@link Config}. Declarative Services activates it (binding the sockets) and registers it
 * as an {@link RvtDriver} service; rvt-core tracks those and registers one device each, calling
 * {@link #unregistering} (threads stopped, sockets closed) before the service goes away. It is the driver itself,
 * not a wrapper, so rvt-core sees the same callbacks as for a {@code JniDriver.builder()} one.
 */
@Component(service = RvtDriver.class, configurationPid = JniDriverComponent.PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = JniDriverComponent.Config.class, factory = true)
public final class JniDriverComponent extends JniDriver {
    /** The configuration PID (factory PID). */
    public static final String PID = "io.rvt.driver.jni";

    /** The configuration of one RoCEv2 HCA. */
    @ObjectClassDefinition(id = PID, name = "rvt RoCEv2 driver (driver-jni)",
            description = "An RDMA device whose wire is RoCEv2 over UDP sockets")
    public @interface Config {
        /** @return the device name */
        @AttributeDefinition(description = "Device name")
        String name() default "roce0";

        /** @return the IP address the port binds (IPv4 or IPv6); its GID */
        @AttributeDefinition(description = "Local IP address (IPv4 or IPv6); the port's GID")
        String address();

        /** @return the UDP port to bind */
        @AttributeDefinition(description = "UDP port (RoCEv2: 4791)")
        int udp_port() default ROCEV2_PORT;

        /** @return the port MTU in bytes, 256..4096 */
        @AttributeDefinition(description = "MTU in bytes: 256, 512, 1024, 2048 or 4096")
        int mtu() default 4096;

        /** @return most UDP source sockets per port (flow entropy; 1: all from the port's own socket) */
        @AttributeDefinition(description = "UDP source ports per port: each flow (QP pair) sends from its own port "
                + "in 0xC000-0xFFFF, up to this many sockets, so that ECMP spreads flows; 1 = every packet from the "
                + "port's own socket")
        int source_ports() default JniDriver.Builder.DEFAULT_SOURCE_PORTS;

        /** @return peer table entries {@code gid-or-ip=udpport} */
        @AttributeDefinition(description = "Peers that do not listen on 4791: entries gid-or-ip=udpport",
                required = false)
        String[] peers() default {};
    }

    /**
     * Binds the socket from the configuration.
     *
     * @param config the configuration
     * @throws IllegalArgumentException naming the bad property
     * @throws UdpException if the socket cannot be bound
     */
    @Activate
    public JniDriverComponent(Config config) {
        super(toBuilder(config));
    }

    /** Stops threads and closes the socket if rvt-core has not already (it normally unregisters first). */
    @Deactivate
    void deactivate() {
        close();
    }

    static JniDriver.Builder toBuilder(Config c) {
        JniDriver.Builder b = JniDriver.builder().name(c.name()).address(c.address()).udpPort(c.udp_port());
        try {
            b.mtu(PathMtu.ofBytes(c.mtu()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("mtu must be 256, 512, 1024, 2048 or 4096, got " + c.mtu(), e);
        }
        try {
            b.sourcePorts(c.source_ports());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("source.ports must be in 1.." + JniDriver.Builder.MAX_SOURCE_PORTS
                    + ", got " + c.source_ports(), e);
        }
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
}
