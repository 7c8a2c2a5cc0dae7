package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.rvt.api.Errno;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.SigType;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WorkRequestException;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.Callback;
import io.rvt.api.spi.engine.QpFlags;
import io.rvt.api.spi.engine.SendWqe;
import io.rvt.core.LoopbackTestDriver;
import io.rvt.core.TestDriver;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Property tests of the send ring with reserved operations (semantics §11.1 items 1–8, 18, 19): random interleavings
 * of ordinary posts, reserved posts, lists and completions across ring wrap-around, checked after every step against
 * a model. The driver's engine does nothing; completions are driven directly with
 * {@code completeSwqe(swqe(sendLast), ..)} under {@code recvLock} and {@code sendLock}, as a driver does. Every
 * assertion names the seed; re-run one seed by setting {@link #ONLY_SEED}.
 */
class SendRingPropertyTest {
    private static final long ONLY_SEED = -1;
    private static final int SEEDS = 200;
    private static final int STEPS = 2000;
    private static final WcStatus[] ERRORS = {WcStatus.REM_ACCESS_ERR, WcStatus.RETRY_EXC_ERR,
        WcStatus.WR_FLUSH_ERR, WcStatus.LOC_LEN_ERR};

    private record Posted(long wrId, boolean reserved, boolean signaled) {
    }

    /** One random case: a fresh device with {@code R} reserved operations and an RC QP of {@code W} WRs. */
    private static final class Case {
        final long seed;
        final SplittableRandom r;
        final int reserved;
        final int maxSendWr;
        final boolean sigReq;
        final TestDriver driver;
        final QpEnv env;
        final RvtQp qp;
        final ArrayDeque<Posted> model = new ArrayDeque<>();
        int k;
        int u;
        long nextWrId = 1;
        int step;

        Case(long seed) {
            this.seed = seed;
            this.r = new SplittableRandom(seed);
            this.reserved = (int) (seed % 4);
            this.maxSendWr = 1 + r.nextInt(8);
            this.sigReq = r.nextBoolean();
            this.driver = new TestDriver().params(LoopbackTestDriver.loopbackParams(reserved).build())
                    .postParms(LoopbackTestDriver.operationTable());
            this.env = new QpEnv(driver);
            QpInitAttr init = env.init(QpType.RC, maxSendWr, 4, 1)
                    .sigType(sigReq ? SigType.SIGNAL_REQ_WR : SigType.SIGNAL_ALL_WR);
            this.qp = env.create(init);
            env.up(qp, qp.qpNum());
        }

        @Override
        public String toString() {
            return where();
        }

        String where() {
            return "seed " + seed + " step " + step + " (R=" + reserved + ", W=" + maxSendWr + ", k=" + k + ", u=" + u
                    + ", sigReq=" + sigReq + ")";
        }

        SendWorkRequest wr(boolean reservedOp) {
            SendWorkRequest w = new SendWorkRequest(1).wrId(nextWrId++);
            if (reservedOp) {
                return w.opcode(LoopbackTestDriver.OPFN);
            }
            return w.opcode(WrOpcode.SEND).sendFlags(r.nextBoolean() ? SendFlag.SIGNALED.bit() : 0);
        }

        void post(List<SendWorkRequest> list) {
            for (int i = 0; i + 1 < list.size(); i++) {
                list.get(i).next(list.get(i + 1));
            }
            boolean wasEmpty = k + u == 0;
            int doSends = driver.calls(Callback.DO_SEND);
            int schedules = driver.calls(Callback.SCHEDULE_SEND);
            // Expected outcome from the model: WRs go in while there is room of their kind.
            int accepted = 0;
            int ek = k;
            int eu = u;
            for (SendWorkRequest w : list) {
                boolean res = w.opcode() == LoopbackTestDriver.OPFN;
                if (res ? eu < reserved : ek < maxSendWr) {
                    if (res) {
                        eu++;
                    } else {
                        ek++;
                    }
                    accepted++;
                } else {
                    break;
                }
            }
            try {
                qp.postSend(list.get(0));
                assertThat(accepted).as("%s: post of %d accepted by rvt, model accepts %d", this, list.size(),
                        accepted).isEqualTo(list.size());
            } catch (WorkRequestException e) {
                assertThat(e.errno()).as("%s", this).isEqualTo(Errno.ENOMEM);
                assertThat(e.badIndex()).as("%s: badIndex", this).isEqualTo(accepted);
            }
            for (int i = 0; i < accepted; i++) {
                SendWorkRequest w = list.get(i);
                boolean res = w.opcode() == LoopbackTestDriver.OPFN;
                model.add(new Posted(w.wrId(), res, SendFlag.SIGNALED.in(w.sendFlags())));
            }
            k = ek;
            u = eu;
            // §4.5 / item 18: do_send only for exactly one WR accepted, alone, on an empty queue.
            int expectDo = accepted == 1 && list.size() == 1 && wasEmpty ? 1 : 0;
            int expectSched = accepted > 0 && expectDo == 0 ? 1 : 0;
            assertThat(driver.calls(Callback.DO_SEND) - doSends).as("%s: do_send calls", this)
                    .isEqualTo(expectDo);
            assertThat(driver.calls(Callback.SCHEDULE_SEND) - schedules).as("%s: schedule calls", this)
                    .isEqualTo(expectSched);
        }

        void completeOne(WcStatus status) {
            Posted p = model.poll();
            qp.recvLock().lock();
            qp.sendLock().lock();
            try {
                SendWqe wqe = qp.sendQueue().swqe(qp.sendQueue().last());
                assertThat(wqe.wrId()).as("%s: WQE at sendLast", this).isEqualTo(p.wrId());
                qp.sendQueue().completeSwqe(wqe, WcOpcode.SEND, status);
            } finally {
                qp.sendLock().unlock();
                qp.recvLock().unlock();
            }
            if (p.reserved()) {
                u--;
            } else {
                k--;
            }
            boolean wc = !p.reserved() && (!sigReq || p.signaled() || status != WcStatus.SUCCESS);
            expectCompletions(wc ? List.of(p) : List.of(), status);
        }

        void expectCompletions(List<Posted> expected, WcStatus status) {
            List<WorkCompletion> got = QpEnv.poll(env.scq);
            assertThat(got).as("%s: completions for %s", this, expected).hasSize(expected.size());
            for (int i = 0; i < got.size(); i++) {
                WorkCompletion wc = got.get(i);
                assertThat(wc.wrId()).as("%s: completion order", this).isEqualTo(expected.get(i).wrId());
                assertThat(wc.status()).as("%s", this).isEqualTo(status);
                assertThat(wc.opcode()).as("%s", this).isEqualTo(WcOpcode.SEND);
                assertThat(wc.qpNum()).as("%s", this).isEqualTo(qp.qpNum());
                assertThat(wc.byteLen()).as("%s", this).isZero();
            }
        }

        void checkInvariants() {
            int size = qp.sendQueue().size();
            assertThat(size).as("%s", this).isEqualTo(maxSendWr + 1 + reserved);
            assertThat(qp.sendQueue().avail()).as("%s: item 1, sendAvail", this).isBetween(0, size - 1 - reserved);
            int used = Math.floorMod(qp.sendQueue().head() - qp.sendQueue().last(), size);
            assertThat(used).as("%s: item 3, (head - last) mod size", this).isEqualTo(k + u);
            assertThat(k).as("%s", this).isBetween(0, maxSendWr);
            assertThat(u).as("%s", this).isBetween(0, reserved);
            assertThat(qp.sendQueue().reservedUsed()).as("%s: item 4, sendReservedUsed", this).isEqualTo(u);
            Iterator<Posted> it = model.iterator();
            for (int i = qp.sendQueue().last(); i != qp.sendQueue().head(); i = qp.sendQueue().swqeIncr(i)) {
                Posted p = it.next();
                SendWqe w = qp.sendQueue().swqe(i);
                assertThat(w.wrId()).as("%s: ring order", this).isEqualTo(p.wrId());
                assertThat((w.sendFlags() & QpFlags.SEND_RESERVE_USED) != 0).as("%s: RESERVE_USED of wrId %d",
                        this, p.wrId()).isEqualTo(p.reserved());
            }
        }

        void run() {
            // Per seed, how often the completer runs: from a mostly full ring to a mostly empty one.
            int completeWeight = 25 + r.nextInt(30);
            int postWeight = (100 - completeWeight) / 2;
            for (step = 0; step < STEPS; step++) {
                int a = r.nextInt(100);
                if (a < completeWeight && !model.isEmpty()) {
                    completeOne(r.nextInt(10) == 0 ? ERRORS[r.nextInt(ERRORS.length)] : WcStatus.SUCCESS);
                } else if (a < completeWeight + postWeight) {
                    post(List.of(wr(false)));
                } else if (a < 88) {
                    post(List.of(wr(true)));
                } else {
                    List<SendWorkRequest> list = new ArrayList<>();
                    int n = 2 + r.nextInt(3);
                    for (int i = 0; i < n; i++) {
                        list.add(wr(r.nextInt(3) == 0));
                    }
                    post(list);
                }
                checkInvariants();
            }
            if (r.nextBoolean()) {
                while (!model.isEmpty()) {
                    completeOne(WcStatus.SUCCESS);
                    checkInvariants();
                }
            } else {
                // Item 7 on flush: every posted WQE completes WR_FLUSH_ERR in order, reserved ones silently.
                List<Posted> normal = model.stream().filter(p -> !p.reserved()).toList();
                env.toErr(qp);
                qp.flushSendQueue();
                model.clear();
                k = 0;
                u = 0;
                expectCompletions(normal, WcStatus.WR_FLUSH_ERR);
                assertThat(qp.state()).isEqualTo(QpState.ERR);
            }
            assertThat(qp.sendQueue().head()).as("%s: drained", this).isEqualTo(qp.sendQueue().last());
            assertThat(qp.sendQueue().reservedUsed()).as("%s: reserved count back to 0", this).isZero();
            qp.destroyQp();
        }
    }

    @Test
    void shouldKeepRingAndReservationInvariantsWhenPostsAndCompletionsInterleaveAtRandom() {
        for (long seed = 0; seed < SEEDS; seed++) {
            if (ONLY_SEED >= 0 && seed != ONLY_SEED) {
                continue;
            }
            new Case(seed).run();
        }
    }

    @Test
    void shouldRefuseEveryReservedPostWhenDriverReservesNothing() {
        Case c = new Case(4); // seed % 4 == 0: R = 0
        assertThat(c.reserved).isZero();
        for (int i = 0; i < 10; i++) {
            SendWorkRequest w = c.wr(true);
            try {
                c.qp.postSend(w);
                fail("reserved post accepted with reserved_operations = 0");
            } catch (WorkRequestException e) {
                assertThat(e.errno()).isEqualTo(Errno.ENOMEM);
                assertThat(e.badIndex()).isZero();
            }
        }
        assertThat(c.qp.sendQueue().head()).isEqualTo(c.qp.sendQueue().last());
    }

    @Test
    void shouldPostReservedOperationsWhenOrdinarySlotsAreFull() {
        for (int reserved = 1; reserved <= 3; reserved++) {
            Case c = new Case(reserved); // seed % 4 == reserved
            for (int i = 0; i < c.maxSendWr; i++) {
                c.post(List.of(c.wr(false)));
            }
            c.post(List.of(c.wr(false))); // refused: ordinary slots full
            for (int i = 0; i < reserved; i++) {
                c.post(List.of(c.wr(true))); // accepted: reserved slots are separate
            }
            c.post(List.of(c.wr(true))); // refused: reserved slots full
            c.checkInvariants();
            assertThat(c.k).as("R=%d", reserved).isEqualTo(c.maxSendWr);
            assertThat(c.u).as("R=%d", reserved).isEqualTo(reserved);
            assertThat(Math.floorMod(c.qp.sendQueue().head() - c.qp.sendQueue().last(), c.qp.sendQueue().size()))
                    .as("one slot always stays empty").isEqualTo(c.qp.sendQueue().size() - 1);
        }
    }
}
