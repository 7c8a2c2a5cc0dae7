package io.rvt.launcher;

import java.util.Locale;

/**
 * One perftest-style table: which operation, over which transport, bandwidth or latency, which message sizes, and
 * how long each row runs.
 *
 * @param test the operation
 * @param transport the transport ({@link PerfTest#allows} it)
 * @param latency true for a latency table, false for bandwidth
 * @param sizes the message size of each row, in order
 * @param qps queue pairs (bandwidth; latency uses one)
 * @param iters iterations per row and QP, or 0 to run for {@code durationNanos}
 * @param durationNanos how long each row runs when {@code iters} is 0
 * @param txDepth work requests in flight per QP (bandwidth)
 */
public record PerfSpec(PerfTest test, Transport transport, boolean latency, int[] sizes, int qps, int iters,
        long durationNanos, int txDepth) {
    /** perftest's default iterations of a bandwidth test. */
    public static final int DEFAULT_BW_ITERS = 5000;
    /** perftest's default iterations of a latency test. */
    public static final int DEFAULT_LAT_ITERS = 1000;
    /** perftest's default CQ moderation: one signaled completion per 100 work requests. */
    public static final int CQ_MODERATION = 100;

    /** @return completions are requested every this many work requests (never more than the TX depth) */
    public int cqModeration() {
        return Math.min(CQ_MODERATION, txDepth);
    }

    /** @return perftest's title, e.g. {@code Send BW Test}, {@code Atomic FETCH_AND_ADD Latency Test} */
    public String title() {
        return name(" ");
    }

    /** @return perftest's JSON {@code test} value, e.g. {@code Send_BW_Test} */
    public String jsonName() {
        return name("_");
    }

    private String name(String sep) {
        String verb = test == PerfTest.ATOMIC ? test.perftestName() + sep + "FETCH_AND_ADD" : test.perftestName();
        return verb + sep + (latency ? "Latency" : "BW") + sep + "Test";
    }

    /** @return e.g. {@code send bw rc} for progress lines */
    public String label() {
        return String.format(Locale.ROOT, "%s %s %s", test.option(), latency ? "lat" : "bw", transport.option());
    }
}
