package io.rvt.api;

/**
 * Memory and QP access flag, with the bit values of {@code enum ib_access_flags}.
 *
 * <p>Each constant carries its numeric bit from {@code ib_access_flags}; APIs take and return {@code int} masks built with
 * {@link #bit()} or {@link #mask}, so that hot paths stay free of allocation.
 */
public enum AccessFlag implements BitFlag {
    /** The local HCA may write the memory (required for receive buffers and for the targets of RDMA READ and atomics). */
    LOCAL_WRITE(1),
    /** Remote peers may RDMA WRITE into the memory. */
    REMOTE_WRITE(2),
    /** Remote peers may RDMA READ the memory. */
    REMOTE_READ(4),
    /** Remote peers may perform atomics on the memory. */
    REMOTE_ATOMIC(8),
    /** Memory windows may be bound (not supported by rdmavt). */
    MW_BIND(16),
    /** Addresses are offsets from the start of the region. */
    ZERO_BASED(32),
    /** On-demand paging (not supported). */
    ON_DEMAND(64),
    /** Huge pages hint (ignored). */
    HUGETLB(128),
    /**
     * {@code IBV_ACCESS_FLUSH_GLOBAL} (Linux 6.2, IBTA 1.5): remote peers may FLUSH the memory to global visibility
     * (on a region, and on a QP for it to accept a FLUSH with that placement type). rvt's extension beyond rdmavt.
     */
    FLUSH_GLOBAL(256),
    /**
     * {@code IBV_ACCESS_FLUSH_PERSISTENT}: FLUSH to persistence. rvt has no persistent memory and refuses it on a
     * region (EINVAL, as rxe does for memory that is not pmem); a QP may carry it.
     */
    FLUSH_PERSISTENT(512);

    /** The union of every bit defined here. */
    public static final int ALL = BitFlag.union(values());

    private final int bit;

    AccessFlag(int bit) {
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
    public static int mask(AccessFlag... flags) {
        return BitFlag.union(flags);
    }

    /**
     * Renders a mask for messages, e.g. {@code "LOCAL_WRITE|REMOTE_READ"}; unknown bits are shown in hex.
     *
     * @param mask a mask
     * @return the names of the set bits joined by {@code |}, or {@code "0"}
     */
    public static String describe(int mask) {
        return BitFlag.describe(mask, values());
    }
}
