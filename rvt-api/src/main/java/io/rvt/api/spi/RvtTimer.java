package io.rvt.api.spi;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A one-shot timer of a {@link TimerService} (the Java stand-in for rdmavt's {@code timer_list} and
 * {@code hrtimer}). Thread-safe.
 */
@ConsumerType
public interface RvtTimer {
    /**
     * Arms the timer to expire {@code delayNanos} from now, replacing a pending expiry ({@code mod_timer}).
     *
     * @param delayNanos the delay, at least 0
     */
    void arm(long delayNanos);

    /**
     * Cancels a pending expiry without waiting for an action already running ({@code del_timer}).
     *
     * @return true if an expiry was pending
     */
    boolean cancel();

    /**
     * Cancels a pending expiry and waits until an action already running has returned ({@code del_timer_sync}). Must
     * not be called from the action itself or with a lock the action takes.
     */
    void cancelSync();

    /** @return true if an expiry is pending */
    boolean isPending();
}
