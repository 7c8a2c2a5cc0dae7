package io.rvt.launcher;

import io.rvt.api.Device;
import io.rvt.api.PortCounter;
import java.util.Locale;

/**
 * What a bandwidth table cost on the wire, from the two ports' counters before and after it: the requester's packets
 * and how many of them were go-back-N resends ({@code rc_resends}), and, where the host sees them, the datagrams the
 * responder's kernel dropped from a full socket receive buffer ({@code rx_kernel_drops}) against those it received.
 * Printed under the table, e.g. {@code  Port counters   : roce0 sent 262144 packets, 0 resent (0.00 %) after 0 sequence NAKs
 * and 0 timeouts; roce1
 * received 262150, kernel dropped 0 (0.000 %)}.
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

    /**
     * Reads the counters now.
     *
     * @param a the requester
     * @param b the responder
     * @param port the port both use
     * @param driver the driver, which says whether its host sees kernel drops
     */
    PortTraffic(Device a, Device b, int port, DriverKind driver) {
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
        return sb.toString();
    }

    private static double percent(long part, long whole) {
        return whole == 0 ? 0.0 : 100.0 * part / whole;
    }
}
