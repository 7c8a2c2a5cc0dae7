package io.rvt.driver.sim.fabric;

/** How a {@link Fabric} keeps time. */
public enum FabricMode {
    /**
     * Virtual time on an {@link io.rvt.driver.sim.clock.EventLoop}: every frame, task and timer is an event; the same
     * seed and program give the same trace.
     */
    DETERMINISTIC,
    /**
     * Real time ({@link System#nanoTime()}): a delivery agent holds each frame until it is due, then hands it to the
     * receiving port's handler on the agent's thread.
     */
    REAL_TIME
}
