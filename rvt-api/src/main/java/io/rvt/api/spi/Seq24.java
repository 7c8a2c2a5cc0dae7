package io.rvt.api.spi;

/**
 * Serial-number arithmetic on the 24-bit MSNs and PSNs of IBTA transport.
 */
public final class Seq24 {
    private Seq24() {
    }

    /** {@code IB_MSN_MASK}: the 24 bits of an MSN. */
    public static final int MASK = 0xFFFFFF;

    /**
     * Mirrors {@code rvt_cmp_msn}: compares the low 24 bits of {@code a} and {@code b} in modular order.
     *
     * @param a a sequence number
     * @param b another
     * @return negative if {@code a} is before {@code b}, 0 if equal, positive if after (valid when the true
     *         distance is below 2^23)
     */
    public static int cmpMsn(int a, int b) {
        return (a - b) << 8;
    }

    /**
     * The PSN compare drivers use ({@code cmp_psn}): {@code (a - b) << shift}, with {@code psn_shift} 8 for 24-bit
     * PSNs (qib) or 1 for 31-bit PSNs (hfi1).
     *
     * @param a a PSN
     * @param b another
     * @param psnShift the driver's {@code psn_shift}
     * @return negative, zero or positive as {@code a} is before, equal to or after {@code b}
     */
    public static int cmpPsn(int a, int b, int psnShift) {
        return (a - b) << psnShift;
    }

    /**
     * @param a a sequence number
     * @param b another
     * @return {@code (a - b) mod 2^24} as a signed value in {@code [-2^23, 2^23)}
     */
    public static int delta(int a, int b) {
        return ((a - b) << 8) >> 8;
    }

    /**
     * @param psn a sequence number
     * @param n an increment
     * @return {@code (psn + n) mod 2^24}
     */
    public static int add(int psn, int n) {
        return (psn + n) & MASK;
    }
}
