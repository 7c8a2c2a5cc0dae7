package io.rvt.api.spi.agent;

import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Runs an {@link Agent} on its own thread (Agrona's {@code AgentRunner}): {@code onStart}, then {@code doWork} and
 * {@link IdleStrategy#idle(int)} until {@link #close()}, then {@code onClose}. A {@link Throwable} from
 * {@code doWork} goes to the error handler and is counted ({@link #errorCount()}); the loop keeps going. An
 * {@link AgentTerminationException} ends the loop instead (the agent's own termination signal): not counted, then
 * {@code onClose}, as if {@link #close()} had been called.
 *
 * <pre>{@code
 * try (AgentRunner runner = AgentRunner.start(agent, new BackoffIdleStrategy(), Throwable::printStackTrace)) {
 *     ... // the agent works on thread runner.thread()
 * }
 * }</pre>
 */
public final class AgentRunner implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(AgentRunner.class.getName());
    private static final long CLOSE_INTERRUPT_AFTER_MILLIS = 5_000;

    private final Agent agent;
    private final IdleStrategy idleStrategy;
    private final Consumer<Throwable> errorHandler;
    private final AtomicLong errors = new AtomicLong();
    /** Cleared by {@link #close()}, read by the agent thread. */
    private volatile boolean running = true;
    private final Thread thread;

    private AgentRunner(Agent agent, IdleStrategy idleStrategy, Consumer<Throwable> errorHandler,
            ThreadFactory threadFactory) {
        this.agent = Objects.requireNonNull(agent, "agent");
        this.idleStrategy = Objects.requireNonNull(idleStrategy, "idleStrategy");
        this.errorHandler = Objects.requireNonNull(errorHandler, "errorHandler");
        this.thread = threadFactory.newThread(this::run);
    }

    /**
     * Starts {@code agent} on a new daemon thread named after its {@link Agent#roleName()}.
     *
     * @param agent the agent
     * @param idleStrategy the idle strategy (used by that thread only)
     * @param errorHandler receives every {@link Throwable} from {@code doWork}, on the agent's thread
     * @return the running runner
     */
    public static AgentRunner start(Agent agent, IdleStrategy idleStrategy, Consumer<Throwable> errorHandler) {
        return start(agent, idleStrategy, errorHandler, r -> {
            Thread t = new Thread(r, agent.roleName());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Starts {@code agent} on a thread from {@code threadFactory}.
     *
     * @param agent the agent
     * @param idleStrategy the idle strategy (used by that thread only)
     * @param errorHandler receives every {@link Throwable} from {@code doWork}, on the agent's thread
     * @param threadFactory makes the thread
     * @return the running runner
     */
    public static AgentRunner start(Agent agent, IdleStrategy idleStrategy, Consumer<Throwable> errorHandler,
            ThreadFactory threadFactory) {
        AgentRunner runner = new AgentRunner(agent, idleStrategy, errorHandler, threadFactory);
        runner.thread.start();
        return runner;
    }

    /** @return the agent's thread */
    public Thread thread() {
        return thread;
    }

    /** @return the agent */
    public Agent agent() {
        return agent;
    }

    /** @return the number of {@link Throwable}s {@code doWork} has thrown */
    public long errorCount() {
        return errors.get();
    }

    /** @return true once {@link #close()} was called */
    public boolean isClosed() {
        return !running;
    }

    /**
     * Stops the loop and waits for the thread to finish {@code onClose}; interrupts it if it has not after 5 s. Called
     * from the agent's own thread it only stops the loop. Idempotent.
     */
    @Override
    public void close() {
        running = false;
        if (Thread.currentThread() == thread) {
            return;
        }
        LockSupport.unpark(thread);
        boolean interrupted = false;
        long deadline = System.currentTimeMillis() + CLOSE_INTERRUPT_AFTER_MILLIS;
        while (thread.isAlive()) {
            try {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    thread.interrupt();
                    thread.join();
                } else {
                    thread.join(left);
                }
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        try {
            agent.onStart();
        } catch (Throwable t) {
            handle(t);
        }
        while (running) {
            int work = 0;
            try {
                work = agent.doWork();
            } catch (AgentTerminationException end) {
                running = false;
                break;
            } catch (Throwable t) {
                handle(t);
            }
            idleStrategy.idle(work);
        }
        try {
            agent.onClose();
        } catch (Throwable t) {
            handle(t);
        }
    }

    private void handle(Throwable t) {
        errors.incrementAndGet();
        try {
            errorHandler.accept(t);
        } catch (Throwable second) {
            LOG.log(System.Logger.Level.ERROR, "error handler of agent " + agent.roleName() + " threw", second);
        }
    }

    @Override
    public String toString() {
        return "AgentRunner{" + agent.roleName() + ", " + idleStrategy.alias() + (running ? "" : ", closed") + '}';
    }
}
