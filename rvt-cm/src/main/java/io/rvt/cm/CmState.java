package io.rvt.cm;

/**
 * The state of a communication ID, as IBTA vol 1 ch 12.9 (the CM state diagrams) and the kernel's
 * {@code enum ib_cm_state} name them, plus {@link #CLOSED} for an ID that is gone.
 */
public enum CmState {
    /** Created, nothing sent or received ({@code IB_CM_IDLE}). */
    IDLE,
    /** A listener ({@code IB_CM_LISTEN}). */
    LISTEN,
    /** Active side: REQ sent, waiting for REP, REJ or MRA ({@code IB_CM_REQ_SENT}). */
    REQ_SENT,
    /** Passive side: REQ received, the application has not answered yet ({@code IB_CM_REQ_RCVD}). */
    REQ_RCVD,
    /** Passive side: MRA sent for the REQ, the application has not answered yet ({@code IB_CM_MRA_REQ_SENT}). */
    MRA_REQ_SENT,
    /** Active side: the passive side acknowledged the REQ with an MRA ({@code IB_CM_MRA_REQ_RCVD}). */
    MRA_REQ_RCVD,
    /** Passive side: REP sent, waiting for RTU ({@code IB_CM_REP_SENT}). */
    REP_SENT,
    /** Active side: REP received; RTU about to be sent ({@code IB_CM_REP_RCVD}). */
    REP_RCVD,
    /** Active side: MRA sent for the REP ({@code IB_CM_MRA_REP_SENT}). */
    MRA_REP_SENT,
    /** Passive side: the active side acknowledged the REP with an MRA ({@code IB_CM_MRA_REP_RCVD}). */
    MRA_REP_RCVD,
    /** Connected ({@code IB_CM_ESTABLISHED}). */
    ESTABLISHED,
    /** DREQ sent, waiting for DREP ({@code IB_CM_DREQ_SENT}). */
    DREQ_SENT,
    /** DREQ received, DREP about to be sent ({@code IB_CM_DREQ_RCVD}). */
    DREQ_RCVD,
    /**
     * Disconnected; the ID lingers so that late or duplicate MADs of the old connection are recognised (and a REQ
     * reusing its QP is rejected as stale) ({@code IB_CM_TIMEWAIT}).
     */
    TIMEWAIT,
    /** SIDR_REQ sent, waiting for SIDR_REP ({@code IB_CM_SIDR_REQ_SENT}). */
    SIDR_REQ_SENT,
    /** SIDR_REQ received, the listener has not answered yet ({@code IB_CM_SIDR_REQ_RCVD}). */
    SIDR_REQ_RCVD,
    /** Gone: rejected, timed out, out of timewait, or closed. The QP (if the CM made it) is destroyed. */
    CLOSED;

    /** @return true in the states in which the QP carries traffic ({@link #ESTABLISHED}) */
    public boolean isConnected() {
        return this == ESTABLISHED;
    }
}
