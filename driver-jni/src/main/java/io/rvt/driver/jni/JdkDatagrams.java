package io.rvt.driver.jni;

import static io.rvt.api.Errno.EADDRINUSE;
import static io.rvt.api.Errno.EADDRNOTAVAIL;
import static io.rvt.api.Errno.EBADF;
import static io.rvt.api.Errno.EINVAL;
import static io.rvt.api.Errno.EIO;

import java.io.IOException;
import java.net.BindException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;

/**
 * {@link Wire#JDK}: a non-blocking {@link DatagramChannel}, one system call per datagram, a {@link Selector} to wait.
 * The JDK caches the last sender's address object, so a steady stream from one peer allocates nothing here either.
 */
final class JdkDatagrams implements Datagrams {
    private final InetAddress address;
    private final int port;
    private final DatagramChannel channel;
    private final Selector selector;
    private volatile int lastErrno;
    /** The last sender seen and its encoding, so that a repeat costs nothing (under this object's lock). */
    private SocketAddress lastSender;
    private boolean lastV6;
    private long lastHi;
    private long lastLo;
    private int lastPort;
    /** Link-local destinations with this socket's scope, made once per peer. */
    private final java.util.concurrent.ConcurrentHashMap<Peer, InetSocketAddress> scoped =
            new java.util.concurrent.ConcurrentHashMap<>();

    JdkDatagrams(InetAddress address, int port, int bufferBytes) {
        this(address, port, bufferBytes, false);
    }

    JdkDatagrams(InetAddress address, int port, int bufferBytes, boolean reusePort) {
        if (port < 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("UDP port must be in 0..65535, got " + port);
        }
        String where = Peer.format(address, port);
        DatagramChannel ch = null;
        try {
            ch = DatagramChannel.open(address instanceof Inet6Address ? StandardProtocolFamily.INET6
                    : StandardProtocolFamily.INET);
            if (bufferBytes > 0) {
                ch.setOption(StandardSocketOptions.SO_RCVBUF, bufferBytes);
                ch.setOption(StandardSocketOptions.SO_SNDBUF, bufferBytes);
            }
            if (reusePort) {
                ch.setOption(StandardSocketOptions.SO_REUSEPORT, true);
            }
            ch.bind(new InetSocketAddress(address, port));
            ch.configureBlocking(false);
            this.selector = Selector.open();
            ch.register(selector, SelectionKey.OP_READ);
        } catch (BindException e) {
            closeQuietly(ch);
            String m = String.valueOf(e.getMessage());
            throw new UdpException("bind", where, e, m.contains("in use") ? EADDRINUSE.value()
                    : m.contains("assign") ? EADDRNOTAVAIL.value() : EINVAL.value());
        } catch (IOException | RuntimeException e) {
            closeQuietly(ch);
            throw new UdpException("bind", where, e, EIO.value());
        }
        this.channel = ch;
        this.address = address;
        this.port = ((InetSocketAddress) socketAddress(ch)).getPort();
    }

    private static SocketAddress socketAddress(DatagramChannel ch) {
        try {
            return ch.getLocalAddress();
        } catch (IOException e) {
            throw new UdpException("getsockname", String.valueOf(ch), e, EBADF.value());
        }
    }

    private static void closeQuietly(DatagramChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // already failing
            }
        }
    }

    @Override
    public InetAddress localAddress() {
        return address;
    }

    @Override
    public int localPort() {
        return port;
    }

    @Override
    public int send(TxBatch batch) {
        int dropped = 0;
        batch.sendCalls = batch.count; // one send per datagram
        for (int i = 0; i < batch.count; i++) {
            ByteBuffer v = batch.views[i];
            v.limit(batch.lengths[i]).position(0);
            try {
                Peer to = batch.peers[i];
                if (channel.send(v, to.linkLocal ? scoped(to) : to.socketAddress) == 0) {
                    dropped++; // no room in the socket buffer: UDP drops
                }
            } catch (IOException e) {
                lastErrno = EIO.value();
                dropped++;
            }
        }
        batch.clear();
        return dropped;
    }

    private InetSocketAddress scoped(Peer to) {
        InetSocketAddress a = scoped.get(to);
        if (a == null) {
            try {
                a = new InetSocketAddress(Inet6Address.getByAddress(null, to.gid.toBytes(),
                        ((Inet6Address) address).getScopeId()), to.port);
            } catch (java.net.UnknownHostException e) {
                throw new IllegalStateException("16 bytes are always an address", e);
            }
            scoped.put(to, a);
        }
        return a;
    }

    @Override
    public synchronized int receive(RxBatch batch) {
        // synchronized: the last-sender cache is shared, and two threads may receive (a port's engine holder and the
        // backstop standing in for it); the channel takes a lock of its own for each receive anyway
        int n = 0;
        try {
            while (n < batch.slots) {
                ByteBuffer v = batch.views[n];
                v.clear();
                SocketAddress from = channel.receive(v);
                if (from == null) {
                    break;
                }
                if (from != lastSender) {
                    remember((InetSocketAddress) from);
                }
                // A datagram longer than the slot is cut silently by the JDK: a full slot counts as truncated.
                batch.set(n, v.position(), v.position() == batch.slotSize, lastPort, lastV6, lastHi, lastLo);
                n++;
            }
        } catch (IOException e) {
            lastErrno = EIO.value();
        }
        batch.count = n;
        return n;
    }

    private void remember(InetSocketAddress from) {
        lastSender = from;
        lastPort = from.getPort();
        InetAddress a = from.getAddress();
        byte[] raw = a.getAddress();
        ByteBuffer b = ByteBuffer.wrap(raw);
        if (a instanceof Inet4Address) {
            lastV6 = false;
            lastHi = b.getInt();
            lastLo = 0;
        } else {
            lastV6 = true;
            lastHi = b.getLong();
            lastLo = b.getLong();
        }
    }

    @Override
    public void await(int timeoutMillis) {
        try {
            if (selector.isOpen()) {
                selector.select(timeoutMillis);
                selector.selectedKeys().clear();
            }
        } catch (IOException | java.nio.channels.ClosedSelectorException e) {
            lastErrno = EBADF.value();
        }
    }

    @Override
    public void wakeup() {
        selector.wakeup();
    }

    @Override
    public int bufferBytes(boolean send) {
        try {
            return channel.getOption(send ? StandardSocketOptions.SO_SNDBUF : StandardSocketOptions.SO_RCVBUF);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    @Override
    public int lastErrno() {
        return lastErrno;
    }

    @Override
    public void close() {
        try {
            selector.close();
            channel.close();
        } catch (IOException e) {
            lastErrno = EIO.value();
        }
    }

    @Override
    public String toString() {
        return "JDK DatagramChannel " + Peer.format(address, port);
    }
}
