package io.rvt.api;

/**
 * QP attributes ({@code struct ib_qp_attr}) for {@link QueuePair#modifyQp(QpAttr, int)} and
 * {@link QueuePair#queryQp(QpAttr)}. Only the fields named by the attribute mask are read by {@code modifyQp}.
 * Setters check what the C type can hold; range rules of the verbs (retry counts up to 7, the RNR timer up to 31, ...)
 * are checked by {@code modifyQp}, which reports them with {@code EINVAL}. Mutable and reusable; not thread-safe.
 */
public final class QpAttr {
    private QpState qpState = QpState.RESET;
    private QpState curQpState = QpState.RESET;
    private PathMtu pathMtu = PathMtu.MTU_1024;
    private MigState pathMigState = MigState.MIGRATED;
    private int qkey;
    private int rqPsn;
    private int sqPsn;
    private int destQpNum;
    private int qpAccessFlags;
    private final QpCap cap = new QpCap();
    private final AhAttr ahAttr = new AhAttr();
    private final AhAttr altAhAttr = new AhAttr();
    private int pkeyIndex;
    private int altPkeyIndex;
    private boolean enSqdAsyncNotify;
    private boolean sqDraining;
    private int maxRdAtomic;
    private int maxDestRdAtomic;
    private int minRnrTimer;
    private int portNum;
    private int timeout;
    private int retryCnt;
    private int rnrRetry;
    private int altPortNum;
    private int altTimeout;

    /** @return the requested (modify) or current (query) state */
    public QpState qpState() {
        return qpState;
    }

    /**
     * @param s the state to move to ({@link QpAttrMask#STATE})
     * @return this
     */
    public QpAttr qpState(QpState s) {
        this.qpState = Checks.notNull("qpState", s);
        return this;
    }

    /** @return the state the caller asserts is current ({@link QpAttrMask#CUR_STATE}) */
    public QpState curQpState() {
        return curQpState;
    }

    /**
     * With {@code QpAttrMask.CUR_STATE}: the state the caller asserts is current. {@code modifyQp} fails with EINVAL
     * when it differs from the QP's state (rdmavt instead takes it as the current state).
     *
     * @param s the state the caller asserts is current
     * @return this
     */
    public QpAttr curQpState(QpState s) {
        this.curQpState = Checks.notNull("curQpState", s);
        return this;
    }

    /** @return the path MTU */
    public PathMtu pathMtu() {
        return pathMtu;
    }

    /**
     * @param mtu the path MTU ({@link QpAttrMask#PATH_MTU}); the driver may lower it to the port's active MTU
     * @return this
     */
    public QpAttr pathMtu(PathMtu mtu) {
        this.pathMtu = Checks.notNull("pathMtu", mtu);
        return this;
    }

    /** @return the path migration state */
    public MigState pathMigState() {
        return pathMigState;
    }

    /**
     * @param s the path migration state ({@link QpAttrMask#PATH_MIG_STATE})
     * @return this
     */
    public QpAttr pathMigState(MigState s) {
        this.pathMigState = Checks.notNull("pathMigState", s);
        return this;
    }

    /** @return the Q_Key (UD) */
    public int qkey() {
        return qkey;
    }

    /**
     * @param qkey the Q_Key, any 32-bit value ({@link QpAttrMask#QKEY})
     * @return this
     */
    public QpAttr qkey(int qkey) {
        this.qkey = qkey;
        return this;
    }

    /** @return the receive PSN */
    public int rqPsn() {
        return rqPsn;
    }

    /**
     * @param psn the receive PSN ({@link QpAttrMask#RQ_PSN}); masked with the driver's {@code psn_modify_mask}
     * @return this
     */
    public QpAttr rqPsn(int psn) {
        this.rqPsn = psn;
        return this;
    }

    /** @return the send PSN */
    public int sqPsn() {
        return sqPsn;
    }

    /**
     * @param psn the send PSN ({@link QpAttrMask#SQ_PSN}); masked with the driver's {@code psn_modify_mask}
     * @return this
     */
    public QpAttr sqPsn(int psn) {
        this.sqPsn = psn;
        return this;
    }

    /** @return the destination QP number */
    public int destQpNum() {
        return destQpNum;
    }

    /**
     * @param qpn the destination QP number ({@link QpAttrMask#DEST_QPN}); {@code modifyQp} requires at most 0xFFFFFF
     * @return this
     */
    public QpAttr destQpNum(int qpn) {
        this.destQpNum = qpn;
        return this;
    }

    /** @return remote access flags ({@link AccessFlag} bits) */
    public int qpAccessFlags() {
        return qpAccessFlags;
    }

    /**
     * @param flags remote access flags, {@link AccessFlag} bits ({@link QpAttrMask#ACCESS_FLAGS})
     * @return this
     */
    public QpAttr qpAccessFlags(int flags) {
        this.qpAccessFlags = flags;
        return this;
    }

    /** @return the queue sizes (query only; owned by this object) */
    public QpCap cap() {
        return cap;
    }

    /** @return the primary path ({@link QpAttrMask#AV}; owned by this object, fill it in place) */
    public AhAttr ahAttr() {
        return ahAttr;
    }

    /** @return the alternate path ({@link QpAttrMask#ALT_PATH}; owned by this object, fill it in place) */
    public AhAttr altAhAttr() {
        return altAhAttr;
    }

    /** @return the P_Key index */
    public int pkeyIndex() {
        return pkeyIndex;
    }

    /**
     * @param index the P_Key index ({@link QpAttrMask#PKEY_INDEX}), 0..65535
     * @return this
     */
    public QpAttr pkeyIndex(int index) {
        this.pkeyIndex = Checks.u16("pkeyIndex", index);
        return this;
    }

    /** @return the alternate path's P_Key index */
    public int altPkeyIndex() {
        return altPkeyIndex;
    }

    /**
     * @param index the alternate path's P_Key index ({@link QpAttrMask#ALT_PATH}), 0..65535
     * @return this
     */
    public QpAttr altPkeyIndex(int index) {
        this.altPkeyIndex = Checks.u16("altPkeyIndex", index);
        return this;
    }

    /** @return whether an SQ-drained event was requested (rdmavt reports false) */
    public boolean enSqdAsyncNotify() {
        return enSqdAsyncNotify;
    }

    /**
     * @param on request an SQ-drained event (accepted and ignored, as rdmavt does)
     * @return this
     */
    public QpAttr enSqdAsyncNotify(boolean on) {
        this.enSqdAsyncNotify = on;
        return this;
    }

    /** @return (query) true while the QP is in SQD and work requests in progress have not finished */
    public boolean sqDraining() {
        return sqDraining;
    }

    /**
     * @param draining set by {@code queryQp}
     * @return this
     */
    public QpAttr sqDraining(boolean draining) {
        this.sqDraining = draining;
        return this;
    }

    /** @return initiator depth: outstanding RDMA READs and atomics this QP may issue */
    public int maxRdAtomic() {
        return maxRdAtomic;
    }

    /**
     * @param n initiator depth, 0..255 ({@link QpAttrMask#MAX_QP_RD_ATOMIC})
     * @return this
     */
    public QpAttr maxRdAtomic(int n) {
        this.maxRdAtomic = Checks.u8("maxRdAtomic", n);
        return this;
    }

    /** @return responder resources: incoming RDMA READs and atomics this QP holds */
    public int maxDestRdAtomic() {
        return maxDestRdAtomic;
    }

    /**
     * @param n responder resources, 0..255 ({@link QpAttrMask#MAX_DEST_RD_ATOMIC}); at most the driver's
     *          {@code max_rdma_atomic}
     * @return this
     */
    public QpAttr maxDestRdAtomic(int n) {
        this.maxDestRdAtomic = Checks.u8("maxDestRdAtomic", n);
        return this;
    }

    /** @return RNR NAK timer code (0..31) this QP sends as responder */
    public int minRnrTimer() {
        return minRnrTimer;
    }

    /**
     * @param code RNR NAK timer code, 0..255 here; {@code modifyQp} requires at most 31 ({@link QpAttrMask#MIN_RNR_TIMER})
     * @return this
     */
    public QpAttr minRnrTimer(int code) {
        this.minRnrTimer = Checks.u8("minRnrTimer", code);
        return this;
    }

    /** @return the port, 1-based */
    public int portNum() {
        return portNum;
    }

    /**
     * @param port the port, 1-based ({@link QpAttrMask#PORT})
     * @return this
     */
    public QpAttr portNum(int port) {
        this.portNum = Checks.u8("portNum", port);
        return this;
    }

    /** @return local ACK timeout code: 4.096 us * 2^timeout */
    public int timeout() {
        return timeout;
    }

    /**
     * @param code local ACK timeout code, 0..255 (values above 31 act as 31) ({@link QpAttrMask#TIMEOUT})
     * @return this
     */
    public QpAttr timeout(int code) {
        this.timeout = Checks.u8("timeout", code);
        return this;
    }

    /** @return transport retry count */
    public int retryCnt() {
        return retryCnt;
    }

    /**
     * @param n transport retry count, 0..255 here; {@code modifyQp} requires at most 7 ({@link QpAttrMask#RETRY_CNT})
     * @return this
     */
    public QpAttr retryCnt(int n) {
        this.retryCnt = Checks.u8("retryCnt", n);
        return this;
    }

    /** @return RNR retry count (7 = forever) */
    public int rnrRetry() {
        return rnrRetry;
    }

    /**
     * @param n RNR retry count, 0..255 here; {@code modifyQp} requires at most 7 ({@link QpAttrMask#RNR_RETRY})
     * @return this
     */
    public QpAttr rnrRetry(int n) {
        this.rnrRetry = Checks.u8("rnrRetry", n);
        return this;
    }

    /** @return the alternate path's port */
    public int altPortNum() {
        return altPortNum;
    }

    /**
     * @param port the alternate path's port (query only; the alternate port comes from the alternate AH)
     * @return this
     */
    public QpAttr altPortNum(int port) {
        this.altPortNum = Checks.u8("altPortNum", port);
        return this;
    }

    /** @return the alternate path's ACK timeout code (rdmavt always reports 0) */
    public int altTimeout() {
        return altTimeout;
    }

    /**
     * @param code the alternate path's ACK timeout code
     * @return this
     */
    public QpAttr altTimeout(int code) {
        this.altTimeout = Checks.u8("altTimeout", code);
        return this;
    }
}
