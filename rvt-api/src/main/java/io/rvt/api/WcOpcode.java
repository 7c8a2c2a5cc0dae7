package io.rvt.api;

/**
 * Work-completion opcode, with the numeric values of {@code enum ib_wc_opcode} (the send ones equal libibverbs'
 * {@code enum ibv_wc_opcode} and {@code ib_uverbs_wc_opcode} since Linux 4.x, with {@code IBV_WC_FLUSH} 8 and
 * {@code IBV_WC_ATOMIC_WRITE} 9 from Linux 6.2). Receive completions have bit 7 set ({@link #isRecv()}).
 */
public enum WcOpcode {
    /** A SEND (any variant) completed. */
    SEND(0),
    /** An RDMA WRITE (with or without immediate) completed. */
    RDMA_WRITE(1),
    /** An RDMA READ completed. */
    RDMA_READ(2),
    /** A compare-and-swap completed. */
    COMP_SWAP(3),
    /** A fetch-and-add completed. */
    FETCH_ADD(4),
    /** A memory window bind completed ({@code IBV_WC_BIND_MW}). */
    BIND_MW(5),
    /** A local invalidate completed ({@code IBV_WC_LOCAL_INV}). */
    LOCAL_INV(6),
    /** A large send offload completed ({@code IBV_WC_TSO}). */
    LSO(7),
    /** A FLUSH completed ({@code IBV_WC_FLUSH}, Linux 6.2). */
    FLUSH(8),
    /** An ATOMIC_WRITE completed ({@code IBV_WC_ATOMIC_WRITE}, Linux 6.2). */
    ATOMIC_WRITE(9),
    /** A fast registration completed ({@code IB_WC_REG_MR}, the kernel value after ATOMIC_WRITE). */
    REG_MR(10),
    /** A receive WQE consumed by a SEND. */
    RECV(128),
    /** A receive WQE consumed by an RDMA WRITE with immediate data. */
    RECV_RDMA_WITH_IMM(129);

    private final int value;

    WcOpcode(int value) {
        this.value = value;
    }

    /** @return the {@code ib_wc_opcode} value */
    public int value() {
        return value;
    }

    /** @return true for receive completions ({@code IB_WC_RECV} bit) */
    public boolean isRecv() {
        return (value & 128) != 0;
    }

    /**
     * @param value an {@code ib_wc_opcode} value
     * @return the opcode
     * @throws IllegalArgumentException if no opcode has that value
     */
    public static WcOpcode of(int value) {
        for (WcOpcode op : values()) {
            if (op.value == value) {
                return op;
            }
        }
        throw new IllegalArgumentException("unknown work completion opcode value: " + value);
    }
}
