package io.rvt.api.spi.agent;

import java.util.Objects;
import java.util.function.Consumer;

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
    /** Null: a failure is thrown out of {@link #invoke()}. */
    private final Consumer<Throwable> errorHandler;
    private long errors;
    private boolean started;
    private boolean closed;

    /**
     * An invoker whose {@link #invoke()} throws what the agent throws.
     *
     * @param agent the agent to run, not yet started
     */
    public AgentInvoker(Agent agent) {
        this.agent = Objects.requireNonNull(agent, "agent");
        this.errorHandler = null;
    }

    /**
     * An invoker that hands what the agent throws to {@code errorHandler} and counts it ({@link #errorCount()}), as
     * Agrona's does: {@link #invoke()} then returns 0 for that cycle and the agent keeps being invoked.
     *
     * @param agent the agent to run, not yet started
     * @param errorHandler receives every {@link Throwable} of {@code doWork}, on the invoking thread
     */
    public AgentInvoker(Agent agent, Consumer<Throwable> errorHandler) {
        this.agent = Objects.requireNonNull(agent, "agent");
        this.errorHandler = Objects.requireNonNull(errorHandler, "errorHandler");
    }

    /** Calls the agent's {@link Agent#onStart()} on this thread; a second call does nothing. */
    public void start() {
        if (!started) {
            started = true;
            agent.onStart();
        }
    }

    /**
     * Runs one duty cycle ({@link Agent#doWork()}); does nothing once closed. An {@link AgentTerminationException}
     * closes the invoker.
     *
     * @return the work done (0 when idle)
     * @throws IllegalStateException if the agent failed and the invoker has no error handler, naming it and the cause
     */
    public int invoke() {
        if (closed) {
            return 0;
        }
        try {
            return agent.doWork();
        } catch (AgentTerminationException end) {
            close();
            return 0;
        } catch (Exception e) {
            if (errorHandler == null) {
                if (e instanceof RuntimeException) {
                    throw (RuntimeException) e;
                }
                throw new IllegalStateException("agent " + agent.roleName() + " failed: " + e, e);
            }
            errors++;
            errorHandler.accept(e);
            return 0;
        }
    }

    /** @return the failures handed to the error handler; read it on the invoking thread */
    public long errorCount() {
        return errors;
    }

    /** @return true once closed (by {@link #close()} or the agent's termination) */
    public boolean isClosed() {
        return closed;
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
