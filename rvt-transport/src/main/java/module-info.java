/**
 * The IBTA transport layer for packet-based drivers: the header codec (LRH, GRH, BTH and the extended transport
 * headers, ICRC) in {@code io.rvt.transport.header}; the transport entry point in {@code io.rvt.transport} and the
 * RC, UC and UD engines in {@code io.rvt.transport.rc}, {@code .uc} and {@code .ud}. Only the first two are exported
 * (JPMS and OSGi): they are what drivers import; the engines are reached through {@code Transport}.
 */
module io.rvt.transport {
    requires transitive io.rvt.api;
    requires static org.osgi.annotation.bundle;
    requires static org.osgi.annotation.versioning;

    exports io.rvt.transport;
    exports io.rvt.transport.header;
}
