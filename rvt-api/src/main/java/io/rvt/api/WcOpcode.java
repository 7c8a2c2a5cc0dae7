package io.rvt.api;

/**
 * Work-completion opcode, with the numeric values of {@code enum ib_wc_opcode} used by rdmavt and its drivers.
 * Receive completions have bit 7 set ({@link #isRecv()}).
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
    /** A large send offload completed. */
    LSO(5),
    /** A local invalidate completed. */
    LOCAL_INV(6),
    /** A fast registration completed. */
    REG_MR(7),
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
