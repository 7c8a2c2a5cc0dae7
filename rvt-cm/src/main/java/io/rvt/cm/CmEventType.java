package io.rvt.cm;

/**
 * What a {@link CmEvent} reports. The types mirror librdmacm's {@code enum rdma_cm_event_type} where one exists and
 * add the protocol steps between them, so that every state change of a communication ID is an event.
 */
public enum CmEventType {
    /** A REQ was sent (or resent after a response timeout; {@link CmEvent#attempt()} counts). */
    REQUEST_SENT,
    /** A REQ arrived at a listener ({@code RDMA_CM_EVENT_CONNECT_REQUEST}). */
    CONNECT_REQUEST,
    /** An MRA was sent: the peer is told to wait longer for our reply. */
    MRA_SENT,
    /** An MRA arrived: the peer asked for more time; our response timeout was extended. */
    MRA_RECEIVED,
    /** A REP was sent (passive side, on accept). */
    REPLY_SENT,
    /** A REP arrived (active side); the RTU follows. */
    REPLY_RECEIVED,
    /** The connection is up ({@code RDMA_CM_EVENT_ESTABLISHED}): RTU sent (active) or received (passive). */
    ESTABLISHED,
    /** A REJ ended the attempt ({@code RDMA_CM_EVENT_REJECTED}); {@link CmEvent#rejectReason()} says why. */
    REJECTED,
    /**
     * The attempt failed without a REJ from the peer ({@code RDMA_CM_EVENT_UNREACHABLE}/{@code CONNECT_ERROR}):
     * no answer after the retries, or a local error; {@link CmEvent#error()} says which.
     */
    CONNECT_ERROR,
    /** A DREQ arrived from the peer: the QP was moved to ERR and the DREP goes out; DISCONNECTED follows. */
    DISCONNECT_RECEIVED,
    /** A DREQ was sent (local disconnect). */
    DISCONNECT_REQUESTED,
    /**
     * The connection is down ({@code RDMA_CM_EVENT_DISCONNECTED}): DREQ received from the peer, DREP received for our
     * DREQ, or our DREQ timed out. The QP was moved to ERR: its posted work requests flush.
     */
    DISCONNECTED,
    /** Timewait is over; the communication ID is gone ({@code RDMA_CM_EVENT_TIMEWAIT_EXIT}). */
    TIMEWAIT_EXIT,
    /** A SIDR_REQ was answered: the UD peer's QPN and Q_Key are known. */
    SIDR_RESOLVED,
    /** The device went away ({@code RDMA_CM_EVENT_DEVICE_REMOVAL}); every ID is closed. */
    DEVICE_REMOVAL
}
