package io.rvt.api.spi;

/**
 * The ACK extended transport header's layout and credit encoding: syndrome in bits 31..24 (for ACKs, bits 28..24
 * are the credit code; for RNR NAKs the timer code), MSN in bits 23..0.
 */
public final class Aeth {
    private Aeth() {
    }

    /** {@code IB_AETH_CREDIT_SHIFT}. */
    public static final int CREDIT_SHIFT = 24;
    /** {@code IB_AETH_CREDIT_MASK}. */
    public static final int CREDIT_MASK = 0x1F;
    /** {@code IB_AETH_CREDIT_INVAL}: "invalid credit", unlimited (and what SRQ QPs advertise). */
    public static final int CREDIT_INVAL = 0x1F;
    /** {@code IB_AETH_NAK_SHIFT}: the shift of the 3-bit syndrome class. */
    public static final int NAK_SHIFT = 29;
    /** Syndrome class ACK. */
    public static final int SYNDROME_ACK = 0;
    /** Syndrome class RNR NAK. */
    public static final int SYNDROME_RNR_NAK = 1;
    /** Syndrome class NAK. */
    public static final int SYNDROME_NAK = 3;

    /** Credit code to number of credits (codes 0..30). */
    private static final int[] CREDIT_TABLE = {
        0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
        256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768
    };

    /**
     * @param code a credit code 0..30
     * @return the number of credits it stands for
     */
    public static int credits(int code) {
        return CREDIT_TABLE[code];
    }

    /**
     * The largest credit code whose credit count does not exceed {@code available}, as {@code rvt_compute_aeth}
     * finds it (30 for 32768 and more).
     *
     * @param available receive WQEs available, at least 0
     * @return the code, 0..30
     */
    public static int creditCode(int available) {
        int lo = 0;
        int hi = CREDIT_TABLE.length - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (CREDIT_TABLE[mid] <= available) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /**
     * @param aeth an AETH value
     * @return its credit (or RNR timer) code, bits 28..24
     */
    public static int code(int aeth) {
        return (aeth >>> CREDIT_SHIFT) & CREDIT_MASK;
    }

    /**
     * @param aeth an AETH value
     * @return its syndrome class, bits 31..29
     */
    public static int syndromeClass(int aeth) {
        return aeth >>> NAK_SHIFT;
    }

    /**
     * @param aeth an AETH value
     * @return its MSN, bits 23..0
     */
    public static int msn(int aeth) {
        return aeth & Seq24.MASK;
    }
}
