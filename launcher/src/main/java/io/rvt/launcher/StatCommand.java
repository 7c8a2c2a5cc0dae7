package io.rvt.launcher;

import io.rvt.api.Device;
import io.rvt.api.PortCounter;
import io.rvt.api.QpAttr;
import io.rvt.api.QueuePair;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code rvt stat}: every port's counters ({@link PortCounter}), the state of each queue pair the traffic run used,
 * and the fabric's counters when the host can see them. By default it first runs a short checked traffic run (RC and
 * UD ping-pongs between the first two devices) so the counters say something; {@code --no-traffic} shows the devices
 * as they are.
 */
final class StatCommand {
    /** Round trips of each traffic run by default. */
    static final int DEFAULT_ITERS = 200;
    private static final int RC_SIZE = 4096;
    private static final int UD_SIZE = 1024;

    private final PrintStream out;
    private final int iters;
    private final boolean traffic;
    private final boolean lossy;

    /**
     * @param out where the counters go
     * @param iters round trips of each traffic run
     * @param traffic whether to run traffic first
     * @param lossy whether the fabric may lose frames (then only RC runs: a UD ping-pong would stop at the first
     *              lost datagram)
     */
    StatCommand(PrintStream out, int iters, boolean traffic, boolean lossy) {
        this.out = out;
        this.iters = iters;
        this.traffic = traffic;
        this.lossy = lossy;
    }

    /**
     * Runs the traffic (if asked) and prints the counters.
     *
     * @param host the devices' host
     */
    void run(Host host) {
        List<Device> devs = Main.requireDevices(host, traffic ? 2 : 1, "stat");
        if (!traffic) {
            print(host, devs, List.of());
            return;
        }
        try (PingPong rc = new PingPong(host, devs.get(0), devs.get(1), Transport.RC, RC_SIZE)) {
            rc.exchange(iters);
            if (lossy) {
                out.printf("traffic: %d RC round trips of %d bytes, every message checked (no UD: the fabric "
                        + "loses frames)%n%n", iters, RC_SIZE);
                print(host, devs, List.of(rc.qa, rc.qb));
                return;
            }
            try (PingPong ud = new PingPong(host, devs.get(0), devs.get(1), Transport.UD, UD_SIZE)) {
                ud.exchange(iters);
                out.printf("traffic: %d RC round trips of %d bytes and %d UD round trips of %d bytes, every "
                        + "message checked%n%n", iters, RC_SIZE, iters, UD_SIZE);
                print(host, devs, List.of(rc.qa, rc.qb, ud.qa, ud.qb));
            }
        }
    }

    private static String name(PortCounter c) {
        return c.name().toLowerCase(Locale.ROOT);
    }

    private void print(Host host, List<Device> devs, List<QueuePair> qps) {
        List<String> ports = new ArrayList<>();
        for (Device d : devs) {
            for (int p = 1; p <= d.portCount(); p++) {
                ports.add(d.name() + ":" + p);
            }
        }
        out.println("port counters");
        StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "  %-18s", "counter"));
        for (String p : ports) {
            head.append(String.format(Locale.ROOT, " %14s", p));
        }
        out.println(head);
        Set<PortCounter> unseen = host.driver().unseenCounters();
        for (PortCounter c : PortCounter.values()) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %-18s", name(c)));
            for (Device d : devs) {
                for (int p = 1; p <= d.portCount(); p++) {
                    line.append(unseen.contains(c) ? String.format(Locale.ROOT, " %14s", "-")
                            : String.format(Locale.ROOT, " %14d", d.portCounter(p, c)));
                }
            }
            out.println(line);
        }
        if (!unseen.isEmpty()) {
            StringBuilder names = new StringBuilder();
            for (PortCounter c : unseen) {
                names.append(names.length() == 0 ? "" : ", ").append(name(c));
            }
            out.println("  - = not visible to this host (" + host.driver().whyUnseen() + "): " + names);
        }
        if (!qps.isEmpty()) {
            out.println();
            out.println("queue pairs");
            out.printf("  %-12s %-8s %-4s %-5s %-8s %-8s %-8s %-8s %-7s %-5s %s%n", "device", "qpn", "type", "state",
                    "sq_psn", "rq_psn", "dest_qp", "path_mtu", "timeout", "retry", "rnr_retry");
            QpAttr attr = new QpAttr();
            for (QueuePair qp : qps) {
                qp.queryQp(attr);
                out.printf("  %-12s 0x%06x %-4s %-5s 0x%06x 0x%06x 0x%06x %-8d %-7d %-5d %d%n", qp.device().name(),
                        qp.qpNum(), qp.type(), attr.qpState(), attr.sqPsn(), attr.rqPsn(), attr.destQpNum(),
                        attr.pathMtu().bytes(), attr.timeout(), attr.retryCnt(), attr.rnrRetry());
            }
        }
        Map<String, Long> fabric = host.fabricCounters();
        out.println();
        out.println(host.driver().networkLabel() + ": " + host.description());
        if (fabric.isEmpty()) {
            out.println("  (its counters are not visible from this host; rvt --no-osgi stat shows them)");
        }
        fabric.forEach((name, value) -> out.printf(Locale.ROOT, "  %-26s %14d%n", name, value));
    }
}
