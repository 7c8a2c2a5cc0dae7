package io.rvt.api;

/**
 * Send work-request flag, with the bit values of {@code enum ib_send_flags}. Bits 26 to 31 belong to drivers; rdmavt itself uses bit 26 ({@code RVT_SEND_RESERVE_USED}) and bit 27 ({@code RVT_SEND_COMPLETION_ONLY}) internally and never accepts them from applications.
 *
 * <p>Each constant carries its numeric bit from {@code ib_send_flags}; APIs take and return {@code int} masks built with
 * {@link #bit()} or {@link #mask}, so that hot paths stay free of allocation.
 */
public enum SendFlag implements BitFlag {
    /** Wait for earlier RDMA READs and atomics before starting (also defers a LOCAL_INV). */
    FENCE(1),
    /** Generate a completion even when the QP signals only requested work requests. */
    SIGNALED(2),
    /** Ask the responder to raise a solicited completion event. */
    SOLICITED(4),
    /** Send the data inline (rdmavt reports max_inline_data = 0 and ignores it). */
    INLINE(8),
    /** Offload the IP checksum (ignored). */
    IP_CSUM(16);

    /** The union of every bit defined here. */
    public static final int ALL = BitFlag.union(values());

    private final int bit;

    SendFlag(int bit) {
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
    public static int mask(SendFlag... flags) {
        return BitFlag.union(flags);
    }

    /**
     * Renders a mask for messages, e.g. {@code "SIGNALED|SOLICITED"}; unknown bits are shown in hex.
     *
     * @param mask a mask
     * @return the names of the set bits joined by {@code |}, or {@code "0"}
     */
    public static String describe(int mask) {
        return BitFlag.describe(mask, values());
    }
}
