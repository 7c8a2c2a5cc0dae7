package io.rvt.driver.jni;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Every socket a {@link JniDriver} opens (its ports' own and their flows' source sockets), so that closing the driver
 * closes them all, also when building fails half-way; once closed, nothing opens any more.
 */
final class Sockets {
    private final Wire wire;
    private final int bufferBytes;
    private final boolean gso;
    private final UnaryOperator<Datagrams> decorator;
    /** Guarded by itself. */
    private final List<Datagrams> open = new ArrayList<>();
    private boolean closed;

    /**
     * @param wire the socket layer
     * @param bufferBytes SO_SNDBUF/SO_RCVBUF to ask for
     * @param gso whether IPv6 sockets send runs of datagrams as UDP GSO messages ({@link JniDriverBuilder#udpGso})
     * @param decorator wraps each socket (tests: fault injection), or null
     */
    Sockets(Wire wire, int bufferBytes, boolean gso, UnaryOperator<Datagrams> decorator) {
        this.wire = wire;
        this.bufferBytes = bufferBytes;
        this.gso = gso;
        this.decorator = decorator;
    }

    /**
     * Opens (and decorates) a socket, kept for {@link #closeAll()}.
     *
     * @return the socket, or null once closed
     * @throws UdpException if it cannot be bound
     */
    Datagrams open(InetAddress address, int udpPort, boolean reusePort) {
        synchronized (open) {
            if (closed) {
                return null;
            }
            Datagrams io = Datagrams.open(wire, address, udpPort, bufferBytes, reusePort, gso);
            Datagrams d = decorator != null ? decorator.apply(io) : io;
            open.add(d);
            return d;
        }
    }

    /** @return the SO_SNDBUF/SO_RCVBUF asked for, bytes (0: the kernel's defaults) */
    int bufferBytes() {
        return bufferBytes;
    }

    /** Closes every socket opened; no socket opens from now on. Idempotent. */
    void closeAll() {
        synchronized (open) {
            closed = true;
            for (Datagrams d : open) {
                d.close();
            }
        }
    }
}
