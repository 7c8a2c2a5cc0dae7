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
     * The most warm-up iterations when two processes agree on their number beforehand: 2,000, a few hundred ms over
     * loopback UDP. The client of a two-process ping-pong ends it early, after {@link #MAX_NANOS} and once its QP has
     * had an RC retry timeout, by sending the first measured message's stamp: under 5 % loss the full count took
     * about 30 s of timeouts.
     */
    static final int COUNTED_MAX = 2_000;
    /** Bytes of warm-up traffic at most (large messages). */
    private static final long MAX_BYTES = 64L << 20;
    /** The fewest warm-up iterations. */
    private static final int MIN_ITERATIONS = 8;
    /** The longest a warm-up lasts: under injected faults every lost packet costs an RC timeout. */
    static final long MAX_NANOS = 300_000_000L;
    /** Iterations per step; each step ends with its traffic complete, so a warm-up can stop after any of them. */
    private static final int STEP = 16;

    /** The longest the first warm-up of a command lasts ({@link #untilSteady}). */
    static final long STEADY_MAX_NANOS = 2_000_000_000L;
    /** The first warm-up's measuring window. */
    private static final long WINDOW_NANOS = 50_000_000L;
    /** Windows whose rates must agree. */
    private static final int STEADY_WINDOWS = 4;
    /** The shortest first warm-up: the JIT's second tier comes in later than the first has settled. */
    private static final long STEADY_MIN_NANOS = 1_000_000_000L;
    /** How far the slowest of those windows may be below the fastest. */
    private static final double STEADY_SPREAD = 0.10;

    private WarmUp() {
    }

    /**
     * The first warm-up of a command: runs steps of {@value #STEP} iterations until the JIT has settled, i.e. the
     * last {@value #STEADY_WINDOWS} windows of 50 ms each moved as many messages within 10 % (after at least 1 s and
     * the {@link #run} warm-up), or {@link #STEADY_MAX_NANOS} passed. A fixed count is not enough on a small
     * machine: the compiler threads share the cores with the polling thread, and a 400 ms row measured the JIT (the
     * sweep's 64 B SEND row at a quarter of the same row run for 5 s). Later rows reuse the compiled code and keep
     * the shorter {@link #run}.
     *
     * @param size bytes per message
     * @param step runs the given number of iterations to completion
     */
    static void untilSteady(int size, java.util.function.IntConsumer step) {
        long start = System.nanoTime();
        long end = start + STEADY_MAX_NANOS;
        int minimum = iterations(size);
        long[] windows = new long[STEADY_WINDOWS];
        int filled = 0;
        long done = 0;
        long windowStart = start;
        long inWindow = 0;
        while (System.nanoTime() - end < 0) {
            step.accept(STEP);
            done += STEP;
            inWindow += STEP;
            long now = System.nanoTime();
            if (now - windowStart >= WINDOW_NANOS) {
                // messages per ns of this window, scaled to a window's length, kept in a ring of the last few
                windows[filled++ % STEADY_WINDOWS] = inWindow * WINDOW_NANOS / (now - windowStart);
                windowStart = now;
                inWindow = 0;
                if (filled >= STEADY_WINDOWS && done >= minimum && now - start >= STEADY_MIN_NANOS
                        && steady(windows)) {
                    return;
                }
            }
        }
    }

    private static boolean steady(long[] windows) {
        long min = Long.MAX_VALUE;
        long max = 0;
        for (long w : windows) {
            min = Math.min(min, w);
            max = Math.max(max, w);
        }
        return max > 0 && min >= max * (1 - STEADY_SPREAD);
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
