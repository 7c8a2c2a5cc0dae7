package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.MemoryRegion;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import java.nio.ByteBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The native wire sends payload straight from registered memory ({@link PortStatistics#zeroCopyPackets()}):
 * multi-SGE and
 * multi-packet SENDs, RDMA WRITEs and RDMA READs arrive byte-exact; a heap-buffer region and the JDK wire copy.
 */
class JniZeroCopyTest {
    private static final int BUF = 1 << 20;

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void shouldSendPayloadFromRegisteredMemoryWhenNative(String host) {
        try (JniFixture f = new JniFixture(1, host)) {
            io.rvt.api.Device[] dev = f.open(2);
            JniDriver a = f.drivers().get(0);
            JniDriver b = f.drivers().get(1);
            Verbs verbs = new Verbs(f);
            Endpoint[] p = verbs.connected(dev[0], dev[1], QpType.RC, BUF, 7, 1);
            MemoryRegion second = p[0].pd.regMr(ByteBuffer.allocateDirect(BUF), Endpoint.ALL_ACCESS);
            Verbs.fill(p[0].buffer, 0, BUF, 11);
            Verbs.fill(second.buffer(), 0, BUF, 12);
            Verbs.fill(p[1].buffer, 0, BUF, 13);

            // A SEND of 4 SGEs over two regions, 3 packets, some gathered from two slices.
            int[][] sges = {{0, 5000, 3001}, {1, 17, 2500}, {0, 70000, 4095}, {1, 9000, 777}};
            SendWorkRequest send = new SendWorkRequest(sges.length).wrId(1).opcode(WrOpcode.SEND)
                    .sendFlags(SendFlag.SIGNALED.bit());
            int sendLen = 0;
            for (int i = 0; i < sges.length; i++) {
                int[] s = sges[i];
                send.sge(i).set(s[0] == 0 ? p[0].mr : second, s[1], s[2]);
                sendLen += s[2];
            }
            send.numSge(sges.length);
            p[1].qp.postRecv(new RecvWorkRequest(1).wrId(1).sge(p[1].mr, 500_000, sendLen));
            long before = a.statistics(1).zeroCopyPackets();
            p[0].qp.postSend(send);
            Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 1);
            WorkCompletion rwc = verbs.await(p[1].recvCq, 1).get(0);
            assertThat(rwc.byteLen()).isEqualTo(sendLen);
            int at = 500_000;
            for (int[] s : sges) {
                ByteBuffer from = s[0] == 0 ? p[0].buffer : second.buffer();
                assertThat(slice(p[1].buffer, at, s[2])).as("SGE at %d", s[1]).isEqualTo(slice(from, s[1], s[2]));
                at += s[2];
            }
            assertThat(a.statistics(1).zeroCopyPackets() - before).as("zero-copy packets of the SEND").isGreaterThan(0);

            // A 300 KB RDMA WRITE from two SGEs, then an RDMA READ of 200 KB (responses from b's memory).
            before = a.statistics(1).zeroCopyPackets();
            SendWorkRequest write = new SendWorkRequest(2).wrId(2).opcode(WrOpcode.RDMA_WRITE)
                    .sendFlags(SendFlag.SIGNALED.bit()).remoteAddr(p[1].mr.addr() + 600_000).rkey(p[1].mr.rkey());
            write.sge(0).set(p[0].mr, 1, 200_001);
            write.sge(1).set(second, 100_000, 99_998);
            p[0].qp.postSend(write.numSge(2));
            Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 2);
            assertThat(slice(p[1].buffer, 600_000, 200_001)).isEqualTo(slice(p[0].buffer, 1, 200_001));
            assertThat(slice(p[1].buffer, 800_001, 99_998)).isEqualTo(slice(second.buffer(), 100_000, 99_998));
            assertThat(a.statistics(1).zeroCopyPackets() - before).as("zero-copy packets of the WRITE")
                    .isGreaterThanOrEqualTo(300_000 / 4096);

            long readBefore = b.statistics(1).zeroCopyPackets();
            p[0].qp.postSend(new SendWorkRequest(1).wrId(3).opcode(WrOpcode.RDMA_READ)
                    .sendFlags(SendFlag.SIGNALED.bit()).sge(second, 300_000, 200_003)
                    .remoteAddr(p[1].mr.addr() + 7).rkey(p[1].mr.rkey()));
            Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 3);
            assertThat(slice(second.buffer(), 300_000, 200_003)).isEqualTo(slice(p[1].buffer, 7, 200_003));
            assertThat(b.statistics(1).zeroCopyPackets() - readBefore).as("zero-copy RDMA READ responses")
                    .isGreaterThanOrEqualTo(200_000 / 4096);
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void shouldCopyWhenTheRegionIsOnTheHeapOrTheWireIsTheJdks(boolean heap) {
        Wire wire = heap ? Wire.NATIVE : Wire.JDK;
        try (JniFixture f = new JniFixture(1, "127.0.0.1", false, wire)) {
            io.rvt.api.Device[] dev = f.open(2);
            JniDriver a = f.drivers().get(0);
            Verbs verbs = new Verbs(f);
            Endpoint[] p = verbs.connected(dev[0], dev[1], QpType.RC, BUF, 7, 1);
            MemoryRegion src = heap ? p[0].pd.regMr(ByteBuffer.allocate(BUF), Endpoint.ALL_ACCESS) : p[0].mr;
            Verbs.fill(src.buffer(), 0, BUF, 21);
            p[0].qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.RDMA_WRITE)
                    .sendFlags(SendFlag.SIGNALED.bit()).sge(src, 5, 100_003)
                    .remoteAddr(p[1].mr.addr() + 11).rkey(p[1].mr.rkey()));
            Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 1);
            assertThat(slice(p[1].buffer, 11, 100_003)).isEqualTo(slice(src.buffer(), 5, 100_003));
            assertThat(a.statistics(1).zeroCopyPackets()).isZero();
        }
    }

    private static byte[] slice(ByteBuffer b, int off, int len) {
        byte[] out = new byte[len];
        b.get(off, out);
        return out;
    }
}
