package io.rvt.driver.jni;

import io.rvt.api.Errno;

/**
 * A socket operation of the UDP layer failed: carries the errno the kernel returned (as the C library's
 * {@code -errno}), its symbolic name, and the operation and address it concerned, e.g.
 * {@code bind 127.0.0.1:4791 failed: EADDRINUSE (98, address already in use)}.
 */
public final class UdpException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The kernel's errno, positive. */
    private final int errno;
    /** The operation that failed. */
    private final String operation;
    /** The address it concerned. */
    private final String address;

    /**
     * @param operation what failed ({@code bind}, {@code sendmmsg}, ...)
     * @param address the address and port it concerned, {@code host:port} ({@code [v6]:port} for IPv6)
     * @param errno the positive errno
     */
    public UdpException(String operation, String address, int errno) {
        super(operation + " " + address + " failed: " + Errno.describe(errno));
        this.errno = errno;
        this.operation = operation;
        this.address = address;
    }

    /**
     * @param operation what failed
     * @param address the address and port it concerned
     * @param cause the JDK's exception (the {@link Wire#JDK} layer)
     * @param errno the errno that best matches the cause
     */
    public UdpException(String operation, String address, Throwable cause, int errno) {
        super(operation + " " + address + " failed: " + Errno.describe(errno) + ": " + cause.getMessage(), cause);
        this.errno = errno;
        this.operation = operation;
        this.address = address;
    }

    /** @return the positive errno, e.g. 98 for {@code EADDRINUSE} */
    public int errno() {
        return errno;
    }

    /**
     * @return the errno's symbolic name, e.g. {@code EADDRINUSE}, or {@code errno N} for one Linux does not name
     */
    public String errnoName() {
        return Errno.linuxName(errno);
    }

    /** @return the operation that failed */
    public String operation() {
        return operation;
    }

    /** @return the address and port the operation concerned */
    public String address() {
        return address;
    }
}
