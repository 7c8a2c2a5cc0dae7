package io.rvt.api;

/**
 * Queue sizes of a QP ({@code struct ib_qp_cap}). At creation these are requests checked against the device limits;
 * {@code queryQp} reports the sizes in effect. Mutable; not thread-safe.
 */
public final class QpCap {
    private int maxSendWr;
    private int maxRecvWr;
    private int maxSendSge;
    private int maxRecvSge;
    private int maxInlineData;

    /** @return send work requests the send queue holds */
    public int maxSendWr() {
        return maxSendWr;
    }

    /**
     * @param n send work requests the send queue holds, at least 0
     * @return this
     */
    public QpCap maxSendWr(int n) {
        this.maxSendWr = Checks.nonNegative("maxSendWr", n);
        return this;
    }

    /** @return receive work requests the receive queue holds (0 with an SRQ) */
    public int maxRecvWr() {
        return maxRecvWr;
    }

    /**
     * @param n receive work requests the receive queue holds, at least 0
     * @return this
     */
    public QpCap maxRecvWr(int n) {
        this.maxRecvWr = Checks.nonNegative("maxRecvWr", n);
        return this;
    }

    /** @return scatter/gather entries per send work request */
    public int maxSendSge() {
        return maxSendSge;
    }

    /**
     * @param n scatter/gather entries per send work request, at least 0
     * @return this
     */
    public QpCap maxSendSge(int n) {
        this.maxSendSge = Checks.nonNegative("maxSendSge", n);
        return this;
    }

    /** @return scatter/gather entries per receive work request */
    public int maxRecvSge() {
        return maxRecvSge;
    }

    /**
     * @param n scatter/gather entries per receive work request, at least 0
     * @return this
     */
    public QpCap maxRecvSge(int n) {
        this.maxRecvSge = Checks.nonNegative("maxRecvSge", n);
        return this;
    }

    /** @return inline data bytes (always 0 in rdmavt) */
    public int maxInlineData() {
        return maxInlineData;
    }

    /**
     * @param n inline data bytes requested; rdmavt supports none and reports 0
     * @return this
     */
    public QpCap maxInlineData(int n) {
        this.maxInlineData = Checks.nonNegative("maxInlineData", n);
        return this;
    }

    /**
     * @param other the source
     * @return this, with every field copied from {@code other}
     */
    public QpCap copyFrom(QpCap other) {
        maxSendWr = other.maxSendWr;
        maxRecvWr = other.maxRecvWr;
        maxSendSge = other.maxSendSge;
        maxRecvSge = other.maxRecvSge;
        maxInlineData = other.maxInlineData;
        return this;
    }

    @Override
    public String toString() {
        return "QpCap{sendWr=" + maxSendWr + ", recvWr=" + maxRecvWr + ", sendSge=" + maxSendSge
                + ", recvSge=" + maxRecvSge + ", inline=" + maxInlineData + '}';
    }
}
