package io.rvt.api;

/**
 * Port modification flag, with the bit values of {@code enum ib_port_modify_flags}.
 *
 * <p>Each constant carries its numeric bit from {@code ib_port_modify_flags}; APIs take and return {@code int} masks built with
 * {@link #bit()} or {@link #mask}, so that hot paths stay free of allocation.
 */
public enum PortModifyFlag implements BitFlag {
    /** Shut the port down. */
    SHUTDOWN(1),
    /** Set the init type. */
    INIT_TYPE(4),
    /** Reset the Q_Key violation counter. */
    RESET_QKEY_CNTR(8),
    /** The capability masks given are the OPA capability mask 3. */
    OPA_MASK_CHG(16);

    /** The union of every bit defined here. */
    public static final int ALL = BitFlag.union(values());

    private final int bit;

    PortModifyFlag(int bit) {
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
    public static int mask(PortModifyFlag... flags) {
        return BitFlag.union(flags);
    }

    /**
     * Renders a mask for messages, e.g. {@code "SHUTDOWN|RESET_QKEY_CNTR"}; unknown bits are shown in hex.
     *
     * @param mask a mask
     * @return the names of the set bits joined by {@code |}, or {@code "0"}
     */
    public static String describe(int mask) {
        return BitFlag.describe(mask, values());
    }
}
