package io.rvt.driver.jni;

/**
 * How long a poller keeps asking an idle port's socket before it waits in {@code poll}
 * ({@link JniDriverBuilder#pollerWaitNanos}, {@link JniDriverBuilder#adaptivePollerSpin}). Fixed, it spins the whole
 * maximum every time (the default). Adaptive, it learns from the idle gaps that ended, after KVM's halt polling: a
 * gap the spin caught leaves it as it is; a gap that ended in a wait is judged with the wake-up in it
 * ({@link #WAKE_UP_ALLOWANCE}): within twice the maximum a longer spin could have caught it (the spin doubles, from
 * {@link #GROW_FROM_NANOS}, up to the maximum), beyond that it halves (below the growth's start: none), and beyond four
 * times the maximum it stops at once.
 *
 * <p>Why: between two processes a ping-pong's gap is the peer's whole turn. On a quiet machine the peer answers
 * within the spin and a wake-up would cost more than the spin. On a machine with more runnable threads than cores the
 * peer's turn outlasts any spin, and a spinning thread uses up its share of the core while one that waits at once is
 * woken ahead of the busy threads (a C blocking round trip beside two CPU hogs: 15-21 µs, against 67-83 µs on the
 * quiet machine). The engine holder's; not thread-safe.
 */
final class PollerSpin {
    /** The spin a growing one starts from (a wake-up from {@code poll} costs several microseconds here). */
    static final long GROW_FROM_NANOS = 2_000L;

    /**
     * A gap that ended in a wait is judged against this many times the maximum: it includes the wake-up from
     * {@code poll}, which on a quiet machine here costs about as much as the default spin (the C blocking UDP round
     * trip: 67-91 µs, two wake-ups), so a gap the maximum would have caught shows up to twice as long once the poller
     * waited. Judged against the maximum alone, one late answer started a spiral (a shorter spin, a wait, a gap with
     * a wake-up in it, a shorter spin) down to none: a quiet two-process ping-pong 1.5-1.7x slower than a fixed spin.
     */
    static final int WAKE_UP_ALLOWANCE = 2;

    private final long maxNanos;
    private final boolean adaptive;
    private long spinNanos;
    /** Whether the current gap ended its spin and waited. */
    private boolean waited;

    /**
     * @param maxNanos the longest spin, above 0
     * @param adaptive whether the spin adapts (else it is always {@code maxNanos})
     */
    PollerSpin(long maxNanos, boolean adaptive) {
        this.maxNanos = maxNanos;
        this.adaptive = adaptive;
        this.spinNanos = maxNanos;
    }

    /** @return how long the current gap spins before it waits */
    long spinNanos() {
        return spinNanos;
    }

    /** The current gap spun its {@link #spinNanos} and now waits. */
    void waiting() {
        waited = true;
    }

    /**
     * A gap ended: the port had work again.
     *
     * @param gapNanos how long the port was idle
     */
    void gapEnded(long gapNanos) {
        if (adaptive && waited) {
            if (gapNanos > 2 * WAKE_UP_ALLOWANCE * maxNanos) {
                spinNanos = 0;
            } else if (gapNanos > WAKE_UP_ALLOWANCE * maxNanos) {
                long half = spinNanos / 2;
                spinNanos = half < GROW_FROM_NANOS ? 0 : half;
            } else {
                spinNanos = Math.min(maxNanos, Math.max(GROW_FROM_NANOS, spinNanos * 2));
            }
        }
        waited = false;
    }
}
