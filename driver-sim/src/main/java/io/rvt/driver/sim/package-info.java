/**
 * The simulated HCA: {@link io.rvt.driver.sim.SimDriver}, an rvt driver whose ports sit on an in-JVM
 * {@link io.rvt.driver.sim.fabric.Fabric} and which speaks the IBTA transport of {@code io.rvt.transport} over it.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.1.0")
package io.rvt.driver.sim;
