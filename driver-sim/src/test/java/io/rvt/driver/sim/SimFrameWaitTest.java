package io.rvt.driver.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.Device;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.driver.sim.fabric.FaultConfig;
import io.rvt.driver.sim.fabric.Frame;
import io.rvt.driver.sim.fabric.FramePool;
import io.rvt.driver.sim.fabric.LinkModel;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Deterministic mode, a sending port's frame pool empty: the send engine waits for a frame to come back (an event)
 * instead of re-queueing itself at the same virtual instant, which froze virtual time (the deliveries and timers
 * that return frames never ran). The three runs of issue 13 that livelocked, and a run that cannot progress at all.
 * Each test has a generous wall-clock bound so that a livelock fails it instead of hanging the build.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SimFrameWaitTest {
    private static final long TEN_SECONDS = 10_000_000_000L;
    private SimFixture fixture;

    @AfterEach
    void tearDown() {
        if (fixture != null) {
            fixture.close();
        }
    }

    private Endpoint[] pair(LinkModel link, FaultConfig faults, int bufferBytes) {
        fixture = new SimFixture(1, true, b -> b.defaultLink(link).faults(faults));
        Device[] devs = fixture.open(2);
        return new Verbs(fixture).connected(devs[0], devs[1], QpType.RC, bufferBytes, 7, 1);
    }

    private Fabric fabric() {
        return fixture.fabric();
    }

    private static SendWorkRequest write(Endpoint from, Endpoint to, long wrId, int off, int len) {
        return new SendWorkRequest(1).wrId(wrId).opcode(WrOpcode.RDMA_WRITE).sge(from.mr, off, len)
                .remoteAddr(to.mr.addr() + off).rkey(to.mr.rkey());
    }

    /** Runs the fabric until {@code n} completions arrived on {@code cq} (or 10 s of virtual time passed). */
    private List<WorkCompletion> run(Endpoint ep, int n) {
        List<WorkCompletion> got = new ArrayList<>();
        WorkCompletion wc = new WorkCompletion();
        boolean done = fabric().runUntil(() -> {
            while (got.size() < n && ep.sendCq.pollCq(wc)) {
                got.add(new WorkCompletion().copyFrom(wc));
            }
            return got.size() == n;
        }, TEN_SECONDS);
        assertThat(done).as("%d of %d completions after 10 s of virtual time: %s", got.size(), n, got).isTrue();
        return got;
    }

    @Test
    void shouldComplete1MiBWriteWhenTheLinkHasLatencyAndThePoolRunsDry() {
        // 1 MiB and one packet: 257 packets, one more than the port's pool has frames (each held until delivery);
        // 1 MiB alone ran the pool dry only while a CM's GSI QP held a frame from connecting the pair
        int len = (1 << 20) + 4096;
        Endpoint[] p = pair(LinkModel.of(0, 1000), FaultConfig.NONE, len);
        Verbs.fill(p[0].buffer, 0, len, 13);
        p[0].qp.postSend(write(p[0], p[1], 1, 0, len));

        Verbs.assertSuccess(run(p[0], 1).get(0), 1);

        Verbs.assertPattern(p[1].buffer, 0, len, 13);
        assertThat(fabric().nanoTime()).as("virtual time of the write").isBetween(1L, 10_000_000L);
        assertThat(fixture.drivers().get(0).fabricPort(1).counters().backpressure())
                .as("the pool ran dry (the case this covers)").isPositive();
    }

    @Test
    void shouldComplete64WritesOnIdealLinksWithReordering() {
        int len = 64 * 1024;
        Endpoint[] p = pair(LinkModel.IDEAL, FaultConfig.builder().reorder(0.05, 20_000).build(), 64 * len);
        Verbs.fill(p[0].buffer, 0, 64 * len, 64);
        for (int i = 0; i < 64; i++) {
            p[0].qp.postSend(write(p[0], p[1], i, i * len, len));
        }

        List<WorkCompletion> wcs = run(p[0], 64);

        for (int i = 0; i < 64; i++) {
            Verbs.assertSuccess(wcs.get(i), i);
        }
        Verbs.assertPattern(p[1].buffer, 0, 64 * len, 64);
        assertThat(fabric().counters().reordered()).as("frames reordered").isPositive();
        assertThat(fabric().nanoTime()).as("virtual time").isLessThan(TEN_SECONDS);
    }

    @Test
    void shouldCompleteAFourQpMixOf4000MessagesWithLatencyAndReordering() {
        fixture = new SimFixture(1, true, b -> b.defaultLink(LinkModel.of(100_000_000_000L, 1000))
                .faults(FaultConfig.builder().reorder(0.01, 20_000).build()));
        Device[] devs = fixture.open(2);
        Verbs verbs = new Verbs(fixture);
        int qps = 4;
        int perQp = 1000;
        int window = 16;
        int slot = 64 * 1024; // 16 outstanding 64 KiB messages of 4 QPs need more frames than the pool has
        Endpoint[][] pairs = new Endpoint[qps][];
        for (int q = 0; q < qps; q++) {
            pairs[q] = verbs.connected(devs[0], devs[1], QpType.RC, window * slot, 7, 1);
            Verbs.fill(pairs[q][0].buffer, 0, window * slot, q);
            Verbs.fill(pairs[q][1].buffer, 0, window * slot, ~q);
        }
        int[] posted = new int[qps];
        int[] completed = new int[qps];
        WorkCompletion wc = new WorkCompletion();
        boolean done = fabric().runUntil(() -> {
            int total = 0;
            for (int q = 0; q < qps; q++) {
                Endpoint a = pairs[q][0];
                Endpoint b = pairs[q][1];
                while (a.sendCq.pollCq(wc)) {
                    assertThat(wc.status()).as("completion %s of QP %d", wc, q).isEqualTo(WcStatus.SUCCESS);
                    completed[q]++;
                }
                while (b.recvCq.pollCq(wc)) {
                    assertThat(wc.status()).as("receive %s of QP %d", wc, q).isEqualTo(WcStatus.SUCCESS);
                }
                while (posted[q] < perQp && posted[q] - completed[q] < window) {
                    int i = posted[q]++;
                    int off = (i % window) * slot;
                    int len = 1 + (i * 7919) % slot; // 1 B .. 64 KiB: one to seventeen packets
                    switch (i % 3) {
                        case 0:
                            a.qp.postSend(write(a, b, i, off, len));
                            break;
                        case 1:
                            a.qp.postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.RDMA_READ)
                                    .sge(a.mr, off, len).remoteAddr(b.mr.addr() + off).rkey(b.mr.rkey()));
                            break;
                        default:
                            b.qp.postRecv(new RecvWorkRequest(1).wrId(i).sge(b.mr, off, slot));
                            a.qp.postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.SEND).sge(a.mr, off, len));
                            break;
                    }
                }
                total += completed[q];
            }
            return total == qps * perQp;
        }, TEN_SECONDS);

        assertThat(done).as("completions per QP after 10 s of virtual time: %s", java.util.Arrays.toString(completed))
                .isTrue();
        assertThat(fabric().counters().reordered()).as("frames reordered").isPositive();
    }

    @Test
    void shouldFailNamingThePortWhenNoFrameCanEverComeBack() {
        Endpoint[] p = pair(LinkModel.of(0, 1000), FaultConfig.NONE, 4096);
        FramePool pool = fixture.drivers().get(0).fabricPort(1).pool();
        List<Frame> held = new ArrayList<>();
        for (Frame f; (f = pool.acquire()) != null;) {
            held.add(f); // the application holds every frame of the first HCA's port: nothing can return one
        }
        p[0].qp.postSend(write(p[0], p[1], 1, 0, 64));

        assertThatThrownBy(() -> fabric().runUntil(() -> p[0].sendCq.pollCq(new WorkCompletion()), TEN_SECONDS))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(fixture.drivers().get(0).fabricPort(1).name())
                .hasMessageContaining("no frame")
                .hasMessageContaining("qp 0x" + Integer.toHexString(p[0].qp.qpNum()));

        held.forEach(Frame::release); // a frame comes back: the waiting send goes out and completes
        Verbs.assertSuccess(run(p[0], 1).get(0), 1);
    }
}
