package io.rvt.core.timer;

import io.rvt.api.spi.agent.Agent;
import io.rvt.api.spi.agent.AgentRunner;
import io.rvt.api.spi.agent.IdleStrategy;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.LockSupport;

/**
 * rvt-core's work off the caller's thread, on the agent runtime: an {@link Agent} that runs the tasks handed to
 * {@link #execute} in order on its own {@link AgentRunner} thread and parks while it has none. rvt-core's completion
 * handlers run on these, one per completion vector, as rdmavt's CQ work runs on the {@code comp_vector}'s kthread
 * worker ({@code rvt_cq_enter} queues {@code cq->comptask} with {@code kthread_queue_work}), and so do QP error
 * transitions that cannot run where they were raised ({@code QpErrors.errorOnOverflow}).
 *
 * <p>A task runs inside the agent's {@code doWork}: unlike an engine's work it is the application's code (its
 * completion handler) and may take as long as it likes; nothing else shares the thread. A task that throws is logged
 * and the next one runs. {@link #close()} runs what was queued before it, then stops the thread; afterwards
 * {@link #execute} throws {@link RejectedExecutionException}, as a shut-down {@code ExecutorService} did.
 */
public final class AgentExecutor implements Executor, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(AgentExecutor.class.getName());
    /** Tasks run in one duty cycle at most, so that a flood still checks for close between slices. */
    private static final int TASKS_PER_CYCLE = 64;

    private final String name;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    /** Set by the agent before it parks, cleared when it wakes: only then does {@link #execute} unpark it. */
    private volatile boolean sleeping;
    private volatile boolean closed;
    /** Started by the first {@link #execute}; guarded by this for the start, then read freely. */
    private volatile AgentRunner runner;

    /**
     * An executor whose thread, named {@code threadName}, starts with the first task: a CQ without a completion
     * handler never queues one, and most applications poll.
     *
     * @param threadName the thread's name, e.g. {@code sim0-comp-0}
     */
    public AgentExecutor(String threadName) {
        this.name = Objects.requireNonNull(threadName, "threadName");
    }

    /**
     * Starts the agent on a daemon thread made with rvt-core's class loader as its context and none of the caller's
     * frames in its access-control context: the first task often comes from a driver's thread (a completion entered
     * by its engine), and a thread keeps its creator's, which would hold that driver's class loader for as long as
     * the device lives.
     */
    private synchronized AgentRunner start() {
        AgentRunner r = runner;
        if (r == null && !closed) {
            r = AgentRunner.start(new TaskAgent(), new UntilSubmitted(),
                    t -> LOG.log(System.Logger.Level.WARNING, "task on " + name + " failed", t),
                    task -> newThread(task, name));
            runner = r;
        }
        return r;
    }

    @SuppressWarnings("removal") // the JDK 17 way to keep the creator's stack out of a new thread
    private static Thread newThread(Runnable r, String threadName) {
        return java.security.AccessController.doPrivileged((java.security.PrivilegedAction<Thread>) () -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            t.setContextClassLoader(AgentExecutor.class.getClassLoader());
            return t;
        });
    }

    /**
     * Queues {@code task} to run on the executor's thread after those queued before it.
     *
     * @param task the task
     * @throws RejectedExecutionException if the executor was closed
     */
    @Override
    public void execute(Runnable task) {
        Objects.requireNonNull(task, "task");
        if (closed) {
            throw new RejectedExecutionException(name + " is closed");
        }
        AgentRunner r = runner;
        if (r == null && (r = start()) == null) {
            throw new RejectedExecutionException(name + " is closed");
        }
        tasks.offer(task);
        if (closed && tasks.remove(task)) {
            // close() began meanwhile and its final drain has not taken the task: refuse it rather than lose it
            throw new RejectedExecutionException(name + " is closed");
        }
        if (sleeping) {
            LockSupport.unpark(r.thread());
        }
    }

    /** @return the executor's thread, or null before the first task */
    public Thread thread() {
        AgentRunner r = runner;
        return r == null ? null : r.thread();
    }

    /** @return true once {@link #close()} was called */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Refuses new tasks, runs those already queued and stops the thread, waiting for it (at most 5 s before it is
     * interrupted, {@link AgentRunner#close()}). From a task on this executor it only stops the loop.
     */
    @Override
    public void close() {
        AgentRunner r;
        synchronized (this) {
            closed = true;
            r = runner;
        }
        if (r != null) {
            r.close();
        }
    }

    @Override
    public String toString() {
        return "AgentExecutor{" + name + (closed ? ", closed" : "") + '}';
    }

    /** Runs queued tasks; on close, those still queued. */
    private final class TaskAgent implements Agent {
        @Override
        public int doWork() {
            int n = 0;
            for (Runnable r; n < TASKS_PER_CYCLE && (r = tasks.poll()) != null; ) {
                n++;
                r.run(); // a throw goes to the runner's handler; the rest run in the next cycle
            }
            return n;
        }

        @Override
        public void onClose() {
            for (Runnable r; (r = tasks.poll()) != null; ) {
                try {
                    r.run();
                } catch (RuntimeException | Error e) {
                    LOG.log(System.Logger.Level.WARNING, "task on " + name + " failed while closing", e);
                }
            }
        }

        @Override
        public String roleName() {
            return name;
        }
    }

    /** Parks until a task is queued or the executor closes (both unpark it). */
    private final class UntilSubmitted implements IdleStrategy {
        @Override
        public void idle(int workCount) {
            if (workCount == 0) {
                idle();
            }
        }

        @Override
        public void idle() {
            sleeping = true;
            // re-check after publishing 'sleeping': a task queued before it is seen here, one after it unparks us
            if (tasks.isEmpty() && !closed) {
                LockSupport.park(this);
            }
            sleeping = false;
        }

        @Override
        public void reset() {
        }

        @Override
        public String alias() {
            return "until-submitted";
        }
    }
}
