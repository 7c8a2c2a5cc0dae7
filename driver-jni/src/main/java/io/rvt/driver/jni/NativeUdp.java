package io.rvt.driver.jni;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The natives of {@code librvtjni.so} (registered by its {@code JNI_OnLoad} from a table) and the loader.
 *
 * <p>Loading: {@link System#loadLibrary} first (under OSGi the framework finds the library through
 * {@code Bundle-NativeCode}; on a plain JVM through {@code -Djava.library.path}); if that fails, the library is copied
 * from this class's own jar ({@code META-INF/native/linux-x86_64/librvtjni.so}) to a fresh temporary file, loaded
 * with {@link System#load} and the file deleted. Each class loader gets its own copy, so a bundle update or refresh
 * never meets "already loaded in another classloader". Then the ABI is checked: the library's version and its
 * descriptor sizes must be the ones this class was written for, else the library is refused with a message that
 * says which value differs.
 *
 * <p>Every native returns a value {@code >= 0} or {@code -errno}; none throws. Only primitives and the addresses of
 * direct buffers cross ({@link #address} is called once per buffer, at setup).
 */
final class NativeUdp {
    /** The ABI version this class expects ({@code RVT_ABI_VERSION}). */
    static final int ABI_VERSION = 9;
    /** Size of a send descriptor ({@code struct rvt_tx_desc}). */
    static final int TX_DESC_SIZE = 128;
    /** Segments one datagram is gathered from at most ({@code RVT_TX_SEGS}). */
    static final int TX_SEGS = 6;
    /** Size of a receive descriptor ({@code struct rvt_rx_desc}). */
    static final int RX_DESC_SIZE = 32;
    /** The largest batch one call handles ({@code RVT_MAX_BATCH}). */
    static final int MAX_BATCH = 64;
    /**
     * A receive descriptor's flags: the segment size of a datagram UDP GRO coalesced is in bits 16-31
     * ({@code RX_SEGMENT_SHIFT}), 0 for a datagram of its own.
     */
    static final int RX_SEGMENT_SHIFT = 16;
    /** {@link #sendBatch}'s flag: runs of IPv6 datagrams may go as UDP GSO messages ({@code RVT_SEND_GSO}). */
    static final int SEND_GSO = 1;
    /** {@link #sendBatch}'s result: the descriptors sent are its low 8 bits. */
    static final int SENT_MASK = 0xFF;
    /** {@link #sendBatch}'s result: how many were GSO segments is its bits 8-15 ({@code RVT_SENT_GSO_SHIFT}). */
    static final int SENT_GSO_SHIFT = 8;
    /** {@link #sendBatch}'s result: the kernel refused GSO on this route ({@code RVT_SENT_GSO_REFUSED}). */
    static final int SENT_GSO_REFUSED = 1 << 16;

    static final String LIBRARY = "rvtjni";
    static final String PLATFORM = "linux-x86_64";

    private static final Throwable UNAVAILABLE;
    private static final String HOW;

    static {
        Throwable cause = null;
        String how = null;
        try {
            how = load();
            checkAbi();
        } catch (Throwable t) {
            cause = t;
        }
        UNAVAILABLE = cause;
        HOW = how;
    }

    private NativeUdp() {
    }

    /** @return true if the library loaded and its ABI matches */
    static boolean isAvailable() {
        return UNAVAILABLE == null;
    }

    /** @return why the library cannot be used, or null */
    static Throwable unavailabilityCause() {
        return UNAVAILABLE;
    }

    /** @return how the library was loaded ({@code System.loadLibrary} or {@code extracted to ...}), or null */
    static String loadedVia() {
        return HOW;
    }

    /** @throws IllegalStateException with the cause if the library cannot be used */
    static void ensureAvailable() {
        if (UNAVAILABLE != null) {
            throw new IllegalStateException("driver-jni's native library librvtjni.so is not available: "
                    + UNAVAILABLE.getMessage(), UNAVAILABLE);
        }
    }

    private static String load() throws IOException {
        try {
            System.loadLibrary(LIBRARY);
            return "System.loadLibrary";
        } catch (UnsatisfiedLinkError e) {
            String os = System.getProperty("os.name", "");
            String arch = System.getProperty("os.arch", "");
            if (!os.startsWith("Linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
                throw new UnsatisfiedLinkError("librvtjni is built for " + PLATFORM + " only; this JVM runs on "
                        + os + "/" + arch);
            }
            String resource = "/META-INF/native/" + PLATFORM + "/" + System.mapLibraryName(LIBRARY);
            try (InputStream in = NativeUdp.class.getResourceAsStream(resource)) {
                if (in == null) {
                    UnsatisfiedLinkError err = new UnsatisfiedLinkError("no " + resource + " in driver-jni's jar and "
                            + "System.loadLibrary(\"" + LIBRARY + "\") failed: " + e.getMessage());
                    err.addSuppressed(e);
                    throw err;
                }
                Path dir = Files.createTempDirectory("rvtjni");
                Path file = dir.resolve(System.mapLibraryName(LIBRARY));
                try {
                    Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
                    System.load(file.toAbsolutePath().toString());
                } finally {
                    // Linux keeps the mapping; the file is not needed once loaded.
                    Files.deleteIfExists(file);
                    Files.deleteIfExists(dir);
                }
                return "extracted from " + resource;
            }
        }
    }

    private static void checkAbi() {
        checkAbi(abiVersion(), abiSize(0), abiSize(1), abiSize(2));
        checkSize("segments per datagram", abiSize(4), TX_SEGS);
    }

    /**
     * Compares what the library reports with what this class was written for.
     *
     * @param version the library's ABI version
     * @param txSize its send descriptor size
     * @param rxSize its receive descriptor size
     * @param maxBatch its largest batch
     * @throws UnsatisfiedLinkError naming the first value that differs
     */
    static void checkAbi(int version, int txSize, int rxSize, int maxBatch) {
        if (version != ABI_VERSION) {
            throw new UnsatisfiedLinkError("librvtjni ABI mismatch: library version " + version
                    + ", driver-jni expects " + ABI_VERSION
                    + " (a librvtjni.so from another build on java.library.path?)");
        }
        checkSize("tx descriptor", txSize, TX_DESC_SIZE);
        checkSize("rx descriptor", rxSize, RX_DESC_SIZE);
        checkSize("largest batch", maxBatch, MAX_BATCH);
    }

    private static void checkSize(String what, int got, int expected) {
        if (got != expected) {
            throw new UnsatisfiedLinkError("librvtjni ABI mismatch: " + what + " is " + got
                    + " in the library, driver-jni expects " + expected);
        }
    }

    /** @return {@code RVT_ABI_VERSION} of the library */
    static native int abiVersion();

    /**
     * @param what 0: tx descriptor size, 1: rx descriptor size, 2: largest batch, 3: {@code sizeof(sockaddr_in6)},
     *        4: segments per datagram
     * @return the size or -EINVAL
     */
    static native int abiSize(int what);

    /**
     * @param directBuffer a direct buffer
     * @return its address, or -EINVAL if it is not direct
     */
    static native long address(ByteBuffer directBuffer);

    /**
     * Opens a non-blocking UDP socket ({@code socket}, {@code setsockopt}, {@code bind}) that sends IPv6 flow labels
     * from the destination's {@code sin6_flowinfo} and, on IPv6, accepts datagrams with UDP checksum 0
     * ({@code UDP_NO_CHECK6_RX}: Linux rxe sends them; the receive path's ICRC check covers what the checksum would).
     *
     * @param ipv6 IPv6 (IPV6_V6ONLY, UDP_NO_CHECK6_RX) or IPv4 (IP_MTU_DISCOVER = IP_PMTUDISC_DO)
     * @param v4 the IPv4 address, big-endian int
     * @param hi the IPv6 address's first 8 bytes, big-endian
     * @param lo its last 8 bytes
     * @param scopeId the interface of a link-local IPv6 address ({@code sin6_scope_id}), else 0
     * @param port the UDP port, 0 for an ephemeral one
     * @param bufBytes SO_RCVBUF and SO_SNDBUF to ask for, 0 to keep the defaults
     * @param reusePort SO_REUSEPORT (a flow's source port, which other sockets of this host may share)
     * @return the file descriptor, or -errno
     */
    static native int open(boolean ipv6, int v4, long hi, long lo, int scopeId, int port, int bufBytes,
            boolean reusePort);

    /**
     * @param fd a socket
     * @return its bound port ({@code getsockname}), or -errno
     */
    static native int localPort(int fd);

    /**
     * @param fd a file descriptor
     * @return 0 or -errno
     */
    static native int close(int fd);

    /**
     * @param fd a socket
     * @return the datagrams the kernel dropped for it ({@code SO_MEMINFO}'s {@code SK_MEMINFO_DROPS}: a full receive
     *         buffer above all), an unsigned 32-bit count that wraps, or -errno
     */
    static native long drops(int fd);

    /**
     * @param fd a socket
     * @param send true for {@code SO_SNDBUF}, false for {@code SO_RCVBUF}
     * @return the buffer the kernel granted, bytes as {@code getsockopt} reports them, or -errno
     */
    static native int bufferBytes(int fd, boolean send);

    /**
     * {@code sendmmsg} of tx descriptors {@code [first, first + count)} (at most {@link #MAX_BATCH}); with
     * {@link #SEND_GSO}, each run of consecutive IPv6 datagrams to one destination with the same traffic class, flow
     * label and hop limit, each as long as the first but the last, is one message with a {@code UDP_SEGMENT} control
     * message (UDP GSO, Linux 4.18): the kernel cuts it into the run's datagrams, each with its own UDP/IP header.
     *
     * @param fd the socket
     * @param desc address of the descriptor array
     * @param first the first descriptor
     * @param count how many
     * @param flags {@link #SEND_GSO} or 0
     * @return how many were sent ({@link #SENT_MASK}; the kernel stops at the first message that fails), how many of
     *         them as GSO segments ({@link #SENT_GSO_SHIFT}) and whether the kernel refused GSO, so that they were
     *         sent again one a message ({@link #SENT_GSO_REFUSED}); or -errno if the first one failed
     */
    static native int sendBatch(int fd, long desc, int first, int count, int flags);

    /**
     * Non-blocking {@code recvmmsg} into {@code count} slots (at most {@link #MAX_BATCH}).
     *
     * @param fd the socket
     * @param desc address of the rx descriptor array
     * @param data address of the first slot
     * @param slotSize bytes per slot
     * @param count how many slots
     * @return how many datagrams arrived (0 if none waited), or -errno
     */
    static native int recvBatch(int fd, long desc, long data, int slotSize, int count);

    /**
     * Asks for, or stops asking for, the received IP header's TOS / traffic class, TTL / hop limit and IPv6 flow label
     * as control messages ({@code IP_RECVTOS}, {@code IP_RECVTTL}; {@code IPV6_RECVTCLASS}, {@code IPV6_RECVHOPLIMIT},
     * {@code IPV6_FLOWINFO}); a socket opens without them.
     *
     * @param fd the socket
     * @param ipv6 whether it is an IPv6 socket
     * @param on true to ask for them
     * @return 0 or -errno
     */
    static native int recvIpInfo(int fd, boolean ipv6, boolean on);

    /**
     * Turns UDP GRO on or off ({@code UDP_GRO}, Linux 5.0): the kernel may then hand a run of same-size datagrams of
     * one flow (and a UDP GSO message of this host whole) as one coalesced datagram, whose segment size
     * {@link #recvBatch} puts in the descriptor's flags ({@link #RX_SEGMENT_SHIFT}).
     *
     * @param fd the socket
     * @param on true to coalesce
     * @return 0 or -errno ({@code ENOPROTOOPT} before Linux 5.0)
     */
    static native int recvGro(int fd, boolean on);

    /**
     * Tests only: one {@code sendmsg} of {@code len} bytes at {@code data}, with {@code segment > 0} as a UDP GSO
     * message of that segment size (the last segment may be shorter), over IPv4 too: another host's GSO sender.
     *
     * @param fd the socket
     * @param ipv6 the destination's family
     * @param v4 the IPv4 destination, big-endian int
     * @param hi the IPv6 destination's first 8 bytes
     * @param lo its last 8 bytes
     * @param port the destination port
     * @param data the bytes' address (a direct buffer's)
     * @param len how many
     * @param segment the segment size, 0 for a plain datagram
     * @return the bytes sent or -errno
     */
    static native int testSendSegmented(int fd, boolean ipv6, int v4, long hi, long lo, int port, long data, int len,
            int segment);

    /**
     * Tests only: the socket sends IPv6 datagrams with UDP checksum 0 ({@code UDP_NO_CHECK6_TX}), as Linux rxe does,
     * so that a test can play rxe's sender; driver-jni's own sockets send real checksums.
     *
     * @param fd an IPv6 UDP socket
     * @return 0 or -errno
     */
    static native int testZeroChecksum6Tx(int fd);

    /** @return a non-blocking eventfd, or -errno */
    static native int eventfd();

    /**
     * @param efd an eventfd
     * @return 0 or -errno
     */
    static native int signal(int efd);

    /**
     * {@code poll} on a socket and an eventfd.
     *
     * @param fd the socket
     * @param efd the eventfd (reset when it fired), or -1
     * @param timeoutMillis the longest wait
     * @return 1 if woken, 0 on timeout, -errno on error
     */
    static native int await(int fd, int efd, int timeoutMillis);
}
