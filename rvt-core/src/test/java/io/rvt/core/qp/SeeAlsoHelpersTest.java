package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.AhAttr;
import io.rvt.api.PortCounter;
import io.rvt.api.QpType;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.Callback;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.Timeouts;
import io.rvt.api.spi.engine.QpFlags;
import io.rvt.core.LoopbackTestDriver;
import io.rvt.core.TestDriver;
import io.rvt.core.ah.RvtAh;
import io.rvt.core.mr.RvtMr;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The contract of each SEE ALSO helper the other tests reached only through other verbs: {@code wqeReserve},
 * {@code wqeUnreserve}, {@code rqCount}, {@code isUserQp}, {@code putMrs}, {@code divRoundUpMtu}, {@code divMtu},
 * {@code modRetryTimerExt}, {@code putSwqe}, {@code forEachQp} ({@code rvt_qp_iter}) and {@code iport}, called
 * directly as a driver calls them.
 */
class SeeAlsoHelpersTest {
    private final TestDriver driver = new TestDriver().params(LoopbackTestDriver.loopbackParams(2).build())
            .postParms(LoopbackTestDriver.operationTable());
    private final QpEnv env = new QpEnv(driver);

    private RvtQp rcUp() {
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        return qp;
    }

    private static void underSendLock(DriverQp qp, Runnable r) {
        qp.sendLock().lock();
        try {
            r.run();
        } finally {
            qp.sendLock().unlock();
        }
    }

    @Test
    void wqeReserveShouldCountOneReservedWqeAndLeaveTheOrdinarySlotsAlone() {
        RvtQp qp = rcUp();
        int avail = qp.sendQueue().avail();
        underSendLock(qp, () -> qp.sendQueue().wqeReserve(qp.sendQueue().swqe(0)));
        assertThat(qp.sendQueue().reservedUsed()).isEqualTo(1);
        assertThat(qp.sendQueue().avail()).isEqualTo(avail);
        assertThat(qp.sendQueue().isAvail(true)).as("one of R = 2 left").isTrue();
        underSendLock(qp, () -> qp.sendQueue().wqeReserve(qp.sendQueue().swqe(1)));
        assertThat(qp.sendQueue().isAvail(true)).as("R reached").isFalse();
        assertThat(qp.sendQueue().isAvail(false)).as("ordinary posts unaffected").isTrue();
    }

    @Test
    void wqeUnreserveShouldLowerTheCountOnlyForAWqeFlaggedReserveUsed() {
        RvtQp qp = rcUp();
        underSendLock(qp, () -> qp.sendQueue().wqeReserve(qp.sendQueue().swqe(0)));
        underSendLock(qp, () -> qp.sendQueue().wqeUnreserve(0));
        assertThat(qp.sendQueue().reservedUsed()).as("not a reserved WQE").isEqualTo(1);
        underSendLock(qp, () -> qp.sendQueue().wqeUnreserve(QpFlags.SEND_RESERVE_USED | QpFlags.SEND_COMPLETION_ONLY));
        assertThat(qp.sendQueue().reservedUsed()).isZero();
        assertThat(qp.sendQueue().unbalancedUnreserves()).isZero();
    }

    @Test
    void rqCountShouldCountTheEntriesBetweenTailAndHeadModuloTheRingSize() {
        RvtQp qp = env.create(QpType.RC, 4, 4, 1); // a ring of 5 slots
        env.toInit(qp); // the receive queue exists once the QP has left RESET
        assertThat(qp.responder().rqCount(3, 1)).isEqualTo(2);
        assertThat(qp.responder().rqCount(1, 3)).isEqualTo(3);
        assertThat(qp.responder().rqCount(2, 2)).isZero();
        assertThat(qp.responder().rqCount(0, 1)).isEqualTo(4);
        RvtQp withSrq = env.create(env.init(QpType.RC, 4, 0, 1).srq(env.srq(8)));
        assertThat(withSrq.responder().rqCount(3, 1)).as("no own receive queue").isZero();
    }

    @Test
    void isUserQpShouldBeFalseForEveryQpRvtCreates() {
        assertThat(env.rc().isUserQp()).isFalse();
        assertThat(env.create(QpType.UD, 4, 4, 1).isUserQp()).isFalse();
    }

    @Test
    void putMrsShouldDropTheRegionReferenceOfEverySge() {
        RvtQp qp = rcUp();
        RvtMr mr = env.reg(64);
        int base = mr.refCount();
        SendWorkRequest w = new SendWorkRequest(2).opcode(WrOpcode.SEND).numSge(2);
        w.sge(0).set(mr, 0, 8);
        w.sge(1).set(mr, 32, 8);
        qp.postSend(w);
        assertThat(mr.refCount()).isEqualTo(base + 2);
        underSendLock(qp, () -> qp.sendQueue().swqe(qp.sendQueue().last()).putMrs());
        assertThat(mr.refCount()).isEqualTo(base);
        assertThat(qp.sendQueue().swqe(qp.sendQueue().last()).sge(0).mr()).isNull();
    }

    @Test
    void putSwqeShouldDropARunsReferencesOncePerRegionInARowAndAllAtTheRunsEnd() {
        RvtQp qp = rcUp();
        RvtMr a = env.reg(64);
        RvtMr b = env.reg(64);
        int base = a.refCount();
        qp.postSend(new SendWorkRequest(1).opcode(WrOpcode.SEND).sge(a, 0, 8));
        qp.postSend(new SendWorkRequest(1).opcode(WrOpcode.SEND).sge(a, 8, 8));
        qp.postSend(new SendWorkRequest(1).opcode(WrOpcode.SEND).sge(b, 0, 8));
        RvtSendQueue sq = qp.sendQueue();
        int first = sq.last();
        underSendLock(qp, () -> {
            sq.beginCompletions();
            try {
                sq.putSwqe(sq.swqe(first));
                sq.putSwqe(sq.swqe(sq.swqeIncr(first)));
                assertThat(a.refCount()).as("deferred to the run's end").isEqualTo(base + 2);
                sq.putSwqe(sq.swqe(sq.swqeIncr(sq.swqeIncr(first))));
                assertThat(a.refCount()).as("dropped at once when the region changes").isEqualTo(base);
                assertThat(b.refCount()).isEqualTo(base + 1);
            } finally {
                sq.endCompletions();
            }
        });
        assertThat(b.refCount()).isEqualTo(base);
        assertThat(sq.swqe(first).sge(0).mr()).isNull();
    }

    @Test
    void divRoundUpMtuAndDivMtuShouldDivideByThePathMtu() {
        RvtQp qp = rcUp(); // path MTU 1024
        assertThat(qp.pmtu()).isEqualTo(1024);
        int[][] cases = {{0, 0, 0}, {1, 1, 0}, {1023, 1, 0}, {1024, 1, 1}, {1025, 2, 1}, {4096, 4, 4},
            {4097, 5, 4}};
        for (int[] c : cases) {
            assertThat(qp.divRoundUpMtu(c[0])).as("divRoundUpMtu(%d)", c[0]).isEqualTo(c[1]);
            assertThat(qp.divMtu(c[0])).as("divMtu(%d)", c[0]).isEqualTo(c[2]);
        }
    }

    @Test
    void modRetryTimerExtShouldArmTheRetryTimerForTheTimeoutShiftedBySoThatItsExpiryRestartsTheQp() {
        RvtQp qp = rcUp();
        long delay = Timeouts.ticksToNanos(env.dev.busyTicks() + (qp.timeoutTicks() << 2), env.timers.hz());
        int restarts = driver.calls(Callback.NOTIFY_RESTART_RC);
        underSendLock(qp, () -> qp.requester().modRetryTimerExt(2));
        assertThat(qp.requester().flags & QpFlags.S_TIMER).isNotZero();
        env.timers.advance(delay - 1);
        assertThat(env.dev.port(1).counter(PortCounter.RC_TIMEOUTS)).as("not yet").isZero();
        env.timers.advance(1);
        assertThat(env.dev.port(1).counter(PortCounter.RC_TIMEOUTS)).isEqualTo(1);
        assertThat(driver.calls(Callback.NOTIFY_RESTART_RC)).isEqualTo(restarts + 1);
        assertThat(qp.requester().flags & QpFlags.S_TIMER).isZero();
    }

    @Test
    void putSwqeShouldDropTheRegionReferencesAndTheAddressHandleOfAUdWqe() {
        RvtQp ud = env.create(QpType.UD, 4, 4, 1);
        env.up(ud, 0);
        RvtMr mr = env.reg(64);
        RvtAh ah = (RvtAh) env.pd.createAh(new AhAttr().dlid(env.lid()).portNum(1));
        int base = mr.refCount();
        ud.postSend(new SendWorkRequest(1).opcode(WrOpcode.SEND).ah(ah).remoteQpn(3).sge(mr, 0, 8));
        RvtSwqe wqe = ud.sendQueue().swqe(ud.sendQueue().last());
        assertThat(wqe.ah()).isSameAs(ah);
        underSendLock(ud, () -> ud.sendQueue().putSwqe(wqe));
        assertThat(mr.refCount()).isEqualTo(base);
        assertThat(wqe.numSge()).isZero();
        assertThat(wqe.ah()).isNull();
    }

    @Test
    void forEachQpShouldVisitEveryQpInTheTableWithTheCookieAndAReferenceHeld() {
        RvtQp a = rcUp();
        RvtQp b = rcUp();
        RvtQp reset = env.rc(); // RESET: not in the table
        List<DriverQp> seen = new ArrayList<>();
        List<Integer> refs = new ArrayList<>();
        env.dev.forEachQp(42, (qp, v) -> {
            assertThat(v).isEqualTo(42);
            seen.add(qp);
            refs.add(qp.refCount());
        });
        assertThat(seen).containsExactlyInAnyOrder(a, b).doesNotContain(reset);
        assertThat(refs).allMatch(n -> n >= 2, "the table's reference and the iteration's");
        assertThat(a.refCount()).as("the iteration's reference dropped").isEqualTo(refs.get(seen.indexOf(a)) - 1);
    }

    @Test
    void iportShouldBeTheQpsPortOnceItHasOneAndNullBefore() {
        RvtQp qp = env.rc();
        assertThat(qp.iport()).as("RESET, no port yet").isNull();
        env.toInit(qp);
        assertThat(qp.iport()).isSameAs(env.dev.port(1));
        RvtQp gsi = env.create(QpType.GSI, 4, 4, 1);
        assertThat(gsi.iport()).as("a special QP has its port from creation").isSameAs(env.dev.port(1));
    }
}
