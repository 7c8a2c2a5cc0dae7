package io.rvt.driver.sim.clock;

import java.util.Objects;

/**
 * Runs an {@link Agent} on the caller's thread (Aeron's {@code AgentInvoker}): the invoker mode, in which an
 * application's polling thread moves the simulated network itself whenever it finds nothing to poll, so nothing is
 * handed between threads. {@link #start()} once, {@link #invoke()} as often as wanted from one thread at a time,
 * {@link #close()} once.
 *
 * <pre>{@code
 * AgentInvoker network = new AgentInvoker(new CompositeAgent("net", List.of(fabric.agent(), a.sendAgent())));
 * network.start();
 * while (cq.pollCq(wcs, 16) == 0) {
 *     network.invoke();
 * }
 * }</pre>
 */
public final class AgentInvoker implements AutoCloseable {
    private final Agent agent;
    private boolean started;
    private boolean closed;

    /**
     * @param agent the agent to run, not yet started
     */
    public AgentInvoker(Agent agent) {
        this.agent = Objects.requireNonNull(agent, "agent");
    }

    /** Calls the agent's {@link Agent#onStart()} on this thread; a second call does nothing. */
    public void start() {
        if (!started) {
            started = true;
            agent.onStart();
        }
    }

    /**
     * Runs one duty cycle ({@link Agent#doWork()}); does nothing once closed.
     *
     * @return the work done (0 when idle)
     * @throws IllegalStateException if the agent failed, naming it and the cause
     */
    public int invoke() {
        if (closed) {
            return 0;
        }
        try {
            return agent.doWork();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("agent " + agent.roleName() + " failed: " + e, e);
        }
    }

    /** Calls the agent's {@link Agent#onClose()} if it was started; later invocations do nothing. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            if (started) {
                agent.onClose();
            }
        }
    }

    /** @return the agent's role name */
    public String roleName() {
        return agent.roleName();
    }
}
