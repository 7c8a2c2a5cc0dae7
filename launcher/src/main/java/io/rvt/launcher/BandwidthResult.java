package io.rvt.launcher;

/**
 * One row of a bandwidth table, in perftest's units: MiB/s (2^20 bytes per second) and millions of messages per
 * second.
 *
 * @param size bytes per message ({@code #bytes}, JSON {@code MsgSize})
 * @param iterations messages completed ({@code #iterations}, JSON {@code n_iterations})
 * @param peakMiBps perftest's peak: the best rate over a stretch from a post to a later completion
 *        ({@link BandwidthMeter}; {@code BW peak}, JSON {@code BW_peak})
 * @param averageMiBps bytes over the run, or with {@code -D} over perftest's sample interval between the margins
 *        ({@code BW average}, JSON {@code BW_average})
 * @param messageRateMpps messages over the same time ({@code MsgRate}, JSON {@code MsgRate})
 */
public record BandwidthResult(int size, long iterations, double peakMiBps, double averageMiBps,
        double messageRateMpps) {
    /** Bytes in a MiB, perftest's {@code MBS} format factor. */
    public static final double MIB = 0x100000;
    /** MiB/s to Gb/s (10^9 bits per second), perftest's {@code --report_gbits}. */
    private static final double GBITS_PER_MIB = MIB * 8 / 1e9;

    /** @return {@link #peakMiBps} in Gb/s (10^9 bits), as perftest's {@code --report_gbits} prints it */
    public double peakGbps() {
        return peakMiBps * GBITS_PER_MIB;
    }

    /** @return {@link #averageMiBps} in Gb/s (10^9 bits) */
    public double averageGbps() {
        return averageMiBps * GBITS_PER_MIB;
    }

    /**
     * @param gbits Gb/s ({@code --report_gbits}) rather than MiB/s
     * @return the peak in that unit
     */
    public double peak(boolean gbits) {
        return gbits ? peakGbps() : peakMiBps;
    }

    /**
     * @param gbits Gb/s rather than MiB/s
     * @return the average in that unit
     */
    public double average(boolean gbits) {
        return gbits ? averageGbps() : averageMiBps;
    }

    /**
     * @param size bytes per message
     * @param iterations messages measured
     * @param elapsedNanos the time they were measured over
     * @param bestNanosPerMessage the least time per message over a stretch ({@link BandwidthMeter}), or 0 for none
     * @return the row
     */
    static BandwidthResult of(int size, long iterations, long elapsedNanos, double bestNanosPerMessage) {
        double secs = Math.max(elapsedNanos, 1) / 1e9;
        double average = size * (double) iterations / secs / MIB;
        double peak = bestNanosPerMessage > 0 ? size / (bestNanosPerMessage / 1e9) / MIB : average;
        return new BandwidthResult(size, iterations, Math.max(peak, average), average, iterations / secs / 1e6);
    }
}
