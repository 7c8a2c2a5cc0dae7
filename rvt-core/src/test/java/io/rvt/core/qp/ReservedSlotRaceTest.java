package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.Errno;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpType;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkRequestException;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.engine.QpFlags;
import io.rvt.core.LoopbackTestDriver;
import io.rvt.core.TestDriver;
import io.rvt.core.mr.RvtMr;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The reserved-slot race of rdmavt (semantics §4.3): with the ring full ({@code maxSendWr = 1} ordinary and
 * {@code R = 1} reserved WQE outstanding, the reserved one oldest), one thread retires the reserved WQE while another
 * posts a reserved then an ordinary WR (or the other way round), both threads starting first in turn. rdmavt's
 * reserved check reads only the count, which drops before {@code s_last} moves: the reserved post took the
 * empty-marker slot and the ordinary post then wrote into the slot being retired. rvt also refuses a reserved post
 * while the ring is physically full, so every trial leaves exactly the accepted WQEs in the ring and every region
 * reference is dropped once they complete. The retiring WQE has 255 SGEs, which widens the window (the retirement
 * drops 255 references); the poster waits for the count to drop and then posts at once. The window stays a few
 * microseconds wide, so the concurrent test is a stress of the fixed code; the test that pins the window
 * deterministically ({@code wqeUnreserve} done, {@code sendLast} not yet moved) is the one that fails on rdmavt's rule.
 */
class ReservedSlotRaceTest {
    private static final int TRIALS = 2000;
    private static final int SGES = 255;

    @Test
    void shouldNeitherOverfillTheRingNorCutReferencesWhenAReservedPostRacesARetiringReservedWqe() throws Exception {
        TestDriver driver = new TestDriver()
                .params(LoopbackTestDriver.loopbackParams(1)
                        .props(TestDriver.defaultProps().maxSendSge(SGES).build()).build())
                .postParms(LoopbackTestDriver.operationTable());
        QpEnv env = new QpEnv(driver);
        QpInitAttr init = env.init(QpType.RC, 1, 1, 1);
        init.cap().maxSendSge(SGES);
        RvtQp qp = env.create(init);
        env.up(qp, qp.qpNum());
        RvtMr mr = env.reg(SGES * 16);
        int baseRefs = mr.refCount();
        SendWorkRequest reserved = wr(LoopbackTestDriver.OPFN, mr);
        SendWorkRequest ordinary = wr(WrOpcode.SEND, mr);
        SendWorkRequest reservedBare = wr(LoopbackTestDriver.OPFN, null);
        SendWorkRequest ordinaryBare = wr(WrOpcode.SEND, null);
        AtomicInteger accepted = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        // Spin-wait starts (a barrier's wake-ups are too far apart for a window of a few microseconds).
        AtomicInteger go = new AtomicInteger(-1);
        AtomicInteger done = new AtomicInteger();
        AtomicInteger retired = new AtomicInteger();
        List<String> bad = new ArrayList<>();

        Thread poster = new Thread(() -> {
            try {
                SplittableRandom r = new SplittableRandom(1);
                for (int t = 0; t < TRIALS; t++) {
                    if (!awaitTurn(go, t, failure)) {
                        return;
                    }
                    if ((t & 2) == 0) {
                        spin(r.nextInt(64));
                    }
                    boolean bare = (t & 4) == 0; // without SGEs the two posts fit in the retirement's window
                    SendWorkRequest res = bare ? reservedBare : reserved;
                    SendWorkRequest ord = bare ? ordinaryBare : ordinary;
                    boolean reservedFirst = (t & 1) == 0;
                    // Post right as the count drops (a refused post costs microseconds: its exception's stack).
                    while (qp.sendQueue().reservedUsed() != 0 && retired.get() <= t) {
                        Thread.onSpinWait();
                    }
                    int n = post(qp, reservedFirst ? res : ord) + post(qp, reservedFirst ? ord : res);
                    accepted.set(n);
                    done.set(t + 1);
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        }, "poster");
        poster.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        SplittableRandom r = new SplittableRandom(2);
        // This thread is the completer: it sets each trial up, retires the reserved WQE and checks the ring.
        for (int t = 0; t < TRIALS && failure.get() == null && bad.isEmpty(); t++) {
            // The ring full, the reserved WQE (255 SGEs) oldest: R1 at sendLast, then O1.
            qp.postSend(reserved.wrId(1));
            qp.postSend(ordinaryBare.wrId(2));
            go.set(t);
            if ((t & 2) != 0) {
                spin(r.nextInt(64));
            }
            retireOldest(qp);
            retired.set(t + 1);
            while (done.get() <= t && failure.get() == null && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            if (done.get() <= t) {
                break;
            }
            int live = 1 + accepted.get(); // O1 plus what the poster got in
            int inRing = 0;
            while (qp.sendQueue().last() != qp.sendQueue().head()) {
                retireOldest(qp);
                inRing++;
            }
            if (inRing != live || mr.refCount() != baseRefs || qp.sendQueue().reservedUsed() != 0
                    || qp.sendQueue().avail() > 1 || qp.sendQueue().availOvershoots() != 0) {
                bad.add("trial " + t + ": " + live + " WQEs live, " + inRing + " in the ring, region references "
                        + mr.refCount() + " (expected " + baseRefs + "), reserved count "
                        + qp.sendQueue().reservedUsed()
                        + ", s_avail " + qp.sendQueue().avail() + ", s_avail overshoots "
                        + qp.sendQueue().availOvershoots());
            }
            QpEnv.poll(env.scq);
        }
        go.set(Integer.MAX_VALUE);
        poster.join(10_000);
        assertThat(failure.get()).isNull();
        assertThat(bad).isEmpty();
        assertThat(done.get()).as("every trial ran to its end").isEqualTo(TRIALS);
        mr.deregMr();
    }

    private static boolean awaitTurn(AtomicInteger go, int t, AtomicReference<Throwable> failure) {
        while (go.get() < t) {
            if (failure.get() != null) {
                return false;
            }
            Thread.onSpinWait();
        }
        return go.get() == t;
    }

    /**
     * The race's window made deterministic: the retirement of the reserved WQE has lowered the count
     * ({@code wqeUnreserve}, its first step) and not yet published {@code sendLast}. A reserved post must not take
     * the empty-marker slot then, and an ordinary post must not find room.
     */
    @Test
    void shouldRefuseAReservedPostWhenTheRingIsPhysicallyFullAlthoughTheCountHasDropped() {
        TestDriver driver = new TestDriver().params(LoopbackTestDriver.loopbackParams(1).build())
                .postParms(LoopbackTestDriver.operationTable());
        QpEnv env = new QpEnv(driver);
        RvtQp qp = env.create(QpType.RC, 1, 1, 1);
        env.up(qp, qp.qpNum());
        qp.postSend(new SendWorkRequest(0).opcode(LoopbackTestDriver.OPFN).wrId(1));
        qp.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(2));
        int head = qp.sendQueue().head();
        int last = qp.sendQueue().last();

        qp.sendLock().lock();
        try {
            qp.sendQueue().wqeUnreserve(qp.sendQueue().swqe(last).sendFlags()); // the retirement's first step
        } finally {
            qp.sendLock().unlock();
        }
        assertThat(qp.sendQueue().reservedUsed()).isZero();
        for (WrOpcode op : new WrOpcode[] {LoopbackTestDriver.OPFN, WrOpcode.SEND}) {
            assertThatThrownBy(() -> qp.postSend(new SendWorkRequest(0).opcode(op).wrId(3)))
                    .as(op.toString()).isInstanceOfSatisfying(WorkRequestException.class,
                            e -> assertThat(e.errno()).as(e.getMessage()).isEqualTo(Errno.ENOMEM));
        }
        assertThat(qp.sendQueue().head()).as("nothing was published").isEqualTo(head);
        assertThat(qp.sendQueue().last()).isEqualTo(last);
        assertThat(qp.sendQueue().avail()).isZero();
        assertThat(qp.sendQueue().availOvershoots()).isZero();
    }

    /**
     * rdmavt compares the reserved count as {@code u32}: a driver's extra {@code wqeUnreserve} drives it to -1 and
     * reserved posts then fail closed (rvt compared it signed and admitted more than R). The unbalanced unreserve is
     * counted.
     */
    @Test
    void shouldFailReservedPostsClosedWhenADriverUnreservesWithoutAReserve() {
        TestDriver driver = new TestDriver().params(LoopbackTestDriver.loopbackParams(1).build())
                .postParms(LoopbackTestDriver.operationTable());
        QpEnv env = new QpEnv(driver);
        RvtQp qp = env.create(QpType.RC, 4, 1, 1);
        env.up(qp, qp.qpNum());
        qp.sendLock().lock();
        try {
            qp.sendQueue().wqeUnreserve(QpFlags.SEND_RESERVE_USED);
            qp.sendQueue().wqeUnreserve(0); // not a reserved WQE: no change
        } finally {
            qp.sendLock().unlock();
        }
        assertThat(qp.sendQueue().unbalancedUnreserves()).isEqualTo(1);
        assertThat(qp.sendQueue().reservedUsed()).isEqualTo(-1);
        int head = qp.sendQueue().head();
        assertThatThrownBy(() -> qp.postSend(new SendWorkRequest(0).opcode(LoopbackTestDriver.OPFN).wrId(1)))
                .isInstanceOfSatisfying(WorkRequestException.class,
                        e -> assertThat(e.errno()).as(e.getMessage()).isEqualTo(Errno.ENOMEM));
        assertThat(qp.sendQueue().head()).isEqualTo(head);
        qp.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(2)); // ordinary posts are not affected
        assertThat(qp.sendQueue().head()).isNotEqualTo(head);
    }

    /** @return a WR with 255 SGEs in {@code mr}, or none if it is null */
    private static SendWorkRequest wr(WrOpcode op, RvtMr mr) {
        SendWorkRequest w = new SendWorkRequest(SGES).opcode(op).numSge(mr == null ? 0 : SGES);
        for (int i = 0; mr != null && i < SGES; i++) {
            w.sge(i).set(mr, i * 16, 8); // apart: one region reference per SGE
        }
        return w;
    }

    /** @return 1 if the post was accepted, 0 if the ring was full */
    private static int post(RvtQp qp, SendWorkRequest w) {
        try {
            qp.postSend(w.wrId(3));
            return 1;
        } catch (WorkRequestException e) {
            if (e.errno() != Errno.ENOMEM) {
                throw e;
            }
            return 0;
        }
    }

    /** What a driver's engine does when the oldest WQE is done: complete it under sendLock. */
    private static void retireOldest(RvtQp qp) {
        qp.sendLock().lock();
        try {
            if (qp.sendQueue().last() != qp.sendQueue().head()) {
                qp.sendQueue().completeSwqe(qp.sendQueue().swqe(qp.sendQueue().last()), WcOpcode.SEND,
                        WcStatus.SUCCESS);
            }
        } finally {
            qp.sendLock().unlock();
        }
    }

    private static void spin(int n) {
        for (int i = 0; i < n; i++) {
            Thread.onSpinWait();
        }
    }
}
