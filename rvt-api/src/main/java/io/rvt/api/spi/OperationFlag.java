package io.rvt.api.spi;

/**
 * The {@code RVT_OPERATION_*} flags of an operation-table entry ({@code struct rvt_operation_params.flags}).
 */
public final class OperationFlag {
    private OperationFlag() {
    }

    /** {@code RVT_OPERATION_PRIV}: refused ({@code EINVAL}) on a QP whose PD is a user PD. */
    public static final int PRIV = 0x01;
    /** {@code RVT_OPERATION_ATOMIC}: needs an initiator depth ({@code max_rd_atomic}) above 0, else {@code EINVAL}. */
    public static final int ATOMIC = 0x02;
    /**
     * {@code RVT_OPERATION_ATOMIC_SGE}: needs at least one SGE, the first at least 8 bytes long and 8-byte aligned,
     * else {@code EINVAL}.
     */
    public static final int ATOMIC_SGE = 0x04;
    /**
     * {@code RVT_OPERATION_LOCAL}: a local operation (REG_MR, LOCAL_INV, and rvt's BIND_MW) executed at post time or
     * deferred; takes no PSN or SSN. Only REG_MR, LOCAL_INV and BIND_MW may carry it.
     */
    public static final int LOCAL = 0x08;
    /**
     * {@code RVT_OPERATION_USE_RESERVE}: the WQE takes one of the driver's {@code reserved_operations} send slots
     * instead of an ordinary one, and never produces a completion (hfi1's OPFN).
     */
    public static final int USE_RESERVE = 0x10;
    /**
     * {@code RVT_OPERATION_IGN_RNR_CNT}: not read by rdmavt; tells the driver's RC engine not to count RNR retries
     * for this opcode (hfi1's TID RDMA WRITE).
     */
    public static final int IGN_RNR_CNT = 0x20;

    /** Every flag above. */
    public static final int ALL = PRIV | ATOMIC | ATOMIC_SGE | LOCAL | USE_RESERVE | IGN_RNR_CNT;
}
