package io.rvt.api;

/**
 * Work-completion flag, with the bit values of {@code enum ib_wc_flags}.
 *
 * <p>Each constant carries its numeric bit from {@code ib_wc_flags}; APIs take and return {@code int} masks built with
 * {@link #bit()} or {@link #mask}, so that hot paths stay free of allocation.
 */
public enum WcFlag {
    /** The receive buffer starts with a 40-byte GRH area (UD). */
    GRH(1),
    /** The completion carries immediate data. */
    WITH_IMM(2),
    /** The completion carries an invalidated rkey. */
    WITH_INVALIDATE(4);

    /** The union of every bit defined here. */
    public static final int ALL;

    static {
        int all = 0;
        for (WcFlag f : values()) {
            all |= f.bit;
        }
        ALL = all;
    }

    private final int bit;

    WcFlag(int bit) {
        this.bit = bit;
    }

    /** @return this flag's bit */
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
        int m = 0;
        for (WcFlag f : flags) {
            m |= f.bit;
        }
        return m;
    }

    /**
     * Renders a mask for messages, e.g. {@code "LOCAL_WRITE|REMOTE_READ"}; unknown bits are shown in hex.
     *
     * @param mask a mask
     * @return the names of the set bits joined by {@code |}, or {@code "0"}
     */
    public static String describe(int mask) {
        if (mask == 0) {
            return "0";
        }
        StringBuilder sb = new StringBuilder();
        int rest = mask;
        for (WcFlag f : values()) {
            if ((mask & f.bit) != 0) {
                if (sb.length() > 0) {
                    sb.append('|');
                }
                sb.append(f.name());
                rest &= ~f.bit;
            }
        }
        if (rest != 0) {
            if (sb.length() > 0) {
                sb.append('|');
            }
            sb.append("0x").append(Integer.toHexString(rest));
        }
        return sb.toString();
    }
}
