package io.rvt.api;

/**
 * The Linux errno values rvt reports: those rdmavt returns (negated) from its verbs, which a {@link VerbsException}
 * carries, and those driver-jni's socket layer and rvt-cm report. rvt's one errno table: internal helpers return
 * them negated as rdmavt's do ({@code return -EINVAL.value();}).
 */
public enum Errno {
    /** Operation not permitted (e.g. a DMA MR on a user PD). */
    EPERM(1, "operation not permitted"),
    /** No such entry. */
    ENOENT(2, "no such file or directory"),
    /** Interrupted system call (driver-jni's socket layer). */
    EINTR(4, "interrupted system call"),
    /** Input/output error (driver-jni: a socket failed in a way the JDK does not name). */
    EIO(5, "input/output error"),
    /** Bad file descriptor (driver-jni: a closed socket). */
    EBADF(9, "bad file descriptor"),
    /** Try again. */
    EAGAIN(11, "resource temporarily unavailable"),
    /** Out of resources: a queue is full, a table is exhausted, a device limit is reached. */
    ENOMEM(12, "cannot allocate memory"),
    /** Permission denied (e.g. fast registration of an MR from another PD). */
    EACCES(13, "permission denied"),
    /** Bad address (driver-jni: a buffer the kernel cannot read or write). */
    EFAULT(14, "bad address"),
    /** Busy: an object is still in use. */
    EBUSY(16, "device or resource busy"),
    /** No such device (the driver went away). */
    ENODEV(19, "no such device"),
    /** Invalid argument. */
    EINVAL(22, "invalid argument"),
    /** Too many open files in system; ib_core's answer when a device is registered under another's name. */
    ENFILE(23, "too many open files in system"),
    /** Too many open files (driver-jni: no socket left). */
    EMFILE(24, "too many open files"),
    /** Message too long (driver-jni: a datagram above the path's MTU). */
    EMSGSIZE(90, "message too long"),
    /** Protocol not supported (driver-jni: no IPv6 in this kernel). */
    EPROTONOSUPPORT(93, "protocol not supported"),
    /** Operation not supported. */
    EOPNOTSUPP(95, "operation not supported"),
    /** Address family not supported (driver-jni: an IPv6 peer on an IPv4 socket, or the reverse). */
    EAFNOSUPPORT(97, "address family not supported"),
    /** Address already in use (rvt-cm: a port somebody already listens on; driver-jni: a bound UDP port). */
    EADDRINUSE(98, "address already in use"),
    /** Cannot assign the requested address (driver-jni: an address no interface has). */
    EADDRNOTAVAIL(99, "cannot assign requested address"),
    /** Network is unreachable (driver-jni). */
    ENETUNREACH(101, "network is unreachable"),
    /** Connection reset by peer (rvt-cm: the peer disconnected, or rejected a stale connection). */
    ECONNRESET(104, "connection reset by peer"),
    /** No buffer space available (driver-jni: the socket's send buffer is full). */
    ENOBUFS(105, "no buffer space available"),
    /** Timed out. */
    ETIMEDOUT(110, "connection timed out"),
    /** Connection refused (rvt-cm: the peer rejected the connection request; driver-jni: ICMP port unreachable). */
    ECONNREFUSED(111, "connection refused"),
    /** No route to host (driver-jni). */
    EHOSTUNREACH(113, "no route to host"),
    /**
     * An errno rvt has no constant for (a driver's own, e.g. {@code -E2BIG}); {@link VerbsException#errnoValue()}
     * carries its number and the message its Linux name. Never returned by {@link #of(int)}.
     */
    OTHER(0, null);

    /** Every constant, for lookups that allocate nothing. */
    private static final Errno[] VALUES = values();

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
    /** What Linux's {@code strerror} says, lower case; null for {@link #OTHER}. */
    private final String text;

    Errno(int value, String text) {
        this.value = value;
        this.text = text;
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
            for (Errno e : VALUES) {
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

    /**
     * Names an errno for a message: its Linux name, its number and, for the constants here, what it means.
     *
     * @param value a positive or negative errno value
     * @return e.g. {@code EADDRINUSE (98, address already in use)}, {@code E2BIG (7)} or {@code errno 200 (200)}
     */
    public static String describe(int value) {
        long v = Math.abs((long) value);
        String text = v <= Integer.MAX_VALUE ? find((int) v).text : null;
        return linuxName(value) + " (" + v + (text != null ? ", " + text : "") + ")";
    }
}
