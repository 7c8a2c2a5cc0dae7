package io.rvt.api;

/**
 * Completion-queue notification request flag, with the bit values of {@code enum ib_cq_notify_flags}.
 *
 * <p>Each constant carries its numeric bit from {@code ib_cq_notify_flags}; APIs take and return {@code int} masks built with
 * {@link #bit()} or {@link #mask}, so that hot paths stay free of allocation.
 */
public enum CqNotify implements BitFlag {
    /** Notify on the next solicited or error completion. */
    SOLICITED(1),
    /** Notify on the next completion. */
    NEXT_COMP(2),
    /** Return 1 if the queue already holds completions. */
    REPORT_MISSED_EVENTS(4);

    /** {@code IB_CQ_SOLICITED_MASK}: SOLICITED | NEXT_COMP. */
    public static final int SOLICITED_MASK = 3;

    /** The union of every bit defined here. */
    public static final int ALL = BitFlag.union(values());

    private final int bit;

    CqNotify(int bit) {
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
    public static int mask(CqNotify... flags) {
        return BitFlag.union(flags);
    }

    /**
     * Renders a mask for messages, e.g. {@code "NEXT_COMP|REPORT_MISSED_EVENTS"}; unknown bits are shown in hex.
     *
     * @param mask a mask
     * @return the names of the set bits joined by {@code |}, or {@code "0"}
     */
    public static String describe(int mask) {
        return BitFlag.describe(mask, values());
    }
}
