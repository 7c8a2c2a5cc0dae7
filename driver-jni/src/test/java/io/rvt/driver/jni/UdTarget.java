package io.rvt.driver.jni;

import io.rvt.api.Device;
import io.rvt.api.Gid;
import io.rvt.api.QpType;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import io.rvt.transport.header.BthDescriptor;
import io.rvt.transport.header.DethDescriptor;
import io.rvt.transport.header.Icrc;
import io.rvt.transport.header.Opcode;
import io.rvt.transport.header.PacketBuilder;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.ByteBuffer;

/**
 * A UD QP to send hand-built datagrams at: two HCAs of a fixture on a loopback address, an active UD QP on the second
 * (the target), and a plain UDP socket on the same address that sends at the target's port as another host's stack
 * would: UD SEND_ONLY packets with the ICRC of a datagram from this socket, over the IPv4 Identification the caller
 * says (a Linux sender numbers it), and garbage of any kind.
 */
final class UdTarget implements AutoCloseable {
    final JniFixture fixture;
    final Device[] dev;
    final Verbs verbs;
    /** The UD QP on the second HCA, its receive buffer {@code bufferBytes}. */
    final Endpoint ud;
    final InetAddress local;
    private final int qkey;
    private final DatagramSocket socket;
    /** With {@link #UdTarget(JniFixture, String, int, int, boolean)}'s GSO sender: a native socket, else null. */
    private final NativeDatagrams gso;
    private final ByteBuffer gsoBytes;
    private final int targetPort;
    private final Icrc icrc = new Icrc();

    /**
     * @param fixture the fixture on {@code host} (closed with this)
     * @param host the loopback address
     * @param qkey the UD QP's Q_Key
     * @param bufferBytes the UD QP's buffer
     * @throws IOException if the socket cannot be opened
     */
    UdTarget(JniFixture fixture, String host, int qkey, int bufferBytes) throws IOException {
        this(fixture, host, qkey, bufferBytes, false);
    }

    /**
     * @param gsoSender whether packets leave from a native socket that can send UDP GSO messages
     *        ({@link #sendSegmented}), as another host's GSO sender, instead of a plain one
     */
    UdTarget(JniFixture fixture, String host, int qkey, int bufferBytes, boolean gsoSender) throws IOException {
        this.fixture = fixture;
        this.qkey = qkey;
        this.local = InetAddress.getByName(host);
        this.dev = fixture.open(2);
        this.verbs = new Verbs(fixture);
        this.ud = verbs.endpoint(dev[1], QpType.UD, bufferBytes);
        verbs.activateUd(ud, qkey);
        this.targetPort = target().localPort(1);
        this.socket = new DatagramSocket(0, local);
        this.gso = gsoSender ? new NativeDatagrams(local, 0, 0) : null;
        this.gsoBytes = gsoSender ? ByteBuffer.allocateDirect(1 << 16) : null;
    }

    /** @return the UDP port the packets leave from (their ICRC covers it) */
    int sourcePort() {
        return gso != null ? gso.localPort() : socket.getLocalPort();
    }

    /**
     * Sends the first {@code len} bytes of {@code bytes} at the HCA's port as one UDP GSO message of
     * {@code segment}-byte segments (the last may be shorter), from the GSO sender's native socket; on this host it
     * reaches a receiving socket with UDP GRO whole.
     *
     * @throws IOException naming the errno if the kernel refuses it
     */
    void sendSegmented(byte[] bytes, int len, int segment) throws IOException {
        gsoBytes.clear().put(bytes, 0, len);
        byte[] a = local.getAddress();
        ByteBuffer w = ByteBuffer.wrap(a.length == 16 ? a : new byte[16]);
        int r = NativeUdp.testSendSegmented(gso.fd(), a.length == 16, a.length == 4 ? ByteBuffer.wrap(a).getInt() : 0,
                w.getLong(0), w.getLong(8), targetPort, NativeUdp.address(gsoBytes), len, segment);
        if (r != len) {
            throw new IOException("UDP GSO send of " + len + " B in " + segment + " B segments: " + (r < 0
                    ? new UdpException("sendmsg to", Peer.format(local, targetPort), -r).getMessage() : r + " B"));
        }
    }

    /** @return the second HCA's driver, the one the socket sends at */
    JniDriver target() {
        return fixture.drivers().get(1);
    }

    /**
     * A UD SEND_ONLY to QP {@code destQp} (or {@link BthDescriptor#MULTICAST_QPN}) with the Q_Key, {@code payload}
     * bytes of {@link Verbs#fill} pattern {@code pattern}, padded, and the ICRC of its datagram to {@code dst} (this
     * host, or a multicast group: over IPv4 its group address), over IPv4 Identification {@code ipId} and DF.
     */
    byte[] udSendOnly(int destQp, int payload, long pattern, Gid dst, int ipId) {
        int pad = PacketBuilder.padCount(payload);
        ByteBuffer b = ByteBuffer.allocate(BthDescriptor.LENGTH + DethDescriptor.LENGTH + payload + pad
                + Icrc.LENGTH);
        int at = BthDescriptor.write(b, 0, Opcode.UD_SEND_ONLY, false, false, pad, 0xFFFF, destQp, false, 0);
        at = DethDescriptor.write(b, at, qkey, 5);
        Verbs.fill(b, at, payload, pattern);
        int len = b.capacity();
        if (local.getAddress().length == 4) {
            int ip = ByteBuffer.wrap(local.getAddress()).getInt();
            int to = dst.isMulticast() ? Peer.groupV4(dst) : (int) dst.interfaceId();
            icrc.writeRoceV4(ip, to, ipId, true, sourcePort(), targetPort, b, 0, len);
        } else {
            icrc.writeRoceV6(Peer.gidOf(local), dst, sourcePort(), targetPort, b, 0, len);
        }
        return b.array();
    }

    /** Sends the first {@code len} bytes of {@code bytes} at the HCA's port. */
    void send(byte[] bytes, int len) throws IOException {
        if (gso != null) {
            sendSegmented(bytes, len, 0);
            return;
        }
        socket.send(new DatagramPacket(bytes, len, local, targetPort));
    }

    @Override
    public void close() {
        socket.close();
        if (gso != null) {
            gso.close();
        }
        fixture.close();
    }
}
