package io.rvt.core.timer;

import io.rvt.api.spi.RvtTimer;
import io.rvt.api.spi.TimerService;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;

/**
 * rvt-core's real-time {@link TimerService}: one daemon thread runs every timer's action, so actions of one service
 * never run concurrently. {@link #hz()} is 1000.
 *
 * <p>Arming allocates nothing (an RC QP re-arms its retry timer for every packet it sends): armed timers sit on an
 * intrusive list that the thread scans when the earliest deadline is due, as the kernel's timer wheel is walked by
 * jiffies, but woken for the earliest deadline so the microsecond RNR timers keep their precision. All timer state
 * is guarded by the service's monitor, which does not allocate under contention.
 *
 * <p>After {@link #close()} pending expiries are dropped and arming does nothing.
 */
public final class SystemTimerService implements TimerService, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(SystemTimerService.class.getName());
    /** The longest the thread sleeps without being woken. */
    private static final long MAX_SLEEP_NANOS = 10_000_000L;

    private final Thread thread;
    /** Head of the armed timers (guarded by this). */
    private Timer head;
    /** Timers due in one scan (guarded by this; grown rarely). */
    private Timer[] due = new Timer[16];
    /** When the thread plans to wake next; arming earlier unparks it. */
    private volatile long nextWake = Long.MAX_VALUE;
    private volatile boolean closed;

    /**
     * @param threadName the name of the timer thread
     */
    public SystemTimerService(String threadName) {
        Objects.requireNonNull(threadName, "threadName");
        thread = new Thread(this::run, threadName);
        thread.setDaemon(true);
        thread.start();
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
        synchronized (this) {
            while (head != null) {
                head.disarm();
            }
        }
        LockSupport.unpark(thread);
    }

    /** @return true once closed */
    public boolean isClosed() {
        return closed;
    }

    private void run() {
        while (!closed) {
            long now = System.nanoTime();
            int n = 0;
            long earliest = now + MAX_SLEEP_NANOS;
            synchronized (this) {
                for (Timer t = head; t != null; t = t.next) {
                    if (t.deadline - now <= 0) {
                        if (n == due.length) {
                            Timer[] grown = new Timer[n * 2];
                            System.arraycopy(due, 0, grown, 0, n);
                            due = grown;
                        }
                        due[n++] = t;
                    } else if (t.deadline - earliest < 0) {
                        earliest = t.deadline;
                    }
                }
            }
            for (int i = 0; i < n; i++) {
                Timer t = due[i];
                due[i] = null;
                t.expire(now);
            }
            if (n == 0) {
                nextWake = earliest;
                // Re-check after publishing nextWake: an arm in between either saw it and unparks us, or is in the
                // list for the next scan.
                long sleep = earliest - System.nanoTime();
                if (sleep > 0) {
                    LockSupport.parkNanos(this, sleep);
                }
                nextWake = Long.MAX_VALUE;
            }
        }
    }

    /** One timer; its fields are guarded by the service's monitor. */
    private final class Timer implements RvtTimer {
        private final String name;
        private final Runnable action;
        private Timer prev;
        private Timer next;
        private boolean armed;
        private long deadline;
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
            long when = System.nanoTime() + delayNanos;
            synchronized (SystemTimerService.this) {
                if (closed) {
                    return;
                }
                deadline = when;
                if (!armed) {
                    armed = true;
                    next = head;
                    if (head != null) {
                        head.prev = this;
                    }
                    head = this;
                }
            }
            if (when - nextWake < 0) {
                LockSupport.unpark(thread);
            }
        }

        /** Unlinks; the caller holds the service's monitor. */
        void disarm() {
            if (!armed) {
                return;
            }
            armed = false;
            if (prev != null) {
                prev.next = next;
            } else {
                head = next;
            }
            if (next != null) {
                next.prev = prev;
            }
            prev = null;
            next = null;
        }

        void expire(long now) {
            synchronized (SystemTimerService.this) {
                // Re-armed for later, or cancelled, since the scan: not due any more.
                if (!armed || deadline - now > 0) {
                    return;
                }
                disarm();
                runner = Thread.currentThread();
            }
            try {
                action.run();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "timer '" + name + "' action failed", e);
            } finally {
                synchronized (SystemTimerService.this) {
                    runner = null;
                    SystemTimerService.this.notifyAll();
                }
            }
        }

        @Override
        public boolean cancel() {
            synchronized (SystemTimerService.this) {
                boolean was = armed;
                disarm();
                return was;
            }
        }

        @Override
        public void cancelSync() {
            Thread self = Thread.currentThread();
            boolean interrupted = false;
            synchronized (SystemTimerService.this) {
                // Like del_timer_sync: loop until neither pending nor running (the action may re-arm itself).
                while (true) {
                    disarm();
                    if (runner == null || runner == self) {
                        break;
                    }
                    try {
                        SystemTimerService.this.wait();
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
            synchronized (SystemTimerService.this) {
                return armed;
            }
        }

        @Override
        public String toString() {
            return "Timer{" + name + (armed ? ", due in " + (deadline - System.nanoTime()) + " ns" : "") + '}';
        }
    }
}
