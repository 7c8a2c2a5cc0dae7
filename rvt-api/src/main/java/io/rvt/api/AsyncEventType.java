package io.rvt.api;

/**
 * Asynchronous event type, with the numeric values of {@code enum ib_event_type}, plus {@link #DEVICE_REMOVAL}, an
 * rvt event raised when a device's driver goes away.
 */
public enum AsyncEventType {
    /** A completion queue overflowed (rdmavt: {@code rvt_cq_enter} found it full). */
    CQ_ERR(0),
    /** A QP hit a fatal error. */
    QP_FATAL(1),
    /** A QP received an invalid request. */
    QP_REQ_ERR(2),
    /** A QP hit an access error. */
    QP_ACCESS_ERR(3),
    /** First packet received on a QP in RTR (rdmavt: {@code rvt_comm_est}). */
    COMM_EST(4),
    /** The send queue drained in SQD (never raised by rdmavt). */
    SQ_DRAINED(5),
    /** The QP migrated to its alternate path. */
    PATH_MIG(6),
    /** Path migration failed. */
    PATH_MIG_ERR(7),
    /** The device hit a fatal error. */
    DEVICE_FATAL(8),
    /** A port became active. */
    PORT_ACTIVE(9),
    /** A port went down. */
    PORT_ERR(10),
    /** A port's LID changed. */
    LID_CHANGE(11),
    /** A port's P_Key table changed. */
    PKEY_CHANGE(12),
    /** The subnet manager changed. */
    SM_CHANGE(13),
    /** An SRQ hit an error. */
    SRQ_ERR(14),
    /** An SRQ's count fell below its armed limit. */
    SRQ_LIMIT_REACHED(15),
    /** A QP attached to an SRQ entered the error state: no further receive completion will come for it. */
    QP_LAST_WQE_REACHED(16),
    /** Client re-registration was requested. */
    CLIENT_REREGISTER(17),
    /** A GID table entry changed. */
    GID_CHANGE(18),
    /**
     * rvt: the device is being removed (its driver went away, or it was removed from its registry); every QP was
     * moved to the error state, after the device's {@link DeviceClient clients} were told.
     */
    DEVICE_REMOVAL(0x100);

    private final int value;

    AsyncEventType(int value) {
        this.value = value;
    }

    /** @return the {@code ib_event_type} value (0x100 for {@link #DEVICE_REMOVAL}) */
    public int value() {
        return value;
    }
}
