package io.rvt.it.interop.tools;

import io.rvt.api.Device;
import io.rvt.api.PortCounter;
import io.rvt.driver.jni.JniDriver;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The port counters of port 1 a result line carries: what arrived, what was dropped and why (a bad ICRC, a
 * truncated or unparsable packet, an unknown QP are {@code rx_malformed}; a packet from another address than the
 * QP's peer {@code rx_addr_mismatch}), and the RC recovery the run needed.
 */
final class PortSnapshot {
    /** The counters, as they are named in the result line (lower case). */
    static final PortCounter[] COUNTERS = {PortCounter.RX_PACKETS, PortCounter.TX_PACKETS, PortCounter.RX_MALFORMED,
        PortCounter.RX_ADDR_MISMATCH, PortCounter.PKT_DROPS, PortCounter.QKEY_VIOLATIONS, PortCounter.RX_UD_OVERSIZE,
        PortCounter.RC_TIMEOUTS, PortCounter.RC_RESENDS, PortCounter.SEQ_NAKS, PortCounter.RNR_NAKS,
        PortCounter.RC_DUPREQ};

    private PortSnapshot() {
    }

    /**
     * @param device the HCA
     * @param driver its driver-jni driver, or null: then {@code icrc_errors} (part of {@code rx_malformed}, which
     *        also counts a late packet for a QP already destroyed) and {@code stand_in_cycles} (the cycles the port's
     *        backstop ran beside a poller stalled in the engine) are not known
     * @return each counter of port 1 by its lower-case name
     */
    static Map<String, String> of(Device device, JniDriver driver) {
        Map<String, String> m = new LinkedHashMap<>();
        if (driver != null) {
            m.put("icrc_errors", Long.toString(driver.statistics(1).icrcErrors()));
            // the backstop's cycles beside a stalled poller: they may hand the QPs datagrams out of order
            m.put("stand_in_cycles", Long.toString(driver.statistics(1).socketCalls().standInCycles()));
        }
        for (PortCounter c : COUNTERS) {
            m.put(c.name().toLowerCase(Locale.ROOT), Long.toString(device.portCounter(1, c)));
        }
        return m;
    }
}
