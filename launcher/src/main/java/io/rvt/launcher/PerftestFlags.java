package io.rvt.launcher;

/**
 * perftest's flags that change what {@code rvt perf} does beyond the table's {@link PerfSpec}: the verdict of a
 * bandwidth row ({@code -N}, {@code -w}, {@code -y}), the path between two processes ({@code -S}, {@code -L},
 * {@code --tclass}, {@code --flow_label}), the QPs' outstanding reads ({@code -o}), the receives kept posted
 * ({@code -r}) and the wait before teardown ({@code --wait_destroy}), each with perftest's meaning
 * (perftest_parameters.c).
 *
 * @param noPeak {@code -N}: bandwidth rows print a peak of 0 ({@code noPeak}: the peak is not computed)
 * @param limitBw {@code -w}: the least average bandwidth a row must reach, in the row's unit; 0 for none
 * @param limitMsgRate {@code -y}: the least message rate (Mpps) a row must reach; 0 for none
 * @param sl {@code -S}: the path's service level
 * @param hopLimit {@code -L}: the GRH's hop limit
 * @param trafficClass {@code --tclass}: the GRH's traffic class
 * @param flowLabel {@code --flow_label}: the GRH's flow label
 * @param outReads {@code -o}: outstanding RDMA READs and atomics per QP; 0 for the most the endpoint takes
 * @param rxDepth {@code -r}: receives kept posted by a SEND test's receiving side; 0 for perftest's default
 * @param waitDestroySeconds {@code --wait_destroy}: seconds to wait after the rows before teardown
 * @param latencyGapMicros {@code --latency_gap}: microseconds each side waits before each of its latency posts,
 *                         inside the measured time as perftest's (its samples are the times between posts)
 * @param output {@code --output}: {@code bandwidth}, {@code message_rate} or {@code latency}, each row printed as that
 *               one figure and nothing else (perftest's {@code OUTPUT_BW}, {@code OUTPUT_MR}, {@code OUTPUT_LAT});
 *               null for the table
 */
record PerftestFlags(boolean noPeak, double limitBw, double limitMsgRate, int sl, int hopLimit, int trafficClass,
        int flowLabel, int outReads, int rxDepth, int waitDestroySeconds, int latencyGapMicros, String output) {
    /** perftest's defaults: a peak, no limits, SL 0, hop limit 255, no traffic class or flow label, no gap. */
    static final PerftestFlags DEFAULT = new PerftestFlags(false, 0, 0, 0, RemotePerf.HOP_LIMIT, 0, 0, 0, 0, 0, 0, null);

    /**
     * @param r a bandwidth row as measured
     * @return the row as printed: its peak 0 with {@code -N}
     */
    BandwidthResult shown(BandwidthResult r) {
        return noPeak ? new BandwidthResult(r.size(), r.iterations(), 0, r.averageMiBps(), r.messageRateMpps()) : r;
    }

    /**
     * perftest's verifier ({@code -w}, {@code -y}): a limit is met when a row reaches it.
     *
     * @param r a row
     * @param gbits whether rows are in Gb/sec ({@code --report_gbits}), else MiB/sec
     * @return why the row misses a limit, or null if it meets both
     */
    String missed(BandwidthResult r, boolean gbits) {
        double bw = gbits ? r.averageMiBps() * (1 << 20) * 8 / 1e9 : r.averageMiBps();
        if (limitBw > 0 && bw < limitBw) {
            return String.format(java.util.Locale.ROOT, "BW result is below bw limit: %.2f %s, -w %s", bw,
                    gbits ? "Gb/sec" : "MiB/sec", plain(limitBw));
        }
        if (limitMsgRate > 0 && r.messageRateMpps() < limitMsgRate) {
            return String.format(java.util.Locale.ROOT, "Msg rate is below msg_rate limit: %.6f Mpps, -y %s",
                    r.messageRateMpps(), plain(limitMsgRate));
        }
        return null;
    }

    private static String plain(double v) {
        return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }

    /** Busy-waits {@link #latencyGapMicros} before a latency post, as perftest's {@code run_iter_lat*} do. */
    void latencyGap() {
        gap(latencyGapMicros * 1000L);
    }

    /**
     * Busy-waits, as perftest's loop on {@code get_cycles()}: a latency post follows as soon as the gap is over.
     *
     * @param nanos how long; nothing if 0
     */
    static void gap(long nanos) {
        if (nanos <= 0) {
            return;
        }
        long until = System.nanoTime() + nanos;
        while (System.nanoTime() - until < 0) {
            Thread.onSpinWait();
        }
    }

    /** Waits {@link #waitDestroySeconds} (perftest's {@code --wait_destroy}: resources stay that long). */
    void waitBeforeDestroy() {
        if (waitDestroySeconds <= 0) {
            return;
        }
        try {
            Thread.sleep(waitDestroySeconds * 1000L);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
