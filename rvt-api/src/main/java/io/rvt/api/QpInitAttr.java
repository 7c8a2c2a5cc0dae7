package io.rvt.api;

/**
 * What {@link ProtectionDomain#createQp(QpInitAttr)} needs ({@code struct ib_qp_init_attr}). Mutable and reusable;
 * {@code queryQp} can fill one with the values in effect. Not thread-safe.
 */
public final class QpInitAttr {
    /** {@code IB_QP_CREATE_NETDEV_USE}: a netdev ("AIP") QP, numbered in the 0x81xxxx range. */
    public static final int CREATE_NETDEV_USE = 1 << 7;

    private QpType qpType = QpType.RC;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private SharedReceiveQueue srq;
    private final QpCap cap = new QpCap();
    private SigType sigType = SigType.SIGNAL_ALL_WR;
    private int portNum;
    private int createFlags;
    private AsyncEventHandler eventHandler;

    /** @return the transport type */
    public QpType qpType() {
        return qpType;
    }

    /**
     * @param type the transport type
     * @return this
     */
    public QpInitAttr qpType(QpType type) {
        this.qpType = Checks.notNull("qpType", type);
        return this;
    }

    /** @return the CQ that receives send completions */
    public CompletionQueue sendCq() {
        return sendCq;
    }

    /**
     * @param cq the CQ that receives send completions
     * @return this
     */
    public QpInitAttr sendCq(CompletionQueue cq) {
        this.sendCq = Checks.notNull("sendCq", cq);
        return this;
    }

    /** @return the CQ that receives receive completions */
    public CompletionQueue recvCq() {
        return recvCq;
    }

    /**
     * @param cq the CQ that receives receive completions
     * @return this
     */
    public QpInitAttr recvCq(CompletionQueue cq) {
        this.recvCq = Checks.notNull("recvCq", cq);
        return this;
    }

    /** @return the shared receive queue, or null if the QP has its own */
    public SharedReceiveQueue srq() {
        return srq;
    }

    /**
     * @param srq the shared receive queue, or null for the QP's own receive queue
     * @return this
     */
    public QpInitAttr srq(SharedReceiveQueue srq) {
        this.srq = srq;
        return this;
    }

    /** @return the queue sizes (mutable, owned by this object) */
    public QpCap cap() {
        return cap;
    }

    /** @return the signalling mode */
    public SigType sigType() {
        return sigType;
    }

    /**
     * @param sigType the signalling mode
     * @return this
     */
    public QpInitAttr sigType(SigType sigType) {
        this.sigType = Checks.notNull("sigType", sigType);
        return this;
    }

    /** @return the port (required for SMI and GSI) */
    public int portNum() {
        return portNum;
    }

    /**
     * @param portNum the port, 1-based (required for SMI and GSI; RC/UC/UD set it with {@link QpAttrMask#PORT})
     * @return this
     */
    public QpInitAttr portNum(int portNum) {
        this.portNum = Checks.u8("portNum", portNum);
        return this;
    }

    /** @return {@code ib_qp_create_flags} bits */
    public int createFlags() {
        return createFlags;
    }

    /**
     * @param flags {@code ib_qp_create_flags} bits; rdmavt accepts only {@link #CREATE_NETDEV_USE}
     * @return this
     */
    public QpInitAttr createFlags(int flags) {
        this.createFlags = flags;
        return this;
    }

    /** @return the QP's event handler, or null */
    public AsyncEventHandler eventHandler() {
        return eventHandler;
    }

    /**
     * @param handler receives this QP's asynchronous events (COMM_EST, PATH_MIG, QP_LAST_WQE_REACHED, ...), or null
     * @return this
     */
    public QpInitAttr eventHandler(AsyncEventHandler handler) {
        this.eventHandler = handler;
        return this;
    }
}
