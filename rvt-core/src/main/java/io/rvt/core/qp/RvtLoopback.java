package io.rvt.core.qp;

import io.rvt.api.AccessFlag;
import io.rvt.api.AsyncEventType;
import io.rvt.api.PortCounter;
import io.rvt.api.QpState.Ops;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.SendFlag;
import io.rvt.api.WcFlag;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.Sge;
import io.rvt.api.spi.engine.QpFlags;
import io.rvt.api.spi.engine.ResponderState;
import io.rvt.api.spi.engine.SgeState;
import io.rvt.core.base.SpinningLock;

/**
 * Mirrors {@code rvt_ruc_loopback}: delivers an RC or UC QP's send WQEs straight into the local QP
 * {@code remote_qpn}, without packets: SEND (with immediate, with invalidate), RDMA WRITE (with immediate), RDMA
 * READ and the two atomics, with RNR retry through the RNR timer and rdmavt's error behaviour (RC sender to ERR,
 * responder to ERR through {@code rvt_rc_error}). It processes the whole send queue from {@code sendLast}, completing
 * WQEs itself. No fences, read/atomic depth limits, credits or PSN logic, as in rdmavt.
 *
 * <p>Locks: rdmavt takes the sender's {@code r_lock} inside its {@code s_lock} to complete (an ABBA hazard reported
 * upstream). rvt never holds the sender's {@code sendLock} while taking any {@code recvLock}: to complete it drops
 * {@code sendLock} and takes {@code recvLock} then {@code sendLock}; the {@code S_BUSY} flag keeps other engines off
 * the QP meanwhile. Loopback to itself ({@code remote_qpn == qpn}) is therefore safe.
 *
 * <p>A UD, GSI or SMI QP is handed to {@link RvtUdLoopback} (an rvt extension: rdmavt leaves UD loopback to its
 * drivers).
 *
 * <p>One instance per QP; used only by the thread that holds {@code S_BUSY}, so its scratch fields need no lock.
 */
final class RvtLoopback {
    private static final int COMP = 0;
    private static final int ERROR = 1;
    private static final int RNR = 2;
    private static final int STOP = 3;

    private final RvtQp sqp;
    private final WorkCompletion wc = new WorkCompletion();
    private final Sge target = new Sge();
    private WcStatus status;
    private boolean localOps;
    /** UD, GSI and SMI QPs: the datagram loopback (an rvt extension), else null. */
    private final RvtUdLoopback datagrams;

    RvtLoopback(RvtQp sqp) {
        this.sqp = sqp;
        this.datagrams = RvtUdLoopback.serves(sqp.type()) ? new RvtUdLoopback(sqp) : null;
    }

    void run() {
        RvtIbport port = sqp.iport();
        // a datagram QP has no remote QPN: each of its WQEs names its own
        RvtQp qp = port == null || datagrams != null ? null : sqp.device().lookupQpnAndRetain(port, sqp.remoteQpn());
        try {
            SpinningLock sl = sqp.sendLock();
            sl.lock();
            try {
                if ((sqp.requester().flags & (QpFlags.S_BUSY | QpFlags.S_ANY_WAIT)) != 0
                        || !sqp.state().can(Ops.PROCESS_OR_FLUSH_SEND)) {
                    return;
                }
                sqp.requester().flags |= QpFlags.S_BUSY;
            } finally {
                sl.unlock();
            }
            boolean lastWqe = false;
            boolean stopped = false;
            try {
                int r;
                do {
                    r = step(qp, port);
                } while (r == COMP);
                stopped = true; // every STOP/ERROR return cleared S_BUSY in the section that decided to stop
                lastWqe = r == ERROR;
            } finally {
                if (!stopped) {
                    sl.lock();
                    sqp.requester().flags &= ~QpFlags.S_BUSY;
                    sl.unlock();
                }
            }
            if (lastWqe) {
                sqp.device().dispatch(io.rvt.api.AsyncEvent.ofQp(AsyncEventType.QP_LAST_WQE_REACHED, sqp),
                        sqp.eventHandler());
            }
        } finally {
            if (qp != null) {
                qp.release();
            }
        }
    }

    /**
     * Processes the WQE at {@code sendLast}.
     *
     * @return COMP to go on with the next WQE, STOP to stop, ERROR to stop after an RC error that asks for a
     *         last-WQE event
     */
    private int step(RvtQp qp, RvtIbport port) {
        SpinningLock sl = sqp.sendLock();
        RvtSwqe wqe;
        int last;
        boolean flush = false;
        sl.lock();
        try {
            last = sqp.sendQueue().last();
            if (last == sqp.sendQueue().head()) {
                clearBusy();
                return STOP;
            }
            wqe = sqp.sendQueue().swqe(last);
            QpState st = sqp.state();
            if (!st.can(Ops.PROCESS_NEXT_SEND_OK)) {
                if (!st.can(Ops.FLUSH_SEND)) {
                    clearBusy();
                    return STOP;
                }
                flush = true;
            } else if (last == sqp.requester().cur) {
                sqp.requester().cur = sqp.sendQueue().swqeIncr(sqp.requester().cur);
            }
        } finally {
            sl.unlock();
        }
        if (flush) {
            // Completed with recvLock then sendLock: never wait for recvLock while holding sendLock (S_BUSY keeps
            // other engines off the QP meanwhile; a reset in between makes sendComplete a no-op).
            completeSend(last, wqe, WcStatus.WR_FLUSH_ERR, false);
            return COMP;
        }
        localOps = false;
        if (datagrams != null) {
            completeSend(last, wqe, datagrams.deliver(wqe), true); // a UD send completes once it left
            return COMP;
        }
        if (qp == null) {
            return sendError(last, wqe, drop(port));
        }
        int r;
        SpinningLock rl = qp.recvLock();
        rl.lock();
        try {
            if (!qp.state().can(Ops.PROCESS_RECV_OK) || qp.type() != sqp.type()) {
                status = drop(port);
                r = ERROR;
            } else {
                r = deliver(qp, wqe, port);
            }
        } finally {
            rl.unlock();
        }
        switch (r) {
            case COMP:
                completeSend(last, wqe, status, true);
                return COMP;
            case RNR:
                sl.lock();
                try {
                    if (sqp.state().can(Ops.PROCESS_RECV_OK)) {
                        sqp.requester().addRnrTimer(qp.minRnrTimer() << 24);
                    }
                    clearBusy();
                } finally {
                    sl.unlock();
                }
                return STOP;
            default:
                return sendError(last, wqe, status);
        }
    }

    /**
     * Clears S_BUSY; {@code sendLock} held. Every stop decision clears it in the same section, as rdmavt's
     * {@code clr_busy} does: a poster whose engine found the QP busy relies on this run to see its WQE, and the
     * scheduled work of an error transition must not find the QP still busy. After this the run touches no shared
     * state (another engine may start at once).
     */
    private void clearBusy() {
        sqp.requester().flags &= ~QpFlags.S_BUSY;
    }

    /** The responder side, {@code qp.recvLock} held; sets {@link #status}. */
    private int deliver(RvtQp qp, RvtSwqe wqe, RvtIbport port) {
        ResponderState rs = qp.responder();
        wc.clear();
        status = WcStatus.SUCCESS;
        boolean release = true;
        boolean copyLast = false;
        SgeState src = sqp.requester().sge;
        src.init(wqe.sgList(), 0, wqe.numSge(), wqe.length());
        int sendLen = wqe.length();
        WrOpcode op = wqe.opcode();
        switch (op) {
            case REG_MR:
            case BIND_MW: // bound at post, as REG_MR
                return COMP;
            case LOCAL_INV:
                if ((wqe.sendFlags() & QpFlags.SEND_COMPLETION_ONLY) == 0) {
                    if (sqp.invalidateRkey(wqe.invalidateRkey()) != 0) {
                        status = WcStatus.LOC_PROT_ERR;
                    }
                    localOps = true;
                }
                return COMP;
            case SEND_WITH_INV:
            case SEND_WITH_IMM:
            case SEND: {
                int ret = rs.getRwqe(false);
                if (ret < 0) {
                    return opErr(qp);
                }
                if (ret == 0) {
                    return rnrNak(qp, port);
                }
                if (Integer.compareUnsigned(wqe.length(), rs.len) > 0) {
                    return invErr(qp);
                }
                if (op == WrOpcode.SEND_WITH_INV) {
                    if (qp.invalidateRkey(wqe.invalidateRkey()) == 0) {
                        wc.wcFlags(WcFlag.WITH_INVALIDATE.bit()).invalidateRkey(wqe.invalidateRkey());
                    }
                } else if (op == WrOpcode.SEND_WITH_IMM) {
                    wc.wcFlags(WcFlag.WITH_IMM.bit()).immData(wqe.immData());
                }
                break;
            }
            case RDMA_WRITE_WITH_IMM: {
                if (!AccessFlag.REMOTE_WRITE.in(qp.accessFlags())) {
                    return invErr(qp);
                }
                wc.wcFlags(WcFlag.WITH_IMM.bit()).immData(wqe.immData());
                int ret = rs.getRwqe(true);
                if (ret < 0) {
                    return opErr(qp);
                }
                if (ret == 0) {
                    return rnrNak(qp, port);
                }
                if (!doWrite(qp, wqe)) {
                    return accErr(qp);
                }
                break;
            }
            case RDMA_WRITE:
                copyLast = qp.isUserQp();
                if (!AccessFlag.REMOTE_WRITE.in(qp.accessFlags())) {
                    return invErr(qp);
                }
                if (!doWrite(qp, wqe)) {
                    return accErr(qp);
                }
                break;
            case RDMA_READ:
                if (!AccessFlag.REMOTE_READ.in(qp.accessFlags())) {
                    return invErr(qp);
                }
                if (!qp.rkeyOk(target, wqe.length(), wqe.remoteAddr(), wqe.rkey(), AccessFlag.REMOTE_READ.bit())) {
                    return accErr(qp);
                }
                release = false;
                if (sendLen == 0) {
                    // Nothing to copy, so nothing would drop the reference rkeyOk took (rdmavt leaks it here).
                    target.release();
                }
                // Source: the remote range; destination: the WQE's own SGEs through the responder's cursor.
                src.initSingle(target, wqe.length());
                rs.sge.init(wqe.sgList(), 0, wqe.numSge(), wqe.length());
                break;
            case ATOMIC_CMP_AND_SWP:
            case ATOMIC_FETCH_AND_ADD: {
                if (!AccessFlag.REMOTE_ATOMIC.in(qp.accessFlags()) || (wqe.remoteAddr() & 7) != 0) {
                    return invErr(qp);
                }
                if (!qp.rkeyOk(target, 8, wqe.remoteAddr(), wqe.rkey(), AccessFlag.REMOTE_ATOMIC.bit())) {
                    return accErr(qp);
                }
                // target.vaddr(): the region's address (a zero-based window's offset is translated by rkeyOk)
                long old = op == WrOpcode.ATOMIC_FETCH_AND_ADD
                        ? target.mr().atomicFetchAdd(target.vaddr(), wqe.compareAdd())
                        : target.mr().atomicCompareSwap(target.vaddr(), wqe.compareAdd(), wqe.swap());
                Sge dst = wqe.sge(0);
                dst.putLong(old);
                target.release();
                return COMP;
            }
            case ATOMIC_WRITE: {
                // IBTA 1.5 (rxe's atomic_write_reply): needs the QP's and the key's REMOTE_WRITE, 8-byte alignment.
                if (!AccessFlag.REMOTE_WRITE.in(qp.accessFlags()) || (wqe.remoteAddr() & 7) != 0) {
                    return invErr(qp);
                }
                if (!qp.rkeyOk(target, 8, wqe.remoteAddr(), wqe.rkey(), AccessFlag.REMOTE_WRITE.bit())) {
                    return accErr(qp);
                }
                Sge value = wqe.sge(0);
                target.mr().atomicWrite(target.vaddr(), value.getLong());
                target.release();
                return COMP;
            }
            case FLUSH: {
                // IBTA 1.5 (rxe's check_qp_attr_access, check_rkey, process_flush): the QP must allow the
                // placement type; no region has FLUSH_PERSISTENT (regMr refuses it), so only global visibility
                // can succeed; the range (or, for FLUSH_MR, the address) must be inside the key's region.
                int placement = wqe.flushType();
                int need = (placement & 1) * AccessFlag.FLUSH_GLOBAL.bit()
                        | ((placement >> 1) & 1) * AccessFlag.FLUSH_PERSISTENT.bit();
                if ((qp.accessFlags() & need) != need) {
                    return invErr(qp);
                }
                boolean whole = wqe.flushLevel() == io.rvt.api.SendWorkRequest.FLUSH_MR;
                if (AccessFlag.FLUSH_PERSISTENT.in(need) || !qp.rkeyOk(target, whole ? 0 : wqe.flushLength(),
                        wqe.remoteAddr(), wqe.rkey(), AccessFlag.FLUSH_GLOBAL.bit())) {
                    return accErr(qp);
                }
                java.lang.invoke.VarHandle.fullFence(); // global visibility: every earlier store is visible
                target.release();
                return COMP;
            }
            default:
                status = WcStatus.LOC_QP_OP_ERR;
                return ERROR;
        }
        SgeState dst = rs.sge;
        if (sendLen > 0) {
            dst.copyFrom(src, sendLen, release, !release, copyLast);
        }
        if (release) {
            dst.putSs();
        }
        if (!rs.testAndClearAflags(QpFlags.RA_WRID_VALID)) {
            return COMP;
        }
        wc.opcode(op == WrOpcode.RDMA_WRITE_WITH_IMM ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV)
                .wrId(rs.wrId).status(WcStatus.SUCCESS).byteLen(wqe.length()).qpNum(qp.qpNum())
                .srcQp(qp.remoteQpn()).slid(qp.remoteAhAttr().dlid() & 0xFFFF).sl(qp.remoteAhAttr().sl())
                .portNum(1);
        qp.recvCq(wc, SendFlag.SOLICITED.in(wqe.sendFlags()));
        return COMP;
    }

    /** The RDMA WRITE target: the responder's cursor becomes the single rkey-checked range. */
    private boolean doWrite(RvtQp qp, RvtSwqe wqe) {
        if (wqe.length() == 0) {
            return true;
        }
        if (!qp.rkeyOk(target, wqe.length(), wqe.remoteAddr(), wqe.rkey(), AccessFlag.REMOTE_WRITE.bit())) {
            return false;
        }
        qp.responder().sge.initSingle(target, wqe.length());
        return true;
    }

    private int rnrNak(RvtQp qp, RvtIbport port) {
        if (qp.type() == QpType.UC) {
            return COMP; // UC: the message is dropped, the send completes successfully
        }
        port.addCounter(PortCounter.RNR_NAKS, 1);
        if (sqp.requester().rnrRetry == 0) {
            status = WcStatus.RNR_RETRY_EXC_ERR;
            return ERROR;
        }
        if (sqp.rnrRetryCnt() < 7) {
            sqp.requester().rnrRetry = sqp.requester().rnrRetry - 1;
        }
        return RNR;
    }

    private int opErr(RvtQp qp) {
        status = WcStatus.REM_OP_ERR;
        qp.rcError(WcStatus.LOC_QP_OP_ERR);
        return ERROR;
    }

    private int invErr(RvtQp qp) {
        status = sqp.type() == QpType.RC ? WcStatus.REM_INV_REQ_ERR : WcStatus.SUCCESS;
        qp.rcError(WcStatus.LOC_QP_OP_ERR);
        return ERROR;
    }

    private int accErr(RvtQp qp) {
        status = WcStatus.REM_ACCESS_ERR;
        qp.rcError(WcStatus.LOC_PROT_ERR);
        return ERROR;
    }

    private WcStatus drop(RvtIbport port) {
        if (port != null) {
            port.addCounter(PortCounter.PKT_DROPS, 1);
        }
        return sqp.type() == QpType.RC ? WcStatus.RETRY_EXC_ERR : WcStatus.SUCCESS;
    }

    /**
     * {@code send_comp} / {@code flush_send}: complete the WQE with the sender's two locks, in order, if it is still
     * the oldest one. The locks were dropped since the WQE was read; only an engine that ignores {@code S_BUSY} (a
     * driver's) could have completed it meanwhile, and then completing it again would sweep the ring
     * ({@code sendLast} passing {@code sendHead}).
     */
    private void completeSend(int index, RvtSwqe wqe, WcStatus st, boolean countLoop) {
        SpinningLock rl = sqp.recvLock();
        SpinningLock sl = sqp.sendLock();
        rl.lock();
        sl.lock();
        try {
            if (countLoop && sqp.iport() != null) {
                sqp.iport().addCounter(PortCounter.LOOP_PKTS, 1);
            }
            if (sqp.sendQueue().last() != index) {
                return;
            }
            sqp.requester().rnrRetry = sqp.rnrRetryCnt();
            sqp.sendQueue().sendComplete(wqe, st);
            if (localOps) {
                sqp.sendQueue().localOpDone();
                localOps = false;
            }
        } finally {
            sl.unlock();
            rl.unlock();
        }
    }

    /** {@code err} / {@code send_err}: complete the WQE with its error; an RC sender moves to ERR. */
    private int sendError(int index, RvtSwqe wqe, WcStatus st) {
        SpinningLock rl = sqp.recvLock();
        SpinningLock sl = sqp.sendLock();
        boolean lastWqe = false;
        rl.lock();
        sl.lock();
        try {
            if (sqp.sendQueue().last() == index) {
                sqp.sendQueue().sendComplete(wqe, st);
            }
            if (sqp.type() == QpType.RC) {
                lastWqe = sqp.errorQp(WcStatus.WR_FLUSH_ERR);
            }
            clearBusy();
        } finally {
            sl.unlock();
            rl.unlock();
        }
        return lastWqe ? ERROR : STOP;
    }
}
