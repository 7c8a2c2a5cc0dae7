package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.clearInvocations;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.doReturn;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.spy;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;

import io.rvt.api.Errno;
import io.rvt.api.PathMtu;
import io.rvt.api.PortCounter;
import io.rvt.api.QpAttr;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.VerbsException;
import io.rvt.api.WorkRequestException;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.DriverDevice;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.RvtDriver;
import io.rvt.api.spi.engine.CallSend;
import io.rvt.api.spi.engine.EngineQp;
import io.rvt.api.spi.engine.QpFlags;
import io.rvt.api.spi.engine.SendWqe;
import io.rvt.api.spi.engine.WqeSetup;
import io.rvt.core.LoopbackTestDriver;
import io.rvt.core.TestDriver;
import io.rvt.core.mr.RvtMr;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mockito.InOrder;

/**
 * Each driver callback rdmavt makes from the QP code is made, with the arguments rdmavt passes, at the point rdmavt
 * makes it (a Mockito spy of a driver whose send engine does nothing).
 */
class QpDriverCallbackTest {
    /** Provides every optional QP callback (a spy keeps the provided set of the class it spies on). */
    static class CallbackDriver extends TestDriver implements WqeSetup {
        CallbackDriver() {
            params(LoopbackTestDriver.loopbackParams(1).build());
            postParms(LoopbackTestDriver.operationTable());
        }

        @Override
        public int qpPrivInit(DriverDevice rdi, DriverQp qp, QpInitAttr init) {
            return 0;
        }

        @Override
        public int setupWqe(DriverQp qp, SendWqe wqe, CallSend callSend) {
            return 0;
        }

        @Override
        public int checkModifyQp(DriverQp qp, QpAttr attr, int mask) {
            return 0;
        }

        @Override
        public void modifyQp(DriverQp qp, QpAttr attr, int mask) {
        }

        @Override
        public int allocQpn(DriverDevice rdi, QpType type, int portNum) {
            return RvtDriver.USE_CORE_QPN_ALLOCATOR;
        }

        @Override
        public boolean scheduleSendNoLock(DriverQp qp) {
            return true;
        }
    }

    private CallbackDriver driver;
    private QpEnv env;

    @BeforeEach
    void setUp() {
        driver = spy(new CallbackDriver());
        env = new QpEnv(driver);
    }

    private static boolean[] locks(DriverQp driverQp) {
        RvtQp qp = (RvtQp) driverQp;
        return new boolean[] {qp.recvLock().isHeldByCurrentThread(), qp.postLock().isHeldByCurrentThread(),
            qp.sendLock().isHeldByCurrentThread()};
    }

    private static SendWorkRequest send(long wrId) {
        return new SendWorkRequest(1).opcode(WrOpcode.SEND).wrId(wrId);
    }

    // ------------------------------------------------------------------ create / destroy

    @Test
    void shouldAllocPrivBeforeQpnAndInitPrivAfterQpnWhenCreatingQp() {
        AtomicInteger qpnAtAlloc = new AtomicInteger(-1);
        AtomicInteger qpnAtInit = new AtomicInteger(-1);
        Object priv = new Object();
        doAnswer(inv -> {
            qpnAtAlloc.set(((DriverQp) inv.getArgument(1)).qpNum());
            return priv;
        }).when(driver).qpPrivAlloc(any(), any());
        doAnswer(inv -> {
            qpnAtInit.set(((DriverQp) inv.getArgument(1)).qpNum());
            assertThat(((DriverQp) inv.getArgument(1)).priv()).isSameAs(priv);
            return 0;
        }).when(driver).qpPrivInit(any(), any(), any());

        QpInitAttr init = env.init(QpType.RC, 8, 8, 2);
        RvtQp qp = env.create(init);

        InOrder o = inOrder(driver);
        o.verify(driver).qpPrivAlloc(env.dev, qp);
        o.verify(driver).qpPrivInit(env.dev, qp, init);
        assertThat(qpnAtAlloc.get()).as("QPN when qp_priv_alloc runs (not yet assigned)").isZero();
        assertThat(qpnAtInit.get()).as("QPN when qp_priv_init runs").isEqualTo(qp.qpNum()).isGreaterThan(1);
        assertThat(qp.priv()).isSameAs(priv);
        verify(driver, never()).qpPrivFree(any(), any());
    }

    @Test
    void shouldFailCreateWithTheDriverErrnoAndAllocateNothingWhenQpPrivAllocFails() {
        doThrow(new VerbsException(Errno.ENOMEM, "no private state")).when(driver).qpPrivAlloc(any(), any());
        long[] before = env.counters();

        assertThatThrownBy(env::rc).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.ENOMEM));

        assertThat(env.counters()).isEqualTo(before);
        verify(driver, never()).qpPrivFree(any(), any());
        verify(driver, never()).allocQpn(any(), any(), anyInt());
    }

    @Test
    void shouldFreePrivOnceWhenQpIsDestroyed() {
        RvtQp qp = env.rc();
        env.toInit(qp);
        verify(driver, never()).qpPrivFree(any(), any());

        qp.destroyQp();

        verify(driver, times(1)).qpPrivFree(env.dev, qp);
        InOrder o = inOrder(driver);
        o.verify(driver).notifyQpReset(qp);
        o.verify(driver).qpPrivFree(env.dev, qp);
    }

    @Test
    void shouldFreePrivAndQpnWhenQpPrivInitFails() {
        AtomicReference<DriverQp> created = new AtomicReference<>();
        doAnswer(inv -> {
            created.set(inv.getArgument(1));
            return -12;
        }).when(driver).qpPrivInit(any(), any(), any());

        assertThatThrownBy(env::rc).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.ENOMEM));

        verify(driver).qpPrivFree(env.dev, created.get());
        assertThat(env.dev.qpnTable().isUsed(created.get().qpNum())).as("QPN freed (rdmavt leaks it)").isFalse();
    }

    @Test
    void shouldUseDriverQpnWhenAllocQpnIsOverridden() {
        doReturn(0x4242).when(driver).allocQpn(any(), eq(QpType.RC), anyInt());

        RvtQp qp = env.rc();

        verify(driver).allocQpn(env.dev, QpType.RC, 0);
        assertThat(qp.qpNum()).isEqualTo(0x4242);
        assertThat(env.dev.qpnTable().isUsed(0x4242)).as("rvt's allocator not used").isFalse();
        env.toInit(qp);
        assertThat(env.dev.lookupQpn(env.dev.port(1), 0x4242)).isSameAs(qp);
    }

    @Test
    void shouldFailCreateWithDriverErrnoWhenAllocQpnFails() {
        doReturn(-12).when(driver).allocQpn(any(), any(), anyInt());
        long[] before = env.counters();

        assertThatThrownBy(env::rc).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.ENOMEM));

        verify(driver).qpPrivFree(eq(env.dev), any());
        assertThat(env.counters()).isEqualTo(before);
    }

    // ------------------------------------------------------------------ reset / error

    @Test
    void shouldFlushStopQuiesceAndNotifyInOrderWithRdmavtLocksWhenQpGoesToReset() {
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        List<String> seen = new ArrayList<>();
        doAnswer(inv -> {
            seen.add("flush " + java.util.Arrays.toString(locks(qp)));
            return null;
        }).when(driver).flushQpWaiters(qp);
        doAnswer(inv -> {
            seen.add("stop " + java.util.Arrays.toString(locks(qp)));
            return null;
        }).when(driver).stopSendQueue(qp);
        doAnswer(inv -> {
            seen.add("quiesce " + java.util.Arrays.toString(locks(qp)) + " inTable="
                    + (env.dev.lookupQpn(env.dev.port(1), qp.qpNum()) == qp));
            return null;
        }).when(driver).quiesceQp(qp);
        doAnswer(inv -> {
            seen.add("reset " + java.util.Arrays.toString(locks(qp)) + " inTable="
                    + (env.dev.lookupQpn(env.dev.port(1), qp.qpNum()) == qp) + " state=" + qp.state());
            return null;
        }).when(driver).notifyQpReset(qp);

        env.toReset(qp);

        InOrder o = inOrder(driver);
        o.verify(driver).flushQpWaiters(qp);
        o.verify(driver).stopSendQueue(qp);
        o.verify(driver).quiesceQp(qp);
        o.verify(driver).notifyQpReset(qp);
        assertThat(seen).containsExactly(
                "flush [true, true, true]",
                "stop [false, false, false]",
                "quiesce [false, false, false] inTable=true",
                "reset [true, true, true] inTable=false state=RESET");
    }

    @Test
    void shouldNotCallResetCallbacksWhenResetToReset() {
        RvtQp qp = env.rc();

        env.toReset(qp);

        verify(driver, never()).flushQpWaiters(any());
        verify(driver, never()).notifyQpReset(any());
    }

    @Test
    void shouldNotifyErrorThenScheduleSendWhenErrWithWqesPosted() {
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        qp.postSend(send(1).next(send(2)));
        clearInvocations(driver);
        boolean[][] lockState = new boolean[2][];
        doAnswer(inv -> {
            lockState[0] = locks(qp);
            assertThat(qp.state()).isEqualTo(QpState.ERR);
            return null;
        }).when(driver).notifyErrorQp(qp);
        doAnswer(inv -> {
            lockState[1] = locks(qp);
            return true;
        }).when(driver).scheduleSend(qp);

        env.toErr(qp);

        InOrder o = inOrder(driver);
        o.verify(driver).notifyErrorQp(qp);
        o.verify(driver).scheduleSend(qp);
        verify(driver, times(1)).scheduleSend(any());
        assertThat(lockState[0]).as("notify_error_qp: r_lock, s_hlock (modify), s_lock").containsExactly(true, true,
                true);
        assertThat(lockState[1]).as("schedule_send from the error path").containsExactly(true, true, true);
    }

    @Test
    void shouldNotifyErrorWithoutScheduleSendWhenErrWithEmptySendQueue() {
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        clearInvocations(driver);

        env.toErr(qp);

        verify(driver).notifyErrorQp(qp);
        verify(driver, never()).scheduleSend(any());
    }

    // ------------------------------------------------------------------ modify

    @Test
    void shouldAskPmtuFromAttrThenMtuFromQpWhenPathMtuIsModified() {
        RvtQp qp = env.rc();
        env.toInit(qp);
        doReturn(PathMtu.MTU_2048.value()).when(driver).getPmtuFromAttr(any(), any(), any());
        QpAttr attr = env.validAttr(qp.qpNum()).pathMtu(PathMtu.MTU_4096).qpState(QpState.RTR);

        qp.modifyQp(attr, QpEnv.RTR_MASK_RC);

        InOrder o = inOrder(driver);
        o.verify(driver).getPmtuFromAttr(env.dev, qp, attr);
        o.verify(driver).mtuFromQp(env.dev, qp, PathMtu.MTU_2048.value());
        assertThat(qp.pmtu()).isEqualTo(2048);
        assertThat(qp.logPmtu()).isEqualTo(11);
        assertThat(qp.queryQp(new QpAttr()).pathMtu()).isEqualTo(PathMtu.MTU_2048);
        verify(driver).mtuToPathMtu(2048);
    }

    @Test
    void shouldFailModifyWithoutMtuFromQpWhenPmtuFromAttrIsNegative() {
        RvtQp qp = env.rc();
        env.toInit(qp);
        doReturn(-22).when(driver).getPmtuFromAttr(any(), any(), any());

        assertThatThrownBy(() -> env.toRtr(qp, qp.qpNum())).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));

        verify(driver, never()).mtuFromQp(any(), any(), anyInt());
        assertThat(qp.state()).isEqualTo(QpState.INIT);
        assertThat(qp.remoteQpn()).isZero();
    }

    @Test
    void shouldRefuseModifyWhenCheckModifyQpVetoes() {
        RvtQp qp = env.rc();
        doReturn(1).when(driver).checkModifyQp(any(), any(), anyInt());
        QpAttr attr = env.validAttr(0).qpState(QpState.INIT);

        assertThatThrownBy(() -> qp.modifyQp(attr, QpEnv.INIT_MASK_RC)).isInstanceOfSatisfying(
                VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));

        verify(driver).checkModifyQp(qp, attr, QpEnv.INIT_MASK_RC);
        verify(driver, never()).modifyQp(any(), any(), anyInt());
        assertThat(qp.state()).isEqualTo(QpState.RESET);
        assertThat(qp.refCount()).as("not inserted into the QP table").isZero();
        assertThat(env.dev.lookupQpn(env.dev.port(1), qp.qpNum())).isNull();
    }

    @Test
    void shouldCallCheckModifyQpAfterTransitionCheckOnly() {
        RvtQp qp = env.rc();
        QpAttr attr = env.validAttr(0).qpState(QpState.RTS);

        assertThatThrownBy(() -> qp.modifyQp(attr, QpEnv.STATE)).isInstanceOf(VerbsException.class);

        verify(driver, never()).checkModifyQp(any(), any(), anyInt());
    }

    @Test
    void shouldCallModifyQpAfterAttributesAreAppliedWithAllLocksHeld() {
        RvtQp qp = env.rc();
        env.toInit(qp);
        List<String> seen = new ArrayList<>();
        doAnswer(inv -> {
            seen.add(qp.state() + " dest=" + qp.remoteQpn() + " pmtu=" + qp.pmtu() + " rnr=" + qp.minRnrTimer()
                    + " locks=" + java.util.Arrays.toString(locks(qp)));
            return null;
        }).when(driver).modifyQp(any(), any(), anyInt());
        QpAttr attr = env.validAttr(0x77).qpState(QpState.RTR);

        qp.modifyQp(attr, QpEnv.RTR_MASK_RC);

        InOrder o = inOrder(driver);
        o.verify(driver).checkModifyQp(qp, attr, QpEnv.RTR_MASK_RC);
        o.verify(driver).getPmtuFromAttr(env.dev, qp, attr);
        o.verify(driver).mtuFromQp(env.dev, qp, PathMtu.MTU_1024.value());
        o.verify(driver).modifyQp(qp, attr, QpEnv.RTR_MASK_RC);
        assertThat(seen).containsExactly("RTR dest=119 pmtu=1024 rnr=12 locks=[true, true, true]");
    }

    // ------------------------------------------------------------------ post send

    @Test
    void shouldCallSetupWqeWithTheUnpublishedWqeAndCallSendWhenPosting() {
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        RvtMr mr = env.reg(64);
        List<String> seen = new ArrayList<>();
        doAnswer(inv -> {
            EngineQp q = EngineQp.of(inv.getArgument(0));
            SendWqe w = inv.getArgument(1);
            CallSend cs = inv.getArgument(2);
            seen.add("wrId=" + w.wrId() + " psn=" + w.psn() + " lpsn=" + w.lpsn() + " ssn=" + w.ssn() + " len="
                    + w.length() + " callSend=" + cs.get() + " atHead="
                    + (q.sendQueue().swqe(q.sendQueue().head()) == w) + " locks="
                    + java.util.Arrays.toString(locks(q)));
            return 0;
        }).when(driver).setupWqe(any(), any(), any());

        qp.postSend(send(7).sge(mr, 0, 64));

        verify(driver).setupWqe(eq(qp), any(SendWqe.class), any(CallSend.class));
        assertThat(seen).containsExactly(
                "wrId=7 psn=256 lpsn=256 ssn=1 len=64 callSend=true atHead=true locks=[false, true, false]");
        verify(driver).doSend(qp);
        verify(driver, never()).scheduleSendNoLock(any());
    }

    @Test
    void shouldScheduleInsteadOfDoSendWhenSetupWqeClearsCallSend() {
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        doAnswer(inv -> {
            ((CallSend) inv.getArgument(2)).set(false);
            return 0;
        }).when(driver).setupWqe(any(), any(), any());

        qp.postSend(send(1));

        verify(driver, never()).doSend(any());
        verify(driver, times(1)).scheduleSendNoLock(qp);
    }

    @Test
    void shouldDoSendOnNonEmptyQueueWhenSetupWqeSetsCallSend() {
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        qp.postSend(send(1).next(send(2)));
        clearInvocations(driver);
        doAnswer(inv -> {
            ((CallSend) inv.getArgument(2)).set(true);
            return 0;
        }).when(driver).setupWqe(any(), any(), any());

        qp.postSend(send(3));

        verify(driver, times(1)).doSend(qp);
        verify(driver, never()).scheduleSendNoLock(any());
    }

    @Test
    void shouldScheduleOnceWhenSetupWqeSetsCallSendForAListOfTwo() {
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        doAnswer(inv -> {
            ((CallSend) inv.getArgument(2)).set(true);
            return 0;
        }).when(driver).setupWqe(any(), any(), any());

        qp.postSend(send(1).next(send(2)));

        verify(driver, never()).doSend(any());
        verify(driver, times(1)).scheduleSendNoLock(qp);
    }

    @Test
    void shouldFailPostWithoutKickAndReleaseRefsWhenSetupWqeRefuses() {
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        RvtMr mr = env.reg(64);
        int refs = mr.refCount();
        int head = qp.sendQueue().head();
        doReturn(-22).when(driver).setupWqe(any(), any(), any());

        assertThatThrownBy(() -> qp.postSend(send(1).sge(mr, 0, 64))).isInstanceOfSatisfying(
                WorkRequestException.class, e -> {
                    assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                    assertThat(e.badIndex()).isZero();
                });

        verify(driver, never()).doSend(any());
        verify(driver, never()).scheduleSendNoLock(any());
        assertThat(qp.sendQueue().head()).isEqualTo(head);
        assertThat(mr.refCount()).as("SGE references released").isEqualTo(refs);
    }

    @Test
    void shouldDoSendOnlyForOneWrOnAnEmptyQueue() {
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());

        qp.postSend(send(1));
        verify(driver, times(1)).doSend(qp);
        verify(driver, never()).scheduleSendNoLock(any());

        clearInvocations(driver);
        qp.postSend(send(2)); // the queue holds wrId 1: not empty
        verify(driver, never()).doSend(any());
        verify(driver, times(1)).scheduleSendNoLock(qp);

        clearInvocations(driver);
        qp.postSend(send(3).next(send(4)).next(send(5)));
        verify(driver, never()).doSend(any());
        verify(driver, times(1)).scheduleSendNoLock(qp);
    }

    @Test
    void shouldNotKickWhenNoWrWasAccepted() {
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        SendWorkRequest bad = new SendWorkRequest(1).opcode(WrOpcode.SEND).numSge(1);
        bad.sge(0).set(0x1000, 8, 0x7777_7700);

        assertThatThrownBy(() -> qp.postSend(bad)).isInstanceOf(WorkRequestException.class);

        verify(driver, never()).doSend(any());
        verify(driver, never()).scheduleSendNoLock(any());
    }

    @Test
    void shouldScheduleOnceWhenOnlyTheFirstWrOfAListIsAccepted() {
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        SendWorkRequest bad = new SendWorkRequest(1).opcode(WrOpcode.SEND).numSge(1);
        bad.sge(0).set(0x1000, 8, 0x7777_7700);

        assertThatThrownBy(() -> qp.postSend(send(1).next(bad))).isInstanceOfSatisfying(WorkRequestException.class,
                e -> assertThat(e.badIndex()).isEqualTo(1));

        verify(driver, never()).doSend(any());
        verify(driver, times(1)).scheduleSendNoLock(qp);
    }

    // ------------------------------------------------------------------ timers

    @Test
    void shouldRestartRcAtLastPsnPlusOneAndScheduleWhenRetryTimerExpires() {
        RvtQp qp = env.rc();
        for (int i = 0; i < 4; i++) {
            env.rc(); // five RC QPs: busy_jiffies = 1
        }
        env.up(qp, qp.qpNum()); // SQ_PSN 0x100, TIMEOUT 14
        assertThat(env.dev.busyTicks()).isEqualTo(1);
        assertThat(qp.requester().lastPsn).isEqualTo(0xFF);
        long deadlineMs = 1 + 69; // busy + timeout_to_jiffies(14) at HZ 1000
        boolean[] lockState = new boolean[3];
        doAnswer(inv -> {
            boolean[] l = locks(qp);
            System.arraycopy(l, 0, lockState, 0, 3);
            return null;
        }).when(driver).notifyRestartRc(any(), anyInt(), anyInt());
        qp.sendLock().lock();
        try {
            qp.requester().addRetryTimer();
            assertThat(qp.requester().flags & QpFlags.S_TIMER).isNotZero();
        } finally {
            qp.sendLock().unlock();
        }

        env.timers.advance((deadlineMs - 1) * 1_000_000L);
        verify(driver, never()).notifyRestartRc(any(), anyInt(), anyInt());
        env.timers.advance(1_000_000L);

        InOrder o = inOrder(driver);
        o.verify(driver).notifyRestartRc(qp, 0x100, 1);
        o.verify(driver).scheduleSend(qp);
        assertThat(lockState).as("r_lock and s_lock held, not s_hlock").containsExactly(true, false, true);
        assertThat(qp.requester().flags & QpFlags.S_TIMER).isZero();
        assertThat(env.dev.portCounter(1, PortCounter.RC_TIMEOUTS)).isEqualTo(1);
    }

    @Test
    void shouldNotRestartWhenRetryTimerWasStopped() {
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        qp.sendLock().lock();
        try {
            qp.requester().addRetryTimer();
            qp.requester().stopRcTimers();
        } finally {
            qp.sendLock().unlock();
        }

        env.timers.advance(10_000_000_000L);

        verify(driver, never()).notifyRestartRc(any(), anyInt(), anyInt());
        assertThat(env.dev.portCounter(1, PortCounter.RC_TIMEOUTS)).isZero();
    }

    @Test
    void shouldClearWaitRnrAndScheduleWhenRnrTimerExpires() {
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        clearInvocations(driver);
        qp.sendLock().lock();
        try {
            qp.requester().addRnrTimer(12 << 24); // 640 us
        } finally {
            qp.sendLock().unlock();
        }
        assertThat(qp.requester().flags & QpFlags.S_WAIT_RNR).isNotZero();

        env.timers.advance(639_000L);
        verify(driver, never()).scheduleSend(any());
        env.timers.advance(1_000L);

        verify(driver, times(1)).scheduleSend(qp);
        verify(driver, never()).notifyRestartRc(any(), anyInt(), anyInt());
        assertThat(qp.requester().flags & QpFlags.S_WAIT_RNR).isZero();
    }
}
