package io.rvt.core.qp;

import io.rvt.api.AccessFlag;
import io.rvt.api.DeviceCounter;
import io.rvt.api.MigState;
import io.rvt.api.PathMtu;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.SigType;
import io.rvt.api.WorkCompletion;
import io.rvt.core.RvtDevice;
import io.rvt.core.TestDriver;
import io.rvt.core.cq.RvtCq;
import io.rvt.core.mr.RvtMr;
import io.rvt.core.mr.RvtPd;
import io.rvt.core.srq.RvtSrq;
import io.rvt.testkit.ManualTimerService;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A registered device with a PD, two CQs and helpers to create QPs and walk them through the IBTA states with valid
 * attributes. Shared by the QP tests of this package.
 */
final class QpEnv {
    static final int ALL_ACCESS = AccessFlag.mask(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ,
            AccessFlag.REMOTE_ATOMIC, AccessFlag.LOCAL_WRITE);
    static final int INIT_MASK_RC = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT,
            QpAttrMask.ACCESS_FLAGS);
    static final int RTR_MASK_RC = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU,
            QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER);
    static final int RTS_MASK_RC = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT,
            QpAttrMask.RNR_RETRY, QpAttrMask.SQ_PSN, QpAttrMask.MAX_QP_RD_ATOMIC);
    static final int RTR_MASK_UC = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU,
            QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN);
    static final int INIT_MASK_UD = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT,
            QpAttrMask.QKEY);
    static final int INIT_MASK_SPECIAL = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.QKEY);
    static final int STATE = QpAttrMask.STATE.bit();
    static final int SQ_PSN = QpAttrMask.SQ_PSN.bit();

    final TestDriver driver;
    final ManualTimerService timers;
    final RvtDevice dev;
    final RvtPd pd;
    final RvtCq scq;
    final RvtCq rcq;

    QpEnv(TestDriver driver) {
        this.driver = driver;
        this.timers = new ManualTimerService();
        if (driver.timerService() == null) {
            driver.timerService(timers);
        }
        this.dev = driver.register();
        this.pd = (RvtPd) dev.allocPd();
        this.scq = (RvtCq) dev.createCq(1024, 0, null, null);
        this.rcq = (RvtCq) dev.createCq(1024, 0, null, null);
    }

    /** @return a fresh init attribute with the given caps and the env's CQs */
    QpInitAttr init(QpType type, int maxSendWr, int maxRecvWr, int maxSge) {
        QpInitAttr init = new QpInitAttr().qpType(type).sendCq(scq).recvCq(rcq);
        init.cap().maxSendWr(maxSendWr).maxRecvWr(maxRecvWr).maxSendSge(maxSge).maxRecvSge(maxSge);
        if (type == QpType.SMI || type == QpType.GSI) {
            init.portNum(1);
        }
        return init;
    }

    RvtQp create(QpType type, int maxSendWr, int maxRecvWr, int maxSge) {
        return (RvtQp) pd.createQp(init(type, maxSendWr, maxRecvWr, maxSge));
    }

    RvtQp create(QpInitAttr init) {
        return (RvtQp) pd.createQp(init);
    }

    /** @return a QP with its own send and receive CQs (1024 entries each) */
    RvtQp createOwnCqs(QpType type, int maxSendWr, int maxRecvWr, int maxSge, SigType sig) {
        QpInitAttr init = init(type, maxSendWr, maxRecvWr, maxSge).sigType(sig)
                .sendCq(dev.createCq(1024, 0, null, null)).recvCq(dev.createCq(1024, 0, null, null));
        return create(init);
    }

    RvtQp rc() {
        return create(QpType.RC, 16, 16, 4);
    }

    RvtQp rc(SigType sig) {
        QpInitAttr init = init(QpType.RC, 16, 16, 4).sigType(sig);
        return create(init);
    }

    RvtSrq srq(int maxWr) {
        io.rvt.api.SrqInitAttr si = new io.rvt.api.SrqInitAttr().maxWr(maxWr).maxSge(4);
        return (RvtSrq) pd.createSrq(si);
    }

    /** @return attributes valid for every field a transition can require */
    QpAttr validAttr(int destQpn) {
        QpAttr a = new QpAttr().pkeyIndex(0).portNum(1).qkey(0x1234).qpAccessFlags(ALL_ACCESS)
                .pathMtu(PathMtu.MTU_1024).destQpNum(destQpn).rqPsn(0x100).sqPsn(0x100).maxDestRdAtomic(4)
                .minRnrTimer(12).timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(4)
                .pathMigState(MigState.MIGRATED);
        a.ahAttr().dlid(lid()).portNum(1).sl(0);
        return a;
    }

    int lid() {
        return dev.port(1).lid();
    }

    void modify(RvtQp qp, QpState next, int mask, QpAttr attr) {
        qp.modifyQp(attr.qpState(next), mask);
    }

    /** Moves a RESET QP to INIT with the brief's attributes for its type. */
    void toInit(RvtQp qp) {
        QpAttr a = validAttr(0);
        switch (qp.type()) {
            case RC:
            case UC:
                modify(qp, QpState.INIT, INIT_MASK_RC, a);
                break;
            case UD:
                modify(qp, QpState.INIT, INIT_MASK_UD, a);
                break;
            default:
                modify(qp, QpState.INIT, INIT_MASK_SPECIAL, a);
                break;
        }
    }

    void toRtr(RvtQp qp, int destQpn) {
        QpAttr a = validAttr(destQpn);
        switch (qp.type()) {
            case RC:
                modify(qp, QpState.RTR, RTR_MASK_RC, a);
                break;
            case UC:
                modify(qp, QpState.RTR, RTR_MASK_UC, a);
                break;
            default:
                modify(qp, QpState.RTR, STATE, a);
                break;
        }
    }

    void toRts(RvtQp qp) {
        QpAttr a = validAttr(0);
        modify(qp, QpState.RTS, qp.type() == QpType.RC ? RTS_MASK_RC : STATE | SQ_PSN, a);
    }

    /** RESET → RTS, connected to {@code destQpn} (RC/UC). */
    void up(RvtQp qp, int destQpn) {
        toInit(qp);
        toRtr(qp, destQpn);
        toRts(qp);
    }

    /** Connects two fresh RC/UC QPs to each other and brings both to RTS. */
    void connect(RvtQp a, RvtQp b) {
        up(a, b.qpNum());
        up(b, a.qpNum());
    }

    void toErr(RvtQp qp) {
        qp.modifyQp(new QpAttr().qpState(QpState.ERR), STATE);
    }

    void toReset(RvtQp qp) {
        qp.modifyQp(new QpAttr().qpState(QpState.RESET), STATE);
    }

    RvtMr reg(int size) {
        return reg(size, ALL_ACCESS);
    }

    RvtMr reg(int size, int access) {
        return (RvtMr) pd.regMr(ByteBuffer.allocate(size), access);
    }

    /** @return a thread (not started) that deregisters {@code mr}, leaving what it throws in {@code failure} */
    static Thread deregThread(RvtMr mr, java.util.concurrent.atomic.AtomicReference<Throwable> failure) {
        return new Thread(() -> {
            try {
                mr.deregMr();
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "dereg");
    }

    /** @return every completion now in {@code cq}, in order (copies) */
    static List<WorkCompletion> poll(RvtCq cq) {
        List<WorkCompletion> out = new ArrayList<>();
        WorkCompletion wc = new WorkCompletion();
        while (cq.pollCq(wc)) {
            out.add(new WorkCompletion().copyFrom(wc));
        }
        return out;
    }

    /** @return the device counters, in {@link DeviceCounter} order */
    long[] counters() {
        long[] c = new long[DeviceCounter.values().length];
        for (DeviceCounter d : DeviceCounter.values()) {
            c[d.ordinal()] = dev.deviceCounter(d);
        }
        return c;
    }
}
