package io.rvt.api;

/**
 * Attribute-mask bit for {@code modifyQp}, with the bit values of {@code enum ib_qp_attr_mask}. Which bits a state transition requires or allows is the IBTA table rdmavt applies ({@code ib_modify_qp_is_ok}).
 *
 * <p>Each constant carries its numeric bit from {@code ib_qp_attr_mask}; APIs take and return {@code int} masks built with
 * {@link #bit()} or {@link #mask}, so that hot paths stay free of allocation.
 */
public enum QpAttrMask implements BitFlag {
    /** Change the QP state to {@code qpState}. */
    STATE(1 << 0),
    /** Assert the current state is {@code curQpState}. */
    CUR_STATE(1 << 1),
    /** Request an SQ-drained event (ignored by rdmavt). */
    EN_SQD_ASYNC_NOTIFY(1 << 2),
    /** Set the remote access flags. */
    ACCESS_FLAGS(1 << 3),
    /** Set the P_Key index. */
    PKEY_INDEX(1 << 4),
    /** Set the port. */
    PORT(1 << 5),
    /** Set the Q_Key. */
    QKEY(1 << 6),
    /** Set the primary path address vector. */
    AV(1 << 7),
    /** Set the path MTU. */
    PATH_MTU(1 << 8),
    /** Set the local ACK timeout code. */
    TIMEOUT(1 << 9),
    /** Set the transport retry count (0..7). */
    RETRY_CNT(1 << 10),
    /** Set the RNR retry count (0..7; 7 = forever). */
    RNR_RETRY(1 << 11),
    /** Set the receive PSN. */
    RQ_PSN(1 << 12),
    /** Set the initiator depth (outstanding RDMA READ/atomics). */
    MAX_QP_RD_ATOMIC(1 << 13),
    /** Set the alternate path. */
    ALT_PATH(1 << 14),
    /** Set the RNR NAK timer code (0..31). */
    MIN_RNR_TIMER(1 << 15),
    /** Set the send PSN. */
    SQ_PSN(1 << 16),
    /** Set the responder resources. */
    MAX_DEST_RD_ATOMIC(1 << 17),
    /** Set the path migration state. */
    PATH_MIG_STATE(1 << 18),
    /** Resize the queues (never accepted). */
    CAP(1 << 19),
    /** Set the destination QP number. */
    DEST_QPN(1 << 20),
    /** Set a rate limit (never accepted). */
    RATE_LIMIT(1 << 25);

    /** {@code IB_QP_ATTR_STANDARD_BITS}: bits 0..20; any other bit fails {@code modifyQp} with {@code EOPNOTSUPP}. */
    public static final int STANDARD_BITS = 0x1FFFFF;

    /** The union of every bit defined here. */
    public static final int ALL = BitFlag.union(values());

    private final int bit;

    QpAttrMask(int bit) {
        this.bit = bit;
    }

    /** @return this flag's bit */
    @Override
    public int bit() {
        return bit;
    }

    /**
     * @param mask a mask
     * @return true if this flag's bit is set in {@code mask}
     */
    public boolean in(int mask) {
        return (mask & bit) != 0;
    }

    /**
     * @param flags flags to combine
     * @return the mask with each flag's bit set
     */
    public static int mask(QpAttrMask... flags) {
        return BitFlag.union(flags);
    }

    /**
     * Renders a mask for messages, e.g. {@code "STATE|PATH_MTU"}; unknown bits are shown in hex.
     *
     * @param mask a mask
     * @return the names of the set bits joined by {@code |}, or {@code "0"}
     */
    public static String describe(int mask) {
        return BitFlag.describe(mask, values());
    }
}
