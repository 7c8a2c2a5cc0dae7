package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.DeviceCounter;
import io.rvt.api.PathMtu;
import io.rvt.api.PortCounter;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.Callback;
import io.rvt.api.spi.Seq24;
import io.rvt.api.spi.Timeouts;
import io.rvt.api.spi.engine.QpFlags;
import io.rvt.api.spi.engine.SendWqe;
import io.rvt.core.LoopbackTestDriver;
import io.rvt.core.TestDriver;
import io.rvt.core.mr.RvtMr;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Sequence arithmetic and counters (semantics §11.2 items 22–24, §11.1 items 15–17, §11.5 items 50–51): MSN
 * comparison across the 24-bit wrap, credits from AETHs, PSN/LPSN/SSN assignment at post, retry timeout ticks and
 * {@code busy_jiffies}. Seeded random cases; every assertion names its seed.
 */
class SequencePropertyTest {
    private static final int SEEDS = 200;
    /** The AETH credit table, §8.1 (independent of the code under test). */
    private static final int[] CREDITS = {0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512,
        768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768};

    /** The serial-number distance of the low 24 bits of a and b, in [-2^23, 2^23). */
    private static long delta24(int a, int b) {
        long d = ((a & 0xFFFFFFL) - (b & 0xFFFFFFL)) & 0xFFFFFFL;
        return d >= 1 << 23 ? d - (1 << 24) : d;
    }

    @Test
    void shouldOrderMsnsLikeSerialNumbersWhenComparingAcrossTheWrap() {
        for (long seed = 0; seed < SEEDS; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            for (int i = 0; i < 2000; i++) {
                int a = r.nextInt();
                int b = r.nextInt(4) == 0 ? a + r.nextInt(-64, 64) : r.nextInt();
                assertThat(Integer.signum(Seq24.cmpMsn(a, b))).as("seed %d: cmpMsn(0x%x, 0x%x)", seed, a, b)
                        .isEqualTo(Long.signum(delta24(a, b)));
                assertThat(Seq24.cmpMsn(a | 0xFF000000, a & 0xFFFFFF)).as("seed %d: only 24 bits count", seed)
                        .isZero();
            }
        }
        assertThat(Seq24.cmpMsn(0, 0xFFFFFF)).isPositive();
        assertThat(Seq24.cmpMsn(0xFFFFFF, 0)).isNegative();
        assertThat(Seq24.cmpMsn(0x7FFFFF, 0)).isPositive();
    }

    private static QpEnv env() {
        return new QpEnv(new TestDriver().params(LoopbackTestDriver.loopbackParams(1).build())
                .postParms(LoopbackTestDriver.operationTable()));
    }

    @Test
    void shouldMoveCreditLimitOnlyForwardAndLatchUnlimitedWhenAethsArrive() {
        for (long seed = 0; seed < SEEDS; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            long seedNo = seed;
            QpEnv env = env();
            RvtQp qp = env.rc();
            env.up(qp, qp.qpNum());
            int lsn = 0;
            boolean unlimited = false;
            int waits = 0;
            for (int i = 0; i < 2000; i++) {
                int msn = (lsn + r.nextInt(-(1 << 22), 1 << 22)) & 0xFFFFFF;
                int code = r.nextInt(400) == 0 ? 0x1F : r.nextInt(31);
                int aeth = r.nextInt(8) << 29 | code << 24 | msn; // syndrome bits are not looked at
                boolean waiting = r.nextBoolean();
                int schedules = env.driver.calls(Callback.SCHEDULE_SEND);
                boolean released;
                qp.sendLock().lock();
                try {
                    if (waiting) {
                        qp.requester().flags = qp.requester().flags | QpFlags.S_WAIT_SSN_CREDIT;
                    }
                    qp.requester().getCredit(aeth);
                    if (unlimited) {
                        released = false;
                    } else if (code == 0x1F) {
                        unlimited = true;
                        released = true;
                    } else {
                        int newLsn = (msn + CREDITS[code]) & 0xFFFFFF;
                        released = delta24(newLsn, lsn) > 0;
                        if (released) {
                            lsn = newLsn;
                        }
                    }
                    Object at = new Object() {
                        @Override
                        public String toString() {
                            return "seed " + seedNo + " aeth 0x" + Integer.toHexString(aeth);
                        }
                    };
                    assertThat(qp.requester().lsn).as("%s: item 23, s_lsn", at).isEqualTo(lsn);
                    assertThat((qp.requester().flags & QpFlags.S_UNLIMITED_CREDIT) != 0).as("%s: UNLIMITED", at)
                            .isEqualTo(unlimited);
                    boolean stillWaiting = (qp.requester().flags & QpFlags.S_WAIT_SSN_CREDIT) != 0;
                    assertThat(stillWaiting).as("%s: WAIT_SSN_CREDIT cleared iff released", at)
                            .isEqualTo(waiting && !released);
                    assertThat(env.driver.calls(Callback.SCHEDULE_SEND) - schedules).as("%s: schedule_send", at)
                            .isEqualTo(waiting && released ? 1 : 0);
                    qp.requester().flags = qp.requester().flags & ~QpFlags.S_WAIT_SSN_CREDIT;

                    // Item 24: ssn = lsn + 1 may start, lsn + 2 may not (unless unlimited), in 24-bit arithmetic.
                    RvtSwqe w = qp.sendQueue().swqe(0);
                    w.ssn = (lsn + 1) & 0xFFFFFF;
                    assertThat(qp.requester().creditAvail(w)).as("%s: ssn = lsn + 1", at).isTrue();
                    w.ssn = (lsn + 2) & 0xFFFFFF;
                    assertThat(qp.requester().creditAvail(w)).as("%s: ssn = lsn + 2", at).isEqualTo(unlimited);
                    if (!unlimited) {
                        waits++;
                        assertThat(qp.requester().flags & QpFlags.S_WAIT_SSN_CREDIT).as("%s", at).isNotZero();
                    }
                    qp.requester().flags = qp.requester().flags & ~QpFlags.S_WAIT_SSN_CREDIT;
                } finally {
                    qp.sendLock().unlock();
                }
            }
            assertThat(env.dev.portCounter(1, PortCounter.RC_CRWAITS)).as("seed %d: n_rc_crwaits", seed)
                    .isEqualTo(waits);
        }
    }

    @Test
    void shouldAssignContinuousPsnsAndIncreasingSsnsWhenPostingAtRandom() {
        PathMtu[] mtus = {PathMtu.MTU_256, PathMtu.MTU_512, PathMtu.MTU_1024, PathMtu.MTU_2048, PathMtu.MTU_4096};
        for (long seed = 0; seed < SEEDS; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            QpEnv env = env();
            RvtQp qp = env.create(QpType.RC, 64, 4, 2);
            PathMtu mtu = mtus[r.nextInt(mtus.length)];
            int sqPsn = r.nextBoolean() ? 0xFFFFFF - r.nextInt(64) : r.nextInt(1 << 24);
            env.toInit(qp);
            qp.modifyQp(env.validAttr(qp.qpNum()).pathMtu(mtu).qpState(QpState.RTR), QpEnv.RTR_MASK_RC);
            qp.modifyQp(env.validAttr(0).sqPsn(sqPsn).qpState(QpState.RTS), QpEnv.RTS_MASK_RC);
            int pmtu = mtu.bytes();
            assertThat(qp.requester().nextPsn).isEqualTo(sqPsn);
            RvtMr mr = env.reg(4 * 4096 + 8);
            RvtMr fmr = (RvtMr) env.pd.allocMr(4);
            int expectPsn = sqPsn;
            int expectSsn = 1;
            int outstanding = 0;
            List<Boolean> deferred = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                int post = i;
                long seedNo = seed;
                Object at = new Object() {
                    @Override
                    public String toString() {
                        return "seed " + seedNo + " post " + post + " (pmtu " + pmtu + ")";
                    }
                };
                if (outstanding == 64 || (outstanding > 0 && r.nextInt(4) == 0)) {
                    qp.recvLock().lock();
                    qp.sendLock().lock();
                    try {
                        SendWqe w = qp.sendQueue().swqe(qp.sendQueue().last());
                        qp.sendQueue().completeSwqe(w, WcOpcode.SEND, WcStatus.SUCCESS);
                        if (deferred.remove(0)) {
                            qp.sendQueue().localOpDone(); // the engine ran the deferred invalidation
                        }
                    } finally {
                        qp.sendLock().unlock();
                        qp.recvLock().unlock();
                    }
                    outstanding--;
                    QpEnv.poll(env.scq);
                    continue;
                }
                int kind = r.nextInt(10);
                int head = qp.sendQueue().head();
                int pending = qp.sendQueue().localOpsPending();
                SendWorkRequest wr = new SendWorkRequest(2).wrId(i);
                boolean local = false;
                boolean fenced = false;
                int len = 0;
                if (kind < 6) {
                    int n = r.nextInt(3);
                    wr.opcode(r.nextBoolean() ? WrOpcode.SEND : WrOpcode.RDMA_WRITE).numSge(n);
                    for (int s = 0; s < n; s++) {
                        int l = r.nextInt(3) == 0 ? 0 : r.nextInt(2 * 4096 + 1);
                        wr.sge(s).set(mr, 0, l);
                        len += l;
                    }
                } else if (kind < 7) {
                    wr.opcode(LoopbackTestDriver.OPFN);
                    if (qp.sendQueue().reservedUsed() == 1) {
                        continue; // one reserved slot: keep the test about PSNs, not ENOMEM
                    }
                } else if (kind < 8) {
                    wr.opcode(WrOpcode.REG_MR).mr(fmr).key(fmr.lkey()).access(QpEnv.ALL_ACCESS)
                            .sendFlags(SendFlag.SIGNALED.bit());
                    local = true;
                } else {
                    fenced = r.nextBoolean();
                    wr.opcode(WrOpcode.LOCAL_INV).invalidateRkey(fmr.rkey())
                            .sendFlags(SendFlag.SIGNALED.bit() | (fenced ? SendFlag.FENCE.bit() : 0));
                    local = true;
                }
                qp.postSend(wr);
                SendWqe w = qp.sendQueue().swqe(head);
                assertThat(qp.sendQueue().head()).as("%s: queued", at).isEqualTo(qp.sendQueue().swqeIncr(head));
                outstanding++;
                deferred.add(fenced || (local && wr.opcode() == WrOpcode.LOCAL_INV && pending > 0));
                if (local) {
                    assertThat(new int[] {w.psn(), w.lpsn(), w.ssn()}).as("%s: local op numbers", at)
                            .containsExactly(0, 0, 0);
                    assertThat(qp.requester().nextPsn).as("%s: local op keeps s_next_psn", at).isEqualTo(expectPsn);
                    boolean def = deferred.get(deferred.size() - 1);
                    assertThat(qp.sendQueue().localOpsPending()).as("%s: item 15, local_ops_pending", at)
                            .isEqualTo(pending + (def ? 1 : 0));
                } else {
                    int packets = len == 0 ? 1 : (len + pmtu - 1) / pmtu;
                    assertThat(w.length()).as("%s", at).isEqualTo(len);
                    assertThat(w.psn()).as("%s: item 16, psn continues", at).isEqualTo(expectPsn);
                    assertThat(w.lpsn() - w.psn()).as("%s: item 16, lpsn - psn for %d bytes", at, len)
                            .isEqualTo(packets - 1);
                    assertThat(w.ssn()).as("%s: item 17, ssn", at).isEqualTo(expectSsn);
                    expectPsn = w.lpsn() + 1;
                    expectSsn++;
                    assertThat(qp.requester().nextPsn).as("%s: s_next_psn = lpsn + 1", at).isEqualTo(expectPsn);
                }
            }
        }
    }

    @Test
    void shouldScaleRetryTicksWithTimeoutCodeAndClampAbove31() {
        QpEnv env = env();
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        qp.modifyQp(new QpAttr().qpState(QpState.SQD), QpEnv.STATE);
        long prev = 0;
        for (int t = 0; t <= 255; t++) {
            qp.modifyQp(new QpAttr().timeout(t).qpState(QpState.SQD), QpEnv.STATE | QpAttrMask.TIMEOUT.bit());
            long ticks = qp.timeoutTicks();
            assertThat(qp.queryQp(new QpAttr()).timeout()).isEqualTo(t);
            assertThat(ticks).as("timeout %d: monotone", t).isGreaterThanOrEqualTo(prev);
            assertThat(ticks).as("timeout %d", t).isEqualTo(Timeouts.timeoutToTicks(Math.min(t, 31), 1000));
            if (t > 31) {
                assertThat(ticks).as("timeout %d clamps to 31", t).isEqualTo(Timeouts.timeoutToTicks(31, 1000));
            }
            prev = ticks;
        }
        // §7.10 examples at HZ = 1000.
        long[][] examples = {{0, 4}, {9, 4}, {10, 8}, {14, 69}, {17, 540}, {20, 4296}};
        for (long[] e : examples) {
            qp.modifyQp(new QpAttr().timeout((int) e[0]).qpState(QpState.SQD),
                    QpEnv.STATE | QpAttrMask.TIMEOUT.bit());
            assertThat(qp.timeoutTicks()).as("timeout %d", e[0]).isEqualTo(e[1]);
        }
    }

    @Test
    void shouldKeepBusyTicksAtRcQpsOverFiveWhenQpsComeAndGo() {
        for (long seed = 0; seed < 50; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            QpEnv env = env();
            List<RvtQp> live = new ArrayList<>();
            int rc = 0;
            for (int i = 0; i < 120; i++) {
                if (!live.isEmpty() && (live.size() >= 60 || r.nextInt(3) == 0)) {
                    RvtQp qp = live.remove(r.nextInt(live.size()));
                    if (r.nextBoolean()) {
                        env.toInit(qp);
                    }
                    qp.destroyQp();
                    if (qp.type() == QpType.RC) {
                        rc--;
                    }
                } else {
                    QpType type = r.nextInt(3) == 0 ? QpType.UC : QpType.RC;
                    live.add(env.create(type, 2, 2, 1));
                    if (type == QpType.RC) {
                        rc++;
                    }
                }
                assertThat(env.dev.deviceCounter(DeviceCounter.RC_QPS)).as("seed %d step %d", seed, i).isEqualTo(rc);
                assertThat(env.dev.deviceCounter(DeviceCounter.QPS_ALLOCATED)).as("seed %d step %d", seed, i)
                        .isEqualTo(live.size());
                assertThat(env.dev.busyTicks()).as("seed %d step %d: busy = %d RC QPs / 5", seed, i, rc)
                        .isEqualTo(rc / 5);
                assertThat(live.stream().mapToInt(RvtQp::qpNum).distinct().count())
                        .as("seed %d step %d: item 43, live QPNs are unique", seed, i).isEqualTo(live.size());
            }
        }
    }
}
