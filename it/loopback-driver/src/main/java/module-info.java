/**
 * A third party's rvt driver: software loopback between the QPs of one device, written against {@code io.rvt.api}
 * only. Under OSGi it is a Declarative Services component; on the module path a {@code ServiceLoader} provider.
 */
module io.rvt.it.loopback {
    requires io.rvt.api;
    requires static org.osgi.service.component.annotations; // CLASS retention: no import at run time

    provides io.rvt.api.spi.RvtDriver with io.rvt.it.loopback.LoopbackDriver;
}
