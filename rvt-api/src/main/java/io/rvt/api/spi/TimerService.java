package io.rvt.api.spi;

import io.rvt.api.Device;
import java.util.OptionalLong;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * The one clock and timer interface rvt-core uses for its RC retry and RNR timers, so that a test or a simulator can
 * drive time (driver-sim's deterministic mode runs the core on virtual time). rvt-core brings a real-time
 * implementation; a driver supplies its own through {@link RvtDriver#timerService()}.
 *
 * <p>rdmavt counts timeouts in jiffies; {@link #hz()} is the tick rate rvt uses to reproduce its formulas exactly
 * ({@link Timeouts#timeoutToTicks(int, int)}).
 */
@ConsumerType
public interface TimerService {
    /**
     * The clock and timers a device runs on, an rvt extension (ibverbs has no such call): its driver's own
     * ({@link RvtDriver#timerService()}; driver-sim's deterministic fabric gives its virtual time, whose
     * {@link #replaySeed()} is the fabric's seed), else rvt-core's real-time one (driver-jni, real-time driver-sim).
     * The device's RC retry and RNR timers run on it; software above the verbs that keeps time of its own (rvt-cm's
     * retries and timewait) runs on it too, so that a deterministic run replays with it. Here in the SPI rather than
     * on {@link Device}, so that the verbs API names no SPI type.
     *
     * @param device a device rvt-core made (under OSGi, a {@code Device} service; else from a registry)
     * @return the device's timer service ({@link DriverDevice#timerService()}), the same one for the device's life
     * @throws IllegalArgumentException if {@code device} is null or not rvt-core's, naming it and its class
     */
    static TimerService of(Device device) {
        if (device instanceof DriverDevice d) {
            return d.timerService();
        }
        throw new IllegalArgumentException("not a device of rvt-core, so no timer service: " + device
                + (device == null ? "" : " (" + device.getClass().getName() + ")"));
    }

    /** @return the current time in nanoseconds (monotonic; virtual under a simulator) */
    long nanoTime();

    /** @return ticks per second ({@code HZ}); 1000 unless the service says otherwise */
    default int hz() {
        return 1000;
    }

    /**
     * Creates a timer that runs {@code action} when it expires. The action runs on a thread of the service (or, in
     * virtual time, inside the call that advances time), never on the thread that armed it.
     *
     * @param name a name for diagnostics, e.g. {@code "qp 0x12 retry"}
     * @param action what to run on expiry
     * @return the timer, disarmed
     */
    RvtTimer newTimer(String name, Runnable action);

    /**
     * Whether this clock replays, an rvt extension: a virtual clock whose run is fixed by a seed (driver-sim's
     * deterministic fabric) gives that seed, so that software on this clock seeds its own random numbers from it
     * (rvt-cm's starting PSNs and communication IDs) and the same seed and calls give the same run. A real-time
     * clock gives none (the default): its users draw from the system's entropy.
     *
     * @return the seed of the run, or empty on real time
     */
    default OptionalLong replaySeed() {
        return OptionalLong.empty();
    }
}
