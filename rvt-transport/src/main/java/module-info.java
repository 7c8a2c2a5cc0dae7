/**
 * The IBTA transport layer for packet-based drivers: the header codec (LRH, GRH, BTH and the extended transport
 * headers, ICRC) in {@code io.rvt.transport.header}; the transport entry point in {@code io.rvt.transport} and the
 * RC, UC and UD engines in {@code io.rvt.transport.rc}, {@code .uc} and {@code .ud}.
 */
module io.rvt.transport {
    requires transitive io.rvt.api;
    requires static org.osgi.annotation.bundle;
    requires static org.osgi.annotation.versioning;

    exports io.rvt.transport;
    exports io.rvt.transport.header;
    exports io.rvt.transport.rc;
    exports io.rvt.transport.uc;
    exports io.rvt.transport.ud;
}
