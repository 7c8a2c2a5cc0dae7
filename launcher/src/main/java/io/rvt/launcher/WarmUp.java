package io.rvt.launcher;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.function.LongSupplier;

/**
 * How much unmeasured traffic runs before a measurement. A JVM runs the post, transport and poll paths interpreted
 * until the JIT has seen them tens of thousands of times; measured cold, a 64 B SEND stream spent 10-50 µs per
 * message over its first 100,000 messages and 2-3 µs after. perftest and ibv_rc_pingpong, compiled C, need no warm-up.
 */
final class WarmUp {
    /** The most warm-up iterations (small messages). */
    static final int MAX_ITERATIONS = 20_000;
    /**
     * The warm-up iterations two processes agree on beforehand, a bound: the client of a two-process ping-pong ends
     * the warm-up by sending the first measured message's stamp once it is warm ({@link Settling}), or after
     * {@link #MAX_NANOS} once its QP has had an RC retry timeout (under 5 % loss 2,000 round trips took about 30 s
     * of timeouts).
     */
    static final int COUNTED_MAX = 1_000_000;
    /** Bytes of warm-up traffic at most (large messages). */
    private static final long MAX_BYTES = 64L << 20;
    /** The fewest warm-up iterations. */
    private static final int MIN_ITERATIONS = 8;
    /** The longest a warm-up lasts: under injected faults every lost packet costs an RC timeout. */
    static final long MAX_NANOS = 300_000_000L;
    /** Iterations per step; each step ends with its traffic complete, so a warm-up can stop after any of them. */
    static final int STEP = 16;

    /**
     * Iterations per step of {@link #untilSteady}: enough to fill a bandwidth row's send window many times over, so
     * that the warm-up streams as the measured row does (steps of {@value #STEP}, each drained before the next, ran
     * another loop than the row's: the JIT compiled that one, and the sweep's 64 B SEND row ran at 54-74 % of the
     * same row run for 5 s; streaming, 99-103 %).
     */
    static final int STREAM_STEP = 1024;

    /**
     * A step of {@link #untilSteady} that took less than this doubles the next (up to {@value #STREAM_STEP}), one
     * that took more than four times this halves it (down to {@value #STEP}): under injected loss a message can take
     * an RC timeout, and the warm-up's bound is only checked between steps.
     */
    private static final long STREAM_STEP_NANOS = 5_000_000L;

    /** The longest the first warm-up of a command lasts ({@link #untilSteady}). */
    static final long STEADY_MAX_NANOS = 2_000_000_000L;
    /** The first warm-up's measuring window. */
    private static final long WINDOW_NANOS = 50_000_000L;
    /** Windows whose rates must agree. */
    private static final int STEADY_WINDOWS = 4;
    /** The shortest first warm-up: the JIT's second tier comes in later than the first has settled. */
    static final long STEADY_MIN_NANOS = 1_000_000_000L;
    /** How far the slowest of those windows may be below the fastest. */
    private static final double STEADY_SPREAD = 0.10;

    /**
     * The longest the warm-up of a two-process ping-pong lasts ({@link Settling}). There both cores poll, and the
     * JIT's compiler threads get what the two pollers leave them: a 4 KiB RC round trip between two processes took
     * 180-230 us over its first 5,000 iterations, 50-80 us up to 20,000 and settled at 13.7 us after 20,000-30,000
     * (1.7-2.3 s); 2,000 warm-up round trips left most of a 20,000-iteration run to the JIT.
     */
    static final long SETTLE_MAX_NANOS = 5_000_000_000L;

    private WarmUp() {
    }

    /**
     * A warm-up that ends by itself (one side of a two-process run, whose peer follows the stamp of its next message,
     * and a command's first bandwidth row, {@link #untilSteady}): it is over once the last {@value #STEADY_WINDOWS}
     * windows of 50 ms moved as many iterations within 10 % and this JVM's JIT finished no compilation during them,
     * after at least 1 s; or after its longest ({@link #SETTLE_MAX_NANOS} for two processes). The rate alone is not
     * enough: a ping-pong held a plateau of 50-59 us for 0.8 s before the last hot methods were compiled. Allocates
     * nothing per iteration.
     */
    static final class Settling {
        private final LongSupplier clock;
        private final LongSupplier jitMillis;
        private final long start;
        private final long maxNanos;
        private final long[] windows = new long[STEADY_WINDOWS];
        private final boolean[] compiled = new boolean[STEADY_WINDOWS];
        private int filled;
        private long windowStart;
        private long inWindow;
        private long jitAtWindowStart;
        private boolean settled;

        /**
         * @param clock the time, ns (System::nanoTime)
         * @param jitMillis the JIT's total compilation time so far, ms ({@link #jitMillis()})
         */
        Settling(LongSupplier clock, LongSupplier jitMillis) {
            this(clock, jitMillis, SETTLE_MAX_NANOS);
        }

        /**
         * @param clock the time, ns (System::nanoTime)
         * @param jitMillis the JIT's total compilation time so far, ms ({@link #jitMillis()})
         * @param maxNanos how long the warm-up lasts at most, ns
         */
        Settling(LongSupplier clock, LongSupplier jitMillis, long maxNanos) {
            this.clock = clock;
            this.jitMillis = jitMillis;
            this.maxNanos = maxNanos;
            start = clock.getAsLong();
            windowStart = start;
            jitAtWindowStart = jitMillis.getAsLong();
        }

        /** @return a warm-up starting now, watching this JVM's JIT */
        static Settling start() {
            return new Settling(System::nanoTime, jitMillis());
        }

        /**
         * Counts one round trip of the warm-up.
         *
         * @return true once the warm-up may end
         */
        boolean tick() {
            return tick(1);
        }

        /**
         * Counts {@code n} iterations of the warm-up.
         *
         * @param n iterations done since the last call
         * @return true once the warm-up may end
         */
        boolean tick(int n) {
            if (settled) {
                return true;
            }
            long before = inWindow;
            inWindow += n;
            if ((inWindow & -STEP) == (before & -STEP)) {
                return false; // the clock is read once per STEP iterations
            }
            long now = clock.getAsLong();
            if (now - windowStart < WINDOW_NANOS) {
                return false;
            }
            long jitNow = jitMillis.getAsLong();
            int k = filled++ % STEADY_WINDOWS;
            windows[k] = inWindow * WINDOW_NANOS / (now - windowStart);
            compiled[k] = jitNow != jitAtWindowStart;
            windowStart = now;
            inWindow = 0;
            jitAtWindowStart = jitNow;
            settled = now - start >= maxNanos || filled >= STEADY_WINDOWS && now - start >= STEADY_MIN_NANOS
                    && steady(windows) && !any(compiled);
            return settled;
        }

        /** @return how long the warm-up has run so far, ns */
        long elapsedNanos() {
            return clock.getAsLong() - start;
        }

        /**
         * @return this JVM's total JIT compilation time in ms, or a constant 0 where the JVM does not report it
         *         (then only the rate counts)
         */
        static LongSupplier jitMillis() {
            CompilationMXBean c = ManagementFactory.getCompilationMXBean();
            return c != null && c.isCompilationTimeMonitoringSupported() ? c::getTotalCompilationTime : () -> 0;
        }

        private static boolean any(boolean[] b) {
            for (boolean x : b) {
                if (x) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * The first warm-up of a command: runs steps until the JIT has settled by {@link Settling}'s rule (the last
     * {@value #STEADY_WINDOWS} windows of 50 ms each moved as many messages within 10 % and the JIT finished no
     * compilation during them, after at least 1 s and the {@link #run} warm-up's count), or {@link #STEADY_MAX_NANOS}
     * passed. A step starts at {@value #STEP} iterations and doubles up to {@value #STREAM_STEP} while steps are quick,
     * so that the warm-up streams as the measured row does ({@link #STREAM_STEP}). A fixed count is not enough on a
     * small machine: the compiler threads share the cores with the polling thread, and a 400 ms row measured the JIT.
     * Later rows reuse the compiled code and keep the shorter {@link #run}.
     *
     * @param size bytes per message
     * @param step runs the given number of iterations to completion
     */
    static void untilSteady(int size, java.util.function.IntConsumer step) {
        Settling settling = new Settling(System::nanoTime, Settling.jitMillis(), STEADY_MAX_NANOS);
        int minimum = iterations(size);
        long done = 0;
        int n = STEP;
        while (true) {
            long before = System.nanoTime();
            step.accept(n);
            done += n;
            if (settling.tick(n) && (done >= minimum || settling.elapsedNanos() >= STEADY_MAX_NANOS)) {
                return;
            }
            long took = System.nanoTime() - before;
            if (took < STREAM_STEP_NANOS && n < STREAM_STEP) {
                n *= 2;
            } else if (took > 4 * STREAM_STEP_NANOS && n > STEP) {
                n /= 2;
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
