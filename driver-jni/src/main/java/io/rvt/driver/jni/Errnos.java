package io.rvt.driver.jni;

/** Names of the Linux errno values the UDP layer can report (x86-64 numbering, {@code asm-generic/errno*.h}). */
final class Errnos {
    static final int EPERM = 1;
    static final int EINTR = 4;
    static final int EBADF = 9;
    static final int EAGAIN = 11;
    static final int ENOMEM = 12;
    static final int EACCES = 13;
    static final int EFAULT = 14;
    static final int EINVAL = 22;
    static final int EMFILE = 24;
    static final int EMSGSIZE = 90;
    static final int EPROTONOSUPPORT = 93;
    static final int EAFNOSUPPORT = 97;
    static final int EADDRINUSE = 98;
    static final int EADDRNOTAVAIL = 99;
    static final int ENETUNREACH = 101;
    static final int ENOBUFS = 105;
    static final int ECONNREFUSED = 111;
    static final int EHOSTUNREACH = 113;
    static final int EIO = 5;

    private Errnos() {
    }

    /**
     * @param errno a positive errno
     * @return its symbolic name, or {@code errno N}
     */
    static String name(int errno) {
        switch (errno) {
            case EPERM: return "EPERM";
            case EIO: return "EIO";
            case EINTR: return "EINTR";
            case EBADF: return "EBADF";
            case EAGAIN: return "EAGAIN";
            case ENOMEM: return "ENOMEM";
            case EACCES: return "EACCES";
            case EFAULT: return "EFAULT";
            case EINVAL: return "EINVAL";
            case EMFILE: return "EMFILE";
            case EMSGSIZE: return "EMSGSIZE";
            case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
            case EAFNOSUPPORT: return "EAFNOSUPPORT";
            case EADDRINUSE: return "EADDRINUSE";
            case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
            case ENETUNREACH: return "ENETUNREACH";
            case ENOBUFS: return "ENOBUFS";
            case ECONNREFUSED: return "ECONNREFUSED";
            case EHOSTUNREACH: return "EHOSTUNREACH";
            default: return "errno " + errno;
        }
    }

    /**
     * @param errno a positive errno
     * @return e.g. {@code EADDRINUSE (98, address already in use)}
     */
    static String describe(int errno) {
        String text;
        switch (errno) {
            case EPERM: text = "operation not permitted"; break;
            case EACCES: text = "permission denied"; break;
            case EINVAL: text = "invalid argument"; break;
            case EMFILE: text = "too many open files"; break;
            case EMSGSIZE: text = "message too long"; break;
            case EAFNOSUPPORT: text = "address family not supported"; break;
            case EADDRINUSE: text = "address already in use"; break;
            case EADDRNOTAVAIL: text = "cannot assign requested address"; break;
            case ENETUNREACH: text = "network is unreachable"; break;
            case ENOBUFS: text = "no buffer space available"; break;
            case ECONNREFUSED: text = "connection refused"; break;
            case EHOSTUNREACH: text = "no route to host"; break;
            default: text = null;
        }
        return name(errno) + " (" + errno + (text != null ? ", " + text : "") + ")";
    }
}
