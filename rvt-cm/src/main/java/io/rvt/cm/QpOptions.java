package io.rvt.cm;

import io.rvt.api.AccessFlag;
import io.rvt.api.AsyncEventHandler;
import io.rvt.api.CompletionQueue;
import io.rvt.api.PathMtu;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QpCap;
import io.rvt.api.QpType;
import io.rvt.api.SharedReceiveQueue;
import io.rvt.api.SigType;

/**
 * How the CM builds the QP of a connection ({@code rdma_create_qp}'s {@code ibv_qp_init_attr} plus the
 * {@code rdma_conn_param} of {@code rdma_connect}/{@code rdma_accept}): the PD, CQs, queue sizes and SRQ, and the
 * transport parameters that the REQ and REP carry. The CM creates the QP, applies what both sides agreed on
 * (RESET-INIT-RTR-RTS) and destroys it when the connection is closed; the application never writes a
 * {@code QpAttr}. A mutable fluent object, read when the connection is made (a later change has no effect on it).
 */
public final class QpOptions {
    /** rdma_cm's default minimum RNR NAK timer code ({@code min_rnr_timer = 12}: 0.64 ms). */
    public static final int DEFAULT_MIN_RNR_TIMER = 12;
    /** The default local ACK timeout code: 4.096 us x 2^14 = 67 ms per try. */
    public static final int DEFAULT_LOCAL_ACK_TIMEOUT = 14;
    /** Every remote access and local write. */
    public static final int DEFAULT_ACCESS = AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);

    private ProtectionDomain pd;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private SharedReceiveQueue srq;
    private final QpCap cap = new QpCap().maxSendWr(64).maxRecvWr(64).maxSendSge(1).maxRecvSge(1);
    private QpType type = QpType.RC;
    private SigType sigType = SigType.SIGNAL_ALL_WR;
    private AsyncEventHandler eventHandler;
    private int accessFlags = DEFAULT_ACCESS;
    private int responderResources = -1;
    private int initiatorDepth = -1;
    private int retryCount = 7;
    private int rnrRetryCount = 7;
    private int minRnrTimer = DEFAULT_MIN_RNR_TIMER;
    private int localAckTimeout = DEFAULT_LOCAL_ACK_TIMEOUT;
    private PathMtu pathMtu;

    /** @return the protection domain (required) */
    public ProtectionDomain pd() {
        return pd;
    }

    /**
     * @param pd the protection domain the QP is created in; its device must be the CM's
     * @return this
     */
    public QpOptions pd(ProtectionDomain pd) {
        this.pd = pd;
        return this;
    }

    /** @return the send CQ (required) */
    public CompletionQueue sendCq() {
        return sendCq;
    }

    /**
     * @param cq the send CQ
     * @return this
     */
    public QpOptions sendCq(CompletionQueue cq) {
        this.sendCq = cq;
        return this;
    }

    /** @return the receive CQ (required) */
    public CompletionQueue recvCq() {
        return recvCq;
    }

    /**
     * @param cq the receive CQ
     * @return this
     */
    public QpOptions recvCq(CompletionQueue cq) {
        this.recvCq = cq;
        return this;
    }

    /**
     * Sets both CQs.
     *
     * @param cq the send and receive CQ
     * @return this
     */
    public QpOptions cq(CompletionQueue cq) {
        return sendCq(cq).recvCq(cq);
    }

    /** @return the shared receive queue, or null */
    public SharedReceiveQueue srq() {
        return srq;
    }

    /**
     * @param srq a shared receive queue, or null for a receive queue of the QP's own (the REQ/REP's SRQ bit says so)
     * @return this
     */
    public QpOptions srq(SharedReceiveQueue srq) {
        this.srq = srq;
        return this;
    }

    /** @return the queue sizes, changed in place (defaults: 64 send and receive WRs, one SGE each) */
    public QpCap cap() {
        return cap;
    }

    /** @return the transport: {@link QpType#RC} (default) or {@link QpType#UC} */
    public QpType type() {
        return type;
    }

    /**
     * @param type {@link QpType#RC} or {@link QpType#UC} (UD peers are found with
     *             {@link ConnectionManager#resolveDatagramAsync})
     * @return this
     */
    public QpOptions type(QpType type) {
        this.type = type;
        return this;
    }

    /** @return which send WRs complete */
    public SigType sigType() {
        return sigType;
    }

    /**
     * @param sigType {@link SigType#SIGNAL_ALL_WR} (default) or {@link SigType#SIGNAL_REQ_WR}
     * @return this
     */
    public QpOptions sigType(SigType sigType) {
        this.sigType = sigType;
        return this;
    }

    /** @return the QP's asynchronous event handler, or null */
    public AsyncEventHandler eventHandler() {
        return eventHandler;
    }

    /**
     * @param handler receives the QP's asynchronous events, or null for the device's handler
     * @return this
     */
    public QpOptions eventHandler(AsyncEventHandler handler) {
        this.eventHandler = handler;
        return this;
    }

    /** @return the {@link AccessFlag} bits of the QP's remote access */
    public int accessFlags() {
        return accessFlags;
    }

    /**
     * @param flags {@link AccessFlag} bits (default: local write and every remote access)
     * @return this
     */
    public QpOptions accessFlags(int flags) {
        this.accessFlags = flags;
        return this;
    }

    /** @return the RDMA READ/atomic requests this side accepts at once, or -1 for the device's maximum */
    public int responderResources() {
        return responderResources;
    }

    /**
     * {@code rdma_conn_param.responder_resources}: how many RDMA READ and atomic requests from the peer this side
     * serves at once (its {@code max_dest_rd_atomic}); bounded by the device and by the peer's initiator depth.
     *
     * @param n 0..255, or -1 (default) for the device's {@code max_qp_rd_atom}
     * @return this
     */
    public QpOptions responderResources(int n) {
        this.responderResources = n;
        return this;
    }

    /** @return the RDMA READ/atomic requests this side issues at once, or -1 for the device's maximum */
    public int initiatorDepth() {
        return initiatorDepth;
    }

    /**
     * {@code rdma_conn_param.initiator_depth}: how many RDMA READ and atomic requests this side has outstanding at
     * once (its {@code max_rd_atomic}); bounded by the device and by the peer's responder resources.
     *
     * @param n 0..255, or -1 (default) for the device's {@code max_qp_init_rd_atom}
     * @return this
     */
    public QpOptions initiatorDepth(int n) {
        this.initiatorDepth = n;
        return this;
    }

    /** @return the transport retry count (RC) */
    public int retryCount() {
        return retryCount;
    }

    /**
     * {@code rdma_conn_param.retry_count}: how often an RC request is resent after an ACK timeout. The active side's
     * value goes in the REQ and both QPs use it.
     *
     * @param n 0..7 (default 7)
     * @return this
     */
    public QpOptions retryCount(int n) {
        this.retryCount = n;
        return this;
    }

    /** @return the RNR retry count (RC) */
    public int rnrRetryCount() {
        return rnrRetryCount;
    }

    /**
     * {@code rdma_conn_param.rnr_retry_count}: how often the peer resends after an RNR NAK from this side's receive
     * queue (the REQ carries the active side's, the REP the passive side's; each is applied to the other's QP).
     *
     * @param n 0..7, 7 = forever (default 7)
     * @return this
     */
    public QpOptions rnrRetryCount(int n) {
        this.rnrRetryCount = n;
        return this;
    }

    /** @return the RNR NAK timer code this side's responder sends */
    public int minRnrTimer() {
        return minRnrTimer;
    }

    /**
     * @param code the IBTA RNR timer code 0..31 (default {@link #DEFAULT_MIN_RNR_TIMER})
     * @return this
     */
    public QpOptions minRnrTimer(int code) {
        this.minRnrTimer = code;
        return this;
    }

    /** @return the local ACK timeout code */
    public int localAckTimeout() {
        return localAckTimeout;
    }

    /**
     * The RC ACK timeout, 4.096 us x 2^code. The active side's value goes in the REQ's primary path and both QPs use
     * it.
     *
     * @param code 0..31 (default {@link #DEFAULT_LOCAL_ACK_TIMEOUT})
     * @return this
     */
    public QpOptions localAckTimeout(int code) {
        this.localAckTimeout = code;
        return this;
    }

    /** @return the path MTU asked for, or null for the port's active MTU */
    public PathMtu pathMtu() {
        return pathMtu;
    }

    /**
     * Caps the path MTU. The REQ carries the smaller of this and the active side's port MTU; a passive side whose
     * port or option is smaller rejects with {@link RejectReason#INVALID_MTU} and its MTU, and the active side
     * retries once with that MTU, so both end up with the smaller of both ports'.
     *
     * @param mtu the largest MTU to use, or null (default) for the port's active MTU
     * @return this
     */
    public QpOptions pathMtu(PathMtu mtu) {
        this.pathMtu = mtu;
        return this;
    }

    /**
     * @param other options to copy
     * @return this, with every field of {@code other}
     */
    public QpOptions copyFrom(QpOptions other) {
        pd = other.pd;
        sendCq = other.sendCq;
        recvCq = other.recvCq;
        srq = other.srq;
        cap.copyFrom(other.cap);
        type = other.type;
        sigType = other.sigType;
        eventHandler = other.eventHandler;
        accessFlags = other.accessFlags;
        responderResources = other.responderResources;
        initiatorDepth = other.initiatorDepth;
        retryCount = other.retryCount;
        rnrRetryCount = other.rnrRetryCount;
        minRnrTimer = other.minRnrTimer;
        localAckTimeout = other.localAckTimeout;
        pathMtu = other.pathMtu;
        return this;
    }
}
