package io.rvt.cm;

import io.rvt.api.Gid;

/**
 * One thing that happened to a communication ID ({@code struct rdma_cm_event}): its type, the state before and
 * after, and what came with it. Immutable.
 */
public final class CmEvent {
    private final CmEventType type;
    private final CmState previousState;
    private final CmState state;
    private final Connection connection;
    private final ConnectRequest request;
    private final Gid peer;
    private final int port;
    private final long serviceId;
    private final byte[] privateData;
    private final RejectReason rejectReason;
    private final CmException error;
    private final int attempt;
    private final long timeNanos;

    /**
     * @param type what happened
     * @param previousState the ID's state before
     * @param state the ID's state after
     * @param connection the connection, or null for events of a request not yet accepted
     * @param request the request, for {@link CmEventType#CONNECT_REQUEST}; else null
     * @param peer the remote port's GID
     * @param port the CM port (the port number of the service ID)
     * @param serviceId the service ID
     * @param privateData the private data the peer's MAD carried (REQ, REP, REJ, DREQ, DREP, ...), or an empty array
     * @param rejectReason for {@link CmEventType#REJECTED}, the REJ's reason; else null
     * @param error for {@link CmEventType#REJECTED} and {@link CmEventType#CONNECT_ERROR}, the error; else null
     * @param attempt for {@link CmEventType#REQUEST_SENT}, 1 for the first send, 2 for the first retry, ...; else 0
     * @param timeNanos when, on the CM's clock ({@link CmConfig#timerService()})
     */
    public CmEvent(CmEventType type, CmState previousState, CmState state, Connection connection,
            ConnectRequest request, Gid peer, int port, long serviceId, byte[] privateData,
            RejectReason rejectReason, CmException error, int attempt, long timeNanos) {
        this.type = type;
        this.previousState = previousState;
        this.state = state;
        this.connection = connection;
        this.request = request;
        this.peer = peer;
        this.port = port;
        this.serviceId = serviceId;
        this.privateData = privateData == null ? new byte[0] : privateData.clone();
        this.rejectReason = rejectReason;
        this.error = error;
        this.attempt = attempt;
        this.timeNanos = timeNanos;
    }

    /** @return what happened */
    public CmEventType type() {
        return type;
    }

    /** @return the communication ID's state before the event */
    public CmState previousState() {
        return previousState;
    }

    /** @return the communication ID's state after the event */
    public CmState state() {
        return state;
    }

    /** @return the connection, or null for a request that was not accepted */
    public Connection connection() {
        return connection;
    }

    /** @return for {@link CmEventType#CONNECT_REQUEST} the request to accept or reject; else null */
    public ConnectRequest request() {
        return request;
    }

    /** @return the remote port's GID */
    public Gid peer() {
        return peer;
    }

    /** @return the CM port (the low 16 bits of an RDMA_PS_TCP service ID) */
    public int port() {
        return port;
    }

    /** @return the service ID */
    public long serviceId() {
        return serviceId;
    }

    /** @return a copy of the private data the peer's MAD carried (empty if none) */
    public byte[] privateData() {
        return privateData.clone();
    }

    /** @return the REJ's reason for {@link CmEventType#REJECTED}; else null */
    public RejectReason rejectReason() {
        return rejectReason;
    }

    /** @return the error for {@link CmEventType#REJECTED} and {@link CmEventType#CONNECT_ERROR}; else null */
    public CmException error() {
        return error;
    }

    /** @return for {@link CmEventType#REQUEST_SENT}: 1 for the first REQ, 2 for the first retry, ...; else 0 */
    public int attempt() {
        return attempt;
    }

    /** @return when the event happened, in ns on the CM's clock */
    public long timeNanos() {
        return timeNanos;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(96).append(type).append(' ').append(previousState).append("->")
                .append(state).append(" peer ").append(peer).append(" port ").append(port);
        if (rejectReason != null) {
            sb.append(" reason ").append(rejectReason);
        }
        if (attempt > 0) {
            sb.append(" attempt ").append(attempt);
        }
        if (error != null) {
            sb.append(": ").append(error.getMessage());
        }
        return sb.toString();
    }
}
