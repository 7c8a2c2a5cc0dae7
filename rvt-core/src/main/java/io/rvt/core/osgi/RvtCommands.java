package io.rvt.core.osgi;

import io.rvt.api.DeviceAttributes;
import io.rvt.api.DeviceCounter;
import io.rvt.api.PortAttr;
import io.rvt.api.PortCounter;
import io.rvt.api.spi.QpIter;
import io.rvt.api.spi.engine.EngineQp;
import io.rvt.core.RvtDevice;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The {@code rvt:*} commands of the Apache Felix Gogo shell (a plain service with {@code osgi.command.scope=rvt}; no
 * compile-time dependency on Gogo). Each prints its text to {@code System.out}, which Gogo's thread I/O (Felix's
 * and Karaf's) routes to the session running the command, and returns nothing: Karaf's batch mode ({@code bin/client
 * rvt:devices}, an ssh command) does not print a command's return value while its console does, so a command that
 * returned its text would show nothing in one and, if it also printed, everything twice in the other.
 *
 * <pre>
 * rvt:devices        one line per device, then refused drivers
 * rvt:ports          port state, LID, MTU of every port
 * rvt:qps [device]   the QPs, through the QP iterator (rvt_qp_iter): QPN, type, state, send ring indices
 * rvt:stat [device]  the port and device counters that are not zero
 * </pre>
 */
public final class RvtCommands {
    /** The command names, for {@code osgi.command.function}. */
    static final String[] FUNCTIONS = {"devices", "ports", "qps", "stat"};

    private final DriverTracker tracker;
    private final Supplier<PrintStream> out;

    RvtCommands(DriverTracker tracker) {
        this(tracker, () -> System.out); // looked up per call: Gogo swaps System.out for its thread-routing stream
    }

    /**
     * @param tracker the devices
     * @param out     where the commands print
     */
    RvtCommands(DriverTracker tracker, Supplier<PrintStream> out) {
        this.tracker = tracker;
        this.out = out;
    }

    private void print(String text) {
        PrintStream ps = out.get();
        ps.print(text);
        ps.flush();
    }

    /** {@code rvt:devices}: prints one line per device (name, node GUID, driver, ports), then the refused drivers. */
    public void devices() {
        print(devicesText());
    }

    /** {@code rvt:ports}: prints one line per port (device, port, state, LID, active MTU). */
    public void ports() {
        print(portsText());
    }

    /** {@code rvt:qps}: prints the QPs of every device. */
    public void qps() {
        print(qpsText(null));
    }

    /**
     * {@code rvt:qps device}: prints the device's QPs.
     *
     * @param device a device name
     * @throws IllegalArgumentException if no device has that name
     */
    public void qps(String device) {
        print(qpsText(device));
    }

    /** {@code rvt:stat}: prints the non-zero counters of every device. */
    public void stat() {
        print(statText(null));
    }

    /**
     * {@code rvt:stat device}: prints the device's non-zero counters.
     *
     * @param device a device name
     * @throws IllegalArgumentException if no device has that name
     */
    public void stat(String device) {
        print(statText(device));
    }

    /** @return one line per device: name, node GUID, driver, ports; then the refused drivers */
    String devicesText() {
        StringBuilder sb = new StringBuilder();
        List<RvtDevice> devices = tracker.devices();
        sb.append(String.format("%-16s %-19s  %-12s %s%n", "device", "node_guid", "driver", "ports"));
        for (RvtDevice d : devices) {
            sb.append(String.format("%-16s %-19s  %-12s %d%n", d.name(),
                    DeviceAttributes.formatGuid(d.props().nodeGuid()), d.driverName(), d.portCount()));
        }
        if (devices.isEmpty()) {
            sb.append("(no devices)\n");
        }
        for (String r : tracker.refused()) {
            sb.append("refused: ").append(r).append('\n');
        }
        return sb.toString();
    }

    /** @return one line per port: device, port, state, LID, active MTU */
    String portsText() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("%-16s %4s %-8s %6s %6s%n", "device", "port", "state", "lid", "mtu"));
        for (RvtDevice d : tracker.devices()) {
            for (int p = 1; p <= d.portCount(); p++) {
                PortAttr a = d.queryPort(p, new PortAttr());
                sb.append(String.format("%-16s %4d %-8s 0x%04x %6d%n", d.name(), p, a.state(), a.lid(),
                        a.activeMtu().bytes()));
            }
        }
        return sb.toString();
    }

    /**
     * @param device a device name, or null for all
     * @return one line per QP: QPN, type, state, send ring (size, head, tail, last, reserved in use)
     */
    String qpsText(String device) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("%-16s %8s %-4s %-6s %6s %6s %6s %6s %8s%n", "device", "qpn", "type", "state",
                "size", "head", "tail", "last", "reserved"));
        for (RvtDevice d : select(device)) {
            QpIter it = d.qpIter();
            while (it.next()) {
                EngineQp qp = EngineQp.of(it.qp());
                sb.append(String.format("%-16s 0x%06x %-4s %-6s %6d %6d %6d %6d %8d%n", d.name(), qp.qpNum(),
                        qp.type(), qp.state(), qp.sendQueue().size(), qp.sendQueue().head(), qp.requester().tail,
                        qp.sendQueue().last(), qp.sendQueue().reservedUsed()));
            }
        }
        return sb.toString();
    }

    /**
     * @param device a device name, or null for all
     * @return the device counters and, per port, the port counters that are not zero
     */
    String statText(String device) {
        StringBuilder sb = new StringBuilder();
        for (RvtDevice d : select(device)) {
            sb.append(d.name()).append('\n');
            for (DeviceCounter c : DeviceCounter.values()) {
                long v = d.deviceCounter(c);
                if (v != 0) {
                    sb.append(String.format("  %-24s %d%n", c.name().toLowerCase(Locale.ROOT), v));
                }
            }
            for (int p = 1; p <= d.portCount(); p++) {
                sb.append("  port ").append(p).append('\n');
                for (PortCounter c : PortCounter.values()) {
                    long v = d.portCounter(p, c);
                    if (v != 0) {
                        sb.append(String.format("    %-22s %d%n", c.name().toLowerCase(Locale.ROOT), v));
                    }
                }
            }
        }
        return sb.toString();
    }

    private List<RvtDevice> select(String name) {
        List<RvtDevice> all = tracker.devices();
        if (name == null) {
            return all;
        }
        List<RvtDevice> one = all.stream().filter(d -> d.name().equals(name)).toList();
        if (one.isEmpty()) {
            throw new IllegalArgumentException("no device named '" + name + "'");
        }
        return one;
    }
}
