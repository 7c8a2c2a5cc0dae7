package io.rvt.driver.sim.clock;

/**
 * Virtual time in nanoseconds, starting at 0 and moving only forward, only when told. An {@link EventLoop} owns one
 * and advances it to each event's time; a test may also use one on its own to drive an agent (Aeron's
 * {@code CachedNanoClock} in {@code SenderTest}).
 *
 * <p>Threading: one writer at a time (the thread driving the loop); any thread may read.
 */
public final class VirtualClock implements NanoClock {
    /** The time; written by the single driving thread, read by any thread. */
    private volatile long now;

    /** Creates a clock at time 0. */
    public VirtualClock() {
    }

    @Override
    public long nanoTime() {
        return now;
    }

    /**
     * Moves time forward by {@code nanos}.
     *
     * @param nanos how far, at least 0
     * @return the new time
     * @throws IllegalArgumentException if {@code nanos} is negative
     */
    public long advance(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("advance: nanos=" + nanos + " is negative");
        }
        long t = now + nanos;
        now = t < 0 ? Long.MAX_VALUE : t;
        return now;
    }

    /**
     * Moves time forward to {@code timeNanos}.
     *
     * @param timeNanos the new time, at least {@link #nanoTime()}
     * @throws IllegalArgumentException if {@code timeNanos} is in the past
     */
    public void advanceTo(long timeNanos) {
        long n = now;
        if (timeNanos < n) {
            throw new IllegalArgumentException("advanceTo: timeNanos=" + timeNanos + " is before now=" + n);
        }
        now = timeNanos;
    }

    @Override
    public String toString() {
        return "VirtualClock{" + now + " ns}";
    }
}
