package io.rvt.core.qp;

import io.rvt.api.AccessFlag;
import io.rvt.api.AhAttr;
import io.rvt.api.AsyncEventType;
import io.rvt.api.MigState;
import io.rvt.api.PathMtu;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.SigType;
import io.rvt.api.WcStatus;
import io.rvt.api.spi.Callback;
import io.rvt.api.spi.DriverParams;
import io.rvt.api.spi.MtuConversion;
import io.rvt.api.spi.Timeouts;
import io.rvt.api.spi.engine.QpFlags;
import io.rvt.core.ah.RvtAh;
import io.rvt.core.base.Errors;

/**
 * A QP's modify and query verbs: {@code rvt_modify_qp} (the IBTA transition table of {@link QpTransitions} plus
 * rdmavt's checks of each attribute, all made before anything changes; then the state action and the attributes in
 * rdmavt's order, with the receive, post and send locks held), {@code rvt_query_qp} and the init attributes.
 */
final class QpModify {
    private QpModify() {
    }

    static void modifyQp(RvtQp qp, QpAttr attr, int mask) {
        if (attr == null) {
            throw Errors.inval("modifyQp: attr is null");
        }
        qp.checkNotDestroyed();
        qp.dev.checkAlive();
        qp.dev.checkVerb(io.rvt.api.spi.Verb.MODIFY_QP);
        if ((mask & ~QpAttrMask.STANDARD_BITS) != 0) {
            throw Errors.notsupp("modifyQp: attribute mask bits 0x"
                    + Integer.toHexString(mask & ~QpAttrMask.STANDARD_BITS) + " are not supported");
        }
        boolean lastWqe = false;
        boolean mig = false;
        QpState cur;
        QpState next;
        if (QpAttrMask.STATE.in(mask) && attr.qpState() != QpState.RESET) {
            qp.req.ensureTimers(); // outside the QP's locks (see there)
        }
        qp.lockAll();
        try {
            // CUR_STATE asserts the state the caller believes the QP is in: a wrong belief is refused ([deviation]:
            // rdmavt takes attr->cur_qp_state as the current state and could move an INIT QP as if it were RTS).
            if (QpAttrMask.CUR_STATE.in(mask) && attr.curQpState() != qp.state) {
                throw Errors.inval("modifyQp on QP 0x" + Integer.toHexString(qp.qpNum) + ": curQpState "
                        + attr.curQpState() + " does not match the QP's state " + qp.state);
            }
            cur = qp.state;
            next = QpAttrMask.STATE.in(mask) ? attr.qpState() : cur;
            String why = QpTransitions.check(cur, next, qp.type, mask);
            if (why != null) {
                throw Errors.inval("modifyQp on QP 0x" + Integer.toHexString(qp.qpNum) + ": " + why);
            }
            if (qp.dev.provides(Callback.CHECK_MODIFY_QP) && qp.driver.checkModifyQp(qp, attr, mask) != 0) {
                throw Errors.inval("modifyQp on QP 0x" + Integer.toHexString(qp.qpNum) + ": refused by the driver");
            }
            int mcastBase = (qp.dev.params().coreCapFlags() & DriverParams.CORE_CAP_OPA_AH) != 0
                    ? RvtQp.OPA_MULTICAST_BASE : RvtQp.IB_MULTICAST_LID_BASE;
            if (QpAttrMask.AV.in(mask)) {
                checkPath(qp, "AV", attr.ahAttr(), mcastBase);
            }
            if (QpAttrMask.ALT_PATH.in(mask)) {
                checkPath(qp, "ALT_PATH", attr.altAhAttr(), mcastBase);
                if (attr.altPkeyIndex() >= qp.dev.params().npkeys()) {
                    throw Errors.inval("modifyQp: altPkeyIndex " + attr.altPkeyIndex() + " is outside the table of "
                            + qp.dev.params().npkeys());
                }
            }
            if (QpAttrMask.PKEY_INDEX.in(mask) && attr.pkeyIndex() >= qp.dev.params().npkeys()) {
                throw Errors.inval("modifyQp: pkeyIndex " + attr.pkeyIndex() + " is outside the table of "
                        + qp.dev.params().npkeys());
            }
            if (QpAttrMask.ACCESS_FLAGS.in(mask) && (attr.qpAccessFlags() & ~AccessFlag.ALL) != 0) {
                throw Errors.inval("modifyQp: qpAccessFlags 0x" + Integer.toHexString(attr.qpAccessFlags())
                        + " has unknown bits 0x" + Integer.toHexString(attr.qpAccessFlags() & ~AccessFlag.ALL));
            }
            if (QpAttrMask.MIN_RNR_TIMER.in(mask) && attr.minRnrTimer() > 31) {
                throw Errors.inval("modifyQp: minRnrTimer " + attr.minRnrTimer() + " exceeds 31");
            }
            if (QpAttrMask.PORT.in(mask)) {
                if (qp.type == QpType.SMI || qp.type == QpType.GSI) {
                    throw Errors.inval("modifyQp: PORT cannot be changed on a " + qp.type + " QP");
                }
                if (attr.portNum() < 1 || attr.portNum() > qp.dev.portCount()) {
                    throw Errors.inval("modifyQp: port " + attr.portNum() + " is outside 1.." + qp.dev.portCount());
                }
            }
            if (QpAttrMask.DEST_QPN.in(mask) && (attr.destQpNum() & ~0xFFFFFF) != 0) {
                throw Errors.inval("modifyQp: destQpNum 0x" + Integer.toHexString(attr.destQpNum())
                        + " exceeds 0xFFFFFF");
            }
            if (QpAttrMask.RETRY_CNT.in(mask) && attr.retryCnt() > 7) {
                throw Errors.inval("modifyQp: retryCnt " + attr.retryCnt() + " exceeds 7");
            }
            if (QpAttrMask.RNR_RETRY.in(mask) && attr.rnrRetry() > 7) {
                throw Errors.inval("modifyQp: rnrRetry " + attr.rnrRetry() + " exceeds 7");
            }
            int pmtuEnum = 0;
            if (QpAttrMask.PATH_MTU.in(mask)) {
                pmtuEnum = qp.dev.mtuConversion().getPmtuFromAttr(qp.dev, qp, attr);
                if (pmtuEnum < 0) {
                    throw Errors.inval("modifyQp: path MTU " + attr.pathMtu() + " refused by the driver");
                }
            }
            if (QpAttrMask.PATH_MIG_STATE.in(mask)) {
                MigState want = attr.pathMigState();
                if (want == MigState.REARM) {
                    if (qp.migState == MigState.ARMED || next != QpState.RTS) {
                        throw Errors.inval("modifyQp: path migration state REARM needs a QP not ARMED moving to RTS");
                    }
                } else if (want == MigState.MIGRATED) {
                    if (qp.migState == MigState.REARM || (next != QpState.RTS && next != QpState.SQD)) {
                        throw Errors.inval("modifyQp: path migration state MIGRATED needs a QP not in REARM"
                                + " moving to RTS or SQD");
                    }
                    mig = qp.migState == MigState.ARMED;
                } else {
                    throw Errors.inval("modifyQp: path migration state " + want + " cannot be requested");
                }
            }
            if (QpAttrMask.MAX_DEST_RD_ATOMIC.in(mask) && attr.maxDestRdAtomic() > qp.dev.params().maxRdmaAtomic()) {
                throw Errors.inval("modifyQp: maxDestRdAtomic " + attr.maxDestRdAtomic() + " exceeds the device's "
                        + qp.dev.params().maxRdmaAtomic());
            }
            if (next == QpState.SQE && qp.type == QpType.RC) {
                throw Errors.inval("modifyQp: an RC QP cannot enter SQE");
            }

            // State action (nothing above modified the QP).
            if (cur == QpState.RESET && next != QpState.RESET) {
                qp.allocateProtocolState(); // before the state says the QP may be used
            }
            switch (next) {
                case RESET:
                    if (qp.state != QpState.RESET) {
                        qp.resetLocked();
                    }
                    break;
                case RTR:
                    qp.rsp.flags &= ~QpFlags.R_COMM_EST;
                    qp.state = QpState.RTR;
                    break;
                case SQD:
                    qp.sq.draining = qp.sq.last() != qp.req.cur;
                    qp.state = QpState.SQD;
                    break;
                case SQE:
                    qp.state = QpState.SQE;
                    break;
                case ERR:
                    lastWqe = qp.errorQp(WcStatus.WR_FLUSH_ERR);
                    break;
                default:
                    qp.state = next;
                    break;
            }
            applyAttributes(qp, attr, mask, mig, pmtuEnum);
            if (qp.dev.provides(Callback.MODIFY_QP)) {
                qp.driver.modifyQp(qp, attr, mask);
            }
        } finally {
            qp.unlockAll();
        }
        if (cur == QpState.RESET && next == QpState.INIT) {
            qp.dev.qpTable().insert(qp);
        }
        if (lastWqe) {
            qp.event(AsyncEventType.QP_LAST_WQE_REACHED);
        }
        if (mig) {
            qp.event(AsyncEventType.PATH_MIG);
        }
    }

    static void checkPath(RvtQp qp, String which, AhAttr ah, int mcastBase) {
        if (Integer.compareUnsigned(ah.dlid(), mcastBase) >= 0) {
            throw Errors.inval("modifyQp: " + which + " dlid 0x" + Integer.toHexString(ah.dlid())
                    + " is a multicast LID (unicast is below 0x" + Integer.toHexString(mcastBase) + ")");
        }
        String why = RvtAh.whyInvalid(qp.dev, ah);
        if (why != null) {
            throw Errors.inval("modifyQp: " + which + " address is invalid: " + why);
        }
    }

    /** Step 7.5.4: attributes in rdmavt's order, all three locks held. */
    static void applyAttributes(RvtQp qp, QpAttr attr, int mask, boolean mig, int pmtuEnum) {
        DriverParams p = qp.dev.params();
        if (QpAttrMask.PKEY_INDEX.in(mask)) {
            qp.pkeyIndex = attr.pkeyIndex();
        }
        if (QpAttrMask.PORT.in(mask)) {
            qp.portNum = attr.portNum();
        }
        if (QpAttrMask.DEST_QPN.in(mask)) {
            qp.remoteQpn = attr.destQpNum();
        }
        if (QpAttrMask.SQ_PSN.in(mask)) {
            qp.req.nextPsn = attr.sqPsn() & p.psnModifyMask();
            qp.req.psn = qp.req.nextPsn;
            qp.req.sendingPsn = qp.req.nextPsn;
            qp.req.lastPsn = qp.req.nextPsn - 1;
            qp.req.sendingHpsn = qp.req.lastPsn;
        }
        if (QpAttrMask.RQ_PSN.in(mask)) {
            qp.rsp.psn = attr.rqPsn() & p.psnModifyMask();
        }
        if (QpAttrMask.ACCESS_FLAGS.in(mask)) {
            qp.accessFlags = attr.qpAccessFlags();
        }
        if (QpAttrMask.AV.in(mask)) {
            qp.remoteAhAttr.copyFrom(attr.ahAttr());
            qp.srate = attr.ahAttr().staticRate();
            qp.srateMbps = AhAttr.rateToMbps(qp.srate);
        }
        if (QpAttrMask.ALT_PATH.in(mask)) {
            qp.altAhAttr.copyFrom(attr.altAhAttr());
            qp.altPkeyIndex = attr.altPkeyIndex();
        }
        if (QpAttrMask.PATH_MIG_STATE.in(mask)) {
            qp.migState = attr.pathMigState();
            if (mig) {
                qp.remoteAhAttr.copyFrom(qp.altAhAttr);
                qp.portNum = qp.altAhAttr.portNum();
                qp.pkeyIndex = qp.altPkeyIndex;
            }
        }
        if (QpAttrMask.PATH_MTU.in(mask)) {
            qp.pmtu = qp.dev.mtuConversion().mtuFromQp(qp.dev, qp, pmtuEnum);
            qp.logPmtu = 31 - Integer.numberOfLeadingZeros(qp.pmtu);
        }
        if (QpAttrMask.RETRY_CNT.in(mask)) {
            qp.retryCnt = attr.retryCnt();
            qp.req.retry = qp.retryCnt;
        }
        if (QpAttrMask.RNR_RETRY.in(mask)) {
            qp.rnrRetryCnt = attr.rnrRetry();
            qp.req.rnrRetry = qp.rnrRetryCnt;
        }
        if (QpAttrMask.MIN_RNR_TIMER.in(mask)) {
            qp.minRnrTimer = attr.minRnrTimer();
        }
        if (QpAttrMask.TIMEOUT.in(mask)) {
            qp.timeout = attr.timeout();
            qp.timeoutTicks = Timeouts.timeoutToTicks(qp.timeout, qp.dev.timerService().hz());
        }
        if (QpAttrMask.QKEY.in(mask)) {
            qp.qkey = attr.qkey();
        }
        if (QpAttrMask.MAX_DEST_RD_ATOMIC.in(mask)) {
            qp.maxDestRdAtomic = attr.maxDestRdAtomic();
        }
        if (QpAttrMask.MAX_QP_RD_ATOMIC.in(mask)) {
            qp.maxRdAtomic = attr.maxRdAtomic();
        }
    }

    static QpAttr queryQp(RvtQp qp, QpAttr out) {
        if (out == null) {
            throw Errors.inval("queryQp: out is null");
        }
        qp.checkNotDestroyed();
        int psnMask = qp.dev.params().psnMask();
        out.qpState(qp.state).curQpState(qp.state);
        MtuConversion mtu = qp.dev.mtuConversion();
        // A driver that declined MODIFY_QP has no MTU rules, and its QPs keep the 256 bytes they were created with.
        out.pathMtu(mtu == null ? PathMtu.ofBytes(qp.pmtu) : PathMtu.of(mtu.mtuToPathMtu(qp.pmtu)));
        out.pathMigState(qp.migState).qkey(qp.qkey).rqPsn(qp.rsp.psn & psnMask).sqPsn(qp.req.nextPsn & psnMask)
                .destQpNum(qp.remoteQpn).qpAccessFlags(qp.accessFlags);
        out.cap().maxSendWr(qp.sq.maxSendWr()).maxRecvWr(qp.rsp.maxRecvWr()).maxSendSge(qp.sq.maxSge())
                .maxRecvSge(qp.rsp.maxSge).maxInlineData(0);
        out.ahAttr().copyFrom(qp.remoteAhAttr);
        out.altAhAttr().copyFrom(qp.altAhAttr);
        out.pkeyIndex(qp.pkeyIndex).altPkeyIndex(qp.altPkeyIndex).enSqdAsyncNotify(false).sqDraining(qp.sq.draining)
                .maxRdAtomic(qp.maxRdAtomic).maxDestRdAtomic(qp.maxDestRdAtomic).minRnrTimer(qp.minRnrTimer)
                .portNum(qp.portNum).timeout(qp.timeout).retryCnt(qp.retryCnt).rnrRetry(qp.rnrRetryCnt)
                .altPortNum(qp.altAhAttr.portNum()).altTimeout(0);
        return out;
    }

    static QpInitAttr queryInitAttr(RvtQp qp, QpInitAttr out) {
        if (out == null) {
            throw Errors.inval("queryInitAttr: out is null");
        }
        qp.checkNotDestroyed();
        out.qpType(qp.type).sendCq(qp.sendCq).recvCq(qp.recvCq).srq(qp.srq).eventHandler(qp.eventHandler)
                .sigType((qp.req.flags & QpFlags.S_SIGNAL_REQ_WR) != 0 ? SigType.SIGNAL_REQ_WR
                        : SigType.SIGNAL_ALL_WR)
                .portNum(qp.portNum).createFlags(qp.createFlags);
        out.cap().maxSendWr(qp.sq.maxSendWr()).maxRecvWr(qp.rsp.maxRecvWr()).maxSendSge(qp.sq.maxSge())
                .maxRecvSge(qp.rsp.maxSge).maxInlineData(0);
        return out;
    }
}
