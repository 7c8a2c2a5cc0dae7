package io.rvt.core.qp;

import io.rvt.api.AsyncEventType;
import io.rvt.api.QpState;
import io.rvt.api.QpState.Ops;
import io.rvt.api.QpType;
import io.rvt.api.WcStatus;
import io.rvt.api.spi.engine.QpFlags;
import java.util.concurrent.RejectedExecutionException;

/**
 * A QP's ways into the error state beyond {@code rvt_error_qp} itself ({@link RvtQp#errorQp}): {@code rvt_rc_error}
 * from the receive path, CQ overflow from {@code rvt_send_cq}/{@code rvt_recv_cq} (in lock order, whatever the
 * caller holds), device removal (move to ERR and flush the send queue), and {@code rvt_qp_mr_clean} when a region
 * the QP uses is deregistered.
 */
final class QpErrors {
    private QpErrors() {
    }

    /**
     * Completes every posted send WQE with {@code WR_FLUSH_ERR} in order (what a driver's engine does in ERR); rvt
     * uses it when a device goes away, since the driver's engine is gone. It holds all three locks, so no post can
     * publish a WQE behind it (a post checks the device under {@code postLock}), and it waits while another engine
     * holds {@code S_BUSY}: that engine (e.g. the loopback on an application's thread) has read a WQE it is about to
     * complete, and in ERR it flushes the rest itself. rdmavt's flush ignores {@code S_BUSY} ([deviation]: there a
     * WQE could complete twice).
     */
    static void flushSendQueue(RvtQp qp) {
        long deadline = System.nanoTime() + RvtQp.BUSY_WAIT_NANOS;
        while (true) {
            qp.lockAll();
            try {
                if (!qp.state.can(Ops.FLUSH_SEND)) {
                    return;
                }
                if ((qp.req.flags & QpFlags.S_BUSY) == 0 || System.nanoTime() - deadline > 0) {
                    if ((qp.req.flags & QpFlags.S_BUSY) != 0) {
                        System.getLogger(RvtQp.class.getName()).log(System.Logger.Level.WARNING,
                                "QP 0x" + Integer.toHexString(qp.qpNum) + ": an engine kept S_BUSY for "
                                        + RvtQp.BUSY_WAIT_NANOS / 1_000_000_000L + " s after device removal; flushing");
                    }
                    qp.sq.flushPosted(WcStatus.WR_FLUSH_ERR);
                    return;
                }
            } finally {
                qp.unlockAll();
            }
            if (!qp.driver.progressWhileWaiting()) { // rvt extension: the engine may need this thread to run it
                Thread.yield(); // the busy engine needs recvLock and sendLock to finish
            }
        }
    }

    /**
     * rvt_send_cq/rvt_recv_cq on overflow: QP to ERR with LOC_QP_OP_ERR. rdmavt requires r_lock and s_lock here; a
     * Java caller may hold only one of them, and taking recvLock under sendLock would invert the lock order, so the
     * missing lock is taken only if that is safe, else the transition runs in lock order on the send CQ's completion
     * executor (rvt's {@code AgentExecutor} on the agent runtime, or the driver's: driver-sim's deterministic fabric
     * runs it in virtual time), never on a thread of its own.
     */
    static void errorOnOverflow(RvtQp qp) {
        boolean haveRecv = qp.recvLock.isHeldByCurrentThread();
        boolean haveSend = qp.sendLock.isHeldByCurrentThread();
        if (haveRecv && haveSend) {
            qp.errorQp(WcStatus.LOC_QP_OP_ERR);
        } else if (haveRecv) {
            qp.sendLock.lock();
            try {
                qp.errorQp(WcStatus.LOC_QP_OP_ERR);
            } finally {
                qp.sendLock.unlock();
            }
        } else if (!haveSend) {
            qp.recvLock.lock();
            qp.sendLock.lock();
            try {
                qp.errorQp(WcStatus.LOC_QP_OP_ERR);
            } finally {
                qp.sendLock.unlock();
                qp.recvLock.unlock();
            }
        } else if (qp.recvLock.tryLock()) {
            try {
                qp.errorQp(WcStatus.LOC_QP_OP_ERR);
            } finally {
                qp.recvLock.unlock();
            }
        } else {
            try {
                qp.sendCq.completionExecutor().execute(() -> moveToErrorWithStatus(qp, WcStatus.LOC_QP_OP_ERR));
            } catch (RejectedExecutionException e) {
                // the device is being removed, which moved every QP to ERR before it closed its executors
                System.getLogger(RvtQp.class.getName()).log(System.Logger.Level.DEBUG,
                        "QP {0}: the device is gone, no deferred error transition", qp.qpNum());
            }
        }
    }

    static void moveToErrorWithStatus(RvtQp qp, WcStatus err) {
        qp.recvLock.lock();
        qp.sendLock.lock();
        try {
            qp.errorQp(err);
        } finally {
            qp.sendLock.unlock();
            qp.recvLock.unlock();
        }
    }
    static void rcError(RvtQp qp, WcStatus err) {
        boolean lastWqe;
        qp.sendLock.lock();
        try {
            lastWqe = qp.errorQp(err);
        } finally {
            qp.sendLock.unlock();
        }
        if (lastWqe) {
            qp.event(AsyncEventType.QP_LAST_WQE_REACHED);
        }
    }

    /**
     * Moves the QP to ERR taking its locks (device removal), raising {@code QP_LAST_WQE_REACHED} if due.
     */
    static void moveToError(RvtQp qp) {
        boolean lastWqe;
        qp.recvLock.lock();
        qp.sendLock.lock();
        try {
            lastWqe = qp.errorQp(WcStatus.WR_FLUSH_ERR);
        } finally {
            qp.sendLock.unlock();
            qp.recvLock.unlock();
        }
        if (lastWqe) {
            qp.event(AsyncEventType.QP_LAST_WQE_REACHED);
        }
    }

    /**
     * Mirrors {@code rvt_qp_mr_clean}: if posted or in-progress work of this QP references {@code lkey}, moves the
     * QP to ERR with {@code LOC_PROT_ERR} (called for every QP of the PD when a region is deregistered).
     *
     * @param lkey the region's key
     */
    static void mrClean(RvtQp qp, int lkey) {
        if (qp.type == QpType.SMI || qp.type == QpType.GSI) {
            return;
        }
        boolean lastWqe = false;
        qp.lockAll();
        try {
            if (qp.state == QpState.ERR || qp.state == QpState.RESET) {
                return;
            }
            if (qp.rsp.sge.hasLkey(lkey) || qp.sq.hasLkey(lkey) || qp.req.rdmaReadSge.hasLkey(lkey)
                    || qp.ackQueue.hasLkey(lkey)) {
                lastWqe = qp.errorQp(WcStatus.LOC_PROT_ERR);
            }
        } finally {
            qp.unlockAll();
        }
        if (lastWqe) {
            qp.event(AsyncEventType.QP_LAST_WQE_REACHED);
        }
    }
}
