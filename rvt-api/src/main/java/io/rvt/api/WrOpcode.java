package io.rvt.api;

/**
 * Send work-request opcode, with the numeric values of {@code enum ib_wr_opcode}, including the ten
 * driver-reserved opcodes {@code IB_WR_RESERVED1..10} (0xF0..0xF9) that a driver may give its own meaning through
 * its operation table (hfi1 uses {@link #RESERVED1} for TID RDMA WRITE, {@link #RESERVED2} for TID RDMA READ and
 * {@link #RESERVED3} for its OPFN negotiation, a {@code USE_RESERVE} operation).
 *
 * <p>Whether a device accepts an opcode, and for which QP types, is decided by the driver's operation table
 * ({@code io.rvt.api.spi.OperationTable}); an opcode the table does not support fails {@code postSend} with
 * {@code EINVAL}.
 */
public enum WrOpcode {
    /** RDMA WRITE. */
    RDMA_WRITE(0),
    /** RDMA WRITE with immediate data (consumes a receive WQE at the responder). */
    RDMA_WRITE_WITH_IMM(1),
    /** SEND. */
    SEND(2),
    /** SEND with immediate data. */
    SEND_WITH_IMM(3),
    /** RDMA READ. */
    RDMA_READ(4),
    /** 64-bit atomic compare and swap. */
    ATOMIC_CMP_AND_SWP(5),
    /** 64-bit atomic fetch and add. */
    ATOMIC_FETCH_AND_ADD(6),
    /** Local invalidate of an rkey: a fast-registration region's or a type 2 memory window's. */
    LOCAL_INV(7),
    /**
     * Bind a type 2 memory window ({@code IBV_WR_BIND_MW}; not in rdmavt, rvt does it as rxe): reads
     * {@link SendWorkRequest#mw()}, {@link SendWorkRequest#key()} (the new rkey) and
     * {@link SendWorkRequest#bindInfo()}. Also what {@link QueuePair#bindMw} posts for a type 1 window.
     */
    BIND_MW(8),
    /** SEND that invalidates an rkey at the responder. */
    SEND_WITH_INV(9),
    /** Large send offload (not supported by rdmavt). */
    LSO(10),
    /** RDMA READ with invalidate (not supported by rdmavt). */
    RDMA_READ_WITH_INV(11),
    /** Masked compare and swap (not supported by rdmavt). */
    MASKED_ATOMIC_CMP_AND_SWP(12),
    /** Masked fetch and add (not supported by rdmavt). */
    MASKED_ATOMIC_FETCH_AND_ADD(13),
    /**
     * FLUSH ({@code IBV_WR_FLUSH}, IBTA 1.5, Linux 6.2; not in rdmavt, rvt has it as rxe): makes earlier writes to
     * the remote range ({@link SendWorkRequest#remoteAddr()}, {@link SendWorkRequest#rkey()},
     * {@link SendWorkRequest#flushLength()}) or the whole region ({@link SendWorkRequest#FLUSH_MR}) reach the
     * placement type asked ({@link SendWorkRequest#flushType()}); RC only, no local data.
     */
    FLUSH(14),
    /**
     * ATOMIC_WRITE ({@code IBV_WR_ATOMIC_WRITE}, IBTA 1.5, Linux 6.2; not in rdmavt, rvt has it as rxe): writes 8
     * bytes, taken from the one 8-byte scatter/gather entry, to an 8-byte aligned remote address as one atomic
     * store, after every earlier operation; RC only.
     */
    ATOMIC_WRITE(15),
    /** Fast memory registration. */
    REG_MR(0x20),
    /** Registration with integrity (not supported by rdmavt). */
    REG_MR_INTEGRITY(0x21),
    /** Driver-reserved opcode 1 (hfi1: {@code IB_WR_TID_RDMA_WRITE}). */
    RESERVED1(0xF0),
    /** Driver-reserved opcode 2 (hfi1: {@code IB_WR_TID_RDMA_READ}). */
    RESERVED2(0xF1),
    /** Driver-reserved opcode 3 (hfi1: {@code IB_WR_OPFN}, a reserved-slot operation). */
    RESERVED3(0xF2),
    /** Driver-reserved opcode 4. */
    RESERVED4(0xF3),
    /** Driver-reserved opcode 5. */
    RESERVED5(0xF4),
    /** Driver-reserved opcode 6. */
    RESERVED6(0xF5),
    /** Driver-reserved opcode 7. */
    RESERVED7(0xF6),
    /** Driver-reserved opcode 8. */
    RESERVED8(0xF7),
    /** Driver-reserved opcode 9. */
    RESERVED9(0xF8),
    /** Driver-reserved opcode 10. */
    RESERVED10(0xF9);

    /** {@code RVT_OPERATION_MAX}: the size of an operation table, {@code IB_WR_RESERVED10 + 1}. */
    public static final int OPERATION_MAX = 0xFA;

    private static final WrOpcode[] BY_VALUE = new WrOpcode[OPERATION_MAX];

    static {
        for (WrOpcode op : values()) {
            BY_VALUE[op.value] = op;
        }
    }

    private final int value;

    WrOpcode(int value) {
        this.value = value;
    }

    /** @return the {@code ib_wr_opcode} value, also the index into an operation table */
    public int value() {
        return value;
    }

    /** @return true for {@link #RESERVED1} to {@link #RESERVED10}, the range drivers define */
    public boolean isDriverReserved() {
        return value >= RESERVED1.value;
    }

    /**
     * @param value an {@code ib_wr_opcode} value
     * @return the opcode, or {@code null} if no opcode has that value
     */
    public static WrOpcode ofOrNull(int value) {
        return value >= 0 && value < OPERATION_MAX ? BY_VALUE[value] : null;
    }

    /**
     * @param value an {@code ib_wr_opcode} value
     * @return the opcode
     * @throws IllegalArgumentException if no opcode has that value
     */
    public static WrOpcode of(int value) {
        WrOpcode op = ofOrNull(value);
        if (op == null) {
            throw new IllegalArgumentException("unknown work request opcode value: " + value);
        }
        return op;
    }
}
