package io.rvt.core.timer;

import io.rvt.api.spi.RvtTimer;
import io.rvt.api.spi.TimerService;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * rvt-core's real-time {@link TimerService}: one daemon thread ({@link ScheduledThreadPoolExecutor}) runs every
 * timer's action, so actions of one service never run concurrently. {@link #hz()} is 1000.
 *
 * <p>After {@link #close()} pending expiries are dropped and arming does nothing.
 */
public final class SystemTimerService implements TimerService, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(SystemTimerService.class.getName());

    private final ScheduledThreadPoolExecutor executor;

    /**
     * @param threadName the name of the timer thread
     */
    public SystemTimerService(String threadName) {
        Objects.requireNonNull(threadName, "threadName");
        executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        executor.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
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
        executor.shutdown();
    }

    /** @return true once closed */
    public boolean isClosed() {
        return executor.isShutdown();
    }

    /**
     * One timer. Its state is guarded by its own monitor: {@link #pending} is the scheduled expiry,
     * {@link #armCount} tells a stale expiry (one replaced or cancelled after it was queued) from the current one.
     */
    private final class Timer implements RvtTimer {
        private final String name;
        private final Runnable action;
        private ScheduledFuture<?> pending;
        private long armCount;
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
            synchronized (this) {
                dropPending();
                long arming = ++armCount;
                try {
                    pending = executor.schedule(() -> expire(arming), delayNanos, TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException e) {
                    LOG.log(System.Logger.Level.DEBUG, "timer ''{0}'' armed after its service was closed", name);
                }
            }
        }

        private void expire(long arming) {
            synchronized (this) {
                if (arming != armCount || pending == null) {
                    return;
                }
                pending = null;
                runner = Thread.currentThread();
            }
            try {
                action.run();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "timer '" + name + "' action failed", e);
            } finally {
                synchronized (this) {
                    runner = null;
                    notifyAll();
                }
            }
        }

        /** Cancels the pending expiry; the caller holds this timer's monitor. */
        private boolean dropPending() {
            if (pending == null) {
                return false;
            }
            pending.cancel(false);
            pending = null;
            armCount++;
            return true;
        }

        @Override
        public synchronized boolean cancel() {
            return dropPending();
        }

        @Override
        public synchronized void cancelSync() {
            Thread self = Thread.currentThread();
            boolean interrupted = false;
            // Like del_timer_sync: loop until neither pending nor running (the action may re-arm itself).
            while (true) {
                dropPending();
                if (runner == null || runner == self) {
                    break;
                }
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                self.interrupt();
            }
        }

        @Override
        public synchronized boolean isPending() {
            return pending != null;
        }

        @Override
        public String toString() {
            return "Timer{" + name + (isPending() ? ", pending" : "") + '}';
        }
    }
}
