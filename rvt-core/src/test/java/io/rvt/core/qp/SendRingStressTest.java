package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Errno;
import io.rvt.api.QpType;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WorkRequestException;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.engine.QpFlags;
import io.rvt.api.spi.engine.SendWqe;
import io.rvt.core.LoopbackTestDriver;
import io.rvt.core.TestDriver;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Several threads post ordinary and reserved WRs to one QP while another completes them (semantics §1.6, §1.7,
 * §11.1 items 1–5): no WQE is lost, duplicated or reordered (per-thread sequence numbers in the wrIds), the
 * completion stream is the ordinary subset of the ring order, reserved WQEs never complete visibly, and the counters
 * stay in bounds and return to zero. Posters retry on ENOMEM.
 */
class SendRingStressTest {
    private static final int POSTERS = 4;
    private static final int POSTS = 50_000;
    private static final int RESERVED = 2;
    private static final int MAX_SEND_WR = 64;
    private static final long SEED = 42;

    private static long wrId(int thread, int seq, boolean reserved) {
        return (long) thread << 40 | (long) seq << 1 | (reserved ? 1 : 0);
    }

    @Test
    @Timeout(60)
    void shouldLoseDuplicateOrReorderNothingWhenFourThreadsPostWhileOneCompletes() throws Exception {
        TestDriver driver = new TestDriver().params(LoopbackTestDriver.loopbackParams(RESERVED).build())
                .postParms(LoopbackTestDriver.operationTable());
        QpEnv env = new QpEnv(driver);
        RvtQp qp = env.create(QpType.RC, MAX_SEND_WR, 4, 1);
        env.up(qp, qp.qpNum());
        int total = POSTERS * POSTS;
        long[] ring = new long[total];
        List<Long> cq = new ArrayList<>(total);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CyclicBarrier start = new CyclicBarrier(POSTERS + 1);
        List<Thread> threads = new ArrayList<>();

        for (int t = 0; t < POSTERS; t++) {
            int id = t;
            Thread th = new Thread(() -> {
                try {
                    SplittableRandom r = new SplittableRandom(SEED + id);
                    SendWorkRequest normal = new SendWorkRequest(0).opcode(WrOpcode.SEND);
                    SendWorkRequest reserved = new SendWorkRequest(0).opcode(LoopbackTestDriver.OPFN);
                    start.await(10, TimeUnit.SECONDS);
                    for (int seq = 0; seq < POSTS; seq++) {
                        boolean res = r.nextInt(5) == 0;
                        SendWorkRequest w = (res ? reserved : normal).wrId(wrId(id, seq, res));
                        while (true) {
                            try {
                                qp.postSend(w);
                                break;
                            } catch (WorkRequestException e) {
                                if (e.errno() != Errno.ENOMEM || e.badIndex() != 0) {
                                    throw e;
                                }
                                Thread.yield();
                            }
                        }
                        int used = qp.sendQueue().reservedUsed();
                        if (used < 0 || used > RESERVED) {
                            throw new AssertionError("poster " + id + ": sendReservedUsed " + used);
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "poster-" + t);
            threads.add(th);
        }
        Thread completer = new Thread(() -> {
            try {
                WorkCompletion[] wcs = new WorkCompletion[16];
                for (int i = 0; i < wcs.length; i++) {
                    wcs[i] = new WorkCompletion();
                }
                start.await(10, TimeUnit.SECONDS);
                int done = 0;
                while (done < total && failure.get() == null) {
                    qp.sendLock().lock();
                    try {
                        int head = qp.sendQueue().head(); // acquire: pairs with the poster's release of sendHead
                        for (int n = 0; n < 8 && qp.sendQueue().last() != head; n++) {
                            SendWqe w = qp.sendQueue().swqe(qp.sendQueue().last());
                            boolean flagged = (w.sendFlags() & QpFlags.SEND_RESERVE_USED) != 0;
                            if (flagged != ((w.wrId() & 1) == 1)) {
                                throw new AssertionError("wrId 0x" + Long.toHexString(w.wrId())
                                        + ": RESERVE_USED " + flagged);
                            }
                            ring[done++] = w.wrId();
                            qp.sendQueue().completeSwqe(w, WcOpcode.SEND, WcStatus.SUCCESS);
                        }
                    } finally {
                        qp.sendLock().unlock();
                    }
                    int used = qp.sendQueue().reservedUsed();
                    int avail = qp.sendQueue().avail();
                    if (used < 0 || used > RESERVED || avail < 0 || avail > MAX_SEND_WR) {
                        throw new AssertionError("sendReservedUsed " + used + ", sendAvail " + avail);
                    }
                    int n;
                    while ((n = qp.sendCompletionQueue().pollCq(wcs, wcs.length)) > 0) {
                        for (int i = 0; i < n; i++) {
                            if (wcs[i].status() != WcStatus.SUCCESS) {
                                throw new AssertionError("completion " + wcs[i]);
                            }
                            cq.add(wcs[i].wrId());
                        }
                    }
                    if (done < total) {
                        Thread.yield();
                    }
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        }, "completer");
        threads.forEach(Thread::start);
        completer.start();
        for (Thread th : threads) {
            th.join(TimeUnit.SECONDS.toMillis(50));
        }
        completer.join(TimeUnit.SECONDS.toMillis(50));
        assertThat(failure.get()).isNull();
        assertThat(completer.isAlive()).isFalse();

        // Ring order: each poster's WRs exactly once, in its order.
        int[] nextSeq = new int[POSTERS];
        List<Long> ordinary = new ArrayList<>(total);
        int reservedSeen = 0;
        for (long id : ring) {
            int t = (int) (id >>> 40);
            int seq = (int) ((id >>> 1) & 0x7FFF_FFFFL);
            assertThat(seq).as("poster %d: WR %d after %d (lost, duplicated or reordered)", t, seq, nextSeq[t] - 1)
                    .isEqualTo(nextSeq[t]);
            nextSeq[t]++;
            if ((id & 1) == 0) {
                ordinary.add(id);
            } else {
                reservedSeen++;
            }
        }
        assertThat(nextSeq).containsOnly(POSTS);
        assertThat(reservedSeen).as("reserved WRs went through").isGreaterThan(POSTERS * POSTS / 10);
        assertThat(cq).as("completions: the ordinary WRs in ring order, no reserved one").isEqualTo(ordinary);
        assertThat(qp.sendQueue().reservedUsed()).isZero();
        assertThat(qp.sendQueue().head()).isEqualTo(qp.sendQueue().last());
    }
}
