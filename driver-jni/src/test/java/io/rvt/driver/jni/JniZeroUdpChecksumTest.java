package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Device;
import io.rvt.api.Gid;
import io.rvt.api.PortCounter;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.core.RvtDevice;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import io.rvt.transport.header.BthDescriptor;
import io.rvt.transport.header.DethDescriptor;
import io.rvt.transport.header.Icrc;
import io.rvt.transport.header.Opcode;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Linux rxe sends RoCEv2 over IPv6 with UDP checksum 0 ({@code rxe_net.c}'s {@code prepare_udp_hdr}); a socket
 * without {@code UDP_NO_CHECK6_RX} has the kernel drop such datagrams ({@code Udp6InCsumErrors}) before it sees them.
 * Here a sender plays rxe on {@code ::1} (its sockets set {@code UDP_NO_CHECK6_TX} through the library's test hook):
 * driver-jni's IPv6 port receives its UD and RC traffic, and, the kernel no longer checking anything, its own ICRC
 * check drops and counts every corrupted datagram. A plain socket shows that the checksums on the wire really are 0.
 */
class JniZeroUdpChecksumTest {
    private static final long SEED = 0x0C5E_0000L;
    private static final int QKEY = 0x1111;
    private final InetAddress local = address("::1");
    private final List<RvtDevice> devices = new ArrayList<>();
    private JniDriver receiver;
    private JniDriver sender;
    private Device r;
    private Device s;
    private Verbs verbs;

    @BeforeEach
    void setUp() {
        receiver = JniDriver.builder().name("zc-receiver").address(local).udpPort(0).build();
        // rxe's way: every socket of the sender (its port's and its flows' source sockets) sends checksum 0; UDP GSO
        // is off, as the kernel refuses GSO on a socket without checksums
        sender = JniDriver.builder().name("zc-sender").address(local).udpPort(0).udpGso(false)
                .decorate(JniZeroUdpChecksumTest::zeroChecksums).build();
        receiver.addPeer(sender.gid(1), sender.localPort(1));
        sender.addPeer(receiver.gid(1), receiver.localPort(1));
        r = register(receiver);
        s = register(sender);
        verbs = new Verbs(new JniFixture(SEED, "::1"));
    }

    @AfterEach
    void tearDown() {
        if (verbs != null) {
            verbs.close();
        }
        devices.forEach(RvtDevice::unregister);
    }

    private RvtDevice register(JniDriver d) {
        RvtDevice dev = RvtDevice.register(d);
        devices.add(dev);
        return dev;
    }

    private static Datagrams zeroChecksums(Datagrams io) {
        int rc = NativeUdp.testZeroChecksum6Tx(((NativeDatagrams) io).fd());
        assertThat(rc).as("UDP_NO_CHECK6_TX on the sender's socket").isZero();
        return io;
    }

    /** UD datagrams and a multi-packet RC SEND (its QPs connected by modify_qp) arrive whole. */
    @Test
    void shouldReceiveUdAndRcFromASenderOfZeroUdpChecksumsAsRxeSendsThem() {
        Endpoint a = verbs.endpoint(s, QpType.UD, 1 << 15);
        Endpoint b = verbs.endpoint(r, QpType.UD, 1 << 15);
        verbs.activateUd(a, QKEY);
        verbs.activateUd(b, QKEY);
        int[] sizes = {1, 64, 1000, 4096};
        for (int i = 0; i < sizes.length; i++) {
            b.qp.postRecv(new RecvWorkRequest(1).wrId(i).sge(b.mr, i * 4200, 40 + 4096));
        }
        for (int i = 0; i < sizes.length; i++) {
            Verbs.fill(a.buffer, i * 4200, sizes[i], SEED + i);
            a.qp.postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.SEND).sge(a.mr, i * 4200, sizes[i])
                    .ah(Verbs.ah(a, b)).remoteQpn(b.qp.qpNum()).remoteQkey(QKEY));
        }
        List<WorkCompletion> got = verbs.await(b.recvCq, sizes.length);
        for (int i = 0; i < sizes.length; i++) {
            Verbs.assertSuccess(got.get(i), i);
            assertThat(got.get(i).byteLen()).isEqualTo(40 + sizes[i]);
            Verbs.assertPattern(b.buffer, i * 4200 + 40, sizes[i], SEED + i);
        }

        JniFixture.sendChecked(verbs, verbs.connected(s, r, QpType.RC, 1 << 16, 7, 1), 50_000, SEED);
        assertThat(receiver.statistics(1).icrcErrors()).isZero();
        assertThat(receiver.statistics(1).malformed()).isZero();
    }

    /**
     * With no UDP checksum the kernel passes a corrupted datagram on: driver-jni's ICRC check is what drops it. Each
     * bit of the payload and ICRC flipped in turn (one per datagram) is dropped and counted as an ICRC error; a bit of
     * the headers is dropped and counted as malformed (by the ICRC, or before it by the parser); the good datagrams
     * around them are delivered, in order.
     */
    @Test
    void shouldDropAndCountEveryCorruptedZeroChecksumDatagramAsAnIcrcError() throws Exception {
        Endpoint b = verbs.endpoint(r, QpType.UD, 4096);
        verbs.activateUd(b, QKEY);
        b.qp.postRecv(new RecvWorkRequest(1).wrId(1).sge(b.mr, 0, 1024));
        b.qp.postRecv(new RecvWorkRequest(1).wrId(2).sge(b.mr, 1024, 1024));
        try (NativeDatagrams rxe = new NativeDatagrams(local, 0, 1 << 20)) {
            zeroChecksums(rxe);
            byte[] good = udPacket(b.qp.qpNum(), rxe.localPort(), 1L);
            send(rxe, good);
            Verbs.assertSuccess(verbs.await(b.recvCq, 1).get(0), 1);
            int headers = BthDescriptor.LENGTH + DethDescriptor.LENGTH;
            long payloadFlips = 0;
            for (int at = headers; at < good.length; at++) {
                for (int bit = 0; bit < 8; bit++, payloadFlips++) {
                    send(rxe, flipped(good, at, bit));
                }
            }
            long icrc = payloadFlips;
            verbs.awaitTrue(icrc + " ICRC errors", () -> receiver.statistics(1).icrcErrors() >= icrc);
            assertThat(receiver.statistics(1).icrcErrors()).isEqualTo(payloadFlips);
            long headerFlips = 0;
            for (int at = 0; at < headers; at++) {
                if (at != 4) { // BTH resv8a: the one byte the ICRC does not cover
                    send(rxe, flipped(good, at, at % 8));
                    headerFlips++;
                }
            }
            long all = payloadFlips + headerFlips;
            verbs.awaitTrue(all + " malformed", () -> receiver.statistics(1).malformed() >= all);
            send(rxe, udPacket(b.qp.qpNum(), rxe.localPort(), 2L));
            WorkCompletion wc = verbs.await(b.recvCq, 1).get(0);
            Verbs.assertSuccess(wc, 2);
            assertThat(b.buffer.getLong(1024 + 40)).as("the second good datagram's payload").isEqualTo(2L);
            assertThat(r.portCounter(1, PortCounter.RX_MALFORMED)).isEqualTo(all);
            assertThat(receiver.statistics(1).icrcErrors()).isBetween(payloadFlips, all);
            verbs.assertQuiet(b.recvCq, 100);
        }
    }

    private static byte[] flipped(byte[] packet, int at, int bit) {
        byte[] bad = packet.clone();
        bad[at] ^= (byte) (1 << bit);
        return bad;
    }

    /**
     * The control: a socket without {@code UDP_NO_CHECK6_RX} (the JDK's) never sees the test sender's datagram, which
     * the kernel counts as a checksum error, so the checksums on the wire are 0 indeed.
     */
    @Test
    void shouldHaveTheKernelDropZeroChecksumDatagramsForASocketWithoutTheOption() throws Exception {
        try (NativeDatagrams rxe = new NativeDatagrams(local, 0, 1 << 20);
                DatagramChannel plain = DatagramChannel.open(StandardProtocolFamily.INET6)) {
            zeroChecksums(rxe);
            plain.bind(new InetSocketAddress(local, 0)).configureBlocking(false);
            long before = udp6CsumErrors();
            byte[] packet = udPacket(0x123, rxe.localPort(), 3L);
            TxBatch tx = new TxBatch(1, 2048);
            tx.data.put(tx.nextOffset(), packet);
            tx.add(new Peer(Peer.gidOf(local), ((InetSocketAddress) plain.getLocalAddress()).getPort()), packet.length);
            assertThat(rxe.send(tx)).isZero();
            verbs.awaitTrue("Udp6InCsumErrors above " + before, () -> udp6CsumErrors() > before);
            assertThat(plain.receive(ByteBuffer.allocate(2048))).as("what the plain socket received").isNull();
        }
    }

    /** A UD SEND_ONLY of an 8-byte payload to {@code destQp} from {@code ::1:srcPort} to the receiver's port. */
    private byte[] udPacket(int destQp, int srcPort, long payload) {
        ByteBuffer b = ByteBuffer.allocate(BthDescriptor.LENGTH + DethDescriptor.LENGTH + 8 + Icrc.LENGTH);
        int at = BthDescriptor.write(b, 0, Opcode.UD_SEND_ONLY, false, false, 0, 0xFFFF, destQp, false, 0);
        at = DethDescriptor.write(b, at, QKEY, 5);
        b.putLong(at, payload);
        Gid gid = Peer.gidOf(local);
        new Icrc().writeRoceV6(gid, gid, srcPort, receiver.localPort(1), b, 0, b.capacity());
        return b.array();
    }

    private void send(NativeDatagrams from, byte[] packet) {
        TxBatch tx = new TxBatch(1, 2048);
        tx.data.put(tx.nextOffset(), packet);
        tx.add(new Peer(Peer.gidOf(local), receiver.localPort(1)), packet.length);
        assertThat(from.send(tx)).as("datagrams the kernel refused").isZero();
    }

    /** @return the kernel's IPv6 UDP checksum error count in this network namespace ({@code /proc/net/snmp6}) */
    private static long udp6CsumErrors() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/net/snmp6"))) {
                String[] f = line.trim().split("\\s+");
                if (f.length == 2 && f[0].equals("Udp6InCsumErrors")) {
                    return Long.parseLong(f[1]);
                }
            }
            throw new AssertionError("no Udp6InCsumErrors in /proc/net/snmp6");
        } catch (java.io.IOException e) {
            throw new AssertionError("cannot read /proc/net/snmp6", e);
        }
    }

    private static InetAddress address(String a) {
        try {
            return InetAddress.getByName(a);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException(a, e);
        }
    }
}
