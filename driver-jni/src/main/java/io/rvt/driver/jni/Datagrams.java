package io.rvt.driver.jni;

import java.net.InetAddress;

/**
 * One bound UDP socket of a port, as the driver uses it: batched send and non-blocking batched receive, and a way to
 * wait for traffic or a wake-up when idle. Implemented over {@link Wire#NATIVE} ({@link NativeDatagrams}) and
 * {@link Wire#JDK} ({@link JdkDatagrams}); tests decorate it to inject faults.
 */
interface Datagrams extends AutoCloseable {
    /** @return the address the socket is bound to */
    InetAddress localAddress();

    /** @return the UDP port the socket is bound to */
    int localPort();

    /** @return the interface of a link-local IPv6 local address ({@code sin6_scope_id}), else 0 */
    default int scopeId() {
        InetAddress a = localAddress();
        return a instanceof java.net.Inet6Address ? ((java.net.Inet6Address) a).getScopeId() : 0;
    }

    /**
     * Sends every datagram of {@code batch} and clears it. A datagram the kernel refuses is dropped (UDP may drop).
     *
     * @param batch the datagrams
     * @return how many were dropped because the kernel refused them
     */
    int send(TxBatch batch);

    /**
     * Receives what is waiting, without blocking.
     *
     * @param batch filled from slot 0; its {@code count} is set
     * @return how many datagrams arrived
     */
    int receive(RxBatch batch);

    /**
     * Blocks until a datagram waits, {@link #wakeup()} is called, or the timeout passes.
     *
     * @param timeoutMillis the longest wait
     */
    void await(int timeoutMillis);

    /** Ends an {@link #await} in progress, or the next one. */
    void wakeup();

    /**
     * @return the datagrams the kernel dropped for this socket so far (a full receive buffer), an unsigned 32-bit
     *         count that wraps; -1 if this layer cannot see it
     */
    default long kernelDrops() {
        return -1;
    }

    /**
     * @param send true for the send buffer ({@code SO_SNDBUF}), false for the receive buffer ({@code SO_RCVBUF})
     * @return the buffer the kernel granted, bytes as {@code getsockopt} reports them (Linux: twice what was asked,
     *         within {@code net.core.[rw]mem_max} unless forced), or -1 if this layer cannot tell
     */
    default int bufferBytes(boolean send) {
        return -1;
    }

    /**
     * Whether each receive reports the IP header's traffic class, hop limit and flow label ({@link RxBatch#hasIpInfo});
     * a socket opens without them, which spares the kernel writing control messages on every receive. Applies to the
     * datagrams received after the call. A layer that cannot report them ignores it.
     *
     * @param on true to have them reported
     */
    default void receiveIpInfo(boolean on) {
    }

    /** @return whether receives report the IP header's fields ({@link #receiveIpInfo}); false if this layer cannot */
    default boolean receivesIpInfo() {
        return false;
    }

    /**
     * Asks the kernel to coalesce received datagrams (UDP GRO): a run of same-size datagrams of one flow (on this
     * host, a UDP GSO message whole) may then arrive as one datagram of several RoCEv2 packets, whose segment size
     * {@link RxBatch#segmentSize} reports; the receive slots must hold 64 KiB. A layer that cannot ignores it.
     *
     * @return true if the socket now coalesces, false if this layer or the kernel cannot (then nothing changed)
     */
    default boolean receiveCoalesced() {
        return false;
    }

    /** @return the errno of the last failed system call, 0 if none failed */
    int lastErrno();

    /** Closes the socket; idempotent. */
    @Override
    void close();

    /**
     * Opens a socket of the given layer.
     *
     * @param wire the layer
     * @param address the local address
     * @param port the local port, 0 for an ephemeral one
     * @param bufferBytes SO_SNDBUF/SO_RCVBUF to ask for
     * @return the socket
     * @throws UdpException if the kernel refuses (address in use, address not local, ...)
     */
    static Datagrams open(Wire wire, InetAddress address, int port, int bufferBytes) {
        return open(wire, address, port, bufferBytes, false);
    }

    /**
     * Opens a socket of the given layer.
     *
     * @param wire the layer
     * @param address the local address
     * @param port the local port, 0 for an ephemeral one
     * @param bufferBytes SO_SNDBUF/SO_RCVBUF to ask for
     * @param reusePort SO_REUSEPORT: a flow's source port, which other HCAs of this host may send from too
     * @return the socket
     * @throws UdpException if the kernel refuses (address in use, address not local, ...)
     */
    static Datagrams open(Wire wire, InetAddress address, int port, int bufferBytes, boolean reusePort) {
        return open(wire, address, port, bufferBytes, reusePort, false);
    }

    /**
     * Opens a socket of the given layer.
     *
     * @param wire the layer
     * @param address the local address
     * @param port the local port, 0 for an ephemeral one
     * @param bufferBytes SO_SNDBUF/SO_RCVBUF to ask for
     * @param reusePort SO_REUSEPORT: a flow's source port, which other HCAs of this host may send from too
     * @param gso {@link Wire#NATIVE} on IPv6: runs of same-size datagrams to one destination go as UDP GSO messages
     * @return the socket
     * @throws UdpException if the kernel refuses (address in use, address not local, ...)
     */
    static Datagrams open(Wire wire, InetAddress address, int port, int bufferBytes, boolean reusePort,
            boolean gso) {
        return wire == Wire.NATIVE ? new NativeDatagrams(address, port, bufferBytes, reusePort, gso)
                : new JdkDatagrams(address, port, bufferBytes, reusePort);
    }
}
