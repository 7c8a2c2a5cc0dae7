package io.rvt.launcher;

import io.rvt.api.WrOpcode;
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
 * @param cqMod a signaled completion every this many work requests (bandwidth; at most {@code txDepth})
 * @param postList work requests chained into one post call (bandwidth; {@code cqMod} divides it)
 * @param bidirectional both sides send at once (bandwidth), perftest's {@code -b}
 * @param cmpAndSwap atomic rows post CMP_AND_SWAP (compare 0, swap 0, as perftest's {@code -A CMP_AND_SWAP}), else
 *        FETCH_AND_ADD (add 1)
 */
public record PerfSpec(PerfTest test, Transport transport, boolean latency, int[] sizes, int qps, int iters,
        long durationNanos, int txDepth, int cqMod, int postList, boolean bidirectional, boolean cmpAndSwap) {
    /** perftest's default iterations of a bandwidth test. */
    public static final int DEFAULT_BW_ITERS = 5000;
    /** perftest's default iterations of a latency test. */
    public static final int DEFAULT_LAT_ITERS = 1000;
    /** perftest's default CQ moderation: one signaled completion per 100 work requests. */
    public static final int CQ_MODERATION = 100;

    /**
     * A table whose atomic rows, if any, are FETCH_AND_ADD (perftest's default {@code -A}).
     *
     * @param test the operation
     * @param transport the transport
     * @param latency latency, else bandwidth
     * @param sizes the rows' sizes
     * @param qps queue pairs
     * @param iters iterations per row and QP, or 0 to run for {@code durationNanos}
     * @param durationNanos how long a row runs when {@code iters} is 0
     * @param txDepth work requests in flight per QP
     * @param cqMod a signaled completion every this many work requests
     * @param postList work requests chained into one post call
     * @param bidirectional both sides send at once
     */
    public PerfSpec(PerfTest test, Transport transport, boolean latency, int[] sizes, int qps, int iters,
            long durationNanos, int txDepth, int cqMod, int postList, boolean bidirectional) {
        this(test, transport, latency, sizes, qps, iters, durationNanos, txDepth, cqMod, postList, bidirectional,
                false);
    }

    /** @return the opcode of the table's work requests: the test's, or CMP_AND_SWAP for {@code -A CMP_AND_SWAP} */
    public WrOpcode opcode() {
        return test == PerfTest.ATOMIC && cmpAndSwap ? WrOpcode.ATOMIC_CMP_AND_SWP : test.opcode();
    }

    /**
     * A unidirectional table with perftest's CQ moderation and no post lists.
     *
     * @param test the operation
     * @param transport the transport
     * @param latency latency, else bandwidth
     * @param sizes the rows' sizes
     * @param qps queue pairs
     * @param iters iterations per row and QP, or 0 to run for {@code durationNanos}
     * @param durationNanos how long a row runs when {@code iters} is 0
     * @param txDepth work requests in flight per QP
     */
    public PerfSpec(PerfTest test, Transport transport, boolean latency, int[] sizes, int qps, int iters,
            long durationNanos, int txDepth) {
        this(test, transport, latency, sizes, qps, iters, durationNanos, txDepth, Math.min(CQ_MODERATION, txDepth), 1,
                false);
    }

    /**
     * @return with a duration and no iterations, how long at each end of a bandwidth row is not measured: perftest's
     *         default margin ({@code --margin}), a quarter of the duration in whole seconds ({@code -D 10}: 2 s; under
     *         4 s: none); else 0
     */
    public long marginNanos() {
        if (iters > 0 || latency) {
            return 0;
        }
        return durationNanos / 1_000_000_000L / 4 * 1_000_000_000L;
    }

    /** @return completions are requested every this many work requests (never more than the TX depth) */
    public int cqModeration() {
        return Math.min(cqMod, txDepth);
    }

    /** @return perftest's title, e.g. {@code Send BW Test}, {@code Atomic FETCH_AND_ADD Latency Test} */
    public String title() {
        return name(" ");
    }

    /** @return perftest's JSON {@code test} value, e.g. {@code Send_BW_Test} */
    public String jsonName() {
        return name("_");
    }

    /** perftest's title words: the verb, the atomic's type, Bidirectional, Post List, BW or Latency, Test. */
    private String name(String sep) {
        StringBuilder sb = new StringBuilder(test.perftestName()).append(sep);
        if (test == PerfTest.ATOMIC) {
            sb.append(cmpAndSwap ? "CMP_AND_SWAP" : "FETCH_AND_ADD").append(sep);
        }
        if (latency) {
            sb.append("Latency").append(sep);
        } else {
            if (bidirectional) {
                sb.append("Bidirectional").append(sep);
            }
            if (postList > 1) {
                sb.append("Post").append(sep).append("List").append(sep);
            }
            sb.append("BW").append(sep);
        }
        return sb.append("Test").toString();
    }

    /** @return e.g. {@code send bw rc} for progress lines */
    public String label() {
        return String.format(Locale.ROOT, "%s %s %s", test.option(), latency ? "lat" : bidirectional ? "bibw" : "bw",
                transport.option());
    }
}
