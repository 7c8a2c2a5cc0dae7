package io.rvt.driver.jni;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link Wire#NATIVE}: a socket of {@code librvtjni.so}, with an eventfd to wake its waiting engine. Every call that
 * uses the descriptors counts itself in and out, and {@link #close()} waits for those in progress before it closes
 * them: a late sender never reaches a file descriptor number the process has meanwhile given to another socket.
 */
final class NativeDatagrams implements Datagrams {
    private final InetAddress address;
    private final int port;
    private final int fd;
    private final int efd;
    private volatile boolean closed;
    private final AtomicInteger users = new AtomicInteger();
    private volatile int lastErrno;
    private volatile boolean receivesIpInfo;
    /** {@link NativeUdp#SEND_GSO} while runs of datagrams may go as UDP GSO messages (IPv6 only), else 0. */
    private volatile int sendFlags;

    NativeDatagrams(InetAddress address, int port, int bufferBytes) {
        this(address, port, bufferBytes, false, false);
    }

    /**
     * @param gso whether runs of same-size datagrams to one destination may go as one UDP GSO message; only on an
     *        IPv6 socket (on IPv4 the kernel would number the segments' IP IDs, which the ICRC covers)
     */
    NativeDatagrams(InetAddress address, int port, int bufferBytes, boolean reusePort, boolean gso) {
        NativeUdp.ensureAvailable();
        if (port < 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("UDP port must be in 0..65535, got " + port);
        }
        byte[] raw = address.getAddress();
        boolean v6 = address instanceof Inet6Address;
        int v4 = 0;
        long hi = 0;
        long lo = 0;
        if (v6) {
            ByteBuffer b = ByteBuffer.wrap(raw);
            hi = b.getLong();
            lo = b.getLong();
        } else {
            v4 = ByteBuffer.wrap(raw).getInt();
        }
        int scope = v6 ? ((Inet6Address) address).getScopeId() : 0;
        int r = NativeUdp.open(v6, v4, hi, lo, scope, port, bufferBytes, reusePort);
        if (r < 0) {
            throw new UdpException("bind", Peer.format(address, port), -r);
        }
        this.fd = r;
        int e = NativeUdp.eventfd();
        if (e < 0) {
            NativeUdp.close(fd);
            throw new UdpException("eventfd for", Peer.format(address, port), -e);
        }
        this.efd = e;
        this.address = address;
        this.sendFlags = gso && v6 ? NativeUdp.SEND_GSO : 0;
        int p = NativeUdp.localPort(fd);
        if (p < 0) {
            close();
            throw new UdpException("getsockname", Peer.format(address, port), -p);
        }
        this.port = p;
    }

    @Override
    public InetAddress localAddress() {
        return address;
    }

    @Override
    public int localPort() {
        return port;
    }

    /** @return the socket's file descriptor (tests: {@link NativeUdp#testZeroChecksum6Tx}) */
    int fd() {
        return fd;
    }

    /** @return true if the descriptors may be used until {@link #exit()} */
    private boolean enter() {
        users.incrementAndGet();
        if (closed) {
            users.decrementAndGet();
            return false;
        }
        return true;
    }

    private void exit() {
        users.decrementAndGet();
    }

    @Override
    public int send(TxBatch batch) {
        batch.sendCalls = 0;
        batch.gsoSegments = 0;
        if (!enter()) {
            int n = batch.count;
            batch.clear();
            return n;
        }
        try {
            return sendBatch(batch);
        } finally {
            exit();
        }
    }

    private int sendBatch(TxBatch batch) {
        int dropped = 0;
        int at = 0;
        int n = batch.count;
        while (at < n) {
            int r = NativeUdp.sendBatch(fd, batch.descAddress, at, Math.min(n - at, NativeUdp.MAX_BATCH), sendFlags);
            batch.sendCalls++;
            if (r < 0) {
                // The datagram at 'at' was refused (e.g. EMSGSIZE, ENETUNREACH, EPERM from a firewall): drop it.
                refused(-r, batch.peers[at]);
                dropped++;
                at++;
            } else {
                if ((r & NativeUdp.SENT_GSO_REFUSED) != 0) {
                    gsoRefused(batch.peers[at]);
                }
                at += r & NativeUdp.SENT_MASK;
                batch.gsoSegments += (r >>> NativeUdp.SENT_GSO_SHIFT) & NativeUdp.SENT_MASK;
            }
        }
        batch.clear();
        return dropped;
    }

    /** The route's device cannot take UDP GSO (no checksum offload): this socket sends one datagram a message. */
    private void gsoRefused(Peer to) {
        sendFlags = 0;
        System.getLogger(JniDriver.class.getName()).log(System.Logger.Level.INFO, "UDP GSO refused by the kernel"
                + " from " + Peer.format(address, port) + " to " + to + ": this socket sends one datagram a message");
    }

    /** Records a refused datagram; logs the first of each errno in a row (RC then retries, UD loses it). */
    private void refused(int errno, Peer to) {
        if (errno != lastErrno) {
            System.getLogger(JniDriver.class.getName()).log(System.Logger.Level.WARNING,
                    new UdpException("sendmmsg from " + Peer.format(address, port) + " to", String.valueOf(to),
                            errno).getMessage() + "; datagrams refused so are dropped and counted (PKT_DROPS)");
        }
        lastErrno = errno;
    }

    @Override
    public int receive(RxBatch batch) {
        int r = 0;
        if (enter()) {
            try {
                r = NativeUdp.recvBatch(fd, batch.descAddress, batch.dataAddress, batch.slotSize, batch.slots);
            } finally {
                exit();
            }
            if (r < 0) {
                lastErrno = -r;
                r = 0;
            }
        }
        batch.count = r;
        return r;
    }

    @Override
    public void await(int timeoutMillis) {
        if (enter()) {
            try {
                int r = NativeUdp.await(fd, efd, timeoutMillis);
                if (r < 0) {
                    lastErrno = -r;
                }
            } finally {
                exit();
            }
        }
    }

    @Override
    public void wakeup() {
        if (enter()) {
            try {
                NativeUdp.signal(efd);
            } finally {
                exit();
            }
        }
    }

    @Override
    public void receiveIpInfo(boolean on) {
        if (enter()) {
            try {
                int r = NativeUdp.recvIpInfo(fd, address instanceof Inet6Address, on);
                if (r < 0) {
                    throw new UdpException("setsockopt IP_RECVTOS/IP_RECVTTL (or the IPv6 ones) on",
                            Peer.format(address, port), -r);
                }
                receivesIpInfo = on;
            } finally {
                exit();
            }
        }
    }

    @Override
    public boolean receiveCoalesced() {
        if (!enter()) {
            return false;
        }
        try {
            int r = NativeUdp.recvGro(fd, true);
            if (r < 0) {
                lastErrno = -r;
                System.getLogger(JniDriver.class.getName()).log(System.Logger.Level.INFO, new UdpException(
                        "setsockopt UDP_GRO on", Peer.format(address, port), -r).getMessage()
                        + ": this socket receives one datagram per packet");
                return false;
            }
            return true;
        } finally {
            exit();
        }
    }

    @Override
    public boolean receivesIpInfo() {
        return receivesIpInfo;
    }

    @Override
    public int bufferBytes(boolean send) {
        if (!enter()) {
            return -1;
        }
        try {
            int r = NativeUdp.bufferBytes(fd, send);
            if (r < 0) {
                lastErrno = -r;
                return -1;
            }
            return r;
        } finally {
            exit();
        }
    }

    @Override
    public long kernelDrops() {
        if (!enter()) {
            return -1;
        }
        try {
            long r = NativeUdp.drops(fd);
            if (r < 0) {
                lastErrno = (int) -r;
                return -1;
            }
            return r;
        } finally {
            exit();
        }
    }

    @Override
    public int lastErrno() {
        return lastErrno;
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            NativeUdp.signal(efd); // ends a wait in progress
            while (users.get() != 0) {
                Thread.onSpinWait();
            }
            NativeUdp.close(fd);
            NativeUdp.close(efd);
        }
    }

    @Override
    public String toString() {
        return "native UDP socket " + Peer.format(address, port);
    }
}
