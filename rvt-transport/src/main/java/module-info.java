/**
 * The IBTA transport layer for packet-based drivers: the header codec (LRH, GRH, BTH and the extended transport
 * headers, ICRC) in {@code io.rvt.transport.header}; what the engines and a driver's send engine share (the packet
 * made and received, {@code TxInfo}, {@code RxInfo}, {@code Packets}; the QP's protocol state and the engine
 * interface) in {@code io.rvt.transport.engine}; the RC, UC and UD engines in {@code io.rvt.transport.rc},
 * {@code .uc} and {@code .ud}, which use only those two; and above them the transport entry point and the driver
 * skeleton in {@code io.rvt.transport} ({@code Transport} makes the engines). The header, engine and entry-point
 * packages are exported (JPMS and OSGi): they are what drivers import; the engines are reached through
 * {@code Transport}. No package cycle: header, engine, rc/uc/ud, transport, each using only those before it.
 */
module io.rvt.transport {
    requires transitive io.rvt.api;
    requires static org.osgi.annotation.bundle;
    requires static org.osgi.annotation.versioning;

    exports io.rvt.transport;
    exports io.rvt.transport.engine;
    exports io.rvt.transport.header;
}
