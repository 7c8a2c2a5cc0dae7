/**
 * rvt-core: the generic rdmavt engine behind every rvt device. It exports nothing; drivers and applications reach it
 * only through the interfaces of {@code io.rvt.api}.
 */
module io.rvt.core {
    requires transitive io.rvt.api;
    requires static org.osgi.annotation.bundle;
    requires static org.osgi.annotation.versioning;
    requires static biz.aQute.bnd.annotation;               // @ServiceCapability, CLASS retention
    requires static osgi.core;                              // only the OSGi DriverTracker needs it
    requires static org.osgi.service.component.annotations; // CLASS retention

    uses io.rvt.api.spi.RvtDriver;

    provides io.rvt.api.DeviceRegistry with io.rvt.core.RvtDeviceRegistry;
}
