/**
 * Time and execution for driver-sim: a {@link io.rvt.driver.sim.clock.NanoClock} abstraction, the
 * {@link io.rvt.driver.sim.clock.VirtualClock}, the deterministic {@link io.rvt.driver.sim.clock.EventLoop} (one
 * priority queue of events ordered by time and scheduling sequence, with an {@link java.util.concurrent.Executor} and
 * an {@link io.rvt.api.spi.TimerService} on the same virtual time), and the duty-cycle runtime of the real-time mode
 * ({@link io.rvt.driver.sim.clock.Agent}, {@link io.rvt.driver.sim.clock.AgentRunner} and the
 * {@link io.rvt.driver.sim.clock.IdleStrategy} family), after Agrona's {@code org.agrona.concurrent}.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package io.rvt.driver.sim.clock;
