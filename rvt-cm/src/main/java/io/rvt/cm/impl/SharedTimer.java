package io.rvt.cm.impl;

import io.rvt.api.spi.RvtTimer;
import io.rvt.api.spi.TimerService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The real-time timers of the CMs that bring none of their own: one daemon thread ({@code rvt-cm-timer}) shared by
 * every CM of the JVM, started by the first and stopped by the last ({@link #acquire}/{@link #release}), so that no
 * thread outlives the CMs.
 */
final class SharedTimer implements TimerService {
    private static final Object LOCK = new Object();
    private static SharedTimer instance;
    private static int users;

    private final ScheduledThreadPoolExecutor executor;

    private SharedTimer() {
        executor = new ScheduledThreadPoolExecutor(1, SharedTimer::newThread);
        executor.setRemoveOnCancelPolicy(true);
    }

    /**
     * The timer's thread, which the executor creates on whatever thread first arms a timer: often a driver's (a MAD
     * arrived through its engine). A thread keeps its creator's context class loader and access-control context
     * (the protection domains of every class on the creating stack), so made plainly it would hold that driver's
     * class loader for as long as any CM runs, and an updated driver bundle could never be collected. It is made
     * inside {@code doPrivileged} (only rvt-cm's frames are captured) with rvt-cm's class loader as its context.
     */
    @SuppressWarnings("removal") // the JDK 17 way to keep the creator's stack out of a new thread
    private static Thread newThread(Runnable r) {
        return java.security.AccessController.doPrivileged((java.security.PrivilegedAction<Thread>) () -> {
            Thread t = new Thread(r, "rvt-cm-timer");
            t.setDaemon(true);
            t.setContextClassLoader(SharedTimer.class.getClassLoader());
            return t;
        });
    }

    /** @return the shared timer, started if it was not running */
    static SharedTimer acquire() {
        synchronized (LOCK) {
            if (instance == null) {
                instance = new SharedTimer();
            }
            users++;
            return instance;
        }
    }

    /** Releases a use; the last one stops the thread. */
    static void release() {
        synchronized (LOCK) {
            if (--users == 0) {
                instance.executor.shutdownNow();
                instance = null;
            }
        }
    }

    /** @return true while the thread runs (for leak tests) */
    static boolean isRunning() {
        synchronized (LOCK) {
            return instance != null;
        }
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public RvtTimer newTimer(String name, Runnable action) {
        return new Timer(action);
    }

    @Override
    public String toString() {
        return "rvt-cm-timer";
    }

    private final class Timer implements RvtTimer {
        private final Runnable action;
        private ScheduledFuture<?> pending;

        Timer(Runnable action) {
            this.action = action;
        }

        @Override
        public synchronized void arm(long delayNanos) {
            if (pending != null) {
                pending.cancel(false);
            }
            pending = executor.isShutdown() ? null
                    : executor.schedule(action, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        }

        @Override
        public synchronized boolean cancel() {
            boolean was = pending != null && !pending.isDone();
            if (pending != null) {
                pending.cancel(false);
                pending = null;
            }
            return was;
        }

        @Override
        public void cancelSync() {
            cancel();
        }

        @Override
        public synchronized boolean isPending() {
            return pending != null && !pending.isDone();
        }
    }
}
