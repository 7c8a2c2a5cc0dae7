package io.rvt.api.spi.engine;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The responder side of one QP: everything the driver's receive path reads and writes to turn request packets into
 * receive completions and responses. These are the {@code r_*} fields of rdmavt's {@code struct rvt_qp} (with
 * {@code r_rcv_len} and {@code r_ack_psn}, which qib and hfi1 use), and the helpers that consume receive WQEs and
 * report credits.
 *
 * <h2>Locking</h2>
 * Every field is read and written with the QP's {@link io.rvt.api.spi.DriverQp#recvLock() recvLock} ({@code r_lock}) held, and so is
 * every method. rvt-core writes them too, with {@code sendLock} held as well: {@code modify_qp} (RQ_PSN, the
 * {@code COMM_EST} bit), the reset to RESET and the error paths. {@link #aflags()} ({@code r_aflags}) is written
 * under {@code recvLock} too (rdmavt's are atomic bit operations because kernel paths touch them without
 * {@code r_lock}; every path here holds it, so the test-and-clear of each message needs no atomic instruction).
 */
@ProviderType
public abstract class ResponderState {
    /** {@code r_psn}: the next PSN expected. */
    public int psn;
    /** {@code r_msn}: the message sequence number. */
    public int msn;
    /** {@code r_state}: the opcode of the last request packet accepted. */
    public int state;
    /** {@code r_nak_state}: the NAK this responder owes (0 for none). */
    public int nakState;
    /** {@code r_flags}: {@link QpFlags} {@code R_*} bits. */
    public int flags;
    /** {@code r_wr_id}: the id of the receive WQE being filled (set by {@link #getRwqe}). */
    public long wrId;
    /** {@code r_len}: bytes the current receive WQE holds. */
    public int len;
    /** {@code r_rcv_len}: bytes of the current message received so far. */
    public int rcvLen;
    /** {@code r_ack_psn}: the PSN the next ACK acknowledges. */
    public int ackPsn;
    /** {@code r_sge}: the cursor over the receive WQE being filled. */
    public final SgeState sge = new SgeState();
    /** {@code r_aflags}: {@code recvLock}, as the other fields (a plain field: no fence per message). */
    private int aflags;

    /** For rvt-core, which keeps the one implementation. */
    protected ResponderState() {
    }

    /**
     * Mirrors {@code rvt_get_rwqe}: consumes the next receive WQE (the QP's own queue or its SRQ) into {@link #sge},
     * validating its SGEs, setting {@link #wrId} and {@code RA_WRID_VALID}; may raise the SRQ limit event.
     *
     * @param wrIdOnly take only the id (RDMA WRITE with immediate), without validating SGEs
     * @return 1 if one was consumed, 0 if none is available (or the state does not receive), -1 if its SGEs failed
     *         validation (a {@code LOC_PROT_ERR} completion was inserted)
     */
    public abstract int getRwqe(boolean wrIdOnly);

    /**
     * As {@link #getRwqe getRwqe(false)} for a message that ends in the packet being processed (an ONLY opcode): the
     * SGEs may be validated without taking region references, the {@link #sge} state then {@link SgeState#borrow
     * borrowed}. The caller holds {@code recvLock} until the state is used up or put, or {@link SgeState#pin pins} it
     * before releasing the lock. By default, and for a QP on an SRQ (whose PD need not be the QP's), references are
     * taken. An rvt extension.
     *
     * @return as {@link #getRwqe}
     */
    public int getRwqeForOnePacket() {
        return getRwqe(false);
    }

    /**
     * The receive WQE for a datagram (UD, GSI, SMI): the one the last datagram left because it was too large for it
     * ({@code RVT_R_REUSE_SGE}, cleared here), else the next one ({@link #getRwqe getRwqe(false)}). The UD receive
     * paths (rdmavt's drivers' {@code ud_rcv}, hfi1's {@code ud_loopback}) each do this test before
     * {@code rvt_get_rwqe}.
     *
     * @return as {@link #getRwqe}: 1 if a WQE is ready, 0 if none, -1 if its SGEs failed validation
     */
    public final int datagramRwqe() {
        if ((flags & QpFlags.R_REUSE_SGE) != 0) {
            flags &= ~QpFlags.R_REUSE_SGE;
            return 1;
        }
        return getRwqe(false);
    }

    /**
     * Mirrors {@code rvt_get_rq_count} on the QP's own receive queue.
     *
     * @param head a head index, below the queue size
     * @param tail a tail index, below the queue size
     * @return entries in {@code [tail, head)} (0 with an SRQ, and before the QP first left RESET: the queue is
     *         allocated then)
     */
    public abstract int rqCount(int head, int tail);

    /**
     * Mirrors {@code rvt_compute_aeth}: the AETH the responder sends: {@link #msn}, and the credit code of the
     * receive WQEs available ({@code 0x1F} with an SRQ).
     *
     * @return the AETH value (syndrome class ACK)
     */
    public abstract int computeAeth();

    /** @return {@code r_aflags}: {@link QpFlags} {@code RA_*} bits (caller holds {@code recvLock}) */
    public final int aflags() {
        return aflags;
    }

    /**
     * Sets {@code r_aflags} bits ({@code set_bit}); caller holds {@code recvLock}.
     *
     * @param bits {@link QpFlags} {@code RA_*} masks
     */
    public final void setAflags(int bits) {
        int v = aflags;
        if ((v & bits) != bits) {
            aflags = v | bits;
        }
    }

    /**
     * Clears {@code r_aflags} bits, reporting whether any was set ({@code test_and_clear_bit}); caller holds
     * {@code recvLock}.
     *
     * @param bits {@link QpFlags} {@code RA_*} masks
     * @return true if any of {@code bits} was set
     */
    public final boolean testAndClearAflags(int bits) {
        int v = aflags;
        if ((v & bits) == 0) {
            return false;
        }
        aflags = v & ~bits;
        return true;
    }

    /**
     * Forgets the responder's state, as {@code rvt_init_qp} does on create and on the way to RESET (the caller has
     * dropped the references {@link #sge} held).
     *
     * @param initialState the {@link #state} of an idle responder ({@code SEND_LAST} of the QP's transport)
     */
    protected void clear(int initialState) {
        psn = 0;
        msn = 0;
        state = initialState;
        nakState = 0;
        flags = 0;
        aflags = 0;
        rcvLen = 0;
        ackPsn = 0;
        sge.clear();
    }

    @Override
    public String toString() {
        return "ResponderState{psn=" + psn + ", msn=" + msn + ", state=0x" + Integer.toHexString(state)
                + ", nakState=0x" + Integer.toHexString(nakState) + ", flags=0x" + Integer.toHexString(flags)
                + ", aflags=0x" + Integer.toHexString(aflags) + ", len=" + len + ", rcvLen=" + rcvLen + '}';
    }
}
