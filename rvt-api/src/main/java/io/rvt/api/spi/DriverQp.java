package io.rvt.api.spi;

import io.rvt.api.AhAttr;
import io.rvt.api.MigState;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import java.util.concurrent.locks.Lock;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The driver's view of a queue pair ({@code struct rvt_qp}): its identity and attributes, its three locks, the
 * driver's private object, and the helpers of rdmavt a driver calls on a QP ({@code rvt_send_cq},
 * {@code rvt_error_qp}, {@code rvt_rkey_ok}, {@code rvt_ruc_loopback}, {@code rvt_get_qp}/{@code rvt_put_qp}, ...).
 * It is not the application's {@link io.rvt.api.QueuePair}: a callback, which may hold the QP's locks, cannot post,
 * modify or destroy through it (Netty's {@code Channel.Unsafe} is the model: what the transport may do, apart from
 * what the user may do). Protocol state of a transport beyond rdmavt's lives in the driver's {@link #priv()} object;
 * the send ring, requester, responder and ack-queue state that rvt-core and rvt-transport share is not part of the
 * driver SPI (it is {@code io.rvt.api.spi.engine}, exported to those two modules only).
 *
 * <h2>Locks</h2>
 * Three locks, always taken in the order {@link #recvLock()} ({@code r_lock}) → {@link #postLock()}
 * ({@code s_hlock}) → {@link #sendLock()} ({@code s_lock}). The state and attributes are written only with the
 * receive and send locks both held (by {@code modifyQp}, reset and the error paths), so a reader holding either one
 * sees them stable. They are plain {@link Lock}s: drivers lock, unlock and try; there are no conditions.
 */
@ProviderType
public interface DriverQp {
    /** @return the QP's device ({@code ibqp.device}) */
    DriverDevice device();

    /** @return the QP number ({@code ibqp.qp_num}) */
    int qpNum();

    /** @return the QP type ({@code ibqp.qp_type}) */
    QpType type();

    /** @return the QP state ({@code state}; stable while {@code recvLock} or {@code sendLock} is held) */
    QpState state();

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

    // ------------------------------------------------------------------ MTU

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
     * without packets, completing them. Called by the driver's send engine with no QP lock held. On a UD, GSI or SMI
     * QP (an rvt extension, as hfi1's {@code ud_loopback}) each WQE goes to the local QP its work request names, with
     * a GRH in front of the payload: a driver with no wire that calls this for every QP carries rvt-cm's MADs between
     * the GSI QPs of its device.
     */
    void rucLoopback();

    /** Mirrors {@code rvt_get_qp}: takes a reference; destroy waits for every reference to be dropped. */
    void retain();

    /** Mirrors {@code rvt_put_qp}: drops a reference. */
    void release();

    /** @return the current reference count */
    int refCount();
}
