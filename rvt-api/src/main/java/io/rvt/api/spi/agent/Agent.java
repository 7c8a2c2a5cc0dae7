package io.rvt.api.spi.agent;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A unit of work on a duty cycle (Agrona's {@code Agent}): an {@link AgentRunner} calls {@link #onStart()} once,
 * then {@link #doWork()} in a loop, backing off through an {@link IdleStrategy} when it returns 0, then
 * {@link #onClose()} once — all on one thread. In invoker mode the caller calls {@code doWork()} itself.
 *
 * <p>{@code doWork()} is short: read the clock once, drain queues up to a limit, return how much it did. It never
 * blocks and, in steady state, never allocates.
 */
@ConsumerType
public interface Agent {
    /** Called once on the agent's thread before the first {@link #doWork()}. */
    default void onStart() {
    }

    /**
     * Does one bounded slice of work.
     *
     * @return the amount of work done (0 when idle), which the idle strategy uses to back off
     * @throws Exception handed to the runner's error handler; the runner keeps going
     */
    int doWork() throws Exception;

    /** Called once on the agent's thread after the last {@link #doWork()}. */
    default void onClose() {
    }

    /** @return a name for the thread and for diagnostics, e.g. {@code rvt-sim-fabric-lab} */
    String roleName();
}
