/**
 * The simulated fabric: an in-JVM network of {@link io.rvt.driver.sim.fabric.FabricPort}s joined by a switch
 * ({@link io.rvt.driver.sim.fabric.Fabric}) that forwards opaque {@link io.rvt.driver.sim.fabric.Frame}s by
 * destination LID (unicast or multicast), over links with bandwidth, latency and seeded faults (loss, duplication,
 * reordering, bit corruption, link down, partitions). Frames come from {@link io.rvt.driver.sim.fabric.FramePool}s
 * and are never allocated in a steady state. The fabric never parses transport headers.
 *
 * <p>Two modes: deterministic (virtual time on an {@link io.rvt.driver.sim.clock.EventLoop}, one seed, a trace and
 * its hash that replay exactly) and real-time (a duty-cycle agent holds frames until due on
 * {@link System#nanoTime()}).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.1.0")
package io.rvt.driver.sim.fabric;
