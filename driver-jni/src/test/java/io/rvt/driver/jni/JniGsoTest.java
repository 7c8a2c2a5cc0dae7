package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Device;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import java.util.List;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * UDP GSO on IPv6 ({@link JniDriverBuilder#udpGso}): a stream of RC SENDs whose send batches hold runs of same-size
 * datagrams leaves in GSO messages that the kernel cuts into one datagram per RoCE packet, and the receiver gets
 * every packet with a valid ICRC: the same messages, bytes and counters as with GSO off. Never on IPv4.
 */
@Timeout(120)
class JniGsoTest {
    /** 64 B SENDs (one 80 B datagram each), then multi-packet ones: four full 4096 B packets and a shorter last. */
    private static final int SMALL = 48;
    private static final int LARGE = 8;
    private static final int LARGE_BYTES = 4 * 4096 + 1000;

    /**
     * What one stream did: a CRC-32 of every message received in order, and the counters that matter (the sender's
     * GSO segments and datagrams, the receiver's datagrams and packets that arrived coalesced by UDP GRO).
     */
    record Stream(long crc, long gsoSegments, long datagramsSent, long icrcErrors, long malformed,
            long datagramsReceived, long groSegments) {
    }

    @Test
    void shouldSendRunsOfSameSizeDatagramsAsGsoSegmentsEachAPacketWithAValidIcrcOverIpv6() throws Exception {
        Stream s = stream("::1", true);
        assertThat(s.gsoSegments()).as("datagrams that left as GSO segments").isPositive()
                .isLessThanOrEqualTo(s.datagramsSent());
        assertThat(s.icrcErrors()).as("ICRC failures at either end").isZero();
        assertThat(s.malformed()).as("malformed datagrams at either end").isZero();
    }

    @Test
    void shouldDeliverTheSameDataWithGsoOnAndOff() throws Exception {
        Stream on = stream("::1", true);
        Stream off = stream("::1", false);
        assertThat(off.gsoSegments()).isZero();
        assertThat(on.gsoSegments()).isPositive();
        assertThat(on.crc()).isEqualTo(off.crc()).isEqualTo(expectedCrc());
        assertThat(on.icrcErrors() + off.icrcErrors() + on.malformed() + off.malformed()).isZero();
    }

    @Test
    void shouldNeverSendGsoOverIpv4() throws Exception {
        Stream s = stream("127.0.0.1", true);
        assertThat(s.gsoSegments()).as("IPv4: the kernel would number the segments' IP IDs").isZero();
        assertThat(s.crc()).isEqualTo(expectedCrc());
        assertThat(s.icrcErrors()).isZero();
    }

    /** The messages' lengths in the order they are sent; message i holds the pattern of seed i. */
    private static int length(int i) {
        return i < SMALL ? 64 : LARGE_BYTES;
    }

    static long expectedCrc() {
        CRC32 crc = new CRC32();
        for (int i = 0; i < SMALL + LARGE; i++) {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(length(i));
            Verbs.fill(b, 0, length(i), i);
            crc.update(b);
        }
        return crc.getValue();
    }

    /**
     * SMALL 64 B SENDs posted as one list (so a drain puts them in one send batch), then LARGE multi-packet ones,
     * between two HCAs on {@code address} whose port threads run the engines.
     */
    private static Stream stream(String address, boolean gso) throws Exception {
        return stream(address, gso, true);
    }

    /** {@link #stream(String, boolean)} with the HCAs' UDP GRO on or off ({@link JniDriverBuilder#udpGro}). */
    static Stream stream(String address, boolean gso, boolean gro) throws Exception {
        try (JniFixture f = new JniFixture(5, address).udpGso(gso).udpGro(gro); Verbs verbs = new Verbs(f)) {
            Device[] dev = f.open(2);
            JniDriver a = f.drivers().get(0);
            JniDriver b = f.drivers().get(1);
            int slot = LARGE_BYTES;
            int n = SMALL + LARGE;
            Endpoint[] p = verbs.connected(dev[0], dev[1], QpType.RC, slot * n, 7, 1);
            for (int i = 0; i < n; i++) {
                p[1].qp.postRecv(new RecvWorkRequest(1).wrId(i).sge(p[1].mr, i * slot, slot));
                Verbs.fill(p[0].buffer, i * slot, length(i), i);
            }
            SocketCalls before = a.statistics(1).socketCalls();
            SocketCalls beforeB = b.statistics(1).socketCalls();
            SendWorkRequest list = null;
            for (int i = n - 1; i >= 0; i--) {
                list = new SendWorkRequest(1).wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlag.SIGNALED.bit())
                        .sge(p[0].mr, i * slot, length(i)).next(list);
            }
            p[0].qp.postSend(list);
            List<WorkCompletion> got = verbs.await(p[1].recvCq, n);
            verbs.await(p[0].sendCq, n);
            CRC32 crc = new CRC32();
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = got.get(i);
                Verbs.assertSuccess(wc, i);
                assertThat(wc.byteLen()).as("message %d", i).isEqualTo(length(i));
                Verbs.assertPattern(p[1].buffer, i * slot, length(i), i);
                crc.update(p[1].buffer.duplicate().position(i * slot).limit(i * slot + length(i)));
            }
            SocketCalls sent = a.statistics(1).socketCalls().minus(before);
            SocketCalls received = b.statistics(1).socketCalls().minus(beforeB);
            return new Stream(crc.getValue(), sent.gsoSegments(), sent.datagramsSent(),
                    a.statistics(1).icrcErrors() + b.statistics(1).icrcErrors(),
                    a.statistics(1).malformed() + b.statistics(1).malformed(),
                    received.datagramsReceived(), received.groSegments());
        }
    }
}
