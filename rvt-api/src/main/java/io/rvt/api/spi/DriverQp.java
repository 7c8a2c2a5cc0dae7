package io.rvt.api.spi;

import io.rvt.api.AhAttr;
import io.rvt.api.MigState;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QueuePair;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import java.util.concurrent.locks.Lock;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The driver's view of a queue pair ({@code struct rvt_qp}) with the {@code rdmavt_qp.h} helpers as methods.
 *
 * <h2>Locks</h2>
 * Three locks, always taken in the order {@link #recvLock()} ({@code r_lock}) → {@link #postLock()}
 * ({@code s_hlock}) → {@link #sendLock()} ({@code s_lock}). The state and attributes are written only with the
 * receive and send locks both held (by {@code modifyQp}, reset and the error paths), so a reader holding either one
 * sees them stable. Each accessor below says which lock guards the field; "send engine" means {@code sendLock}.
 *
 * <h2>The send ring</h2>
 * {@link #sendSize()} slots ({@code max_send_wr + 1 + reserved_operations}); WQEs in {@code [sendLast, sendHead)} are
 * posted and not yet completed. The poster advances {@code sendHead} (release store, under {@code postLock}); the
 * driver's send engine advances {@code sendTail}, {@code sendCur}, {@code sendAcked} under {@code sendLock}; only
 * {@link #completeSwqe} advances {@code sendLast} (release store, after the reserved count is updated). Circular
 * order: {@code sendLast <= sendAcked <= sendCur <= sendTail <= sendHead}.
 */
@ProviderType
public interface DriverQp extends QueuePair {
    @Override
    DriverDevice device();

    /** @return mirrors {@code rvt_to_iport}: the QP's port ({@code ports[port_num - 1]}), or null before PORT is set */
    DriverPort iport();

    /** @return the port number (1-based; 0 until set) */
    int portNum();

    /** @return the PD */
    ProtectionDomain pd();

    /** @return the driver's private object ({@code priv}, from {@code qp_priv_alloc}) */
    Object priv();

    /** @return mirrors {@code rvt_is_user_qp}: created on behalf of user space (always false in rvt) */
    boolean isUserQp();

    // ------------------------------------------------------------------ locks

    /** @return {@code r_lock}: receive side, and (with {@code sendLock}) state changes */
    Lock recvLock();

    /** @return {@code s_hlock}: the post side of the send ring ({@code sendHead}, PSN/SSN assignment) */
    Lock postLock();

    /** @return {@code s_lock}: the send engine ({@code s_flags}, ring cursors, PSN tracking, timers) */
    Lock sendLock();

    // ------------------------------------------------------------------ attributes (recv+send locks to write)

    /** @return destination QPN ({@code remote_qpn}) */
    int remoteQpn();

    /** @return Q_Key ({@code qkey}) */
    int qkey();

    /** @return remote access flags ({@code qp_access_flags}) */
    int accessFlags();

    /** @return the primary path ({@code remote_ah_attr}; do not modify) */
    AhAttr remoteAhAttr();

    /** @return the alternate path ({@code alt_ah_attr}; do not modify) */
    AhAttr altAhAttr();

    /** @return P_Key index ({@code s_pkey_index}) */
    int pkeyIndex();

    /** @return path MTU in bytes ({@code pmtu}, from {@code mtu_from_qp}) */
    int pmtu();

    /** @return log2 of {@link #pmtu()} ({@code log_pmtu}) */
    int logPmtu();

    /** @return local ACK timeout code ({@code timeout}) */
    int timeout();

    /** @return retry timeout in ticks ({@code timeout_jiffies}) */
    long timeoutTicks();

    /** @return transport retry count ({@code s_retry_cnt}) */
    int retryCnt();

    /** @return RNR retry count ({@code s_rnr_retry_cnt}; 7 = forever) */
    int rnrRetryCnt();

    /** @return RNR NAK timer code this QP sends ({@code r_min_rnr_timer}) */
    int minRnrTimer();

    /** @return initiator depth ({@code s_max_rd_atomic}) */
    int maxRdAtomic();

    /** @return responder resources ({@code r_max_rd_atomic}) */
    int maxDestRdAtomic();

    /** @return path migration state ({@code s_mig_state}) */
    MigState migState();

    /** @return the send CQ */
    DriverCq sendCompletionQueue();

    /** @return the receive CQ */
    DriverCq recvCompletionQueue();

    /** @return true if the QP receives through a shared receive queue */
    boolean hasSrq();

    // ------------------------------------------------------------------ send ring

    /** @return slots in the send ring ({@code s_size}) */
    int sendSize();

    /** @return most SGEs per send WQE ({@code s_max_sge}) */
    int sendMaxSge();

    /** @return {@code s_head} with acquire semantics (pairs with the post's release store) */
    int sendHead();

    /** @return {@code s_tail} (send engine) */
    int sendTail();

    /**
     * @param i new {@code s_tail} (send engine)
     */
    void sendTail(int i);

    /** @return {@code s_cur} (send engine) */
    int sendCur();

    /**
     * @param i new {@code s_cur} (send engine)
     */
    void sendCur(int i);

    /** @return {@code s_acked} (send engine) */
    int sendAcked();

    /**
     * @param i new {@code s_acked} (send engine)
     */
    void sendAcked(int i);

    /** @return {@code s_last} with acquire semantics (pairs with the release store in {@link #completeSwqe}) */
    int sendLast();

    /**
     * Mirrors {@code rvt_get_swqe_ptr}.
     *
     * @param index a ring index, below {@link #sendSize()}
     * @return the slot
     */
    SendWqe swqe(int index);

    /**
     * Mirrors {@code rvt_qp_swqe_incr}: the ring index after {@code index}.
     *
     * @param index a ring index
     * @return {@code index + 1}, or 0 past the end
     */
    int swqeIncr(int index);

    /** @return {@code s_reserved_used}: posted WQEs occupying reserved slots */
    int sendReservedUsed();

    /** @return {@code s_avail}: cached lower bound of free ordinary slots (under {@code postLock}) */
    int sendAvail();

    /**
     * Mirrors {@code rvt_qp_is_avail}: whether a normal or reserved WQE may be posted now (poster, {@code postLock}
     * held). Recomputes {@code s_avail} from {@code s_last} when the cache is 0.
     *
     * @param reservedOp whether the WQE would take a reserved slot
     * @return true if a slot is available
     */
    boolean isAvail(boolean reservedOp);

    /**
     * Mirrors {@code rvt_qp_wqe_reserve}: counts {@code wqe} as occupying a reserved slot. Called by the post path only
     * ({@code postLock} held), before {@code sendHead} is published.
     *
     * @param wqe the WQE (unused, as in rdmavt)
     */
    void wqeReserve(SendWqe wqe);

    /**
     * Mirrors {@code rvt_qp_wqe_unreserve}: if {@code sendFlags} has {@link QpFlags#SEND_RESERVE_USED}, uncounts the
     * reserved slot with a full fence. Must precede the {@code sendLast} update for that WQE;
     * {@link #completeSwqe} does both, so drivers do not call this themselves.
     *
     * @param sendFlags the WQE's send flags
     */
    void wqeUnreserve(int sendFlags);

    /**
     * Mirrors {@code rvt_qp_complete_swqe}: retires the WQE at {@code sendLast} (send engine, {@code sendLock} held):
     * unreserves it, drops its references, publishes the new {@code sendLast}, and inserts a completion unless it is
     * a reserved operation, or it succeeded unsignalled on a {@code SIGNAL_REQ_WR} QP. Errors always complete.
     *
     * @param wqe the WQE at {@code sendLast}
     * @param opcode the completion opcode
     * @param status the status
     * @return the new {@code sendLast}
     */
    int completeSwqe(SendWqe wqe, WcOpcode opcode, WcStatus status);

    /**
     * Mirrors {@code rvt_send_complete}: {@link #completeSwqe} with the opcode from the operation table, then drags
     * {@code sendAcked}, {@code sendCur} and {@code sendTail} past the completed slot and ends SQD draining. Does
     * nothing in RESET, INIT and RTR. {@code sendLock} held.
     *
     * @param wqe the WQE at {@code sendLast}
     * @param status the status
     */
    void sendComplete(SendWqe wqe, WcStatus status);

    /**
     * Mirrors {@code rvt_put_qp_swqe}: drops the WQE's region references and its cached address attributes.
     *
     * @param wqe the WQE
     */
    void putSwqe(SendWqe wqe);

    /** @return {@code s_flags} (send engine) */
    int sendFlags();

    /**
     * @param flags new {@code s_flags} (send engine)
     */
    void sendFlags(int flags);

    /** @return whether SQD is draining ({@code s_draining}) */
    boolean sendDraining();

    /** @return deferred local operations in the ring ({@code local_ops_pending}) */
    int localOpsPending();

    /**
     * Decrements {@code local_ops_pending} after the engine executed a deferred LOCAL_INV.
     */
    void localOpDone();

    // ------------------------------------------------------------------ PSNs and sequence state (send engine)

    /** @return {@code s_next_psn}: PSN of the next packet to send (assigned at post) */
    int sendNextPsn();

    /**
     * @param psn new {@code s_next_psn}
     */
    void sendNextPsn(int psn);

    /** @return {@code s_psn}: next PSN the engine sends */
    int sendPsn();

    /**
     * @param psn new {@code s_psn}
     */
    void sendPsn(int psn);

    /** @return {@code s_last_psn}: last PSN acknowledged */
    int sendLastPsn();

    /**
     * @param psn new {@code s_last_psn}
     */
    void sendLastPsn(int psn);

    /** @return {@code s_sending_psn} */
    int sendSendingPsn();

    /**
     * @param psn new {@code s_sending_psn}
     */
    void sendSendingPsn(int psn);

    /** @return {@code s_sending_hpsn} */
    int sendSendingHpsn();

    /**
     * @param psn new {@code s_sending_hpsn}
     */
    void sendSendingHpsn(int psn);

    /** @return {@code s_lsn}: limit sequence number from the peer's credits */
    int sendLsn();

    /** @return {@code s_retry}: retries left */
    int sendRetry();

    /**
     * @param n new {@code s_retry}
     */
    void sendRetry(int n);

    /** @return {@code s_rnr_retry}: RNR retries left */
    int sendRnrRetry();

    /**
     * @param n new {@code s_rnr_retry}
     */
    void sendRnrRetry(int n);

    /** @return {@code s_state}: requester's last opcode sent */
    int sendState();

    /**
     * @param s new {@code s_state}
     */
    void sendState(int s);

    /** @return {@code s_ack_state} */
    int sendAckState();

    /**
     * @param s new {@code s_ack_state}
     */
    void sendAckState(int s);

    /** @return {@code s_num_rd_atomic}: outstanding RDMA READ/atomics issued */
    int sendNumRdAtomic();

    /**
     * @param n new {@code s_num_rd_atomic}
     */
    void sendNumRdAtomic(int n);

    /** @return the requester's SGE cursor ({@code s_sge}) */
    SgeState sendSge();

    /** @return the RDMA READ response cursor ({@code s_rdma_read_sge}) */
    SgeState sendRdmaReadSge();

    // ------------------------------------------------------------------ responder ack queue

    /** @return ack-queue length ({@code rvt_max_atomic}; 0 for non-RC QPs) */
    int ackQueueSize();

    /**
     * @param i index, below {@link #ackQueueSize()}
     * @return the entry ({@code s_ack_queue[i]})
     */
    AckEntry ackQueue(int i);

    /** @return {@code r_head_ack_queue} */
    int recvHeadAckQueue();

    /**
     * @param i new {@code r_head_ack_queue}
     */
    void recvHeadAckQueue(int i);

    /** @return {@code s_tail_ack_queue} */
    int sendTailAckQueue();

    /**
     * @param i new {@code s_tail_ack_queue}
     */
    void sendTailAckQueue(int i);

    // ------------------------------------------------------------------ receive side (recvLock)

    /** @return {@code r_psn}: next expected PSN */
    int recvPsn();

    /**
     * @param psn new {@code r_psn}
     */
    void recvPsn(int psn);

    /** @return {@code r_msn}: message sequence number */
    int recvMsn();

    /**
     * @param msn new {@code r_msn}
     */
    void recvMsn(int msn);

    /** @return {@code r_state}: responder's last opcode seen */
    int recvState();

    /**
     * @param s new {@code r_state}
     */
    void recvState(int s);

    /** @return {@code r_nak_state} */
    int recvNakState();

    /**
     * @param s new {@code r_nak_state}
     */
    void recvNakState(int s);

    /** @return {@code r_flags} ({@link QpFlags} {@code R_*}) */
    int recvFlags();

    /**
     * @param flags new {@code r_flags}
     */
    void recvFlags(int flags);

    /** @return {@code r_aflags} ({@link QpFlags} {@code RA_*}; atomic) */
    int recvAflags();

    /**
     * Atomically sets {@code r_aflags} bits.
     *
     * @param bits {@link QpFlags} {@code RA_*} masks
     */
    void setRecvAflags(int bits);

    /**
     * Atomically clears {@code r_aflags} bits, reporting whether any was set ({@code test_and_clear_bit}).
     *
     * @param bits {@link QpFlags} {@code RA_*} masks
     * @return true if any of {@code bits} was set
     */
    boolean testAndClearRecvAflags(int bits);

    /** @return {@code r_wr_id}: id of the receive WQE being filled */
    long recvWrId();

    /** @return {@code r_len}: bytes the current receive WQE holds */
    int recvLen();

    /**
     * @param len new {@code r_len}
     */
    void recvLen(int len);

    /** @return the receive cursor ({@code r_sge}) */
    SgeState recvSge();

    /**
     * Mirrors {@code rvt_get_rwqe}: consumes the next receive WQE (own queue or SRQ) into {@link #recvSge()},
     * validating its SGEs, setting {@code r_wr_id} and {@code RA_WRID_VALID}; may raise the SRQ limit event.
     * {@code recvLock} held.
     *
     * @param wrIdOnly take only the id (RDMA WRITE with immediate), without validating SGEs
     * @return 1 if one was consumed, 0 if none is available (or the state does not receive), -1 if its SGEs failed
     *         validation (a {@code LOC_PROT_ERR} completion was inserted)
     */
    int getRwqe(boolean wrIdOnly);

    /**
     * Mirrors {@code rvt_get_rq_count} on this QP's own queue.
     *
     * @param head a head index, below the queue size
     * @param tail a tail index, below the queue size
     * @return entries in {@code [tail, head)}
     */
    int rqCount(int head, int tail);

    // ------------------------------------------------------------------ completion and error helpers

    /**
     * Mirrors {@code rvt_send_cq}: inserts a send completion; on CQ overflow moves the QP to ERR with
     * {@code LOC_QP_OP_ERR}. {@code recvLock} and {@code sendLock} held.
     *
     * @param wc the completion, copied
     * @param solicited whether it is solicited
     * @return false on overflow
     */
    boolean sendCq(WorkCompletion wc, boolean solicited);

    /**
     * Mirrors {@code rvt_recv_cq}: inserts a receive completion; on CQ overflow moves the QP to ERR with
     * {@code LOC_QP_OP_ERR}. {@code recvLock} held.
     *
     * @param wc the completion, copied
     * @param solicited whether it is solicited (the packet's SE bit)
     * @return false on overflow
     */
    boolean recvCq(WorkCompletion wc, boolean solicited);

    /**
     * Mirrors {@code rvt_error_qp}: moves the QP to ERR (idempotent), stops its timers, asks the driver to flush
     * waiters and (if WQEs are posted) to schedule the send engine, completes the receive WQE in progress with
     * {@code err} and flushes the own receive queue. {@code recvLock} and {@code sendLock} held.
     *
     * @param err status for the receive WQE in progress
     * @return true if the caller must raise {@code QP_LAST_WQE_REACHED} after dropping the locks (SRQ QPs)
     */
    boolean errorQp(WcStatus err);

    /**
     * Mirrors {@code rvt_rc_error}: {@link #errorQp} taking {@code sendLock} itself, then raises
     * {@code QP_LAST_WQE_REACHED} if needed. Called from the receive path with {@code recvLock} held.
     *
     * @param err status for the receive WQE in progress
     */
    void rcError(WcStatus err);

    /**
     * Mirrors {@code rvt_comm_est}: marks communication established and raises {@code COMM_EST} (first packet
     * received in RTR).
     */
    void commEst();

    // ------------------------------------------------------------------ MTU and credits

    /**
     * Mirrors {@code rvt_div_round_up_mtu}: packets needed for {@code len} bytes ({@code (len + pmtu - 1) >> log_pmtu},
     * u32 arithmetic).
     *
     * @param len bytes
     * @return packets
     */
    int divRoundUpMtu(int len);

    /**
     * Mirrors {@code rvt_div_mtu}: whole MTUs in {@code len} bytes.
     *
     * @param len bytes
     * @return {@code len >>> log_pmtu}
     */
    int divMtu(int len);

    /**
     * Mirrors {@code rvt_rc_credit_avail}: whether {@code wqe} may start given the peer's credits; if not, sets
     * {@code WAIT_SSN_CREDIT} and counts {@code RC_CRWAITS}. {@code sendLock} held.
     *
     * @param wqe the WQE about to start
     * @return true if it may start
     */
    boolean rcCreditAvail(SendWqe wqe);

    /**
     * Mirrors {@code rvt_get_credit}: applies the credit code of a received AETH (requester side; {@code sendLock}
     * held), rescheduling the send engine if a credit wait is released.
     *
     * @param aeth the AETH value
     */
    void getCredit(int aeth);

    /**
     * Mirrors {@code rvt_compute_aeth}: the AETH the responder sends: MSN, and the credit code of the receive WQEs
     * available ({@code 0x1F} with an SRQ).
     *
     * @return the AETH value (syndrome class ACK)
     */
    int computeAeth();

    // ------------------------------------------------------------------ timers (sendLock held)

    /**
     * Mirrors {@code rvt_add_retry_timer}: {@link #addRetryTimerExt} with shift 0.
     */
    void addRetryTimer();

    /**
     * Mirrors {@code rvt_add_retry_timer_ext}: sets {@code TIMER} and arms the retry timer for
     * {@code busy_jiffies + (timeout_jiffies << shift)} ticks.
     *
     * @param shift how many timeouts' worth to wait (log2)
     */
    void addRetryTimerExt(int shift);

    /**
     * Mirrors {@code rvt_mod_retry_timer}: {@link #modRetryTimerExt} with shift 0.
     */
    void modRetryTimer();

    /**
     * Mirrors {@code rvt_mod_retry_timer_ext}: sets {@code TIMER} and (re)arms the retry timer, pending or not.
     *
     * @param shift how many timeouts' worth to wait (log2)
     */
    void modRetryTimerExt(int shift);

    /**
     * Mirrors {@code rvt_add_rnr_timer}: sets {@code WAIT_RNR} and arms the RNR timer for the AETH's timer code.
     *
     * @param aeth the RNR NAK's AETH
     */
    void addRnrTimer(int aeth);

    /**
     * Mirrors {@code rvt_stop_rc_timers}: if a timer is armed, clears {@code TIMER}/{@code WAIT_RNR} and cancels both
     * without waiting.
     */
    void stopRcTimers();

    /**
     * Mirrors {@code rvt_del_timers_sync}: cancels both timers and waits for running callbacks (no QP lock held).
     */
    void delTimersSync();

    // ------------------------------------------------------------------ keys, loopback, references

    /**
     * Mirrors {@code rvt_rkey_ok}: validates a remote access of {@code len} bytes at {@code vaddr} with
     * {@code rkey}: region present and published, key and PD match, range inside, any of {@code acc} granted. On
     * success fills {@code sge} and takes a region reference.
     *
     * @param sge filled on success
     * @param len bytes
     * @param vaddr virtual address
     * @param rkey remote key
     * @param acc {@code AccessFlag} bits, any of which suffices
     * @return true if valid
     */
    boolean rkeyOk(Sge sge, int len, long vaddr, int rkey, int acc);

    /**
     * Mirrors {@code rvt_invalidate_rkey}: invalidates the region with {@code rkey} in this QP's PD.
     *
     * @param rkey the key
     * @return 0, or -22 ({@code -EINVAL}) for key 0, an unknown key or another PD's region
     */
    int invalidateRkey(int rkey);

    /**
     * Mirrors {@code rvt_ruc_loopback}: delivers this RC/UC QP's posted WQEs to the local QP {@code remoteQpn}
     * without packets, completing them. Called by the driver's send engine with no QP lock held.
     */
    void rucLoopback();

    /** Mirrors {@code rvt_get_qp}: takes a reference; destroy waits for every reference to be dropped. */
    void retain();

    /** Mirrors {@code rvt_put_qp}: drops a reference. */
    void release();

    /** @return the current reference count */
    int refCount();
}
