/**
 * driver-sim: an in-JVM RDMA fabric (switch, links with bandwidth, latency and seeded faults, pooled frames) with a
 * deterministic mode on virtual time and a real-time mode on duty-cycle agents. The simulated HCA is built on top of
 * {@code io.rvt.driver.sim.fabric}; {@code io.rvt.driver.sim.clock} holds the virtual clock, the event loop with its
 * {@link io.rvt.api.spi.TimerService} and executor, and the agent runtime.
 */
module io.rvt.driver.sim {
    requires transitive io.rvt.api;
    requires io.rvt.transport;
    requires static org.osgi.annotation.bundle;
    requires static org.osgi.annotation.versioning;
    requires static biz.aQute.bnd.annotation;               // @ServiceCapability, CLASS retention
    requires static osgi.core;                               // only the OSGi component (io.rvt.driver.sim.osgi)
    requires static org.osgi.service.component.annotations;  // CLASS retention
    requires static org.osgi.service.metatype.annotations;   // CLASS retention

    exports io.rvt.driver.sim;
    exports io.rvt.driver.sim.clock;
    exports io.rvt.driver.sim.fabric;

    provides io.rvt.api.spi.RvtDriver with io.rvt.driver.sim.SimDriver;
}
