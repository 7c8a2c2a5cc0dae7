module io.rvt.api {
    requires static org.osgi.annotation.bundle;
    requires static org.osgi.annotation.versioning;

    exports io.rvt.api;
    exports io.rvt.api.spi;

    uses io.rvt.api.DeviceRegistry;
}
