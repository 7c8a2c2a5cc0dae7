package io.rvt.driver.sim.clock;

import io.rvt.api.spi.TimerService;
import io.rvt.api.spi.agent.Agent;
import io.rvt.api.spi.agent.DeadlineHeap;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;

/**
 * The deterministic mode's scheduler: one priority queue of {@link LoopEvent}s ordered by (virtual time, scheduling
 * sequence) and one {@link VirtualClock} starting at 0. Nothing happens until a caller drives the loop with
 * {@link #step()}, {@link #runUntilIdle()}, {@link #runFor(long)} or {@link #runUntil(BooleanSupplier, long)} (Aeron's
 * {@code INVOKER} threading mode), or a thread runs {@link #agent()}; each event runs on the driving thread with the
 * clock set to its time, so the same program with the same seed runs the same events in the same order.
 *
 * <p>Everything scheduled goes through the one queue: driver-sim's frames, the tasks of {@link #executor()} (rvt-core
 * completion handlers, the HCA's send engine), the timers of {@link #timerService()} (rvt-core's RC retry and RNR
 * timers) and {@link #schedule(long, Runnable)}.
 *
 * <p>Threading: any thread may schedule or cancel (a lock guards the queue; events run outside it). One thread at a
 * time drives the loop; driving it from a second thread, or from inside an event, throws
 * {@link IllegalStateException}. Scheduling from other threads while the loop runs is safe but makes the order
 * depend on thread timing, which deterministic runs avoid.
 *
 * <p>Allocation: event objects are reused; executor tasks and {@code schedule(..., Runnable)} use pooled nodes; the
 * queue's array grows only when it fills. A steady state allocates nothing.
 *
 * <pre>{@code
 * EventLoop loop = new EventLoop();
 * RvtTimer t = loop.timerService().newTimer("retry", () -> System.out.println("at " + loop.nanoTime()));
 * t.arm(1_000);
 * loop.executor().execute(() -> System.out.println("first, at 0"));
 * loop.runUntilIdle();                    // prints "first, at 0" then "at 1000"
 * }</pre>
 */
public final class EventLoop implements NanoClock {
    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;
    private static final int DEFAULT_AGENT_BATCH = 64;

    /** Guards the queue, the sequence, the driver and the free list. */
    final Object lock = new Object();
    private final VirtualClock clock = new VirtualClock();
    private final Executor executor = this::execute;
    private final LoopTimerService timerService;

    /** The queued events by (time, scheduling sequence): rvt-api's {@link DeadlineHeap}; under {@link #lock}. */
    private final DeadlineHeap<LoopEvent> heap = new DeadlineHeap<>(256);
    /** Next scheduling sequence; under {@link #lock}. */
    private long nextSeq;
    /** The thread inside a step/run call, or null; under {@link #lock}. */
    private Thread driver;
    /** The event running now, or null; under {@link #lock}. */
    private LoopEvent running;
    /** Threads in {@code cancelSync} waiting for {@link #running} to change; under {@link #lock}. */
    private int syncWaiters;
    /** Free task nodes, linked through {@link TaskEvent#next}; under {@link #lock}. */
    private TaskEvent freeTasks;
    /** Events run so far; under {@link #lock}. */
    private long eventsRun;
    /** FNV-1a over (time, sequence) of every event run, in order; under {@link #lock}. */
    private long eventHash = FNV_OFFSET;

    /** Creates a loop with an empty queue at virtual time 0, whose timer service has {@code hz() == 1000}. */
    public EventLoop() {
        this(1000);
    }

    /**
     * Creates a loop with an empty queue at virtual time 0.
     *
     * @param hz the tick rate {@link #timerService()} reports ({@link TimerService#hz()}), at least 1
     */
    public EventLoop(int hz) {
        if (hz < 1) {
            throw new IllegalArgumentException("hz=" + hz + " must be at least 1");
        }
        timerService = new LoopTimerService(this, hz);
    }

    /** @return the current virtual time in ns */
    @Override
    public long nanoTime() {
        return clock.nanoTime();
    }

    /** @return the loop's clock (read it; the loop advances it) */
    public VirtualClock clock() {
        return clock;
    }

    /**
     * An executor whose tasks run as events at the current virtual time, after everything already due at that time
     * (FIFO). For completion handlers and for the HCA's send-engine work in deterministic mode.
     *
     * @return the executor (the same one each time)
     */
    public Executor executor() {
        return executor;
    }

    /**
     * A {@link TimerService} on this loop's virtual time: {@code nanoTime()} is the loop's clock and each armed timer
     * is an event on the loop, so rvt-core's retry and RNR timers interleave deterministically with frames and tasks.
     * Timer actions run on the driving thread. {@code cancelSync} called while the action runs on another thread waits
     * for it; called from the action itself it only cancels.
     *
     * @return the timer service (the same one each time)
     */
    public TimerService timerService() {
        return timerService;
    }

    /**
     * Runs {@code task} as an event at the current virtual time (FIFO among events due now).
     *
     * @param task the task
     */
    public void execute(Runnable task) {
        scheduleAt(clock.nanoTime(), task);
    }

    /**
     * Runs {@code task} as an event {@code delayNanos} from now.
     *
     * @param delayNanos the delay, at least 0
     * @param task the task
     * @throws IllegalArgumentException if {@code delayNanos} is negative
     */
    public void schedule(long delayNanos, Runnable task) {
        if (delayNanos < 0) {
            throw new IllegalArgumentException("schedule: delayNanos=" + delayNanos + " is negative");
        }
        scheduleAt(saturatedAdd(clock.nanoTime(), delayNanos), task);
    }

    /**
     * Runs {@code task} as an event at virtual time {@code atNanos} (at the current time if that has passed).
     *
     * @param atNanos the time
     * @param task the task
     */
    public void scheduleAt(long atNanos, Runnable task) {
        Objects.requireNonNull(task, "task");
        synchronized (lock) {
            TaskEvent e = freeTasks;
            if (e != null) {
                freeTasks = e.next;
                e.next = null;
            } else {
                e = new TaskEvent();
            }
            e.task = task;
            enqueue(e, atNanos);
        }
    }

    /**
     * Queues {@code event} at virtual time {@code atNanos} (at the current time if that has passed), moving it if it
     * is already queued here; it then runs after every event queued before it for the same time.
     *
     * @param event the event
     * @param atNanos the time
     * @throws IllegalStateException if the event is queued in another loop
     */
    public void schedule(LoopEvent event, long atNanos) {
        Objects.requireNonNull(event, "event");
        synchronized (lock) {
            if (event.node.isQueued() && event.loop != this) {
                throw new IllegalStateException("event " + event + " is queued in another loop");
            }
            enqueue(event, atNanos); // moves it if it is queued here
        }
    }

    /**
     * Removes {@code event} from the queue.
     *
     * @param event the event
     * @return true if it was queued here
     */
    public boolean cancel(LoopEvent event) {
        synchronized (lock) {
            return event.loop == this && heap.remove(event.node);
        }
    }

    /**
     * Runs the earliest event, first moving the clock to its time if that is later.
     *
     * @return false if the queue was empty
     */
    public boolean step() {
        enter();
        try {
            return runOne(Long.MAX_VALUE);
        } finally {
            exit();
        }
    }

    /**
     * {@link #step()} for a caller that may be inside an event or race a thread that drives the loop (a verb that
     * waits for work the loop does): runs the earliest event only if no thread is driving the loop now.
     *
     * @return true if an event ran; false if the queue was empty or the loop is being driven (by another thread, or
     *         by this one further up its stack)
     */
    public boolean tryStep() {
        Thread self = Thread.currentThread();
        synchronized (lock) {
            if (driver != null) {
                return false;
            }
            driver = self;
        }
        try {
            return runOne(Long.MAX_VALUE);
        } finally {
            exit();
        }
    }

    /**
     * Runs events until the queue is empty; virtual time ends at the last event's time. An event that always
     * schedules another (a periodic timer) makes this run forever: use {@link #runFor(long)} then.
     *
     * @return the number of events run
     */
    public long runUntilIdle() {
        enter();
        try {
            long n = 0;
            while (runOne(Long.MAX_VALUE)) {
                n++;
            }
            return n;
        } finally {
            exit();
        }
    }

    /**
     * Runs every event due within the next {@code nanos} of virtual time (including those scheduled on the way), then
     * sets the clock to the old time plus {@code nanos}.
     *
     * @param nanos how long, at least 0
     * @return the number of events run
     */
    public long runFor(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("runFor: nanos=" + nanos + " is negative");
        }
        enter();
        try {
            long target = saturatedAdd(clock.nanoTime(), nanos);
            long n = 0;
            while (runOne(target)) {
                n++;
            }
            if (clock.nanoTime() < target) {
                clock.advanceTo(target);
            }
            return n;
        } finally {
            exit();
        }
    }

    /**
     * Runs events until {@code condition} holds (it is checked before each event) or {@code maxVirtualNanos} of
     * virtual time have passed. If the queue has nothing due before that deadline, the clock moves to the deadline.
     *
     * @param condition what to wait for; evaluated on the calling thread
     * @param maxVirtualNanos the virtual-time budget, at least 0
     * @return true if {@code condition} held at the end
     */
    public boolean runUntil(BooleanSupplier condition, long maxVirtualNanos) {
        Objects.requireNonNull(condition, "condition");
        if (maxVirtualNanos < 0) {
            throw new IllegalArgumentException("runUntil: maxVirtualNanos=" + maxVirtualNanos + " is negative");
        }
        enter();
        try {
            long deadline = saturatedAdd(clock.nanoTime(), maxVirtualNanos);
            while (!condition.getAsBoolean()) {
                if (!runOne(deadline)) {
                    if (clock.nanoTime() < deadline) {
                        clock.advanceTo(deadline);
                    }
                    return condition.getAsBoolean();
                }
            }
            return true;
        } finally {
            exit();
        }
    }

    /**
     * An agent that drives this loop from a thread (deterministic mode with {@code ThreadingMode.DEDICATED}): each
     * {@code doWork()} runs up to 64 events, as fast as they come; virtual time jumps from event to event.
     *
     * @return a new agent for this loop
     */
    public Agent agent() {
        return new Agent() {
            @Override
            public int doWork() {
                enter();
                try {
                    int n = 0;
                    while (n < DEFAULT_AGENT_BATCH && runOne(Long.MAX_VALUE)) {
                        n++;
                    }
                    return n;
                } finally {
                    exit();
                }
            }

            @Override
            public String roleName() {
                return "rvt-sim-loop";
            }
        };
    }

    /** @return the number of queued events */
    public int pending() {
        synchronized (lock) {
            return heap.size();
        }
    }

    /** @return the time of the earliest queued event, or {@link Long#MAX_VALUE} if none */
    public long nextEventTime() {
        synchronized (lock) {
            return heap.isEmpty() ? Long.MAX_VALUE : heap.peekDeadline();
        }
    }

    /** @return the number of events run since creation */
    public long eventsRun() {
        synchronized (lock) {
            return eventsRun;
        }
    }

    /**
     * A fingerprint of the event order: 64-bit FNV-1a over the (time, scheduling sequence) of every event run, in
     * order. Two runs of one program with one seed give the same value.
     *
     * @return the hash
     */
    public long eventHash() {
        synchronized (lock) {
            return eventHash;
        }
    }

    @Override
    public String toString() {
        synchronized (lock) {
            return "EventLoop{now=" + clock.nanoTime() + ", pending=" + heap.size() + ", run=" + eventsRun + '}';
        }
    }

    // ---- internals ----

    /** Runs the earliest event if it is due at or before {@code limit}. Called by the driving thread only. */
    private boolean runOne(long limit) {
        LoopEvent e;
        synchronized (lock) {
            if (heap.isEmpty() || heap.peekDeadline() > limit) {
                return false;
            }
            e = heap.poll();
            long time = e.node.deadline();
            if (time > clock.nanoTime()) {
                clock.advanceTo(time);
            }
            running = e;
            eventsRun++;
            eventHash = (eventHash ^ time) * FNV_PRIME;
            eventHash = (eventHash ^ e.node.seq()) * FNV_PRIME;
        }
        try {
            e.onEvent();
        } finally {
            synchronized (lock) {
                running = null;
                if (e instanceof TaskEvent && !e.node.isQueued()) {
                    TaskEvent t = (TaskEvent) e;
                    t.task = null;
                    t.next = freeTasks;
                    freeTasks = t;
                }
                if (syncWaiters > 0) {
                    lock.notifyAll();
                }
            }
        }
        return true;
    }

    private void enter() {
        Thread self = Thread.currentThread();
        synchronized (lock) {
            if (driver != null) {
                throw new IllegalStateException(driver == self
                        ? "event loop driven re-entrantly from inside an event"
                        : "event loop already driven by thread '" + driver.getName() + "'");
            }
            driver = self;
        }
    }

    private void exit() {
        synchronized (lock) {
            driver = null;
        }
    }

    /** Blocks until {@code event} is not running on another thread. Called with the lock held. */
    void awaitNotRunning(LoopEvent event) {
        Thread self = Thread.currentThread();
        boolean interrupted = false;
        while (running == event && driver != self) {
            syncWaiters++;
            try {
                lock.wait();
            } catch (InterruptedException ex) {
                interrupted = true;
            } finally {
                syncWaiters--;
            }
        }
        if (interrupted) {
            self.interrupt();
        }
    }

    private void enqueue(LoopEvent e, long atNanos) {
        e.loop = this;
        heap.add(e.node, Math.max(atNanos, clock.nanoTime()), nextSeq++);
    }

    static long saturatedAdd(long a, long b) {
        long r = a + b;
        return r < a ? Long.MAX_VALUE : r;
    }

    /** A pooled node for {@link #execute(Runnable)} and {@link #schedule(long, Runnable)}. */
    private static final class TaskEvent extends LoopEvent {
        Runnable task;
        TaskEvent next;

        @Override
        protected void onEvent() {
            task.run();
        }

        @Override
        public String toString() {
            return "task " + task;
        }
    }
}
