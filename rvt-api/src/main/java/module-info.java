/**
 * rvt-api: the verbs API applications program against ({@code io.rvt.api}) and the driver SPI drivers implement
 * ({@code io.rvt.api.spi}, the Java mirror of rdmavt's {@code struct rvt_driver_provided}). rvt-core provides the
 * {@code DeviceRegistry} it uses.
 */
module io.rvt.api {
    requires static org.osgi.annotation.bundle;
    requires static org.osgi.annotation.versioning;

    exports io.rvt.api;
    exports io.rvt.api.spi;
    exports io.rvt.api.spi.agent;
    // The engine state rvt-core and rvt-transport share: not part of the driver SPI.
    exports io.rvt.api.spi.engine to io.rvt.core, io.rvt.transport;

    uses io.rvt.api.DeviceRegistry;
}
