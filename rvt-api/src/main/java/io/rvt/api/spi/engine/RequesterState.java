package io.rvt.api.spi.engine;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The requester side of one QP: everything the driver's send engine reads and writes to turn posted send WQEs into
 * request packets and acknowledgements into completions. These are the {@code s_*} fields of rdmavt's
 * {@code struct rvt_qp} that belong to the engine, with the ones qib and hfi1 add to it ({@code s_len},
 * {@code s_rdma_read_len}), and rdmavt's RC credit and timer helpers, which act on them.
 *
 * <h2>Locking</h2>
 * Every field is read and written with the QP's {@link io.rvt.api.spi.DriverQp#sendLock() sendLock} ({@code s_lock}) held, and so is
 * every method. rvt-core writes them too, with {@code recvLock} held as well: {@code modify_qp} (SQ_PSN, RETRY_CNT,
 * RNR_RETRY), the reset to RESET ({@code rvt_init_qp}) and the error paths ({@code rvt_error_qp}). The one exception
 * is {@link #nextPsn}, which the post path assigns under {@link io.rvt.api.spi.DriverQp#postLock() postLock}.
 *
 * <h2>The send engine's cursors</h2>
 * Over the ring of {@link EngineQp#sendQueue()}: WQEs in {@code [acked, tail)} have been (at least partly) sent and
 * wait for their ACK or response, {@link #cur} is the WQE being turned into packets, and the circular order is
 * {@code last <= acked <= cur <= tail <= head}. {@link SendQueue#sendComplete} drags them past a completed slot.
 */
@ProviderType
public abstract class RequesterState {
    /** {@code s_flags}: {@link QpFlags} {@code S_*} bits (busy, waits, timer, credits). */
    public int flags;
    /** {@code s_tail}: one past the newest WQE started. */
    public int tail;
    /** {@code s_cur}: the WQE being sent. */
    public int cur;
    /** {@code s_acked}: the oldest WQE not yet acknowledged. */
    public int acked;
    /** {@code s_next_psn}: the PSN the next posted WQE gets (assigned at post, under {@code postLock}). */
    public int nextPsn;
    /** {@code s_psn}: the next PSN the engine sends. */
    public int psn;
    /** {@code s_last_psn}: the last PSN acknowledged. */
    public int lastPsn;
    /** {@code s_sending_psn}: the oldest PSN of the packets being sent. */
    public int sendingPsn;
    /** {@code s_sending_hpsn}: the newest PSN of the packets being sent. */
    public int sendingHpsn;
    /** {@code s_lsn}: the limit sequence number the peer's credits allow (set by {@link #getCredit}). */
    public int lsn;
    /** {@code s_retry}: transport retries left. */
    public int retry;
    /** {@code s_rnr_retry}: RNR retries left. */
    public int rnrRetry;
    /** {@code s_state}: the opcode of the last request packet built. */
    public int state;
    /** {@code s_num_rd_atomic}: RDMA READs and atomics outstanding. */
    public int numRdAtomic;
    /** {@code s_len}: bytes of the WQE at {@link #cur} not yet put into packets. */
    public int len;
    /** {@code s_rdma_read_len}: bytes of the RDMA READ response still expected. */
    public int rdmaReadLen;
    /** {@code s_sge}: the cursor over the scatter list of the WQE being sent. */
    public final SgeState sge = new SgeState();
    /** {@code s_rdma_read_sge}: the cursor an RDMA READ response is written through. */
    public final SgeState rdmaReadSge = new SgeState();

    /** For rvt-core, which keeps the one implementation. */
    protected RequesterState() {
    }

    /**
     * Mirrors {@code rvt_rc_credit_avail}: whether {@code wqe} may start given the peer's credits; if not, sets
     * {@code WAIT_SSN_CREDIT} and counts {@code RC_CRWAITS}.
     *
     * @param wqe the WQE about to start
     * @return true if it may start
     */
    public abstract boolean creditAvail(SendWqe wqe);

    /**
     * Mirrors {@code rvt_get_credit}: applies the credit code of a received AETH, rescheduling the send engine if a
     * credit wait is released.
     *
     * @param aeth the AETH value
     */
    public abstract void getCredit(int aeth);

    /** Mirrors {@code rvt_add_retry_timer}: {@link #addRetryTimerExt} with shift 0. */
    public abstract void addRetryTimer();

    /**
     * Mirrors {@code rvt_add_retry_timer_ext}: sets {@code TIMER} and arms the retry timer for
     * {@code busy_jiffies + (timeout_jiffies << shift)} ticks.
     *
     * @param shift how many timeouts' worth to wait (log2)
     */
    public abstract void addRetryTimerExt(int shift);

    /** Mirrors {@code rvt_mod_retry_timer}: {@link #modRetryTimerExt} with shift 0. */
    public abstract void modRetryTimer();

    /**
     * Mirrors {@code rvt_mod_retry_timer_ext}: sets {@code TIMER} and (re)arms the retry timer, pending or not.
     *
     * @param shift how many timeouts' worth to wait (log2)
     */
    public abstract void modRetryTimerExt(int shift);

    /**
     * Mirrors {@code rvt_add_rnr_timer}: sets {@code WAIT_RNR} and arms the RNR timer for the AETH's timer code.
     *
     * @param aeth the RNR NAK's AETH
     */
    public abstract void addRnrTimer(int aeth);

    /**
     * Mirrors {@code rvt_stop_rc_timers}: if a timer is armed, clears {@code TIMER}/{@code WAIT_RNR} and cancels both
     * without waiting.
     */
    public abstract void stopRcTimers();

    /**
     * Forgets the engine's state, as {@code rvt_init_qp} does on create and on the way to RESET: cursors, PSNs,
     * counters and waits (the {@code SIGNAL_REQ_WR} bit of {@link #flags} stays; the SGE cursors hold no references
     * of their own and are set up again before use).
     *
     * @param initialState the {@link #state} of an idle requester ({@code SEND_LAST} of the QP's transport)
     */
    protected void clear(int initialState) {
        flags &= QpFlags.S_SIGNAL_REQ_WR;
        tail = 0;
        cur = 0;
        acked = 0;
        nextPsn = 0;
        psn = 0;
        lastPsn = 0;
        sendingPsn = 0;
        sendingHpsn = 0;
        lsn = 0;
        state = initialState;
        numRdAtomic = 0;
        len = 0;
        rdmaReadLen = 0;
    }

    @Override
    public String toString() {
        return "RequesterState{flags=0x" + Integer.toHexString(flags) + ", acked=" + acked + ", cur=" + cur
                + ", tail=" + tail + ", psn=" + psn + ", lastPsn=" + lastPsn + ", state=0x"
                + Integer.toHexString(state) + ", len=" + len + '}';
    }
}
