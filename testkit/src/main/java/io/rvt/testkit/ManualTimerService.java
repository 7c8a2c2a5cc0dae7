package io.rvt.testkit;

import io.rvt.api.spi.RvtTimer;
import io.rvt.api.spi.TimerService;
import java.util.Objects;
import java.util.TreeSet;

/**
 * A {@link TimerService} on virtual time, for tests and simulators: the clock starts at 0 and moves only through
 * {@link #advance(long)} and {@link #runNext()}, which run due timers on the calling thread, earliest deadline first
 * (ties in arming order), with {@link #nanoTime()} set to each timer's deadline while its action runs. An action may
 * arm timers; one due within the same {@code advance} runs in it. An exception thrown by an action propagates out of
 * {@code advance}/{@code runNext} (later timers stay pending), so a test sees it. {@link #hz()} is 1000. Thread-safe.
 */
public final class ManualTimerService implements TimerService {
    private final Object lock = new Object();
    /** Pending expiries by (deadline, arming sequence); under {@link #lock}. */
    private final TreeSet<Timer> queue = new TreeSet<>((a, b) -> {
        int c = Long.compare(a.deadline, b.deadline);
        return c != 0 ? c : Long.compare(a.seq, b.seq);
    });
    /** Virtual time in ns; under {@link #lock}. */
    private long now;
    /** Arming sequence; under {@link #lock}. */
    private long seq;

    @Override
    public long nanoTime() {
        synchronized (lock) {
            return now;
        }
    }

    @Override
    public int hz() {
        return 1000;
    }

    @Override
    public RvtTimer newTimer(String name, Runnable action) {
        return new Timer(Objects.requireNonNull(name, "name"), Objects.requireNonNull(action, "action"));
    }

    /**
     * Moves time {@code nanos} forward, running every timer whose deadline is reached on the way, in deadline order;
     * time ends at the old time plus {@code nanos}.
     *
     * @param nanos how far, at least 0
     * @return the number of actions run
     */
    public int advance(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("advance: " + nanos + " ns is negative");
        }
        long target;
        synchronized (lock) {
            target = saturatedAdd(now, nanos);
        }
        int ran = 0;
        while (runDue(target)) {
            ran++;
        }
        synchronized (lock) {
            if (now < target) {
                now = target;
            }
        }
        return ran;
    }

    /**
     * Moves time to the earliest pending deadline (if later than now) and runs that timer.
     *
     * @return false if no timer was pending
     */
    public boolean runNext() {
        return runDue(Long.MAX_VALUE);
    }

    /** @return the number of pending timers */
    public int pendingCount() {
        synchronized (lock) {
            return queue.size();
        }
    }

    /** Runs the earliest timer if its deadline is at most {@code limit}. */
    private boolean runDue(long limit) {
        Timer t;
        synchronized (lock) {
            if (queue.isEmpty() || queue.first().deadline > limit) {
                return false;
            }
            t = queue.pollFirst();
            t.queued = false;
            if (t.deadline > now) {
                now = t.deadline;
            }
            t.runner = Thread.currentThread();
        }
        try {
            t.action.run();
        } finally {
            synchronized (lock) {
                t.runner = null;
                lock.notifyAll();
            }
        }
        return true;
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return r < a ? Long.MAX_VALUE : r;
    }

    /** A timer; every field is guarded by the service's lock. */
    private final class Timer implements RvtTimer {
        private final String name;
        private final Runnable action;
        private long deadline;
        private long seq;
        private boolean queued;
        private Thread runner;

        Timer(String name, Runnable action) {
            this.name = name;
            this.action = action;
        }

        @Override
        public void arm(long delayNanos) {
            if (delayNanos < 0) {
                throw new IllegalArgumentException("timer '" + name + "': delay " + delayNanos + " ns is negative");
            }
            synchronized (lock) {
                if (queued) {
                    queue.remove(this);
                }
                deadline = saturatedAdd(now, delayNanos);
                seq = ManualTimerService.this.seq++;
                queued = true;
                queue.add(this);
            }
        }

        @Override
        public boolean cancel() {
            synchronized (lock) {
                if (!queued) {
                    return false;
                }
                queue.remove(this);
                queued = false;
                return true;
            }
        }

        @Override
        public void cancelSync() {
            Thread self = Thread.currentThread();
            boolean interrupted = false;
            synchronized (lock) {
                while (true) {
                    if (queued) {
                        queue.remove(this);
                        queued = false;
                    }
                    if (runner == null || runner == self) {
                        break;
                    }
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            }
            if (interrupted) {
                self.interrupt();
            }
        }

        @Override
        public boolean isPending() {
            synchronized (lock) {
                return queued;
            }
        }

        @Override
        public String toString() {
            synchronized (lock) {
                return "Timer{" + name + (queued ? ", deadline=" + deadline : "") + '}';
            }
        }
    }
}
