package io.rvt.api.spi;

import io.rvt.api.QpType;
import io.rvt.api.WcOpcode;
import io.rvt.api.WrOpcode;

/**
 * A driver's post-send table ({@code rdi->post_parms}, an array of {@code RVT_OPERATION_MAX} =
 * {@value WrOpcode#OPERATION_MAX} {@link OperationParams} indexed by {@link WrOpcode#value()}), together with the
 * send-WQE to completion opcode map ({@code rdi->wc_opcode}). rdmavt's post send is driven entirely by it: an opcode
 * without an entry is refused with {@code EINVAL}, as is a QP type outside the entry's mask.
 *
 * <p>Immutable; {@link Builder#build()} validates every entry once, so registration and posting can trust it:
 * {@code LOCAL} only on {@code REG_MR}/{@code LOCAL_INV}/{@code BIND_MW}, QP-type masks within SMI..UD, known flags only, and a
 * completion opcode for every entry that can complete ({@code USE_RESERVE} entries never do). rdmavt does not
 * check {@code wc_opcode} at all (a missing entry reads out of bounds); rvt refuses the table instead.
 */
public final class OperationTable {
    private final OperationParams[] entries;

    private OperationTable(OperationParams[] entries) {
        this.entries = entries;
    }

    /**
     * @param opcode an {@code ib_wr_opcode} value
     * @return its entry, or null if the opcode is unsupported (also for values outside 0..249)
     */
    public OperationParams get(int opcode) {
        return opcode >= 0 && opcode < entries.length ? entries[opcode] : null;
    }

    /**
     * @param opcode an opcode
     * @return its entry, or null if unsupported
     */
    public OperationParams get(WrOpcode opcode) {
        return entries[opcode.value()];
    }

    /** @return true if some entry has {@link OperationFlag#USE_RESERVE} */
    public boolean usesReserve() {
        for (OperationParams p : entries) {
            if (p != null && p.has(OperationFlag.USE_RESERVE)) {
                return true;
            }
        }
        return false;
    }

    /** @return a builder with no entries */
    public static Builder builder() {
        return new Builder(new OperationParams[WrOpcode.OPERATION_MAX]);
    }

    /** @return a builder holding this table's entries */
    public Builder toBuilder() {
        return new Builder(entries.clone());
    }

    /**
     * The standard table of an InfiniBand-style driver, the one hfi1 registers without its TID RDMA and OPFN
     * entries: RDMA WRITE (with immediate) on UC and RC; SEND (with immediate) on every type; RDMA READ and the two
     * atomics on RC ({@code ATOMIC}, atomics also {@code ATOMIC_SGE}); SEND_WITH_INV on RC; LOCAL_INV and REG_MR on
     * UC and RC ({@code LOCAL}); and, beyond rdmavt as rxe has them, BIND_MW on UC and RC ({@code LOCAL}; memory
     * windows), ATOMIC_WRITE and FLUSH on RC ({@code ATOMIC}: each takes a responder resource, IBTA 1.5).
     *
     * @return the table
     */
    public static OperationTable standard() {
        int rcUc = QpType.RC.bit() | QpType.UC.bit();
        int all = OperationParams.QPT_ALL;
        int rc = QpType.RC.bit();
        return builder()
                .op(WrOpcode.RDMA_WRITE, WrShape.RDMA, rcUc, 0, WcOpcode.RDMA_WRITE)
                .op(WrOpcode.RDMA_WRITE_WITH_IMM, WrShape.RDMA, rcUc, 0, WcOpcode.RDMA_WRITE)
                .op(WrOpcode.SEND, WrShape.SEND, all, 0, WcOpcode.SEND)
                .op(WrOpcode.SEND_WITH_IMM, WrShape.SEND, all, 0, WcOpcode.SEND)
                .op(WrOpcode.RDMA_READ, WrShape.RDMA, rc, OperationFlag.ATOMIC, WcOpcode.RDMA_READ)
                .op(WrOpcode.ATOMIC_CMP_AND_SWP, WrShape.ATOMIC, rc, OperationFlag.ATOMIC | OperationFlag.ATOMIC_SGE,
                        WcOpcode.COMP_SWAP)
                .op(WrOpcode.ATOMIC_FETCH_AND_ADD, WrShape.ATOMIC, rc,
                        OperationFlag.ATOMIC | OperationFlag.ATOMIC_SGE, WcOpcode.FETCH_ADD)
                .op(WrOpcode.LOCAL_INV, WrShape.SEND, rcUc, OperationFlag.LOCAL, WcOpcode.LOCAL_INV)
                .op(WrOpcode.SEND_WITH_INV, WrShape.SEND, rc, 0, WcOpcode.SEND)
                .op(WrOpcode.REG_MR, WrShape.REG, rcUc, OperationFlag.LOCAL, WcOpcode.REG_MR)
                .op(WrOpcode.BIND_MW, WrShape.SEND, rcUc, OperationFlag.LOCAL, WcOpcode.BIND_MW)
                .op(WrOpcode.ATOMIC_WRITE, WrShape.RDMA, rc, OperationFlag.ATOMIC, WcOpcode.ATOMIC_WRITE)
                .op(WrOpcode.FLUSH, WrShape.RDMA, rc, OperationFlag.ATOMIC, WcOpcode.FLUSH)
                .build();
    }

    /** Builds an {@link OperationTable}. */
    public static final class Builder {
        private final OperationParams[] entries;

        private Builder(OperationParams[] entries) {
            this.entries = entries;
        }

        /**
         * Adds or replaces the entry of {@code opcode}.
         *
         * @param opcode the opcode
         * @param shape the work-request variant it reads
         * @param qptSupport QP-type mask ({@link QpType#bit()})
         * @param flags {@link OperationFlag} bits
         * @param wcOpcode its completion opcode (may be null only with {@link OperationFlag#USE_RESERVE})
         * @return this
         */
        public Builder op(WrOpcode opcode, WrShape shape, int qptSupport, int flags, WcOpcode wcOpcode) {
            entries[opcode.value()] = new OperationParams(shape, qptSupport, flags, wcOpcode);
            return this;
        }

        /**
         * Removes the entry of {@code opcode} (the opcode becomes unsupported).
         *
         * @param opcode the opcode
         * @return this
         */
        public Builder remove(WrOpcode opcode) {
            entries[opcode.value()] = null;
            return this;
        }

        /**
         * @return the validated table
         * @throws IllegalArgumentException naming the opcode and the problem if an entry is inconsistent
         */
        public OperationTable build() {
            for (int i = 0; i < entries.length; i++) {
                OperationParams p = entries[i];
                if (p == null) {
                    continue;
                }
                WrOpcode op = WrOpcode.of(i);
                if (p.shape() == null) {
                    throw new IllegalArgumentException("operation " + op + ": shape must not be null");
                }
                if (p.qptSupport() == 0 || (p.qptSupport() & ~OperationParams.QPT_ALL) != 0) {
                    throw new IllegalArgumentException("operation " + op + ": qptSupport 0x"
                            + Integer.toHexString(p.qptSupport()) + " must be a non-empty subset of SMI|GSI|RC|UC|UD"
                            + " (0x" + Integer.toHexString(OperationParams.QPT_ALL) + ")");
                }
                if ((p.flags() & ~OperationFlag.ALL) != 0) {
                    throw new IllegalArgumentException("operation " + op + ": unknown flags 0x"
                            + Integer.toHexString(p.flags() & ~OperationFlag.ALL));
                }
                if (p.has(OperationFlag.LOCAL) && op != WrOpcode.REG_MR && op != WrOpcode.LOCAL_INV
                        && op != WrOpcode.BIND_MW) {
                    throw new IllegalArgumentException("operation " + op
                            + ": LOCAL is only allowed on REG_MR, LOCAL_INV and BIND_MW");
                }
                if (op == WrOpcode.REG_MR && p.shape() != WrShape.REG) {
                    throw new IllegalArgumentException("operation REG_MR: shape must be REG, got " + p.shape());
                }
                if (p.has(OperationFlag.ATOMIC_SGE) && p.shape() != WrShape.ATOMIC) {
                    throw new IllegalArgumentException("operation " + op + ": ATOMIC_SGE needs shape ATOMIC, got "
                            + p.shape());
                }
                if (p.wcOpcode() == null && !p.has(OperationFlag.USE_RESERVE)) {
                    throw new IllegalArgumentException("operation " + op
                            + ": wcOpcode must be set (only USE_RESERVE operations never complete)");
                }
                if (p.wcOpcode() != null && p.wcOpcode().isRecv()) {
                    throw new IllegalArgumentException("operation " + op + ": wcOpcode " + p.wcOpcode()
                            + " is a receive opcode");
                }
            }
            return new OperationTable(entries.clone());
        }
    }
}
