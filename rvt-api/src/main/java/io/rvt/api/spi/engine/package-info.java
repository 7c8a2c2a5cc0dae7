/**
 * The engine state rvt-core and rvt-transport share, not part of the driver SPI: the send ring ({@code SendQueue},
 * {@code SendWqe}, {@code SgeState}), the requester's and responder's state, RC's ack queue, {@code s_flags} bits and
 * the engine's view of a QP ({@code EngineQp}). JPMS exports it to {@code io.rvt.core} and {@code io.rvt.transport}
 * only; OSGi exports it with {@code x-friends} naming those bundles, and the build does not baseline it, so a change
 * here is a change between those two modules, never an SPI change.
 */
@org.osgi.annotation.bundle.Export(attribute = "x-friends:=\"io.rvt.core,io.rvt.transport\"")
@org.osgi.annotation.versioning.Version("1.0.0")
package io.rvt.api.spi.engine;
