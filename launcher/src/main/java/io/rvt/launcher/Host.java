package io.rvt.launcher;

import io.rvt.api.Device;
import java.util.List;
import java.util.Map;

/**
 * Where the launcher's devices come from: a plain-Java device registry with simulated HCAs ({@link PlainHost}) or
 * RoCEv2 HCAs ({@link PlainJniHost}), or an OSGi framework whose device services they are ({@link FelixHost}). A host
 * owns its devices; {@link #close()} removes them.
 */
public interface Host extends AutoCloseable {
    /** @return the devices, in a stable order (the first two are the pair the commands connect) */
    List<Device> devices();

    /**
     * @return one line saying what the devices are, for headers and the "measured on" note, e.g.
     *         {@code driver-sim, real-time fabric 'rvt' (loss 0.05)}
     */
    String description();

    /** @return the driver of the devices */
    DriverKind driver();

    /**
     * @return what figures were measured on, for the commands' "measured on" notes: the {@link #description()},
     *         said to be a simulated device when it is one
     */
    default String measuredOn() {
        return driver().simulated() ? "a simulated device: " + description() : description();
    }

    /**
     * Counters of the network between the devices, if the host can see them (a simulated fabric's frames, drops by
     * cause, duplicates, reorderings), in a stable order.
     *
     * @return counter name to value; empty if the host has none
     */
    default Map<String, Long> fabricCounters() {
        return Map.of();
    }

    /**
     * Moves the network between the devices on by one step, for a thread that busy-polls for a completion and found
     * none. Where the network has threads of its own (the default) this only spins ({@link Thread#onSpinWait()});
     * with {@link Threading#INVOKER} the calling thread runs the network's duty cycle itself. Call it from one thread
     * at a time (the command's); it allocates nothing.
     *
     * @throws IllegalStateException if the network fails
     */
    default void progress() {
        Thread.onSpinWait();
    }

    /** @return who runs the network between the devices: {@link Threading#DEDICATED} unless the host says otherwise */
    default Threading threading() {
        return Threading.DEDICATED;
    }

    /**
     * @return how the launcher's connection managers run on these devices: real-time timers
     *         ({@link Connector#realTime()}) unless the host's network has a clock of its own
     */
    default io.rvt.cm.CmConfig cmConfig() {
        return Connector.realTime();
    }

    /** Removes the devices and stops whatever the host started. Idempotent. */
    @Override
    void close();
}
