/**
 * rvt's one agent runtime, after Agrona's {@code org.agrona.concurrent} (rightly not Agrona itself, which has no OSGi
 * headers): an {@link io.rvt.api.spi.agent.Agent} is a duty cycle; an {@link io.rvt.api.spi.agent.AgentRunner} runs
 * one on a thread of its own, an {@link io.rvt.api.spi.agent.AgentInvoker} on the caller's;
 * {@link io.rvt.api.spi.agent.CompositeAgent} and {@link io.rvt.api.spi.agent.DynamicCompositeAgent} run several as
 * one; the {@link io.rvt.api.spi.agent.IdleStrategy} family says what a thread does between empty cycles.
 *
 * <p>rvt extension: {@link io.rvt.api.spi.agent.ProgressEngine} runs an engine where the application polls (the
 * progress hook {@link io.rvt.api.spi.RvtDriver#progress(int)}) with a backstop thread for when it does not, and
 * {@link io.rvt.api.spi.agent.ThreadingMode} decides, for every engine of a driver and for rvt-core's timers, which
 * threads run it.
 *
 * <p>The runtime lives in rvt-api because everything that runs an engine depends on it already: rvt-core (its timer
 * service is an agent), rvt-transport, driver-sim and driver-jni. rvt-core cannot depend on rvt-transport.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.2.0")
package io.rvt.api.spi.agent;
