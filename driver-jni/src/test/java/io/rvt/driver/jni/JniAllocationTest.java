package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.PortCounter;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Steady state allocates nothing per packet: one thread posts, runs both HCAs' engines ({@code ownThreads(false)},
 * {@code doWork}) and polls, so every byte the send path, the receive path, the transport and the core allocate for
 * RC SENDs and RDMA WRITEs is counted on it. A per-packet object (an address, a GID, a boxed value) would cost at
 * least 16 bytes per message, 80 KB over the measured rounds.
 */
class JniAllocationTest {
    private static final int WARM_UP = 3000;
    private static final int MEASURED = 5000;

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void shouldNotAllocatePerMessageWhenSteady(String host) {
        assertNoAllocationPerMessage(new JniFixture(1, host, true, Wire.NATIVE));
    }

    /**
     * The same with every IPv4 datagram received carrying a numbered, non-zero IP Identification as Linux's do
     * ({@link Ipv4IdNumbering}, itself allocation-free): the ICRC solved for the ID on every packet allocates nothing.
     */
    @Test
    void shouldNotAllocatePerMessageWhenSolvingIpv4Ids() {
        long solved = assertNoAllocationPerMessage(new JniFixture(1, "127.0.0.1", true, Wire.NATIVE)
                .numberIpv4Ids(true));
        assertThat(solved).as("packets accepted under a solved ID").isGreaterThan(MEASURED);
    }

    /** @return the second device's {@code RX_IPV4_ID_SOLVED} at the end */
    private static long assertNoAllocationPerMessage(JniFixture fixture) {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (JniFixture f = fixture) {
            // No fixture thread: this test's thread is the engine of both HCAs.
            JniDriver[] d = new JniDriver[2];
            io.rvt.api.Device[] dev = openWithoutEngineThread(f, d);
            Verbs verbs = new Verbs(f);
            Endpoint[] p = verbs.connected(dev[0], dev[1], QpType.RC, 1 << 16, 7, 1);
            SendWorkRequest send = new SendWorkRequest(1).opcode(WrOpcode.SEND).sge(p[0].mr, 0, 64);
            SendWorkRequest write = new SendWorkRequest(1).opcode(WrOpcode.RDMA_WRITE).sge(p[0].mr, 0, 16384)
                    .remoteAddr(p[1].mr.addr()).rkey(p[1].mr.rkey());
            RecvWorkRequest recv = new RecvWorkRequest(1).sge(p[1].mr, 0, 64);
            WorkCompletion wc = new WorkCompletion();
            run(d, p, send, write, recv, wc, WARM_UP);
            long tid = Thread.currentThread().getId();
            long before = mx.getThreadAllocatedBytes(tid);
            run(d, p, send, write, recv, wc, MEASURED);
            long bytes = mx.getThreadAllocatedBytes(tid) - before;
            // Measured: 160-240 bytes in all (one-off lazy initialisations); one 16-byte object per round would be
            // 80 KB. Half of that leaves room for the JIT's and the JVM's own one-offs.
            assertThat(bytes).as("bytes allocated over %d rounds", MEASURED).isLessThan(40_000);
            return dev[1].portCounter(1, PortCounter.RX_IPV4_ID_SOLVED);
        }
    }

    private static io.rvt.api.Device[] openWithoutEngineThread(JniFixture f, JniDriver[] d) {
        io.rvt.api.Device[] dev = f.openWithoutEngine(2);
        d[0] = f.drivers().get(0);
        d[1] = f.drivers().get(1);
        return dev;
    }

    private static void checkSuccess(WorkCompletion wc) {
        if (wc.status() != WcStatus.SUCCESS) {
            throw new AssertionError("completion failed: " + wc);
        }
    }

    /** {@code n} rounds of a 64 B SEND and a 16 KiB RDMA WRITE, driving both engines until both complete. */
    private static void run(JniDriver[] d, Endpoint[] p, SendWorkRequest send, SendWorkRequest write,
            RecvWorkRequest recv, WorkCompletion wc, int n) {
        long deadline = System.nanoTime() + Verbs.DEADLINE_NANOS * 3;
        for (int i = 0; i < n; i++) {
            p[1].qp.postRecv(recv);
            p[0].qp.postSend(send);
            p[0].qp.postSend(write);
            int sent = 0;
            int received = 0;
            while (sent < 2 || received < 1) {
                d[0].doWork();
                d[1].doWork();
                while (p[0].sendCq.pollCq(wc)) {
                    checkSuccess(wc); // not AssertJ here: its assertion objects would be counted
                    sent++;
                }
                while (p[1].recvCq.pollCq(wc)) {
                    checkSuccess(wc);
                    received++;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("round " + i + " did not complete: sent " + sent + ", received "
                            + received);
                }
            }
        }
    }
}
