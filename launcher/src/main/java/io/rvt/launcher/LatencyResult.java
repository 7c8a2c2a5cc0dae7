package io.rvt.launcher;

import java.util.Arrays;

/**
 * One row of a latency table, in microseconds, computed as perftest does: samples sorted, {@code t_typical} the
 * median, percentiles by rank, and one-way times for SEND and WRITE (half a round trip) but whole operations for READ
 * and atomics.
 *
 * @param size bytes per message ({@code #bytes}, JSON {@code MsgSize})
 * @param iterations samples ({@code #iterations}, JSON {@code n_iterations})
 * @param min fastest ({@code t_min})
 * @param max slowest ({@code t_max})
 * @param typical median ({@code t_typical})
 * @param average mean ({@code t_avg})
 * @param stdev standard deviation ({@code t_stdev})
 * @param p99 99th percentile ({@code percentile_99})
 * @param p999 99.9th percentile ({@code percentile_99.9})
 */
public record LatencyResult(int size, long iterations, double min, double max, double typical, double average,
        double stdev, double p99, double p999) {
    /**
     * Sorts {@code samples[0..n)} in place and summarises them.
     *
     * @param size bytes per message
     * @param samples round-trip or operation times in ns
     * @param n how many samples, at least 1
     * @param rttFactor 2 to report half a round trip, 1 for whole operations
     * @return the row
     */
    static LatencyResult of(int size, long[] samples, int n, int rttFactor) {
        return of(size, samples, n, rttFactor, LatencyReport.DEFAULT, null);
    }

    /**
     * Sorts {@code samples[0..n)} in place and summarises them in the unit {@code report} says, listing them first
     * as it asks (perftest's {@code -U} before sorting, {@code -H} after).
     *
     * @param size bytes per message
     * @param samples round-trip or operation times in ns
     * @param n how many samples, at least 1
     * @param rttFactor 2 to report half a round trip, 1 for whole operations
     * @param report perftest's {@code -C}, {@code -H}, {@code -U}
     * @param listing where the lists go; null when {@code report} lists nothing
     * @return the row
     */
    static LatencyResult of(int size, long[] samples, int n, int rttFactor, LatencyReport report,
            StringBuilder listing) {
        if (report.unsorted()) {
            report.list(listing, samples, n, rttFactor);
        }
        Arrays.sort(samples, 0, n);
        if (report.histogram()) {
            report.list(listing, samples, n, rttFactor);
        }
        double unit = report.nanosPerUnit() * rttFactor; // ns per reported unit
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += samples[i];
        }
        double mean = sum / n;
        double var = 0;
        for (int i = 0; i < n; i++) {
            double d = samples[i] - mean;
            var += d * d;
        }
        double median = n % 2 == 1 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2.0;
        return new LatencyResult(size, n, samples[0] / unit, samples[n - 1] / unit, median / unit, mean / unit,
                Math.sqrt(var / n) / unit, samples[rank(n, 0.99)] / unit, samples[rank(n, 0.999)] / unit);
    }

    private static int rank(int n, double p) {
        return Math.min(n - 1, (int) Math.ceil(n * p) - 1);
    }
}
