package io.rvt.transport.rc;

import io.rvt.api.WorkCompletion;
import io.rvt.api.spi.AckEntry;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.Sge;
import io.rvt.api.spi.SgeState;
import io.rvt.transport.QpProtocolState;
import io.rvt.transport.SendScheduler;

/**
 * The RC protocol state of one QP beyond what rdmavt keeps in {@code struct rvt_qp} ({@code DriverQp}): the fields
 * qib and hfi1 add to it ({@code s_len}, {@code s_rdma_read_len}, {@code r_rcv_len}, {@code r_ack_psn},
 * {@code s_ack_psn}, {@code s_nak_state}, {@code s_ack_rdma_psn}, the RDMA READ response cursor) and the scratch
 * objects of the engines. Requester and response-builder fields are guarded by the QP's {@code sendLock}, responder
 * fields by its {@code recvLock}.
 */
public final class RcState extends QpProtocolState {
    // ------------------------------------------------------------ requester (sendLock)
    /** {@code s_len}: bytes of the WQE at {@code sendCur} not yet put into packets. */
    int sendLen;
    /** One past the highest PSN sent since reset (pre-rdmavt {@code s_next_psn}); valid once {@link #sentAny}. */
    int psnLimit;
    /** Whether any request has been sent since reset. */
    boolean sentAny;
    /** {@code s_rdma_read_len}: bytes of the RDMA READ response still expected. */
    int readLen;

    // ------------------------------------------------------------ responder (recvLock)
    /** {@code r_rcv_len}: bytes of the current message received so far. */
    int rcvLen;
    /** {@code r_ack_psn}: the PSN the next ACK acknowledges. */
    int ackPsn;
    /** Request packets accepted since the last ACK was queued (ACK coalescing). */
    int unackedPackets;
    /** The receive completion being built. */
    final WorkCompletion recvWc = new WorkCompletion();
    /** Target of an RDMA WRITE or atomic, validated by {@code rkeyOk}. */
    final Sge target = new Sge();

    // ------------------------------------------------------------ response builder (sendLock)
    /** {@code s_ack_psn}: PSN of the queued ACK/NAK. */
    int sendAckPsn;
    /** {@code s_nak_state}: syndrome of the queued NAK, 0 for an ACK. */
    int sendNakState;
    /** MSN reported by the queued NAK (taken when it was queued). */
    int sendNakMsn;
    /** {@code s_ack_rdma_psn}: PSN of the next RDMA READ response packet. */
    int ackRdmaPsn;
    /** {@code s_rdma_sge}: cursor over the RDMA READ source being answered (no references of its own). */
    final SgeState ackSge = new SgeState();

    /**
     * @param qp the RC QP
     * @param engine the RC engine
     * @param scheduler the driver's send scheduler
     */
    public RcState(DriverQp qp, RcEngine engine, SendScheduler scheduler) {
        super(qp, scheduler);
        engine(engine, this);
    }

    @Override
    public void reset() {
        sendLen = 0;
        psnLimit = 0;
        sentAny = false;
        readLen = 0;
        rcvLen = 0;
        ackPsn = 0;
        unackedPackets = 0;
        target.clear();
        sendAckPsn = 0;
        sendNakState = 0;
        sendNakMsn = 0;
        ackRdmaPsn = 0;
        ackSge.clear();
        DriverQp qp = qp();
        // The core dropped the entries' references; opcode 0 marks an entry as never used (qib's test).
        for (int i = 0; i < qp.ackQueueSize(); i++) {
            AckEntry e = qp.ackQueue(i);
            e.opcode(0).sent(false).psn(0).lpsn(0).atomicData(0);
            e.rdmaSge().clear();
        }
    }

    @Override
    public String toString() {
        return "RcState{sendLen=" + sendLen + ", psnLimit=" + psnLimit + ", readLen=" + readLen + ", rcvLen="
                + rcvLen + ", ackPsn=" + ackPsn + ", sendAckPsn=" + sendAckPsn + ", sendNakState=0x"
                + Integer.toHexString(sendNakState) + '}';
    }
}
