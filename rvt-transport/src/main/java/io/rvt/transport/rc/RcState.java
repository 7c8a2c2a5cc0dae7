package io.rvt.transport.rc;

import io.rvt.api.WorkCompletion;
import io.rvt.api.spi.Sge;
import io.rvt.api.spi.engine.EngineQp;
import io.rvt.transport.engine.QpProtocolState;
import io.rvt.transport.engine.RxInfo;
import io.rvt.transport.engine.SendScheduler;
import java.util.concurrent.locks.Lock;

/**
 * What the RC engines keep per QP beyond the QP's own state: the highest PSN sent (for go-back-N), ACK coalescing,
 * and scratch objects that keep the engines free of per-packet allocation. Everything rdmavt, qib and hfi1 keep in
 * {@code struct rvt_qp} is the QP's: the requester's PSNs, cursors and {@code s_len} in {@code qp.requester()}
 * ({@code sendLock}), the responder's PSN, MSN and {@code r_rcv_len} in {@code qp.responder()} ({@code recvLock}),
 * and the ack queue with the response builder's {@code s_ack_psn}, {@code s_nak_state} and RDMA READ response cursor
 * in {@code qp.ackQueue()}. The requester fields here are guarded by the QP's {@code sendLock}, the responder fields
 * by its {@code recvLock}.
 */
public final class RcState extends QpProtocolState {
    // ------------------------------------------------------------ requester (sendLock)
    /** One past the highest PSN sent since reset (pre-rdmavt {@code s_next_psn}); valid once {@link #sentAny}. */
    int psnLimit;
    /** Whether any request has been sent since reset. */
    boolean sentAny;
    /** The congestion window, PSNs in flight ({@link RcWindow}); {@link RcWindow#UNLIMITED} until a loss. */
    int cwnd = RcWindow.UNLIMITED;
    /** PSNs acknowledged towards the next opening of {@link #cwnd}. */
    int cwndAcked;
    /** The port budget {@link #charged} is counted in, or null. */
    RcWindow chargedTo;
    /** The PSNs in flight this QP has counted in {@link #chargedTo}. */
    int charged;

    // ------------------------------------------------------------ responder (recvLock)
    /** Request packets accepted since the last ACK was queued (ACK coalescing). */
    int unackedPackets;
    /** An ACK of {@code responder().ackPsn} is owed, to be queued at the receive batch's end. */
    boolean ackDeferred;
    /** This state is on a receive batch's list of owed ACKs ({@link RxInfo#deferAck}), flushed or not. */
    boolean ackListed;
    /** ACK requests the owed ACK covers beyond the first (counted as {@code RC_QACKS} when it is queued). */
    int ackCoalesced;
    /** The receive completion being built. */
    final WorkCompletion recvWc = new WorkCompletion();
    /** Target of an RDMA WRITE or atomic, validated by {@code rkeyOk}. */
    final Sge target = new Sge();

    /**
     * @param qp the RC QP
     * @param engine the RC engine
     * @param scheduler the driver's send scheduler
     */
    public RcState(EngineQp qp, RcEngine engine, SendScheduler scheduler) {
        super(qp, scheduler);
        engine(engine, this);
    }

    @Override
    public void reset() {
        psnLimit = 0;
        sentAny = false;
        RcWindow.refund(this);
        cwnd = RcWindow.UNLIMITED;
        cwndAcked = 0;
        unackedPackets = 0;
        ackDeferred = false; // ackListed stays: the batch's list still holds this state until its end
        ackCoalesced = 0;
        target.clear();
    }

    /** Queues the ACK the last receive batch deferred ({@link RcResponder#deferAck}); takes the QP's locks. */
    @Override
    protected void flushDeferredAck() {
        EngineQp qp = qp();
        Lock rl = qp.recvLock();
        rl.lock();
        try {
            ackListed = false;
            if (ackDeferred) {
                RcResponder.queueAck(qp, this);
            }
        } finally {
            rl.unlock();
        }
    }

    @Override
    public String toString() {
        return "RcState{psnLimit=" + psnLimit + ", sentAny=" + sentAny + ", cwnd=" + cwnd + ", charged=" + charged
                + ", unackedPackets=" + unackedPackets + '}';
    }
}
