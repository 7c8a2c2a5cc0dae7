package io.rvt.api.spi.agent;

import java.util.concurrent.locks.LockSupport;

/** Parks for a fixed time on every idle: the least CPU, latency of at least one park. Stateless. */
public final class SleepingIdleStrategy implements IdleStrategy {
    private final long parkNanos;

    /**
     * @param parkNanos how long to park each time, at least 1
     */
    public SleepingIdleStrategy(long parkNanos) {
        if (parkNanos < 1) {
            throw new IllegalArgumentException("parkNanos=" + parkNanos + " must be at least 1");
        }
        this.parkNanos = parkNanos;
    }

    @Override
    public void idle() {
        LockSupport.parkNanos(parkNanos);
    }

    @Override
    public void reset() {
    }

    @Override
    public String alias() {
        return "sleep-" + parkNanos + "ns";
    }

    @Override
    public String toString() {
        return "SleepingIdleStrategy{parkNanos=" + parkNanos + '}';
    }
}
