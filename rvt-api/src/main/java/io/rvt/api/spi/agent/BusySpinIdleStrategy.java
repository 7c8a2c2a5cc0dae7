package io.rvt.api.spi.agent;

/** Spins with {@link Thread#onSpinWait()}: the lowest latency, one core fully used. Stateless. */
public final class BusySpinIdleStrategy implements IdleStrategy {
    /** Creates the strategy. */
    public BusySpinIdleStrategy() {
    }

    @Override
    public void idle() {
        Thread.onSpinWait();
    }

    @Override
    public void reset() {
    }

    @Override
    public String alias() {
        return "spin";
    }

    @Override
    public String toString() {
        return "BusySpinIdleStrategy";
    }
}
