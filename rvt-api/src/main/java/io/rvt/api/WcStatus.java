package io.rvt.api;

/**
 * Work-completion status, with the numeric values of {@code enum ib_wc_status}.
 *
 * <p>Only {@link WorkCompletion#wrId()}, {@link WorkCompletion#status()}, {@link WorkCompletion#qpNum()} and (for
 * rdmavt) the opcode are meaningful in a completion whose status is not {@link #SUCCESS}.
 */
public enum WcStatus {
    /** The work request completed. */
    SUCCESS(0),
    /** Local length error: a message did not fit the receive buffer. */
    LOC_LEN_ERR(1),
    /** Local QP operation error (e.g. a completion queue overflowed). */
    LOC_QP_OP_ERR(2),
    /** Local EE context operation error. */
    LOC_EEC_OP_ERR(3),
    /** Local protection error: an lkey check failed. */
    LOC_PROT_ERR(4),
    /** The QP entered the error state; this WQE was flushed. */
    WR_FLUSH_ERR(5),
    /** Memory window bind error. */
    MW_BIND_ERR(6),
    /** Bad response from the responder. */
    BAD_RESP_ERR(7),
    /** Local access error. */
    LOC_ACCESS_ERR(8),
    /** The responder rejected the request as invalid. */
    REM_INV_REQ_ERR(9),
    /** The responder's rkey check failed. */
    REM_ACCESS_ERR(10),
    /** The responder could not complete the operation. */
    REM_OP_ERR(11),
    /** Transport retries exhausted. */
    RETRY_EXC_ERR(12),
    /** Receiver-not-ready retries exhausted. */
    RNR_RETRY_EXC_ERR(13),
    /** Local RDD violation. */
    LOC_RDD_VIOL_ERR(14),
    /** Remote invalid RD request. */
    REM_INV_RD_REQ_ERR(15),
    /** Remote aborted. */
    REM_ABORT_ERR(16),
    /** Invalid EE context number. */
    INV_EECN_ERR(17),
    /** Invalid EE context state. */
    INV_EEC_STATE_ERR(18),
    /** Fatal error. */
    FATAL_ERR(19),
    /** Response timeout. */
    RESP_TIMEOUT_ERR(20),
    /** General error. */
    GENERAL_ERR(21);

    private static final WcStatus[] BY_VALUE = values();

    private final int value;

    WcStatus(int value) {
        this.value = value;
    }

    /** @return the {@code ib_wc_status} value */
    public int value() {
        return value;
    }

    /**
     * @param value an {@code ib_wc_status} value
     * @return the status
     * @throws IllegalArgumentException if no status has that value
     */
    public static WcStatus of(int value) {
        if (value < 0 || value >= BY_VALUE.length) {
            throw new IllegalArgumentException("unknown work completion status value: " + value);
        }
        return BY_VALUE[value];
    }
}
