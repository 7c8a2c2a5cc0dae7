package io.rvt.api.spi.agent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * rvt extension: an engine (an {@link Agent}) run where its {@link ThreadingMode} says, with at most one thread in it
 * at a time. It is what a driver's progress hook ({@link io.rvt.api.spi.RvtDriver#progress(int)}) calls: the
 * application's thread that found its completion queue empty runs the network itself (libfabric's manual progress,
 * UCX's {@code ucp_worker_progress}, Aeron's invoker), and nothing is handed between cores.
 *
 * <ul>
 *   <li>{@link ThreadingMode#PROGRESS}: {@link #progress(int)} runs the agent on the caller's thread if no other thread
 *       is in it (a try-lock: the others return at once). A backstop thread runs it only when no caller has for a
 *       quiet period (timers, retransmissions, applications waiting on completion events), spinning briefly, then
 *       parking with a growing pause; while callers progress it (or one is in it) it parks a quiet period at a time
 *       and never spins. A caller that stays inside one duty cycle for longer than the quiet period (a busy machine
 *       takes a spinning thread off its core there for hundreds of milliseconds) keeps the backstop out, unless the
 *       engine has a stand-in: a second duty cycle, safe beside the first, that the backstop then runs until the
 *       caller moves on ({@link #start(Agent, Agent, ThreadingMode, IdleStrategy, long, Consumer)}).</li>
 *   <li>{@link ThreadingMode#INVOKER}: only {@link #progress(int)}; no thread.</li>
 *   <li>{@link ThreadingMode#DEDICATED}: only a thread of its own; {@link #progress(int)} returns 0.</li>
 * </ul>
 *
 * <p>The thread in the engine is its "engine thread" for that time ({@link #isHeldByCurrentThread()}): a driver that
 * lets its engine thread batch sends (driver-jni) asks this. Failures of {@code doWork} go to the error handler and
 * are counted ({@link #errorCount()}); an {@link AgentTerminationException} stops the engine for good.
 *
 * <p>{@link #progress(int)} allocates nothing.
 */
public final class ProgressEngine implements AutoCloseable {
    /** How long no caller may have progressed before the backstop runs the engine, by default: 1 ms. */
    public static final long DEFAULT_QUIET_NANOS = 1_000_000L;
    private static final long CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final System.Logger LOG = System.getLogger(ProgressEngine.class.getName());
    private static final VarHandle HOLDER;
    private static final VarHandle CALLER_CYCLES;
    private static final VarHandle CYCLE_STARTS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HOLDER = l.findVarHandle(ProgressEngine.class, "holder", Thread.class);
            CALLER_CYCLES = l.findVarHandle(ProgressEngine.class, "callerCycles", long.class);
            CYCLE_STARTS = l.findVarHandle(ProgressEngine.class, "cycleStarts", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Agent agent;
    /** Run by the backstop beside a caller stalled inside a cycle ({@link ThreadingMode#PROGRESS}), or null. */
    private final Agent standIn;
    private final ThreadingMode mode;
    private final long quietNanos;
    /**
     * The least time a caller stays in one cycle before the stand-in runs beside it: a caller working through a batch
     * (64 packets of a 64 KiB message, code not yet compiled) can take over a millisecond, and a stand-in beside a
     * caller that is not stalled reorders packets (rping's 65535-byte pings against rxe saw out-of-sequence requests
     * on a clean link); a descheduled caller stalls for tens to hundreds of milliseconds, and 20 ms is still well
     * inside a peer's RC timeout (67 ms at timeout 14).
     */
    static final long STAND_IN_AFTER_NANOS = 20_000_000L;
    private final Consumer<Throwable> errorHandler;
    private final AtomicLong errors = new AtomicLong();
    /** The thread in the engine, or null; CAS from null (the try-lock). */
    private volatile Thread holder;
    /** Calls of {@link #progress} that ran the engine; written by the holder (opaque), read by the backstop. */
    private long callerCycles;
    /** Duty cycles begun by a caller; written by the holder (opaque), read by the backstop to see a stalled one. */
    private long cycleStarts;
    /** Cycles of the stand-in that did work; written by the backstop only. */
    private volatile long standInWork;
    /** Duty cycles the backstop ran that did work; written by the backstop only. */
    private volatile long backstopWork;
    private volatile boolean terminated;
    private volatile boolean closed;
    /** The backstop's duty cycle ({@link ThreadingMode#PROGRESS}), made before its thread starts. */
    private final Backstop backstop = new Backstop();
    /** The backstop ({@link ThreadingMode#PROGRESS}) or the engine's thread ({@link ThreadingMode#DEDICATED}). */
    private final AgentRunner runner;

    private ProgressEngine(Agent agent, Agent standIn, ThreadingMode mode, IdleStrategy idle, long quietNanos,
            Consumer<Throwable> errorHandler) {
        this.agent = Objects.requireNonNull(agent, "agent");
        this.standIn = standIn;
        this.mode = Objects.requireNonNull(mode, "mode");
        this.errorHandler = Objects.requireNonNull(errorHandler, "errorHandler");
        if (quietNanos < 1) {
            throw new IllegalArgumentException("progress engine " + agent.roleName() + ": quietNanos=" + quietNanos
                    + " must be at least 1");
        }
        this.quietNanos = quietNanos;
        switch (mode) {
            case DEDICATED:
                runner = AgentRunner.start(new Dedicated(), Objects.requireNonNull(idle, "idle"), this::fail);
                break;
            case PROGRESS:
                agent.onStart();
                runner = AgentRunner.start(backstop, new BackstopIdle(Objects.requireNonNull(idle, "idle")),
                        this::fail);
                break;
            default:
                agent.onStart();
                runner = null;
        }
    }

    /**
     * Starts an engine.
     *
     * @param agent the engine's work, not yet started ({@link Agent#onStart()} runs here, or on the dedicated thread)
     * @param mode who runs it
     * @param idle what the engine's thread does between empty cycles: the backstop's when it is the one running the
     *        engine ({@link BackoffIdleStrategy} parks up to 1 ms), the dedicated thread's; unused with INVOKER
     * @param quietNanos how long no caller must have progressed before the backstop takes over, at least 1
     * @param errorHandler receives what {@code doWork} throws, on the thread that ran it
     * @return the engine
     */
    public static ProgressEngine start(Agent agent, ThreadingMode mode, IdleStrategy idle, long quietNanos,
            Consumer<Throwable> errorHandler) {
        return new ProgressEngine(agent, null, mode, idle, quietNanos, errorHandler);
    }

    /**
     * rvt extension: {@link #start(Agent, ThreadingMode, IdleStrategy, long, Consumer)} with a stand-in. With
     * {@link ThreadingMode#PROGRESS}, when a caller has been inside one duty cycle of the engine for longer than the
     * quiet period (no cycle begun since the backstop last looked, at least {@code quietNanos} ago), the backstop runs
     * {@code standIn}'s duty cycle, beside the stalled caller, until that caller begins another cycle or leaves; it
     * idles between empty stand-in cycles as {@code idle} says. A busy machine takes a spinning thread off its core
     * for hundreds of milliseconds wherever it is, and a poller spends most of its time inside the engine: without a
     * stand-in nothing runs the engine meanwhile. Only the backstop runs the stand-in (one thread at a time), and
     * only its {@link Agent#doWork()}; it must be safe to run concurrently with the agent's own cycle (driver-jni's
     * is a second receive batch and send scratch on the same socket).
     *
     * @param agent the engine's work
     * @param standIn the work the backstop does beside a stalled caller, or null (it waits for the caller)
     * @param mode who runs it; the stand-in is used only with PROGRESS
     * @param idle what the engine's thread does between empty cycles
     * @param quietNanos how long no caller must have progressed, or a caller must have stayed in one cycle, before
     *        the backstop steps in, at least 1
     * @param errorHandler receives what {@code doWork} throws, on the thread that ran it
     * @return the engine
     */
    public static ProgressEngine start(Agent agent, Agent standIn, ThreadingMode mode, IdleStrategy idle,
            long quietNanos, Consumer<Throwable> errorHandler) {
        return new ProgressEngine(agent, standIn, mode, idle, quietNanos, errorHandler);
    }

    /**
     * {@link #start(Agent, ThreadingMode, IdleStrategy, long, Consumer)} with a {@link BackoffIdleStrategy}, a quiet
     * period of {@value #DEFAULT_QUIET_NANOS} ns and failures logged.
     *
     * @param agent the engine's work
     * @param mode who runs it
     * @return the engine
     */
    public static ProgressEngine start(Agent agent, ThreadingMode mode) {
        return start(agent, mode, new BackoffIdleStrategy(), DEFAULT_QUIET_NANOS, t -> LOG.log(
                System.Logger.Level.WARNING, "engine " + agent.roleName() + " failed", t));
    }

    /**
     * The progress hook's work: runs duty cycles of the engine on the calling thread until one does nothing or
     * {@code budget} units of work (what {@link Agent#doWork()} returns: packets, QPs drained) are done, if no other
     * thread is in the engine. Returns at once when another thread is (or this one, further up its stack), in
     * {@link ThreadingMode#DEDICATED}, and once closed.
     *
     * @param budget the work after which to stop; at least one cycle runs
     * @return the work done (0: idle, or not this thread's turn)
     */
    public int progress(int budget) {
        if (mode == ThreadingMode.DEDICATED || holder != null) {
            return 0;
        }
        Thread self = Thread.currentThread();
        if (!HOLDER.compareAndSet(this, null, self)) {
            return 0;
        }
        try {
            if (closed || terminated) {
                return 0;
            }
            int total = 0;
            int w;
            do {
                // opaque: the backstop sees a caller that begins no cycle for a quiet period as stalled in one
                CYCLE_STARTS.setOpaque(this, cycleStarts + 1);
                w = cycle();
                total += w;
            } while (w > 0 && total < budget);
            // opaque: the backstop only needs to see it change eventually; only the holder writes it
            CALLER_CYCLES.setOpaque(this, callerCycles + 1);
            return total;
        } finally {
            if (holder == self) {
                HOLDER.setRelease(this, null);
            }
        }
    }

    private int cycle() {
        return cycle(agent);
    }

    /** One duty cycle of {@code a}: what it throws is counted and handed on, or ends the engine. */
    private int cycle(Agent a) {
        try {
            return a.doWork();
        } catch (AgentTerminationException end) {
            terminated = true;
            return 0;
        } catch (Throwable t) {
            fail(t);
            return 0;
        }
    }

    private void fail(Throwable t) {
        errors.incrementAndGet();
        try {
            errorHandler.accept(t);
        } catch (Throwable second) {
            LOG.log(System.Logger.Level.ERROR, "error handler of engine " + agent.roleName() + " threw", second);
        }
    }

    /** @return true if the calling thread is in the engine now (its engine thread for the time being) */
    public boolean isHeldByCurrentThread() {
        return holder == Thread.currentThread();
    }

    /** @return who runs the engine */
    public ThreadingMode mode() {
        return mode;
    }

    /** @return the agent */
    public Agent agent() {
        return agent;
    }

    /** @return the backstop ({@link ThreadingMode#PROGRESS}) or dedicated thread, else null */
    public Thread thread() {
        return runner != null ? runner.thread() : null;
    }

    /** @return the duty cycles the backstop ran that did work (0 while the application progresses the engine) */
    public long backstopWork() {
        return backstopWork;
    }

    /** @return the stand-in's cycles that did work, beside a caller stalled inside the engine (0 without one) */
    public long standInWork() {
        return standInWork;
    }

    /** @return the calls of {@link #progress(int)} that ran the engine */
    public long callerCycles() {
        return (long) CALLER_CYCLES.getOpaque(this);
    }

    /** @return the failures of {@code doWork} so far */
    public long errorCount() {
        return errors.get();
    }

    /** @return true once the agent signalled {@link AgentTerminationException} or the engine was closed */
    public boolean isClosed() {
        return closed || terminated;
    }

    /**
     * Stops the engine's thread, waits (up to 5 s) for a caller still in the engine, then calls the agent's
     * {@link Agent#onClose()} on this thread; later {@link #progress(int)} calls return 0. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (runner != null) {
            runner.close(); // the dedicated thread closes the agent itself
        }
        if (mode == ThreadingMode.DEDICATED) {
            return;
        }
        Thread self = Thread.currentThread();
        long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
        boolean held = holder == self;
        while (!held && !HOLDER.compareAndSet(this, null, self)) {
            if (System.nanoTime() - deadline > 0) {
                LOG.log(System.Logger.Level.WARNING, "engine " + agent.roleName() + ": closed while thread '"
                        + holder + "' is still in it");
                return;
            }
            LockSupport.parkNanos(10_000);
        }
        try {
            agent.onClose();
        } catch (Throwable t) {
            fail(t);
        }
        // the holder stays set: no one enters a closed engine
    }

    @Override
    public String toString() {
        return "ProgressEngine{" + agent.roleName() + ", " + mode + (closed ? ", closed" : "") + '}';
    }

    /** The dedicated thread: holds the engine for its whole life. */
    private final class Dedicated implements Agent {
        @Override
        public void onStart() {
            HOLDER.setVolatile(ProgressEngine.this, Thread.currentThread());
            agent.onStart();
        }

        @Override
        public int doWork() throws Exception {
            return agent.doWork();
        }

        @Override
        public void onClose() {
            agent.onClose();
        }

        @Override
        public String roleName() {
            return agent.roleName();
        }
    }

    /** The backstop's duty cycle: nothing while callers progress; the engine when they have not for a while. */
    private final class Backstop implements Agent {
        private long seen = -1;
        /** True when the last check saw a caller progress: the idle strategy then parks a quiet period. */
        private boolean callersActive;
        /** The caller's cycle starts when the backstop last saw them change, and when (System.nanoTime). */
        private long startsSeen = -1;
        private long startsSeenAt;

        @Override
        public int doWork() {
            if (closed || terminated) {
                throw new AgentTerminationException("engine " + agent.roleName() + " closed");
            }
            long c = (long) CALLER_CYCLES.getOpaque(ProgressEngine.this);
            // A caller in the engine now counts as active too: it finishes its call (progress is bounded), while
            // a backstop that idled as the engine would (driver-jni: in poll on the socket the caller reads) would
            // spin on the datagram the caller is about to receive, or be woken by each one, and take the core from
            // a caller that was preempted in the engine. Unless it has stayed in one cycle for a quiet period: then
            // the stand-in, if any, runs beside it.
            if (holder != null) {
                seen = c;
                return standInBesideHolder();
            }
            startsSeen = -1;
            if (c != seen) {
                seen = c;
                callersActive = true;
                return 0;
            }
            callersActive = false;
            Thread self = Thread.currentThread();
            if (!HOLDER.compareAndSet(ProgressEngine.this, null, self)) {
                callersActive = true; // a caller came in just now
                return 0;
            }
            int w;
            try {
                w = cycle();
            } finally {
                HOLDER.setRelease(ProgressEngine.this, null);
            }
            if (w > 0) {
                backstopWork++; // only this thread writes it
            }
            return w;
        }

        /** A caller holds the engine: the stand-in's cycle if the caller began none for a quiet period, else 0. */
        private int standInBesideHolder() {
            long starts = (long) CYCLE_STARTS.getOpaque(ProgressEngine.this);
            long now = System.nanoTime();
            if (standIn == null || starts != startsSeen) {
                startsSeen = starts;
                startsSeenAt = now;
                callersActive = true;
                return 0;
            }
            if (now - startsSeenAt < Math.max(quietNanos, STAND_IN_AFTER_NANOS)) {
                callersActive = true;
                return 0;
            }
            callersActive = false; // standing in: idle as the engine's thread between empty cycles
            int w = cycle(standIn);
            if (w > 0) {
                standInWork++; // only this thread writes it
            }
            return w;
        }

        /** The backstop's thread carries the engine's name: it is the engine's thread, run only when needed. */
        @Override
        public String roleName() {
            return agent.roleName();
        }
    }

    /** Parks a quiet period while callers progress the engine, else idles as the engine's strategy says. */
    private final class BackstopIdle implements IdleStrategy {
        private final IdleStrategy whenAlone;

        BackstopIdle(IdleStrategy whenAlone) {
            this.whenAlone = whenAlone;
        }

        @Override
        public void idle(int workCount) {
            if (backstop.callersActive) {
                whenAlone.reset();
                LockSupport.parkNanos(quietNanos);
            } else {
                whenAlone.idle(workCount);
            }
        }

        @Override
        public void idle() {
            idle(0);
        }

        @Override
        public void reset() {
            whenAlone.reset();
        }

        @Override
        public String alias() {
            return "backstop(" + whenAlone.alias() + ")";
        }
    }
}
