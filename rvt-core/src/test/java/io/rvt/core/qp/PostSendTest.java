package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.AhAttr;
import io.rvt.api.AsyncEvent;
import io.rvt.api.AsyncEventType;
import io.rvt.api.Errno;
import io.rvt.api.QpAttr;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.SigType;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WorkRequestException;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.engine.SendWqe;
import io.rvt.core.LoopbackTestDriver;
import io.rvt.core.TestDriver;
import io.rvt.core.TestUtil;
import io.rvt.core.ah.RvtAh;
import io.rvt.core.cq.RvtCq;
import io.rvt.core.mr.RvtMr;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Post send and the completion helpers beyond the error matrix (semantics §4.6–§4.10, §7.6, §7.12, §11.1 items
 * 13, 14, 19–21, §11.3 item 30, §11.4 item 36, §11.5 item 49, §11.6 item 62).
 */
class PostSendTest {
    private static QpEnv env() {
        return new QpEnv(new TestDriver().params(LoopbackTestDriver.loopbackParams(1).build())
                .postParms(LoopbackTestDriver.operationTable()));
    }

    private static void complete(RvtQp qp, WcStatus st) {
        qp.recvLock().lock();
        qp.sendLock().lock();
        try {
            qp.sendQueue().sendComplete(qp.sendQueue().swqe(qp.sendQueue().last()), st);
        } finally {
            qp.sendLock().unlock();
            qp.recvLock().unlock();
        }
    }

    @Test
    void shouldKeepTheAddressSnapshotOfAQueuedUdWqeWhenTheHandleChangesOrGoes() {
        QpEnv env = env();
        RvtQp ud = env.create(QpType.UD, 4, 4, 1);
        env.up(ud, 0);
        RvtAh ah = (RvtAh) env.pd.createAh(new AhAttr().dlid(0x31).portNum(1).sl(2));
        ah.logPmtu(8);
        RvtMr mr = env.reg(1024);

        ud.postSend(new SendWorkRequest(1).opcode(WrOpcode.SEND).wrId(1).ah(ah).remoteQpn(0x55).remoteQkey(0x77)
                .sge(mr, 0, 1000));
        ah.modifyAh(new AhAttr().dlid(0x32).portNum(1).sl(3));
        ah.destroyAh();

        SendWqe w = ud.sendQueue().swqe(0);
        assertThat(w.ahAttr().dlid()).isEqualTo(0x31);
        assertThat(w.ahAttr().sl()).isEqualTo(2);
        assertThat(w.remoteQpn()).isEqualTo(0x55);
        assertThat(w.remoteQkey()).isEqualTo(0x77);
        assertThat(w.lpsn() - w.psn()).as("UD lpsn from the handle's log_pmtu (256-byte packets)").isEqualTo(3);
    }

    @Test
    void shouldReKeyTheRegionAlthoughASignalledRegMrFindsTheQueueFull() {
        QpEnv env = env();
        RvtQp qp = env.create(QpType.RC, 2, 2, 1);
        env.up(qp, qp.qpNum());
        RvtMr fmr = (RvtMr) env.pd.allocMr(1);
        int newKey = (fmr.lkey() & ~0xFF) | 0x5A;
        qp.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).next(new SendWorkRequest(0)
                .opcode(WrOpcode.SEND)));

        assertThatThrownBy(() -> qp.postSend(new SendWorkRequest(0).opcode(WrOpcode.REG_MR).mr(fmr).key(newKey)
                .access(QpEnv.ALL_ACCESS).sendFlags(SendFlag.SIGNALED.bit())))
                .isInstanceOfSatisfying(WorkRequestException.class,
                        e -> assertThat(e.errno()).isEqualTo(Errno.ENOMEM));

        assertThat(fmr.lkey()).as("§11.1 item 14 [quirk]: registered at post, before the capacity check")
                .isEqualTo(newKey);
        assertThat(fmr.access()).isEqualTo(QpEnv.ALL_ACCESS);
    }

    @Test
    void shouldQueueNothingAndCompleteNothingForUnsignalledImmediateLocalOpsEvenWithSignalAll() {
        QpEnv env = env();
        RvtQp qp = env.rc(); // SIGNAL_ALL_WR
        env.up(qp, qp.qpNum());
        RvtMr fmr = (RvtMr) env.pd.allocMr(1);
        RvtMr victim = env.reg(64);

        qp.postSend(new SendWorkRequest(0).opcode(WrOpcode.REG_MR).mr(fmr).key(fmr.lkey() | 1)
                .access(QpEnv.ALL_ACCESS));
        qp.postSend(new SendWorkRequest(0).opcode(WrOpcode.LOCAL_INV).invalidateRkey(victim.rkey()));

        assertThat(qp.sendQueue().head()).isZero();
        assertThat(fmr.lkey() & 0xFF).isEqualTo(1);
        assertThat(victim.isLkeyInvalid()).isTrue();
        assertThat(qp.requester().nextPsn).isEqualTo(0x100);

        qp.postSend(new SendWorkRequest(0).opcode(WrOpcode.REG_MR).mr(fmr).key(fmr.lkey() | 2).wrId(9)
                .access(QpEnv.ALL_ACCESS).sendFlags(SendFlag.SIGNALED.bit()));
        assertThat(qp.sendQueue().head()).as("signalled: a completion-only WQE").isEqualTo(1);
        complete(qp, WcStatus.SUCCESS);
        List<WorkCompletion> wcs = QpEnv.poll(env.scq);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(9L);
        assertThat(wcs.get(0).opcode()).isEqualTo(WcOpcode.REG_MR);
    }

    @Test
    void shouldCompleteUnsignalledWqesSilentlyAndErrorsAlwaysWhenSignallingOnRequest() {
        QpEnv env = env();
        RvtQp qp = env.rc(SigType.SIGNAL_REQ_WR);
        env.up(qp, qp.qpNum());
        for (int i = 1; i <= 4; i++) {
            qp.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(i)
                    .sendFlags(i == 2 ? SendFlag.SIGNALED.bit() : 0));
        }

        complete(qp, WcStatus.SUCCESS);
        complete(qp, WcStatus.SUCCESS);
        complete(qp, WcStatus.REM_ACCESS_ERR);
        complete(qp, WcStatus.SUCCESS);

        List<WorkCompletion> wcs = QpEnv.poll(env.scq);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(2L, 3L);
        assertThat(wcs.get(1).status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThat(qp.sendQueue().last()).isEqualTo(qp.sendQueue().head());
    }

    @Test
    void shouldNotMoveAnyIndexWhenSendCompleteIsCalledInResetInitOrRtr() {
        QpEnv env = env();
        RvtQp qp = env.rc();
        env.toInit(qp); // the WQE slots exist once the QP has left RESET; back to RESET with them
        env.toReset(qp);
        for (QpState s : new QpState[] {QpState.RESET, QpState.INIT, QpState.RTR}) {
            if (s == QpState.INIT) {
                env.toInit(qp);
            } else if (s == QpState.RTR) {
                env.toRtr(qp, qp.qpNum());
            }
            int head = qp.sendQueue().head();
            complete(qp, WcStatus.SUCCESS);
            assertThat(qp.sendQueue().last()).as("%s", s).isEqualTo(head);
            assertThat(qp.requester().cur).as("%s", s).isZero();
            assertThat(QpEnv.poll(env.scq)).as("%s", s).isEmpty();
        }
    }

    @Test
    void shouldDragCursorsThatPointedAtTheCompletedSlotOnly() {
        QpEnv env = env();
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        for (int i = 0; i < 3; i++) {
            qp.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(i));
        }
        qp.sendLock().lock();
        try {
            qp.requester().tail = 2;
            qp.requester().cur = 0;
            qp.requester().acked = 0;
        } finally {
            qp.sendLock().unlock();
        }

        complete(qp, WcStatus.SUCCESS);

        assertThat(qp.sendQueue().last()).isEqualTo(1);
        assertThat(qp.requester().acked).isEqualTo(1);
        assertThat(qp.requester().cur).isEqualTo(1);
        assertThat(qp.requester().tail).as("ahead of the completed slot: left alone").isEqualTo(2);
    }

    @Test
    void shouldStopDrainingWhenTheLastInProgressWqeCompletesInSqd() {
        QpEnv env = env();
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        qp.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(1)
                .next(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(2)));
        qp.sendLock().lock();
        try {
            qp.requester().cur = 1; // WQE 0 is being sent
        } finally {
            qp.sendLock().unlock();
        }

        qp.modifyQp(new QpAttr().qpState(QpState.SQD), QpEnv.STATE);
        assertThat(qp.queryQp(new QpAttr()).sqDraining()).isTrue();
        complete(qp, WcStatus.SUCCESS);

        assertThat(qp.queryQp(new QpAttr()).sqDraining()).isFalse();
        assertThat(qp.sendQueue().last()).isEqualTo(1);
    }

    /**
     * rdmavt's {@code rvt_send_complete} reads the QP's state after the completion: when that completion overflows the
     * send CQ, the QP is in ERR by then ({@code rvt_error_qp}), so an SQD QP's {@code s_draining} stays set. Reading
     * the state before the completion (SQD) cleared it.
     */
    @Test
    void shouldLeaveSqDrainingSetWhenTheLastInProgressWqeOverflowsTheSendCqAndErrorsTheQp() {
        QpEnv env = env();
        RvtQp qp = env.create(env.init(QpType.RC, 16, 16, 4).sendCq(env.dev.createCq(1, 0, null, null)));
        env.up(qp, qp.qpNum());
        qp.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(1)
                .next(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(2)
                        .next(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(3))));
        qp.sendLock().lock();
        try {
            qp.requester().cur = 2; // WQEs 0 and 1 are being sent
        } finally {
            qp.sendLock().unlock();
        }
        complete(qp, WcStatus.SUCCESS); // WQE 0: the send CQ's one entry is taken
        qp.modifyQp(new QpAttr().qpState(QpState.SQD), QpEnv.STATE);
        assertThat(qp.queryQp(new QpAttr()).sqDraining()).isTrue();

        complete(qp, WcStatus.SUCCESS); // WQE 1, the last in progress: its completion overflows the CQ

        assertThat(qp.state()).isEqualTo(QpState.ERR);
        assertThat(qp.queryQp(new QpAttr()).sqDraining()).as("s_draining as rdmavt leaves it").isTrue();
    }

    @Test
    void shouldReleaseEveryRegionReferenceWithoutCompletionsWhenResetDropsPostedWork() {
        QpEnv env = env();
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        RvtMr mr = env.reg(256);
        int baseline = mr.refCount();
        for (int i = 0; i < 3; i++) {
            SendWorkRequest w = new SendWorkRequest(2).opcode(WrOpcode.SEND).wrId(i).numSge(2);
            w.sge(0).set(mr, 0, 10);
            w.sge(1).set(mr, 100, 10);
            qp.postSend(w);
        }
        qp.postSend(new SendWorkRequest(0).opcode(LoopbackTestDriver.OPFN));
        assertThat(mr.refCount()).isEqualTo(baseline + 6);

        env.toReset(qp);

        assertThat(mr.refCount()).isEqualTo(baseline);
        assertThat(QpEnv.poll(env.scq)).isEmpty();
        assertThat(qp.sendQueue().head()).isZero();
        assertThat(qp.sendQueue().last()).isZero();
        assertThat(qp.sendQueue().reservedUsed()).isZero();
        assertThat(qp.requester().nextPsn).isZero();
    }

    @Test
    void shouldConsumeNoReceiveWhenTheQpCannotProcessReceives() {
        QpEnv env = env();
        RvtQp qp = env.rc();
        env.toInit(qp);
        qp.postRecv(new RecvWorkRequest(0).wrId(1));
        for (QpState s : new QpState[] {QpState.INIT, QpState.ERR}) {
            if (s == QpState.ERR) {
                env.toErr(qp);
                // an RWQE posted in ERR is flushed at once, so none is waiting: only the state check is visible
            }
            qp.recvLock().lock();
            try {
                assertThat(qp.responder().getRwqe(false)).as("%s", s).isZero();
            } finally {
                qp.recvLock().unlock();
            }
        }
        assertThat(QpEnv.poll(env.rcq)).extracting(WorkCompletion::wrId).containsExactly(1L);
    }

    @Test
    void shouldMoveTheQpToErrWhenItsSendCqOverflows() {
        QpEnv env = env();
        List<AsyncEvent> cqEvents = new CopyOnWriteArrayList<>();
        RvtCq small = (RvtCq) env.dev.createCq(1, 0, null, cqEvents::add);
        QpInitAttr init = env.init(QpType.RC, 4, 4, 1).sendCq(small);
        RvtQp qp = env.create(init);
        env.up(qp, qp.qpNum());
        qp.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(1)
                .next(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(2)));

        complete(qp, WcStatus.SUCCESS);
        assertThat(qp.state()).isEqualTo(QpState.RTS);
        complete(qp, WcStatus.SUCCESS);

        assertThat(qp.state()).as("§11.4 item 36").isEqualTo(QpState.ERR);
        assertThat(cqEvents).extracting(AsyncEvent::type).containsExactly(AsyncEventType.CQ_ERR);
    }

    @Test
    void shouldMoveTheResponderToErrWhenItsReceiveCqOverflowsInLoopback() {
        LoopbackTestDriver driver = new LoopbackTestDriver();
        QpEnv env = new QpEnv(driver);
        RvtQp a = env.rc();
        RvtCq small = (RvtCq) env.dev.createCq(1, 0, null, null);
        RvtQp b = env.create(env.init(QpType.RC, 4, 4, 1).recvCq(small));
        env.connect(a, b);
        for (int i = 0; i < 3; i++) {
            b.postRecv(new RecvWorkRequest(0).wrId(10 + i));
        }

        a.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(1));
        a.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(2));
        driver.drain();

        assertThat(b.state()).isEqualTo(QpState.ERR);
        assertThat(QpEnv.poll(small)).extracting(WorkCompletion::wrId).containsExactly(10L);
        a.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(3));
        driver.drain();
        assertThat(QpEnv.poll(env.scq)).extracting(wc -> wc.wrId() + ":" + wc.status())
                .containsExactly("1:SUCCESS", "2:SUCCESS", "3:RETRY_EXC_ERR");
    }

    @Test
    @Timeout(30)
    void shouldErrorTheQpAndFinishDeregWhenARegionUsedByPostedWorkIsDeregistered() throws Exception {
        LoopbackTestDriver driver = new LoopbackTestDriver();
        QpEnv env = new QpEnv(driver);
        RvtQp a = env.rc();
        RvtQp b = env.rc();
        env.connect(a, b);
        RvtMr mr = env.reg(64);
        a.postSend(new SendWorkRequest(1).opcode(WrOpcode.SEND).wrId(1).sge(mr, 0, 8)
                .next(new SendWorkRequest(1).opcode(WrOpcode.SEND).wrId(2))); // scheduled, not run
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread dereg = QpEnv.deregThread(mr, failure);

        dereg.start();
        TestUtil.await(() -> !dereg.isAlive()
                || (a.state() == QpState.ERR && dereg.getState() == Thread.State.TIMED_WAITING),
                "dereg to move the QP to ERR and wait for the region's references");
        assertThat(dereg.isAlive()).as("dereg returned while the WQE holds the region").isTrue();
        driver.drain(); // the engine flushes the WQEs, dropping the region's last reference
        dereg.join(TimeUnit.SECONDS.toMillis(10));

        assertThat(dereg.isAlive()).isFalse();
        assertThat(failure.get()).isNull();
        assertThat(QpEnv.poll(env.scq)).extracting(wc -> wc.wrId() + ":" + wc.status())
                .containsExactly("1:WR_FLUSH_ERR", "2:WR_FLUSH_ERR");
        assertThat(b.state()).as("other QPs of the PD do not use the key").isEqualTo(QpState.RTS);
    }
}
