package io.rvt.api;

/** Send-queue signalling mode chosen at QP creation, with the values of {@code enum ib_sig_type}. */
public enum SigType {
    /** Every send work request generates a completion. */
    SIGNAL_ALL_WR(0),
    /** Only work requests with {@link SendFlag#SIGNALED} (and every error) generate a completion. */
    SIGNAL_REQ_WR(1);

    private final int value;

    SigType(int value) {
        this.value = value;
    }

    /** @return the {@code ib_sig_type} value */
    public int value() {
        return value;
    }
}
