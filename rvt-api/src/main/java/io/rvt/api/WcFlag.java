package io.rvt.api;

/**
 * Work-completion flag, with the bit values of {@code enum ib_wc_flags}.
 *
 * <p>Each constant carries its numeric bit from {@code ib_wc_flags}; APIs take and return {@code int} masks built with
 * {@link #bit()} or {@link #mask}, so that hot paths stay free of allocation.
 */
public enum WcFlag implements BitFlag {
    /** The receive buffer starts with a 40-byte GRH area (UD). */
    GRH(1),
    /** The completion carries immediate data. */
    WITH_IMM(2),
    /** The completion carries an invalidated rkey. */
    WITH_INVALIDATE(4);

    /** The union of every bit defined here. */
    public static final int ALL = BitFlag.union(values());

    private final int bit;

    WcFlag(int bit) {
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
    public static int mask(WcFlag... flags) {
        return BitFlag.union(flags);
    }

    /**
     * Renders a mask for messages, e.g. {@code "GRH|WITH_IMM"}; unknown bits are shown in hex.
     *
     * @param mask a mask
     * @return the names of the set bits joined by {@code |}, or {@code "0"}
     */
    public static String describe(int mask) {
        return BitFlag.describe(mask, values());
    }
}
