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
    ECONNREFUSED(111),
    /**
     * An errno rvt has no constant for (a driver's own, e.g. {@code -E2BIG}); {@link VerbsException#errnoValue()}
     * carries its number and the message its Linux name. Never returned by {@link #of(int)}.
     */
    OTHER(0);

    /** Linux names of errno values 1..133 (asm-generic errno-base.h and errno.h); null where unassigned. */
    private static final String[] LINUX_NAMES = {null, "EPERM", "ENOENT", "ESRCH", "EINTR", "EIO", "ENXIO", "E2BIG",
        "ENOEXEC", "EBADF", "ECHILD", "EAGAIN", "ENOMEM", "EACCES", "EFAULT", "ENOTBLK", "EBUSY", "EEXIST", "EXDEV",
        "ENODEV", "ENOTDIR", "EISDIR", "EINVAL", "ENFILE", "EMFILE", "ENOTTY", "ETXTBSY", "EFBIG", "ENOSPC", "ESPIPE",
        "EROFS", "EMLINK", "EPIPE", "EDOM", "ERANGE", "EDEADLK", "ENAMETOOLONG", "ENOLCK", "ENOSYS", "ENOTEMPTY",
        "ELOOP", null, "ENOMSG", "EIDRM", "ECHRNG", "EL2NSYNC", "EL3HLT", "EL3RST", "ELNRNG", "EUNATCH", "ENOCSI",
        "EL2HLT", "EBADE", "EBADR", "EXFULL", "ENOANO", "EBADRQC", "EBADSLT", null, "EBFONT", "ENOSTR", "ENODATA",
        "ETIME", "ENOSR", "ENONET", "ENOPKG", "EREMOTE", "ENOLINK", "EADV", "ESRMNT", "ECOMM", "EPROTO", "EMULTIHOP",
        "EDOTDOT", "EBADMSG", "EOVERFLOW", "ENOTUNIQ", "EBADFD", "EREMCHG", "ELIBACC", "ELIBBAD", "ELIBSCN",
        "ELIBMAX", "ELIBEXEC", "EILSEQ", "ERESTART", "ESTRPIPE", "EUSERS", "ENOTSOCK", "EDESTADDRREQ", "EMSGSIZE",
        "EPROTOTYPE", "ENOPROTOOPT", "EPROTONOSUPPORT", "ESOCKTNOSUPPORT", "EOPNOTSUPP", "EPFNOSUPPORT",
        "EAFNOSUPPORT", "EADDRINUSE", "EADDRNOTAVAIL", "ENETDOWN", "ENETUNREACH", "ENETRESET", "ECONNABORTED",
        "ECONNRESET", "ENOBUFS", "EISCONN", "ENOTCONN", "ESHUTDOWN", "ETOOMANYREFS", "ETIMEDOUT", "ECONNREFUSED",
        "EHOSTDOWN", "EHOSTUNREACH", "EALREADY", "EINPROGRESS", "ESTALE", "EUCLEAN", "ENOTNAM", "ENAVAIL", "EISNAM",
        "EREMOTEIO", "EDQUOT", "ENOMEDIUM", "EMEDIUMTYPE", "ECANCELED", "ENOKEY", "EKEYEXPIRED", "EKEYREVOKED",
        "EKEYREJECTED", "EOWNERDEAD", "ENOTRECOVERABLE", "ERFKILL", "EHWPOISON"};

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
        Errno e = find(value);
        if (e == OTHER) {
            throw new IllegalArgumentException("unknown errno value: " + value);
        }
        return e;
    }

    /**
     * Maps any errno value, never failing: for a driver's return value, which may be one rvt has no constant for.
     *
     * @param value a positive or negative errno value
     * @return its constant, or {@link #OTHER}
     */
    public static Errno find(int value) {
        int v = value == Integer.MIN_VALUE ? 0 : Math.abs(value);
        if (v != 0) {
            for (Errno e : values()) {
                if (e.value == v) {
                    return e;
                }
            }
        }
        return OTHER;
    }

    /**
     * @param value a positive or negative errno value
     * @return its Linux name ({@code E2BIG} for 7 or -7), or {@code errno N} if Linux has none
     */
    public static String linuxName(int value) {
        long v = Math.abs((long) value);
        String n = v < LINUX_NAMES.length ? LINUX_NAMES[(int) v] : null;
        return n != null ? n : "errno " + v;
    }
}
