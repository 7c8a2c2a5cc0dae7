package io.rvt.api.spi.agent;

/** Calls {@link Thread#yield()}: low latency while letting other runnable threads have the core. Stateless. */
public final class YieldingIdleStrategy implements IdleStrategy {
    /** Creates the strategy. */
    public YieldingIdleStrategy() {
    }

    @Override
    public void idle() {
        Thread.yield();
    }

    @Override
    public void reset() {
    }

    @Override
    public String alias() {
        return "yield";
    }

    @Override
    public String toString() {
        return "YieldingIdleStrategy";
    }
}
