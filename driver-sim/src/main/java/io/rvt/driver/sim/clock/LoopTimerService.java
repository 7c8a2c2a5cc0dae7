package io.rvt.driver.sim.clock;

import io.rvt.api.spi.RvtTimer;
import io.rvt.api.spi.TimerService;
import java.util.Objects;

/** The {@link TimerService} of an {@link EventLoop}: each timer is a reusable event on the loop. */
final class LoopTimerService implements TimerService {
    /** The loop (named so as not to be shadowed by {@link LoopEvent}'s own field in the timers). */
    private final EventLoop owner;
    private final int hz;

    LoopTimerService(EventLoop loop, int hz) {
        this.owner = loop;
        this.hz = hz;
    }

    @Override
    public long nanoTime() {
        return owner.nanoTime();
    }

    @Override
    public int hz() {
        return hz;
    }

    @Override
    public RvtTimer newTimer(String name, Runnable action) {
        return new LoopTimer(Objects.requireNonNull(name, "name"), Objects.requireNonNull(action, "action"));
    }

    @Override
    public String toString() {
        return "LoopTimerService{" + owner + '}';
    }

    /** One timer; queue state is the loop's (under its lock). */
    private final class LoopTimer extends LoopEvent implements RvtTimer {
        private final String name;
        private final Runnable action;

        LoopTimer(String name, Runnable action) {
            this.name = name;
            this.action = action;
        }

        @Override
        protected void onEvent() {
            action.run();
        }

        @Override
        public void arm(long delayNanos) {
            if (delayNanos < 0) {
                throw new IllegalArgumentException("timer '" + name + "': delayNanos=" + delayNanos + " is negative");
            }
            owner.schedule(this, EventLoop.saturatedAdd(owner.nanoTime(), delayNanos));
        }

        @Override
        public boolean cancel() {
            return owner.cancel(this);
        }

        @Override
        public void cancelSync() {
            synchronized (owner.lock) {
                owner.cancel(this);
                owner.awaitNotRunning(this);
            }
        }

        @Override
        public boolean isPending() {
            return isScheduled();
        }

        @Override
        public String toString() {
            return "timer '" + name + "'";
        }
    }
}
