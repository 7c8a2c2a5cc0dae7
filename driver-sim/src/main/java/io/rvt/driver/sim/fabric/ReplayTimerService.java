package io.rvt.driver.sim.fabric;

import io.rvt.api.spi.RvtTimer;
import io.rvt.api.spi.TimerService;
import java.util.OptionalLong;

/**
 * A deterministic fabric's clock as devices and rvt-cm see it: its event loop's virtual time and timers, with the
 * fabric's seed as {@link #replaySeed()}, so that a CM on this clock draws its random numbers from the run's seed.
 */
final class ReplayTimerService implements TimerService {
    private final TimerService loopTimers;
    private final OptionalLong seed;
    private final String fabric;

    ReplayTimerService(TimerService loopTimers, long seed, String fabric) {
        this.loopTimers = loopTimers;
        this.seed = OptionalLong.of(seed);
        this.fabric = fabric;
    }

    @Override
    public long nanoTime() {
        return loopTimers.nanoTime();
    }

    @Override
    public int hz() {
        return loopTimers.hz();
    }

    @Override
    public RvtTimer newTimer(String name, Runnable action) {
        return loopTimers.newTimer(name, action);
    }

    @Override
    public OptionalLong replaySeed() {
        return seed;
    }

    @Override
    public String toString() {
        return "fabric '" + fabric + "' virtual time (seed 0x" + Long.toHexString(seed.getAsLong()) + ")";
    }
}
