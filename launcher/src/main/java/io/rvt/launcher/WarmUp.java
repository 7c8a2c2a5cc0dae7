package io.rvt.launcher;

/**
 * How much unmeasured traffic runs before a measurement. A JVM runs the post, transport and poll paths interpreted
 * until the JIT has seen them tens of thousands of times; measured cold, a 64 B SEND stream spent 10-50 µs per
 * message over its first 100,000 messages and 2-3 µs after. perftest and ibv_rc_pingpong, compiled C, need no warm-up.
 */
final class WarmUp {
    /** The most warm-up iterations (small messages). */
    static final int MAX_ITERATIONS = 20_000;
    /**
     * The most warm-up iterations when two processes must agree on their number beforehand (no time bound then):
     * 2,000, a few hundred ms over loopback UDP.
     */
    static final int COUNTED_MAX = 2_000;
    /** Bytes of warm-up traffic at most (large messages). */
    private static final long MAX_BYTES = 64L << 20;
    /** The fewest warm-up iterations. */
    private static final int MIN_ITERATIONS = 8;
    /** The longest a warm-up lasts: under injected faults every lost packet costs an RC timeout. */
    private static final long MAX_NANOS = 300_000_000L;
    /** Iterations per step; each step ends with its traffic complete, so a warm-up can stop after any of them. */
    private static final int STEP = 16;

    private WarmUp() {
    }

    /**
     * @param size bytes per message
     * @return the warm-up iterations for that size: {@value #MAX_ITERATIONS} for small messages, 64 MiB of traffic
     *         for large ones, never fewer than 8
     */
    static int iterations(int size) {
        long bySize = MAX_BYTES / Math.max(1, size);
        return (int) Math.max(MIN_ITERATIONS, Math.min(MAX_ITERATIONS, bySize));
    }

    /**
     * Runs the warm-up for {@code size}-byte messages in steps of {@value #STEP} iterations, until
     * {@link #iterations(int)} are done or 300 ms have passed.
     *
     * @param size bytes per message
     * @param step runs the given number of iterations to completion
     */
    static void run(int size, java.util.function.IntConsumer step) {
        int total = iterations(size);
        long end = System.nanoTime() + MAX_NANOS;
        for (int done = 0; done < total && System.nanoTime() - end < 0; done += STEP) {
            step.accept(Math.min(STEP, total - done));
        }
    }
}
