package io.rvt.launcher;

import io.rvt.api.Device;
import io.rvt.api.PortCounter;
import java.util.Locale;
import java.util.Map;

/**
 * What a bandwidth table cost on the wire, from the two ports' counters before and after it: the requester's packets
 * and how many of them were go-back-N resends ({@code rc_resends}), and, where the host sees them, the datagrams the
 * responder's kernel dropped from a full socket receive buffer ({@code rx_kernel_drops}) against those it received.
 * Printed under the table, e.g. {@code  Port counters   : roce0 sent 262144 packets, 0 resent (0.00 %) after 0 sequence NAKs
 * and 0 timeouts; roce1
 * received 262150, kernel dropped 0 (0.000 %)}; and where the host counts its sockets' system calls (driver-jni
 * without OSGi), a second line, e.g. {@code  Socket calls    : roce0 8200 sendmmsg (32.00 datagrams each), 9000
 * recvmmsg (4000 empty), 8000 ACKs sent, 0 stand-in cycles; roce1 ...}: the last, the duty cycles the port's backstop ran
 * beside a poller stalled in the engine.
 */
final class PortTraffic {
    private final Device a;
    private final Device b;
    private final int port;
    private final boolean kernelSeen;
    private final long tx0;
    private final long resends0;
    private final long timeouts0;
    private final long seqNaks0;
    private final long rx0;
    private final long drops0;
    private final Host host;
    /** The host's fabric counters at the start, where they include socket calls; else null. */
    private final Map<String, Long> calls0;

    /**
     * Reads the counters now.
     *
     * @param a the requester
     * @param b the responder
     * @param port the port both use
     * @param host the host: its driver says whether it sees kernel drops, its fabric counters whether it counts
     *        system calls
     */
    PortTraffic(Device a, Device b, int port, Host host) {
        DriverKind driver = host.driver();
        this.host = host;
        Map<String, Long> f = host.fabricCounters();
        this.calls0 = f.containsKey(a.name() + SEND_CALLS) ? f : null;
        this.a = a;
        this.b = b;
        this.port = port;
        this.kernelSeen = !driver.unseenCounters().contains(PortCounter.RX_KERNEL_DROPS);
        tx0 = a.portCounter(port, PortCounter.TX_PACKETS);
        resends0 = a.portCounter(port, PortCounter.RC_RESENDS);
        timeouts0 = a.portCounter(port, PortCounter.RC_TIMEOUTS);
        seqNaks0 = a.portCounter(port, PortCounter.SEQ_NAKS);
        rx0 = b.portCounter(port, PortCounter.RX_PACKETS);
        drops0 = kernelSeen ? b.portCounter(port, PortCounter.RX_KERNEL_DROPS) : 0;
    }

    /** @return the line that describes the traffic since construction */
    String since() {
        long tx = a.portCounter(port, PortCounter.TX_PACKETS) - tx0;
        long resends = a.portCounter(port, PortCounter.RC_RESENDS) - resends0;
        StringBuilder sb = new StringBuilder(" Port counters   : ");
        long timeouts = a.portCounter(port, PortCounter.RC_TIMEOUTS) - timeouts0;
        long seqNaks = a.portCounter(port, PortCounter.SEQ_NAKS) - seqNaks0;
        sb.append(String.format(Locale.ROOT, "%s sent %d packets, %d resent (%.2f %%) after %d sequence NAKs and %d"
                + " timeouts", a.name(), tx, resends, percent(resends, tx), seqNaks, timeouts));
        if (kernelSeen) {
            long rx = b.portCounter(port, PortCounter.RX_PACKETS) - rx0;
            long drops = b.portCounter(port, PortCounter.RX_KERNEL_DROPS) - drops0;
            sb.append(String.format(Locale.ROOT, "; %s received %d, kernel dropped %d (%.3f %%)", b.name(), rx,
                    drops, percent(drops, rx + drops)));
        }
        if (calls0 != null) {
            Map<String, Long> f = host.fabricCounters();
            sb.append(System.lineSeparator()).append(" Socket calls    : ").append(calls(f, a.name()));
            if (b != a) {
                sb.append("; ").append(calls(f, b.name()));
            }
        }
        return sb.toString();
    }

    private static final String SEND_CALLS = ".sendmmsg_calls";

    /** One HCA's system calls since the start, from its fabric counters (PlainJniHost's names). */
    private String calls(Map<String, Long> now, String hca) {
        long sends = delta(now, hca + SEND_CALLS);
        long sent = delta(now, hca + ".datagrams_sent");
        long recvs = delta(now, hca + ".recvmmsg_calls");
        long empty = delta(now, hca + ".recvmmsg_empty");
        long received = delta(now, hca + ".datagrams_received");
        long acks = delta(now, hca + ".acks_sent");
        long standIn = delta(now, hca + ".stand_in_cycles");
        return String.format(Locale.ROOT, "%s %d sendmmsg (%.2f datagrams each), %d recvmmsg (%d empty, %.2f"
                + " datagrams each), %d ACKs sent, %d stand-in cycles", hca, sends, ratio(sent, sends), recvs, empty,
                ratio(received, recvs), acks, standIn);
    }

    private long delta(Map<String, Long> now, String key) {
        return now.getOrDefault(key, 0L) - calls0.getOrDefault(key, 0L);
    }

    private static double ratio(long part, long whole) {
        return whole == 0 ? 0.0 : (double) part / whole;
    }

    private static double percent(long part, long whole) {
        return whole == 0 ? 0.0 : 100.0 * part / whole;
    }
}
