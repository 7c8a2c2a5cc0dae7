/**
 * Time for driver-sim: a {@link io.rvt.driver.sim.clock.NanoClock} abstraction, the
 * {@link io.rvt.driver.sim.clock.VirtualClock}, and the deterministic {@link io.rvt.driver.sim.clock.EventLoop} (one
 * priority queue of events ordered by time and scheduling sequence, with an {@link java.util.concurrent.Executor} and
 * an {@link io.rvt.api.spi.TimerService} on the same virtual time). The agents that run the real-time mode are rvt's
 * one agent runtime, {@code io.rvt.api.spi.agent}.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.0.0")
package io.rvt.driver.sim.clock;
