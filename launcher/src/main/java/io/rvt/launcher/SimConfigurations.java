package io.rvt.launcher;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * driver-sim's HCAs {@code sim0} and {@code sim1} on one fabric with the fabric options, as two factory configurations
 * of PID {@value #PID}.
 *
 * @param options the fabric's faults and time mode
 * @param threading who runs the fabric: {@code progress} (the default), or a network thread
 */
record SimConfigurations(FabricOptions options, Threading threading) implements HcaConfigurations {
    /** driver-sim's Config Admin factory PID: one HCA per configuration. */
    static final String PID = "io.rvt.driver.sim";
    /** The fabric both HCAs attach to. */
    static final String FABRIC = "rvt";

    /**
     * @param options the fabric's faults and time mode
     */
    SimConfigurations(FabricOptions options) {
        this(options, Threading.PROGRESS);
    }

    @Override
    public Threading threadingMode() {
        return threading;
    }

    @Override
    public DriverKind driver() {
        return DriverKind.SIM;
    }

    @Override
    public String bundle() {
        return "driver-sim";
    }

    @Override
    public String factoryPid() {
        return PID;
    }

    @Override
    public List<Map<String, Object>> properties(boolean spin) {
        return List.of(properties(options, threading, "sim0", spin), properties(options, threading, "sim1", spin));
    }

    @Override
    public String network() {
        return " on fabric '" + FABRIC + "' (" + options.describe() + ")";
    }

    /**
     * @param options the fabric options
     * @param name the HCA's name
     * @param spin whether the network thread busy-spins when idle (a measuring command: every message waits for
     *             that thread, and a parked thread wakes up to a millisecond late) or backs off (an idle shell)
     * @return the configuration of one HCA of driver-sim's factory PID with the fabric options
     */
    static Map<String, Object> properties(FabricOptions options, String name, boolean spin) {
        return properties(options, options.deterministic() ? Threading.DEDICATED : Threading.SHARED, name, spin);
    }

    /**
     * @param options the fabric options
     * @param threading {@link Threading#PROGRESS}: the HCAs' pollers run the fabric, a backstop thread that never
     *                  spins when they stop; {@link Threading#DEDICATED} or {@link Threading#SHARED}: driver-sim's
     *                  {@code threading} of the same name (not {@link Threading#INVOKER}: the launcher holds no
     *                  agent of the bundle's)
     * @param name the HCA's name
     * @param spin whether a network thread busy-spins when idle
     * @return the configuration of one HCA
     */
    static Map<String, Object> properties(FabricOptions options, Threading threading, String name, boolean spin) {
        Map<String, Object> p = new HashMap<>();
        p.put("name", name);
        p.put("fabric", FABRIC);
        p.put("ports", options.ports());
        p.put("mtu", 4096);
        // the same words: a deterministic fabric runs everything on its event loop's thread (dedicated)
        boolean progress = threading == Threading.PROGRESS;
        p.put("threading", threading.option());
        p.put("idle", spin && !progress ? "spin" : "backoff");
        p.put("deterministic", options.deterministic());
        p.put("seed", options.seed());
        p.put("loss", options.loss());
        p.put("duplication", options.duplication());
        p.put("reorder", options.reorder());
        return p;
    }
}
