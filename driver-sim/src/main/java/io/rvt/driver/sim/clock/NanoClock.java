package io.rvt.driver.sim.clock;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A source of monotonic time in nanoseconds: {@link #SYSTEM} in real time, a {@link VirtualClock} in deterministic
 * mode. Injected wherever driver-sim reads time, so a test can drive it (Agrona's {@code NanoClock}).
 */
@ConsumerType
@FunctionalInterface
public interface NanoClock {
    /** The JVM's monotonic clock, {@link System#nanoTime()}. */
    NanoClock SYSTEM = System::nanoTime;

    /** @return the current time in nanoseconds; only differences are meaningful for {@link #SYSTEM} */
    long nanoTime();
}
