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
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import io.rvt.transport.header.BthDescriptor;
import io.rvt.transport.header.DethDescriptor;
import io.rvt.transport.header.GrhDescriptor;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Linux's IPv4 RoCEv2 packets carry a numbered IP Identification (rxe: {@code __ip_select_ident}) and an ICRC over
 * it, which a UDP socket does not show: driver-jni accepts them by solving the ICRC for the ID and counts them
 * ({@code RX_IPV4_ID_SOLVED}), while a corrupted one is still an ICRC error. Packets are sent at the port from a plain
 * socket, as a Linux host's would arrive, or every datagram an HCA receives is given a numbered ID
 * ({@link Ipv4IdNumbering}).
 */
class JniIpv4IdTest {
    private static final long SEED = 0x1D_1D_1DL;
    private static final int QKEY = 0x77;
    private static final String HOST = "127.0.0.1";
    private JniFixture fixture;
    private Device[] dev;
    private Verbs verbs;
    private Endpoint ud;
    private Gid local;
    private UdTarget raw;

    private void setUp(JniFixture f) throws Exception {
        raw = new UdTarget(f, HOST, QKEY, 1 << 14);
        fixture = f;
        dev = raw.dev;
        verbs = raw.verbs;
        ud = raw.ud;
        local = Peer.gidOf(raw.local);
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

    private long solved() {
        return dev[1].portCounter(1, PortCounter.RX_IPV4_ID_SOLVED);
    }

    /** A UD SEND_ONLY as a Linux sender makes it: the ICRC over IPv4 Identification {@code id}, DF. */
    private byte[] udPacket(int destQp, Gid dst, int payload, int id, long pattern) {
        return raw.udSendOnly(destQp, payload, pattern, dst, id);
    }

    private void inject(byte[] bytes) throws Exception {
        raw.send(bytes, bytes.length);
    }

    /** Sends {@code packet} and waits for its receive completion; checks the payload. */
    private void assertDelivered(byte[] packet, int payload, long pattern) throws Exception {
        ud.qp.postRecv(new RecvWorkRequest(1).wrId(pattern).sge(ud.mr, 0, 1 << 14));
        inject(packet);
        WorkCompletion wc = verbs.await(ud.recvCq, 1).get(0);
        Verbs.assertSuccess(wc, pattern);
        assertThat(wc.byteLen()).isEqualTo(GrhDescriptor.LENGTH + payload);
        Verbs.assertPattern(ud.buffer, GrhDescriptor.LENGTH, payload, pattern);
    }

    /**
     * Packets as rxe sends them, with IDs non-zero and random, of payloads from 1 byte to the MTU: each delivered
     * and counted as solved; then the same packets with one bit flipped anywhere from the BTH's destination QP on
     * (the bytes before it could make the packet unparsable, a drop of its own): each an ICRC error, none delivered.
     */
    @Test
    void shouldDeliverPacketsWithNonZeroIdsAndRejectCorruptedOnes() throws Exception {
        setUp(new JniFixture(SEED, HOST));
        SplittableRandom r = new SplittableRandom(SEED);
        int[] payloads = {1, 8, 64, 333, 1000, 1500, 2048, 4000, 4096 - 40};
        byte[][] good = new byte[payloads.length][];
        for (int k = 0; k < payloads.length; k++) {
            good[k] = udPacket(ud.qp.qpNum(), local, payloads[k], 1 + r.nextInt(0xFFFF), k);
            assertDelivered(good[k], payloads[k], k);
        }
        assertThat(solved()).as("rx_ipv4_id_solved").isEqualTo(payloads.length);
        assertThat(target().statistics(1).icrcErrors()).isZero();
        // ID 0, as rvt sends: matched as sent, not counted as solved.
        assertDelivered(udPacket(ud.qp.qpNum(), local, 100, 0, 99), 100, 99);
        assertThat(solved()).isEqualTo(payloads.length);

        ud.qp.postRecv(new RecvWorkRequest(1).wrId(1000).sge(ud.mr, 0, 1 << 14));
        int corrupted = 0;
        for (int n = 0; n < 200; n++) {
            byte[] bad = good[n % good.length].clone();
            int at = BthDescriptor.RESV8A_OFFSET + 1 + r.nextInt(bad.length - BthDescriptor.RESV8A_OFFSET - 1);
            bad[at] ^= (byte) (1 << r.nextInt(8));
            inject(bad);
            corrupted++;
        }
        long expected = corrupted;
        verbs.awaitTrue("icrc errors " + expected, () -> target().statistics(1).icrcErrors() >= expected);
        assertThat(target().statistics(1).icrcErrors()).isEqualTo(expected);
        assertThat(target().statistics(1).malformed()).isEqualTo(expected);
        assertThat(solved()).isEqualTo(payloads.length);
        verbs.assertQuiet(ud.recvCq, 20);
    }

    /** With {@code solveIpv4Id(false)} only ID 0 matches: a packet with a numbered ID is an ICRC error, as before. */
    @Test
    void shouldCountNonZeroIdsAsIcrcErrorsWhenNotSolving() throws Exception {
        setUp(new JniFixture(SEED, HOST).solveIpv4Id(false));
        inject(udPacket(ud.qp.qpNum(), local, 64, 0x1234, 1));
        verbs.awaitTrue("an ICRC error", () -> target().statistics(1).icrcErrors() >= 1);
        assertDelivered(udPacket(ud.qp.qpNum(), local, 64, 0, 2), 64, 2);
        assertThat(target().statistics(1).icrcErrors()).isEqualTo(1);
        assertThat(solved()).isZero();
    }

    /**
     * A multicast packet with a numbered ID finds its group by solving the ICRC over each joined group's address: it
     * is delivered to the one group it solves for; corrupted, it is an ICRC error.
     */
    @Test
    void shouldDeliverMulticastWithANonZeroIdToItsGroup() throws Exception {
        setUp(new JniFixture(SEED, HOST));
        Gid joined = Gid.of(0xFF0E_0000_0000_0000L, 0x0000_0000_EF01_0203L); // IPv4 group 239.1.2.3
        Gid other = Gid.of(0xFF0E_0000_0000_0000L, 0x0000_0000_EF01_0204L);
        ud.qp.attachMcast(other, 0xC001);
        ud.qp.attachMcast(joined, 0xC002);
        byte[] m = udPacket(BthDescriptor.MULTICAST_QPN, joined, 200, 0xBEEF, 5);
        assertDelivered(m, 200, 5);
        assertThat(solved()).isEqualTo(1);
        byte[] bad = m.clone();
        bad[BthDescriptor.LENGTH + DethDescriptor.LENGTH + 17] ^= 0x40;
        ud.qp.postRecv(new RecvWorkRequest(1).wrId(6).sge(ud.mr, 0, 1 << 14));
        inject(bad);
        verbs.awaitTrue("an ICRC error", () -> target().statistics(1).icrcErrors() >= 1);
        assertThat(solved()).isEqualTo(1);
        verbs.assertQuiet(ud.recvCq, 20);
    }

    /**
     * Every datagram both HCAs receive carries a numbered ID, as between two Linux hosts: an RC pair's multi-packet
     * SENDs, RDMA WRITEs and READs move every byte; every numbered packet is counted as solved and none is an ICRC
     * error.
     */
    @Test
    void shouldRunRcTrafficWhenEveryPacketHasANumberedId() throws Exception {
        setUp(new JniFixture(SEED, HOST).numberIpv4Ids(true));
        Endpoint[] p = verbs.connected(dev[0], dev[1], QpType.RC, 1 << 17, 7, 1);
        int[] sizes = {1, 4096, 4097, 20_000, 65_536};
        for (int k = 0; k < sizes.length; k++) {
            int n = sizes[k];
            Verbs.fill(p[0].buffer, 0, n, SEED + k);
            p[1].qp.postRecv(new RecvWorkRequest(1).wrId(k).sge(p[1].mr, 0, 1 << 17));
            p[0].qp.postSend(new SendWorkRequest(1).wrId(k).opcode(WrOpcode.SEND).sge(p[0].mr, 0, n));
            Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), k);
            Verbs.assertSuccess(verbs.await(p[1].recvCq, 1).get(0), k);
            Verbs.assertPattern(p[1].buffer, 0, n, SEED + k);
        }
        Verbs.fill(p[0].buffer, 0, 65_536, SEED + 10);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(10).opcode(WrOpcode.RDMA_WRITE).sge(p[0].mr, 0, 65_536)
                .remoteAddr(p[1].mr.addr() + 65_536).rkey(p[1].mr.rkey()));
        Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 10);
        Verbs.assertPattern(p[1].buffer, 65_536, 65_536, SEED + 10);
        Verbs.fill(p[1].buffer, 0, 50_000, SEED + 11);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(11).opcode(WrOpcode.RDMA_READ).sge(p[0].mr, 65_536, 50_000)
                .remoteAddr(p[1].mr.addr()).rkey(p[1].mr.rkey()));
        Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 11);
        Verbs.assertPattern(p[0].buffer, 65_536, 50_000, SEED + 11);
        for (int d = 0; d < 2; d++) {
            Device x = dev[d];
            int i = d;
            // the receive thread numbers a datagram just before it checks it: wait for the two to agree
            verbs.awaitTrue("device " + d + " solved every numbered ID", () -> x.portCounter(1,
                    PortCounter.RX_IPV4_ID_SOLVED) == fixture.ipv4IdsNumbered(i));
            assertThat(fixture.ipv4IdsNumbered(d)).as("device %d's datagrams with a non-zero ID", d)
                    .isGreaterThan(10);
            assertThat(fixture.drivers().get(d).statistics(1).icrcErrors()).isZero();
        }
    }
}
