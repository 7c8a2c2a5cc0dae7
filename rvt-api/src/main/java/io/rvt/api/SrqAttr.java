package io.rvt.api;

/** SRQ attributes ({@code struct ib_srq_attr}) for {@code modifySrq} and {@code querySrq}. Mutable. */
public final class SrqAttr {
    private int maxWr;
    private int maxSge;
    private int srqLimit;

    /** @return receive work requests the SRQ holds */
    public int maxWr() {
        return maxWr;
    }

    /**
     * @param n new size ({@link SrqAttrMask#MAX_WR})
     * @return this
     */
    public SrqAttr maxWr(int n) {
        this.maxWr = Checks.nonNegative("maxWr", n);
        return this;
    }

    /** @return scatter/gather entries per receive work request (query only) */
    public int maxSge() {
        return maxSge;
    }

    /**
     * @param n scatter/gather entries (query only)
     * @return this
     */
    public SrqAttr maxSge(int n) {
        this.maxSge = Checks.nonNegative("maxSge", n);
        return this;
    }

    /** @return the armed limit (0 = disarmed) */
    public int srqLimit() {
        return srqLimit;
    }

    /**
     * @param limit new limit ({@link SrqAttrMask#LIMIT}); 0 disarms
     * @return this
     */
    public SrqAttr srqLimit(int limit) {
        this.srqLimit = Checks.nonNegative("srqLimit", limit);
        return this;
    }
}
