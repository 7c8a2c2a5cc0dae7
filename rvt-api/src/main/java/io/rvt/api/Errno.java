package io.rvt.api;

/**
 * The Linux errno values that rdmavt returns (negated) from its verbs, and that a {@link VerbsException} carries.
 */
public enum Errno {
    /** Operation not permitted (e.g. a DMA MR on a user PD). */
    EPERM(1),
    /** No such entry. */
    ENOENT(2),
    /** Try again. */
    EAGAIN(11),
    /** Out of resources: a queue is full, a table is exhausted, a device limit is reached. */
    ENOMEM(12),
    /** Permission denied (e.g. fast registration of an MR from another PD). */
    EACCES(13),
    /** Busy: an object is still in use. */
    EBUSY(16),
    /** No such device (the driver went away). */
    ENODEV(19),
    /** Invalid argument. */
    EINVAL(22),
    /** Operation not supported. */
    EOPNOTSUPP(95),
    /** Address already in use (rvt-cm: a port somebody already listens on). */
    EADDRINUSE(98),
    /** Connection reset by peer (rvt-cm: the peer disconnected, or rejected a stale connection). */
    ECONNRESET(104),
    /** Timed out. */
    ETIMEDOUT(110),
    /** Connection refused (rvt-cm: the peer rejected the connection request). */
    ECONNREFUSED(111);

    private final int value;

    Errno(int value) {
        this.value = value;
    }

    /** @return the positive errno value */
    public int value() {
        return value;
    }

    /**
     * @param value a positive or negative errno value
     * @return the errno
     * @throws IllegalArgumentException if the value is not one rvt uses
     */
    public static Errno of(int value) {
        int v = Math.abs(value);
        for (Errno e : values()) {
            if (e.value == v) {
                return e;
            }
        }
        throw new IllegalArgumentException("unknown errno value: " + value);
    }
}
