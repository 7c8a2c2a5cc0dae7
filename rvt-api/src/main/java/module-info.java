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

    uses io.rvt.api.DeviceRegistry;
}
