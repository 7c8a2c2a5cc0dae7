package io.rvt.api;

/**
 * Attribute-mask bit for {@code modifySrq}, with the bit values of {@code enum ib_srq_attr_mask}.
 *
 * <p>Each constant carries its numeric bit from {@code ib_srq_attr_mask}; APIs take and return {@code int} masks built with
 * {@link #bit()} or {@link #mask}, so that hot paths stay free of allocation.
 */
public enum SrqAttrMask implements BitFlag {
    /** Resize the SRQ to {@code maxWr} entries. */
    MAX_WR(1),
    /** Arm the limit event at {@code srqLimit} (0 disarms). */
    LIMIT(2);

    /** The union of every bit defined here. */
    public static final int ALL = BitFlag.union(values());

    private final int bit;

    SrqAttrMask(int bit) {
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
    public static int mask(SrqAttrMask... flags) {
        return BitFlag.union(flags);
    }

    /**
     * Renders a mask for messages, e.g. {@code "MAX_WR|LIMIT"}; unknown bits are shown in hex.
     *
     * @param mask a mask
     * @return the names of the set bits joined by {@code |}, or {@code "0"}
     */
    public static String describe(int mask) {
        return BitFlag.describe(mask, values());
    }
}
