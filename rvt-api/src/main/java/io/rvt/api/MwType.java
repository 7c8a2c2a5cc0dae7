package io.rvt.api;

/**
 * Memory window type ({@code enum ibv_mw_type}, with its values; kernel: {@code enum ib_mw_type}). rdmavt has no
 * memory windows; rvt has them as Linux's rxe does ({@code rxe_mw.c}): type 1 and type 2B.
 */
public enum MwType {
    /**
     * {@code IBV_MW_TYPE_1}: bound with {@link QueuePair#bindMw} ({@code ibv_bind_mw}), associated with its PD only,
     * never zero-based, not invalidated by LOCAL_INV or SEND_WITH_INV.
     */
    TYPE_1(1),
    /**
     * {@code IBV_MW_TYPE_2} (type 2B): bound with a {@link WrOpcode#BIND_MW} work request, associated with the QP
     * that bound it, invalidated by {@link WrOpcode#LOCAL_INV} or a peer's {@link WrOpcode#SEND_WITH_INV}.
     */
    TYPE_2(2);

    private final int value;

    MwType(int value) {
        this.value = value;
    }

    /** @return the {@code ibv_mw_type} value */
    public int value() {
        return value;
    }
}
