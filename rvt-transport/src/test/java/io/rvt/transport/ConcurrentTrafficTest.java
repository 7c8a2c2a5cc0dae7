package io.rvt.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.MemoryRegion;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WorkRequestException;
import io.rvt.api.WrOpcode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The engines under real concurrency: one thread posts and polls on the requester, one posts receives and polls on
 * the responder, one runs the send engines, the lossy wire and the timers. Every message must still arrive exactly
 * once, in order, byte-exact. Threads meet only through the QPs, CQs and joins.
 */
class ConcurrentTrafficTest {
    static final int MESSAGES = 1500;
    static final int SLOT = 2048;
    static final int SLOTS = 32;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldDeliverEverythingInOrderWhenPostingReceivingAndSendingRunOnDifferentThreads() throws Exception {
        long seed = 20240601;
        System.out.println("ConcurrentTrafficTest seed=" + seed);
        Fabric fabric = new Fabric().faults(seed, 0.01, 0.0, 0.0);
        Node a = fabric.node("a", 1, 4096);
        Node b = fabric.node("b", 2, 4096);
        QueuePair[] p = Node.pair(QpType.RC, a, b, 64, 1);
        QueuePair qa = p[0];
        QueuePair qb = p[1];
        MemoryRegion src = a.reg(SLOTS * SLOT);
        MemoryRegion dst = b.reg(SLOTS * SLOT);
        RcOperationsTest.fill(src, seed);
        int[] lens = new int[MESSAGES];
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < MESSAGES; i++) {
            lens[i] = r.nextInt(SLOT + 1);
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<WorkCompletion> sent = Collections.synchronizedList(new ArrayList<>());
        List<String> mismatches = Collections.synchronizedList(new ArrayList<>());
        // Message i is sent only once receive i is posted: no RNR storms while virtual time runs ahead of the
        // receiver thread (each lost packet in an RNR cycle would cost a retry, as in hfi1).
        AtomicInteger postedReceives = new AtomicInteger();

        Thread network = new Thread(() -> {
            try {
                while (!stop.get()) {
                    fabric.pump();
                    if (fabric.timers().pendingCount() > 0) {
                        fabric.timers().runNext();
                    } else {
                        Thread.onSpinWait();
                    }
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        }, "network");
        Thread poster = new Thread(() -> {
            SendWorkRequest wr = new SendWorkRequest(1).opcode(WrOpcode.SEND).sendFlags(SendFlag.SIGNALED.bit());
            WorkCompletion wc = new WorkCompletion();
            int next = 0;
            while (sent.size() < MESSAGES && failure.get() == null) {
                if (next < MESSAGES && next < postedReceives.get()) {
                    try {
                        qa.postSend(wr.wrId(next).sge(src, (next % SLOTS) * SLOT, lens[next]));
                        next++;
                    } catch (WorkRequestException full) {
                        Thread.onSpinWait(); // send queue full: completions will make room
                    }
                }
                while (a.scq.pollCq(wc)) {
                    sent.add(new WorkCompletion().copyFrom(wc));
                }
            }
        }, "poster");
        Thread receiver = new Thread(() -> {
            RecvWorkRequest rwr = new RecvWorkRequest(1);
            WorkCompletion wc = new WorkCompletion();
            int posted = 0;
            int received = 0;
            while (received < MESSAGES && failure.get() == null) {
                while (posted < MESSAGES && posted - received < SLOTS) {
                    qb.postRecv(rwr.wrId(posted).sge(dst, (posted % SLOTS) * SLOT, SLOT));
                    posted++;
                    postedReceives.set(posted);
                }
                while (b.rcq.pollCq(wc)) {
                    int i = received++;
                    int len = lens[i];
                    if (wc.wrId() != i || wc.status() != WcStatus.SUCCESS || wc.byteLen() != len
                            || !java.util.Arrays.equals(RcOperationsTest.bytes(dst, (i % SLOTS) * SLOT, len),
                                    RcOperationsTest.bytes(src, (i % SLOTS) * SLOT, len))) {
                        mismatches.add("message " + i + ": " + wc);
                    }
                }
            }
        }, "receiver");
        network.start();
        poster.start();
        receiver.start();
        poster.join();
        receiver.join();
        stop.set(true);
        network.join();

        assertThat(failure.get()).isNull();
        assertThat(mismatches).isEmpty();
        assertThat(sent).hasSize(MESSAGES);
        for (int i = 0; i < MESSAGES; i++) {
            assertThat(sent.get(i).wrId()).isEqualTo(i);
            assertThat(sent.get(i).status()).isEqualTo(WcStatus.SUCCESS);
        }
    }
}
