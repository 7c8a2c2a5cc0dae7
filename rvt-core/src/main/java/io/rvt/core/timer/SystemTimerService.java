package io.rvt.core.timer;

import io.rvt.api.spi.RvtTimer;
import io.rvt.api.spi.TimerService;
import io.rvt.api.spi.agent.Agent;
import io.rvt.api.spi.agent.AgentRunner;
import io.rvt.api.spi.agent.DeadlineHeap;
import io.rvt.api.spi.agent.IdleStrategy;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * rvt-core's real-time {@link TimerService}: an {@link Agent} that owns its timers and is polled by its own
 * {@link AgentRunner} thread, so actions of one service never run concurrently. {@link #hz()} is 1000.
 *
 * <p>Only the agent's thread touches the timer heap (rvt-api's {@link DeadlineHeap}, each timer holding its own node):
 * no global monitor and no scan of every armed timer. Arming from any thread writes the timer's deadline and, if the
 * timer is not already waiting for the agent, pushes it on a lock-free inbound stack, which the agent drains at the
 * start of each cycle; it wakes the agent only if the new deadline is earlier than the one it sleeps until, so the
 * microsecond RNR timers keep their precision while an RC QP re-arms its retry timer for every packet without a
 * system call. Arming allocates nothing.
 *
 * <p>After {@link #close()} pending expiries are dropped and arming does nothing.
 */
public final class SystemTimerService implements TimerService, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(SystemTimerService.class.getName());
    /** The longest the agent sleeps without being woken. */
    private static final long MAX_SLEEP_NANOS = 10_000_000L;
    private static final VarHandle INBOUND;

    static {
        try {
            INBOUND = MethodHandles.lookup().findVarHandle(SystemTimerService.class, "inbound", Timer.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String name;
    /** Timers armed or cancelled since the agent last looked, linked through {@link Timer#nextInbound} (CAS). */
    @SuppressWarnings("unused") // through INBOUND
    private volatile Timer inbound;
    /** The armed timers by the deadline the agent took in; the agent's thread only. */
    private final DeadlineHeap<Timer> heap = new DeadlineHeap<>(64);
    /** When the agent plans to wake next; arming earlier unparks it. */
    private volatile long nextWake = Long.MAX_VALUE;
    private volatile boolean closed;
    private final AgentRunner runner;

    /**
     * Starts the service's agent on a thread named {@code threadName}.
     *
     * @param threadName the name of the timer thread
     */
    public SystemTimerService(String threadName) {
        this.name = Objects.requireNonNull(threadName, "threadName");
        this.runner = AgentRunner.start(new TimerAgent(), new UntilNextDeadline(),
                t -> LOG.log(System.Logger.Level.WARNING, "timer agent " + name + " failed", t));
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public int hz() {
        return 1000;
    }

    @Override
    public RvtTimer newTimer(String name, Runnable action) {
        return new Timer(Objects.requireNonNull(name, "name"), Objects.requireNonNull(action, "action"));
    }

    /** Stops the timer thread; pending expiries are dropped, a running action finishes. */
    @Override
    public void close() {
        closed = true;
        runner.close();
    }

    /** @return true once closed */
    public boolean isClosed() {
        return closed;
    }

    /** @return the number of timers in the heap (the agent's view; for tests and diagnostics) */
    int heapSize() {
        return heap.size();
    }

    private void push(Timer t) {
        Timer head;
        do {
            head = inbound;
            t.nextInbound = head;
        } while (!INBOUND.compareAndSet(this, head, t));
    }

    // ------------------------------------------------------------------ the agent's side

    /** The agent's duty cycle: take in what was armed, then run what is due. */
    private final class TimerAgent implements Agent {
        @Override
        public int doWork() {
            drainInbound();
            int work = 0;
            long now = System.nanoTime();
            while (!heap.isEmpty() && heap.peekDeadline() - now <= 0) {
                Timer t = heap.poll();
                if (t.armed.get() == 0) {
                    continue; // cancelled since
                }
                long d = t.deadline;
                if (d - now > 0) {
                    heap.add(t.node, d, 0); // re-armed for later
                    continue;
                }
                if (t.armed.compareAndSet(1, 0)) {
                    t.expire();
                    work++;
                }
            }
            return work;
        }

        /** Drops every pending expiry: after {@link #close()} no timer is pending. */
        @Override
        public void onClose() {
            drainInbound();
            for (Timer t = heap.poll(); t != null; t = heap.poll()) {
                t.armed.set(0);
            }
        }

        @Override
        public String roleName() {
            return name;
        }
    }

    /** Moves what arm/cancel pushed into (or out of) the heap. */
    private void drainInbound() {
        Timer t = (Timer) INBOUND.getAndSet(this, (Timer) null);
        while (t != null) {
            Timer next = t.nextInbound;
            t.nextInbound = null;
            t.queued.set(0); // before reading its state: an arm after this pushes it again
            if (t.armed.get() == 1) {
                heap.add(t.node, t.deadline, 0); // queues or moves it
            } else {
                heap.remove(t.node);
            }
            t = next;
        }
    }

    /** Parks until the earliest deadline (at most 10 ms), unless something was armed meanwhile. */
    private final class UntilNextDeadline implements IdleStrategy {
        @Override
        public void idle(int workCount) {
            idle();
        }

        @Override
        public void idle() {
            long wake = !heap.isEmpty() ? heap.peekDeadline() : System.nanoTime() + MAX_SLEEP_NANOS;
            long now = System.nanoTime();
            if (wake - now > MAX_SLEEP_NANOS) {
                wake = now + MAX_SLEEP_NANOS;
            }
            nextWake = wake;
            // Re-check after publishing nextWake: an arm in between either saw it and unparks us, or is on the
            // inbound stack for the next cycle.
            if (inbound == null && !closed) {
                long sleep = wake - System.nanoTime();
                if (sleep > 0) {
                    LockSupport.parkNanos(this, sleep);
                }
            }
            nextWake = Long.MAX_VALUE;
        }

        @Override
        public void reset() {
        }

        @Override
        public String alias() {
            return "until-next-deadline";
        }
    }

    // ------------------------------------------------------------------ one timer

    /** One timer: its state is written by any thread, its heap slot only by the agent. */
    private final class Timer implements RvtTimer {
        private final String timerName;
        private final Runnable action;
        /** 1 while an expiry is pending. */
        final AtomicInteger armed = new AtomicInteger();
        /** 1 while on the inbound stack. */
        final AtomicInteger queued = new AtomicInteger();
        volatile long deadline;
        /** The thread running the action, or null. */
        private volatile Thread runner;
        Timer nextInbound;
        /** The agent's: its place in the heap, under the deadline the agent took in. */
        final DeadlineHeap.Node<Timer> node = new DeadlineHeap.Node<>(this);

        Timer(String name, Runnable action) {
            this.timerName = name;
            this.action = action;
        }

        @Override
        public void arm(long delayNanos) {
            if (delayNanos < 0) {
                throw new IllegalArgumentException("timer '" + timerName + "': delay " + delayNanos
                        + " ns is negative");
            }
            if (closed) {
                return;
            }
            long when = System.nanoTime() + delayNanos;
            deadline = when;
            armed.set(1);
            if (queued.get() == 0 && queued.compareAndSet(0, 1)) {
                push(this);
            }
            if (when - nextWake < 0) {
                LockSupport.unpark(SystemTimerService.this.runner.thread());
            }
        }

        void expire() {
            runner = Thread.currentThread();
            try {
                action.run();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "timer '" + timerName + "' action failed", e);
            } finally {
                runner = null;
            }
        }

        @Override
        public boolean cancel() {
            // The heap keeps its entry until it comes up (or the next arm moves it): the agent drops it then.
            return armed.getAndSet(0) == 1;
        }

        @Override
        public void cancelSync() {
            Thread self = Thread.currentThread();
            // Like del_timer_sync: loop until neither pending nor running (the action may re-arm itself).
            while (true) {
                cancel();
                Thread r = runner;
                if (r == null || r == self) {
                    return;
                }
                LockSupport.parkNanos(10_000);
            }
        }

        @Override
        public boolean isPending() {
            return armed.get() == 1;
        }

        @Override
        public String toString() {
            return "Timer{" + timerName + (armed.get() == 1 ? ", due in " + (deadline - System.nanoTime()) + " ns"
                    : "") + '}';
        }
    }
}
