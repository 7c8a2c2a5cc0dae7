package io.rvt.api.spi;

/**
 * Which variant of the work request an operation reads: the Java stand-in for the number of bytes rdmavt copies
 * ({@code rvt_operation_params.length}, e.g. {@code sizeof(struct ib_rdma_wr)}). For UD, SMI and GSI QPs the UD
 * fields are always copied, whatever the shape.
 */
public enum WrShape {
    /** {@code struct ib_send_wr}: id, opcode, flags, SGEs, immediate data or invalidate rkey. */
    SEND,
    /** {@code struct ib_rdma_wr}: adds remote address and rkey. */
    RDMA,
    /** {@code struct ib_atomic_wr}: adds remote address, rkey, compare/add and swap. */
    ATOMIC,
    /** {@code struct ib_reg_wr}: the region, key and access to register. */
    REG,
    /** {@code struct ib_ud_wr}: address handle, remote QPN, Q_Key, P_Key index. */
    UD
}
