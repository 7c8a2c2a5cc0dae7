package io.rvt.core.qp;

import io.rvt.api.AccessFlag;
import io.rvt.api.Errno;
import io.rvt.api.QpState;
import io.rvt.api.QpState.Ops;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.ScatterGatherEntry;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WorkRequestException;
import io.rvt.api.spi.Aeth;
import io.rvt.api.spi.Seq24;
import io.rvt.api.spi.Sge;
import io.rvt.api.spi.engine.QpFlags;
import io.rvt.api.spi.engine.ResponderState;
import io.rvt.api.spi.engine.SgeState;
import io.rvt.core.mr.RvtLkeyTable;
import io.rvt.core.mr.RvtPd;
import io.rvt.core.srq.RvtRq;
import io.rvt.core.srq.RvtRwqe;
import io.rvt.core.srq.RvtSrq;

/**
 * A QP's responder state (see {@link ResponderState} for the fields and their lock) and its receive queue: the
 * {@code post_recv} verb ({@code rvt_post_recv}), receive-WQE consumption ({@code rvt_get_rwqe} with
 * {@code init_sge}), {@code rvt_get_rq_count}, {@code rvt_compute_aeth}, and the receive half of the error path
 * (completing the WQE in progress and flushing the own queue).
 *
 * <p>The receive queue has its own two locks ({@code RvtRq}'s producer and consumer locks, rdmavt's
 * {@code r_rq.kwq->p_lock} and {@code c_lock}); the responder takes the consumer lock inside {@code recvLock}. The
 * consumer lock of the QP's own queue is {@code recvLock} itself (a re-entry, no atomic); an SRQ's is its own.
 */
public final class RvtResponder extends ResponderState {
    private final RvtQp qp;
    private final RvtSrq srq;
    private final int maxRecvWr;
    final int maxSge;
    // Allocated by allocate(), on the QP's first way out of RESET (which accepts no receive): an idle QP has none.
    /** The own receive queue, or null with an SRQ (and before allocate). */
    RvtRq rq;
    private Sge[] sgList;
    private RvtRwqe rwqeScratch;
    private ScatterGatherEntry sgeScratch;
    /** Completion scratch for receive-side completions (recvLock). */
    private WorkCompletion wc;
    /** Completion scratch for post_recv flushes (the receive queue's producer lock). */
    private WorkCompletion postRecvWc;

    RvtResponder(RvtQp qp, RvtSrq srq, int maxRecvWr, int maxSge) {
        this.qp = qp;
        this.srq = srq;
        this.maxSge = maxSge;
        this.maxRecvWr = srq == null ? maxRecvWr : 0;
    }

    /** Allocates the receive queue and the scratch objects, once (every QP lock held). */
    void allocate() {
        if (wc != null) {
            return;
        }
        Sge[] list = new Sge[Math.max(maxSge, 1)];
        for (int i = 0; i < list.length; i++) {
            list[i] = new Sge();
        }
        sgList = list;
        rwqeScratch = new RvtRwqe(Math.max(maxSge, 1));
        sgeScratch = new ScatterGatherEntry();
        postRecvWc = new WorkCompletion();
        if (srq == null) {
            rq = new RvtRq(maxRecvWr + 1, maxSge, qp.recvLock()); // consumed under recvLock only
        }
        wc = new WorkCompletion();
    }

    /** Mirrors the responder half of {@code rvt_init_qp}. */
    void init(int idleState) {
        clear(idleState);
    }

    /** rvt_free_rq on the own receive queue (create failure, destroy). */
    void freeRq() {
        if (rq != null) {
            rq.free();
        }
    }

    /** @return {@code max_recv_wr} of the own queue (0 with an SRQ) */
    int maxRecvWr() {
        return maxRecvWr;
    }

    /**
     * The receive half of {@code rvt_error_qp} (recvLock and sendLock held): completes the WQE in progress with
     * {@code err} and flushes the own receive queue.
     *
     * @return true if the QP receives through an SRQ (the caller raises {@code QP_LAST_WQE_REACHED})
     */
    boolean error(WcStatus err) {
        if (testAndClearAflags(QpFlags.RA_WRID_VALID)) {
            wc.clear().wrId(wrId).status(err).opcode(WcOpcode.RECV).qpNum(qp.qpNum());
            qp.recvCompletionQueue().enter(wc, true);
        }
        if (srq == null) {
            flushRecvQueue();
            return false;
        }
        return true;
    }

    /** Completes every posted receive WQE of the own queue with WR_FLUSH_ERR (step 9 of rvt_error_qp). */
    private void flushRecvQueue() {
        // Both locks, in RvtRq's order: no post between the last take and the end of the flush (see postRecv).
        rq.producerLock().lock();
        rq.consumerLock().lock();
        try {
            while (rq.take(rwqeScratch)) {
                wc.clear().wrId(rwqeScratch.wrId()).status(WcStatus.WR_FLUSH_ERR).opcode(WcOpcode.RECV)
                        .qpNum(qp.qpNum());
                qp.recvCompletionQueue().enter(wc, true);
            }
        } finally {
            rq.consumerLock().unlock();
            rq.producerLock().unlock();
        }
    }

    /** Mirrors {@code rvt_post_recv}. */
    void postRecv(RecvWorkRequest wr) {
        int qpNum = qp.qpNum();
        QpState s = qp.state();
        if (!s.can(Ops.POST_RECV_OK) || srq != null) {
            throw new WorkRequestException(Errno.EINVAL, 0, "postRecv: QP 0x" + Integer.toHexString(qpNum)
                    + (srq != null ? " receives through an SRQ" : " is in state " + s + ", which does not accept"
                            + " receives"));
        }
        int n = 0;
        for (RecvWorkRequest w = wr; w != null; w = w.next(), n++) {
            if (w.numSge() > rq.maxSge()) {
                throw new WorkRequestException(Errno.EINVAL, n, "numSge " + w.numSge()
                        + " exceeds the QP's maxRecvSge " + rq.maxSge());
            }
            rq.producerLock().lock();
            try {
                if (rq.isFull()) {
                    throw new WorkRequestException(Errno.ENOMEM, n, "receive queue is full ("
                            + (rq.size() - 1) + " WQEs outstanding)");
                }
                // The state read again under the producer lock, which flushRecvQueue also holds: a receive posted
                // while another thread moves the QP to ERR is either queued before the flush (which completes it) or
                // sees ERR and completes here. rdmavt reads the state once, before the loop, and can leave one behind.
                if (qp.state().can(Ops.FLUSH_RECV) && srq == null) {
                    postRecvWc.clear().wrId(w.wrId()).status(WcStatus.WR_FLUSH_ERR).opcode(WcOpcode.RECV)
                            .qpNum(qpNum);
                    qp.recvCompletionQueue().enter(postRecvWc, true);
                } else {
                    rq.post(w);
                }
            } finally {
                rq.producerLock().unlock();
            }
        }
    }

    @Override
    public int getRwqe(boolean wrIdOnly) {
        return takeRwqe(wrIdOnly, false);
    }

    /**
     * The SGEs of a QP's own queue are validated without region references ({@link SgeState#borrow}): the caller
     * holds {@code recvLock} until they are used up or pinned, and a {@code deregMr} of their region (same PD as the
     * QP) waits for that lock in {@code rvt_qp_mr_clean}. With an SRQ, whose PD may differ, references are taken.
     */
    @Override
    public int getRwqeForOnePacket() {
        return takeRwqe(false, srq == null);
    }

    private int takeRwqe(boolean wrIdOnly, boolean borrow) {
        RvtRq q = srq != null ? srq.rq() : rq;
        boolean limitEvent = false;
        q.consumerLock().lock();
        try {
            if (!qp.state().can(Ops.PROCESS_RECV_OK)) {
                return 0;
            }
            RvtRwqe w = q.peek(); // read in its slot, consumed below
            if (w == null) {
                return 0;
            }
            boolean valid = wrIdOnly || initSge(w, borrow);
            long id = w.wrId();
            q.advance();
            if (!valid) {
                return -1;
            }
            wrId = id;
            setAflags(QpFlags.RA_WRID_VALID);
            if (srq != null) {
                limitEvent = srq.checkLimitLocked();
            }
        } finally {
            q.consumerLock().unlock();
        }
        if (limitEvent) {
            srq.raiseLimitEvent();
        }
        return 1;
    }

    /**
     * Mirrors {@code init_sge}: validates the RWQE's SGEs into {@link #sge} (with region references unless
     * {@code borrow}); on failure completes it.
     */
    private boolean initSge(RvtRwqe wqe, boolean borrow) {
        RvtPd recvPd = srq != null ? srq.pd() : qp.pd();
        int j = 0;
        int total = 0;
        for (int i = 0; i < wqe.numSge(); i++) {
            if (wqe.length(i) == 0) {
                continue;
            }
            sgeScratch.set(wqe.addr(i), wqe.length(i), wqe.lkey(i));
            RvtLkeyTable keys = qp.device().lkeyTable();
            int ok = borrow ? keys.lkeyOkUnreferenced(recvPd, sgList[j], sgeScratch, AccessFlag.LOCAL_WRITE.bit())
                    : keys.lkeyOk(recvPd, sgList[j], null, sgeScratch, AccessFlag.LOCAL_WRITE.bit());
            if (ok < 0) {
                for (int k = 0; k < j && !borrow; k++) {
                    sgList[k].release();
                }
                sge.clear();
                wc.clear().wrId(wqe.wrId()).status(WcStatus.LOC_PROT_ERR).opcode(WcOpcode.RECV).qpNum(qp.qpNum());
                qp.recvCompletionQueue().enter(wc, true);
                return false;
            }
            total += wqe.length(i);
            j++;
        }
        len = total;
        sge.init(sgList, 0, j, total);
        if (borrow) {
            sge.borrow();
        }
        return true;
    }

    @Override
    public int rqCount(int head, int tail) {
        return rq == null ? 0 : rq.count(head, tail);
    }

    @Override
    public int computeAeth() {
        int aeth = msn & Seq24.MASK;
        if (srq != null) {
            return aeth | (Aeth.CREDIT_INVAL << Aeth.CREDIT_SHIFT);
        }
        int credits = rq.approxCount();
        if (credits == 0) {
            credits = rq.count(rq.headAcquire(), rq.tail());
        }
        return aeth | (Aeth.creditCode(credits) << Aeth.CREDIT_SHIFT);
    }
}
