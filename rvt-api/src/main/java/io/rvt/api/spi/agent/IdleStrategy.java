package io.rvt.api.spi.agent;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * What an agent's thread does when {@link Agent#doWork()} found nothing to do (Agrona's {@code IdleStrategy}). An
 * instance holds per-thread state (a backoff position), so each thread needs its own.
 *
 * <p>The choice is a trade between latency and CPU: {@link BusySpinIdleStrategy} answers in nanoseconds and burns a
 * core; {@link YieldingIdleStrategy} gives the core away between polls; {@link BackoffIdleStrategy} spins, then
 * yields, then parks with growing pauses; {@link SleepingIdleStrategy} always parks. On a small machine (2 vCPUs)
 * parking costs a wake-up of some 20–40 µs, spinning takes a whole core.
 */
@ConsumerType
public interface IdleStrategy {
    /**
     * Idles if {@code workCount} is 0, else resets the backoff.
     *
     * @param workCount what the last {@code doWork()} returned
     */
    default void idle(int workCount) {
        if (workCount > 0) {
            reset();
        } else {
            idle();
        }
    }

    /** Idles once, moving the backoff one step on. */
    void idle();

    /** Resets the backoff to its first step, after work was done. */
    void reset();

    /** @return a short name, e.g. {@code "backoff"} */
    String alias();
}
