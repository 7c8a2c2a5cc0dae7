package io.rvt.driver.sim.fabric;

/** Which thread drives a {@link Fabric} (Aeron's {@code ThreadingMode}, cut to the two cases a fabric has). */
public enum ThreadingMode {
    /**
     * The caller drives: in deterministic mode through {@code Fabric.runUntilIdle()} and friends, in real-time mode by
     * calling {@code Fabric.agent().doWork()}. No thread is started.
     */
    INVOKER,
    /** The fabric starts one daemon thread that runs its agent with the fabric's idle strategy. */
    DEDICATED
}
