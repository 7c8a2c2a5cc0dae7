package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Device;
import io.rvt.api.Gid;
import io.rvt.api.PortCounter;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.WorkCompletion;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import io.rvt.transport.header.BthDescriptor;
import java.net.InetAddress;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Garbage sent at a driver's UDP port from a plain socket ({@link UdTarget}) (random bytes, truncated packets, packets
 * with a bad ICRC) is dropped and counted, never thrown, and the driver keeps serving RC traffic afterwards. A
 * well-formed packet from the same socket is accepted, so the drops are the checks' doing.
 */
class JniMalformedPacketTest {
    private static final long SEED = 0xBADF00DL;
    private static final int QKEY = 0x77;
    private JniFixture fixture;
    private Device[] dev;
    private Verbs verbs;
    private Endpoint ud;
    private InetAddress local;
    private UdTarget raw;

    /** Per parameter: two HCAs on {@code host}, a UD QP on the second, and a plain socket to send garbage from. */
    private void setUp(String host) throws Exception {
        raw = new UdTarget(new JniFixture(SEED, host), host, QKEY, 4096);
        fixture = raw.fixture;
        dev = raw.dev;
        verbs = raw.verbs;
        ud = raw.ud;
        local = raw.local;
    }

    @AfterEach
    void tearDown() {
        if (raw != null) {
            raw.close();
        }
    }

    private JniDriver target() {
        return raw.target();
    }

    /** A UD SEND_ONLY to the UD QP with {@code payload} bytes and the ICRC this socket's datagram needs. */
    private byte[] udPacket(int payload) {
        return udPacket(ud.qp.qpNum(), payload, Peer.gidOf(local));
    }

    /**
     * A UD SEND_ONLY to QP {@code destQp} with {@code payload} bytes and the ICRC of a datagram to {@code dst} (this
     * host, or a multicast group), over IPv4 ID 0 as rvt sends.
     */
    private byte[] udPacket(int destQp, int payload, Gid dst) {
        return raw.udSendOnly(destQp, payload, 42, dst, 0);
    }

    /**
     * A UD payload a word longer than the port's MTU (4096) is dropped and counted as {@code RX_UD_OVERSIZE}, not
     * delivered; one of exactly the MTU is delivered.
     */
    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void shouldDropAndCountUdPayloadLongerThanTheMtu(String host) throws Exception {
        setUp(host);
        ud.qp.postRecv(new RecvWorkRequest(1).wrId(1).sge(ud.mr, 0, 4096));
        ud.qp.postRecv(new RecvWorkRequest(1).wrId(2).sge(ud.mr, 0, 4096));
        byte[] big = udPacket(4100); // no pad: a payload of whole words
        inject(big, big.length);
        verbs.awaitTrue("rx_ud_oversize 1", () -> dev[1].portCounter(1, PortCounter.RX_UD_OVERSIZE) >= 1);
        byte[] fits = udPacket(4096 - 40);
        inject(fits, fits.length);
        WorkCompletion wc = verbs.await(ud.recvCq, 1).get(0);
        Verbs.assertSuccess(wc, 1);
        assertThat(wc.byteLen()).isEqualTo(4096);
        assertThat(dev[1].portCounter(1, PortCounter.RX_UD_OVERSIZE)).isEqualTo(1);
        assertThat(target().statistics(1).malformed()).isZero();
    }

    /**
     * A multicast packet (destination QP 0xFFFFFF) with a good ICRC to a port that joined no group is counted as
     * {@code RX_MCAST_NO_GROUP}, not as an ICRC error or a malformed packet.
     */
    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void shouldCountMulticastToAPortWithoutGroupsAsNoGroup(String host) throws Exception {
        setUp(host);
        Gid mgid = Gid.of(0xFF0E_0000_0000_0000L, 0x0000_0000_EF01_0203L);
        byte[] m = udPacket(BthDescriptor.MULTICAST_QPN, 8, mgid);
        for (int i = 0; i < 3; i++) {
            inject(m, m.length);
        }
        verbs.awaitTrue("rx_mcast_no_group 3", () -> dev[1].portCounter(1, PortCounter.RX_MCAST_NO_GROUP) >= 3);
        assertThat(dev[1].portCounter(1, PortCounter.RX_MCAST_NO_GROUP)).isEqualTo(3);
        assertThat(target().statistics(1).icrcErrors()).isZero();
        assertThat(target().statistics(1).malformed()).isZero();
    }

    private void inject(byte[] bytes, int len) throws Exception {
        raw.send(bytes, len);
    }

    private void awaitMalformed(long expected) {
        verbs.awaitTrue("malformed count " + expected, () -> target().statistics(1).malformed() >= expected);
        assertThat(target().statistics(1).malformed()).isEqualTo(expected);
        assertThat(dev[1].portCounter(1, PortCounter.RX_MALFORMED)).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void shouldDropAndCountGarbageAndKeepServing(String host) throws Exception {
        setUp(host);
        // A good one first: accepted, so the socket's datagrams pass the checks (IPv4: ID 0 convention).
        ud.qp.postRecv(new RecvWorkRequest(1).wrId(1).sge(ud.mr, 0, 1024));
        byte[] good = udPacket(8);
        inject(good, good.length);
        Verbs.assertSuccess(verbs.await(ud.recvCq, 1).get(0), 1);
        assertThat(target().statistics(1).malformed()).isZero();

        SplittableRandom r = new SplittableRandom(SEED);
        long expected = 0;
        // Bad ICRC: one bit of the ICRC field itself, then one bit anywhere the ICRC covers.
        byte[] bad = good.clone();
        bad[bad.length - 1] ^= 0x10;
        inject(bad, bad.length);
        expected++;
        for (int i = 0; i < 200; i++) {
            bad = good.clone();
            int at;
            do {
                at = r.nextInt(bad.length);
            } while (at == 4); // BTH resv8a is not covered
            bad[at] ^= (byte) (1 << r.nextInt(8));
            inject(bad, bad.length);
            expected++;
        }
        // Truncated: every length shorter than the packet, including empty datagrams.
        for (int len = 0; len < good.length; len++) {
            inject(good, len);
            expected++;
        }
        // Random bytes of random lengths up to a full slot and beyond.
        for (int i = 0; i < 300; i++) {
            byte[] junk = new byte[1 + r.nextInt(i % 10 == 0 ? 9000 : 200)];
            r.nextBytes(junk);
            inject(junk, junk.length);
            expected++;
        }
        awaitMalformed(expected);
        assertThat(target().statistics(1).icrcErrors()).isPositive();

        // Still serving: an RC message goes through both ways.
        JniFixture.sendChecked(verbs, verbs.connected(dev[0], dev[1], QpType.RC, 1 << 14, 7, 1), 5000, SEED);
        assertThat(target().statistics(1).malformed()).isEqualTo(expected);
    }
}
