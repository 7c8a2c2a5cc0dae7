package io.rvt.api;

/**
 * What {@link ProtectionDomain#createSrq(SrqInitAttr)} needs ({@code struct ib_srq_init_attr}). Mutable; not
 * thread-safe.
 */
public final class SrqInitAttr {
    /** {@code IB_SRQT_BASIC}, the only SRQ type rdmavt supports. */
    public static final int SRQT_BASIC = 0;

    private int maxWr;
    private int maxSge;
    private int srqLimit;
    private int srqType = SRQT_BASIC;
    private AsyncEventHandler eventHandler;

    /** @return receive work requests the SRQ holds */
    public int maxWr() {
        return maxWr;
    }

    /**
     * @param n receive work requests the SRQ holds; {@code createSrq} requires 1..{@code max_srq_wr}
     * @return this
     */
    public SrqInitAttr maxWr(int n) {
        this.maxWr = Checks.nonNegative("maxWr", n);
        return this;
    }

    /** @return scatter/gather entries per receive work request */
    public int maxSge() {
        return maxSge;
    }

    /**
     * @param n scatter/gather entries per receive work request; {@code createSrq} requires 1..{@code max_srq_sge}
     * @return this
     */
    public SrqInitAttr maxSge(int n) {
        this.maxSge = Checks.nonNegative("maxSge", n);
        return this;
    }

    /** @return the armed limit (0 = disarmed) */
    public int srqLimit() {
        return srqLimit;
    }

    /**
     * @param limit raise {@link AsyncEventType#SRQ_LIMIT_REACHED} once the count drops below this (0 = never)
     * @return this
     */
    public SrqInitAttr srqLimit(int limit) {
        this.srqLimit = Checks.nonNegative("srqLimit", limit);
        return this;
    }

    /** @return {@code enum ib_srq_type} value */
    public int srqType() {
        return srqType;
    }

    /**
     * @param type {@code enum ib_srq_type} value; only {@link #SRQT_BASIC} is supported
     * @return this
     */
    public SrqInitAttr srqType(int type) {
        this.srqType = type;
        return this;
    }

    /** @return the SRQ's event handler, or null */
    public AsyncEventHandler eventHandler() {
        return eventHandler;
    }

    /**
     * @param handler receives {@link AsyncEventType#SRQ_LIMIT_REACHED}, or null
     * @return this
     */
    public SrqInitAttr eventHandler(AsyncEventHandler handler) {
        this.eventHandler = handler;
        return this;
    }
}
