package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Gid;
import io.rvt.api.PortCounter;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.WorkCompletion;
import io.rvt.testkit.Verbs;
import io.rvt.transport.header.GrhDescriptor;
import java.io.ByteArrayOutputStream;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * UDP GRO on receive ({@link JniDriverBuilder#udpGro}): a datagram the kernel coalesced (here, a UDP GSO message of
 * this host, which reaches a socket with {@code UDP_GRO} whole) is split at the segment size the kernel reports into
 * its RoCEv2 packets, each checked (ICRC, over IPv4 under the ID it solves for) and handed to the transport in order;
 * a short or corrupt trailing segment is dropped and counted, the packets before it delivered.
 */
@Timeout(120)
class JniGroTest {
    private static final int QKEY = 0x5A5A;
    private static final int PAYLOAD = 200;
    private static final int SLOT = GrhDescriptor.LENGTH + PAYLOAD;

    /** driver-jni's own GSO runs over IPv6 arrive coalesced and are split: the same messages as with GRO off. */
    @Test
    void shouldSplitGsoRunsOfAnotherHcaIntoTheirPacketsOverIpv6() throws Exception {
        JniGsoTest.Stream on = JniGsoTest.stream("::1", true, true);
        JniGsoTest.Stream off = JniGsoTest.stream("::1", true, false);
        assertThat(on.gsoSegments()).as("sent as GSO segments").isPositive();
        assertThat(on.groSegments()).as("packets that arrived in coalesced datagrams").isPositive();
        assertThat(on.datagramsReceived()).as("datagrams received with GRO")
                .isLessThan(off.datagramsReceived());
        assertThat(off.groSegments()).isZero();
        assertThat(on.crc()).isEqualTo(off.crc()).isEqualTo(JniGsoTest.expectedCrc());
        assertThat(on.icrcErrors() + on.malformed() + off.icrcErrors() + off.malformed()).isZero();
    }

    /**
     * A burst of eight UD packets as a Linux GSO sender's segments (over IPv4 each ICRC under the ID the kernel's
     * segmentation numbers it with, 0x4000 + k): one datagram received, eight packets delivered in order, each
     * ID solved; with GRO off the same eight arrive as eight datagrams.
     */
    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void shouldDeliverEachSegmentOfACoalescedBurst(String host) throws Exception {
        for (boolean gro : new boolean[] {true, false}) {
            try (UdTarget t = new UdTarget(new JniFixture(7, host).udpGro(gro), host, QKEY, 16 * SLOT, true)) {
                int n = 8;
                Burst b = new Burst(t);
                for (int k = 0; k < n; k++) {
                    b.add(t.udSendOnly(t.ud.qp.qpNum(), PAYLOAD, k, local(t), 0x4000 + k));
                    t.ud.qp.postRecv(new RecvWorkRequest(1).wrId(k).sge(t.ud.mr, k * SLOT, SLOT));
                }
                SocketCalls before = t.target().statistics(1).socketCalls();
                b.send();
                List<WorkCompletion> got = t.verbs.await(t.ud.recvCq, n);
                for (int k = 0; k < n; k++) {
                    Verbs.assertSuccess(got.get(k), k);
                    assertThat(got.get(k).byteLen()).isEqualTo(SLOT);
                    Verbs.assertPattern(t.ud.buffer, k * SLOT + GrhDescriptor.LENGTH, PAYLOAD, k);
                }
                SocketCalls rx = t.target().statistics(1).socketCalls().minus(before);
                assertThat(rx.datagramsReceived()).as("datagrams received, GRO %s", gro).isEqualTo(gro ? 1 : n);
                assertThat(rx.groSegments()).as("packets in coalesced datagrams, GRO %s", gro).isEqualTo(gro ? n : 0);
                assertThat(t.dev[1].portCounter(1, PortCounter.RX_IPV4_ID_SOLVED)).as("IDs solved")
                        .isEqualTo(host.contains(":") ? 0 : n);
                assertThat(t.target().statistics(1).icrcErrors() + t.target().statistics(1).malformed()).isZero();
            }
        }
    }

    /**
     * Four good packets, then a trailing segment too short for a BTH and an ICRC: the four are delivered, the
     * segment dropped and counted as malformed; then four good ones and a last one with a byte flipped: an ICRC
     * error, the four delivered. Nothing throws; the port serves on.
     */
    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void shouldDropAndCountABadTrailingSegment(String host) throws Exception {
        try (UdTarget t = new UdTarget(new JniFixture(9, host), host, QKEY, 16 * SLOT, true)) {
            for (int round = 0; round < 2; round++) {
                Burst b = new Burst(t);
                for (int k = 0; k < 4; k++) {
                    b.add(t.udSendOnly(t.ud.qp.qpNum(), PAYLOAD, 10 * round + k, local(t), round * 4 + k));
                    t.ud.qp.postRecv(new RecvWorkRequest(1).wrId(k).sge(t.ud.mr, k * SLOT, SLOT));
                }
                byte[] last;
                if (round == 0) {
                    last = new byte[9]; // shorter than BTH + ICRC
                } else {
                    last = t.udSendOnly(t.ud.qp.qpNum(), PAYLOAD / 2, 99, local(t), 8);
                    last[last.length / 2] ^= 0x10;
                }
                b.add(last);
                SocketCalls before = t.target().statistics(1).socketCalls();
                long malformed = t.target().statistics(1).malformed();
                long icrc = t.target().statistics(1).icrcErrors();
                b.send();
                List<WorkCompletion> got = t.verbs.await(t.ud.recvCq, 4);
                for (int k = 0; k < 4; k++) {
                    Verbs.assertSuccess(got.get(k), k);
                    Verbs.assertPattern(t.ud.buffer, k * SLOT + GrhDescriptor.LENGTH, PAYLOAD, 10 * round + k);
                }
                t.verbs.awaitTrue("the trailing segment counted",
                        () -> t.target().statistics(1).malformed() == malformed + 1);
                assertThat(t.target().statistics(1).icrcErrors() - icrc).as("ICRC errors, round %d", round)
                        .isEqualTo(round == 0 ? 0 : 1);
                SocketCalls rx = t.target().statistics(1).socketCalls().minus(before);
                assertThat(rx.datagramsReceived()).isEqualTo(1);
                assertThat(rx.groSegments()).isEqualTo(5);
            }
            t.ud.qp.postRecv(new RecvWorkRequest(1).wrId(50).sge(t.ud.mr, 0, SLOT));
            byte[] alone = t.udSendOnly(t.ud.qp.qpNum(), PAYLOAD, 50, local(t), 0);
            t.send(alone, alone.length);
            Verbs.assertSuccess(t.verbs.await(t.ud.recvCq, 1).get(0), 50);
            t.verbs.assertQuiet(t.ud.recvCq, 20);
        }
    }

    private static Gid local(UdTarget t) {
        return Peer.gidOf(t.local);
    }

    /** Packets sent as one UDP GSO message, segment size the first packet's. */
    private static final class Burst {
        private final UdTarget target;
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private int segment;

        Burst(UdTarget target) {
            this.target = target;
        }

        void add(byte[] packet) {
            if (segment == 0) {
                segment = packet.length;
            }
            bytes.writeBytes(packet);
        }

        void send() throws Exception {
            target.sendSegmented(bytes.toByteArray(), bytes.size(), segment);
        }
    }
}
