/**
 * The integration tests' application: RC traffic between rvt devices, with the data checked. Under OSGi it gets its
 * devices from the service registry ({@code io.rvt.it.app.osgi}); on the plain module path {@link io.rvt.it.app.Main}
 * gets them from {@code Rvt.open()}.
 */
module io.rvt.it.app {
    requires io.rvt.api;
    requires io.rvt.cm;                                     // its QPs connect through rvt-cm
    requires static osgi.core;                              // only the OSGi component
    requires static org.osgi.service.component.annotations; // CLASS retention
}
