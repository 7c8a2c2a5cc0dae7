package io.rvt.api.spi.agent;

import java.util.concurrent.locks.LockSupport;

/**
 * Spins, then yields, then parks with a pause that doubles from {@code minParkNanos} to {@code maxParkNanos}
 * (Agrona's {@code BackoffIdleStrategy}); any work resets it to spinning. One instance per thread.
 */
public final class BackoffIdleStrategy implements IdleStrategy {
    /** Spins before yielding, by default. */
    public static final long DEFAULT_MAX_SPINS = 100;
    /** Yields before parking, by default. */
    public static final long DEFAULT_MAX_YIELDS = 10;
    /** First park, by default: 1 µs. */
    public static final long DEFAULT_MIN_PARK_NANOS = 1_000;
    /** Longest park, by default: 1 ms. */
    public static final long DEFAULT_MAX_PARK_NANOS = 1_000_000;

    private final long maxSpins;
    private final long maxYields;
    private final long minParkNanos;
    private final long maxParkNanos;
    /** Backoff position; touched only by the idling thread. */
    private long spins;
    private long yields;
    private long parkNanos;

    /** Creates the strategy with the defaults (100 spins, 10 yields, parks of 1 µs to 1 ms). */
    public BackoffIdleStrategy() {
        this(DEFAULT_MAX_SPINS, DEFAULT_MAX_YIELDS, DEFAULT_MIN_PARK_NANOS, DEFAULT_MAX_PARK_NANOS);
    }

    /**
     * @param maxSpins spins before yielding, at least 0
     * @param maxYields yields before parking, at least 0
     * @param minParkNanos the first park, at least 1
     * @param maxParkNanos the longest park, at least {@code minParkNanos}
     */
    public BackoffIdleStrategy(long maxSpins, long maxYields, long minParkNanos, long maxParkNanos) {
        if (maxSpins < 0 || maxYields < 0 || minParkNanos < 1 || maxParkNanos < minParkNanos) {
            throw new IllegalArgumentException("backoff: maxSpins=" + maxSpins + ", maxYields=" + maxYields
                    + ", minParkNanos=" + minParkNanos + ", maxParkNanos=" + maxParkNanos
                    + " (need spins, yields >= 0 and 1 <= minPark <= maxPark)");
        }
        this.maxSpins = maxSpins;
        this.maxYields = maxYields;
        this.minParkNanos = minParkNanos;
        this.maxParkNanos = maxParkNanos;
        reset();
    }

    @Override
    public void idle() {
        if (spins < maxSpins) {
            spins++;
            Thread.onSpinWait();
        } else if (yields < maxYields) {
            yields++;
            Thread.yield();
        } else {
            LockSupport.parkNanos(parkNanos);
            parkNanos = Math.min(parkNanos << 1, maxParkNanos);
        }
    }

    @Override
    public void reset() {
        spins = 0;
        yields = 0;
        parkNanos = minParkNanos;
    }

    @Override
    public String alias() {
        return "backoff";
    }

    @Override
    public String toString() {
        return "BackoffIdleStrategy{maxSpins=" + maxSpins + ", maxYields=" + maxYields + ", minParkNanos="
                + minParkNanos + ", maxParkNanos=" + maxParkNanos + '}';
    }
}
