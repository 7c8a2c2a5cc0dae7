package io.rvt.cm;

import io.rvt.api.Gid;
import io.rvt.api.PathMtu;
import io.rvt.api.QpType;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A REQ that arrived at a {@link Listener} (the new {@code rdma_cm_id} of {@code RDMA_CM_EVENT_CONNECT_REQUEST}):
 * what the active side asked for, to be {@linkplain #acceptAsync accepted} or {@linkplain #reject rejected} exactly
 * once. Thread-safe.
 */
@ProviderType
public interface ConnectRequest {
    /** @return the listener it arrived at */
    Listener listener();

    /** @return the active side's port GID (the REQ's primary local port GID) */
    Gid remoteGid();

    /**
     * @return the active side's IP address and source port from the REQ's IP CM header (rdma_cm's {@code cma_hdr}),
     *         or null if the REQ had none
     */
    InetSocketAddress remoteAddress();

    /** @return the active side's QP number */
    int remoteQpn();

    /** @return the transport the active side asks for (RC or UC) */
    QpType qpType();

    /** @return the REQ's service ID */
    long serviceId();

    /** @return the active side's communication ID */
    int remoteCommId();

    /** @return the path MTU of the REQ */
    PathMtu pathMtu();

    /** @return the active side's responder resources (the most RDMA READ/atomic requests this side may issue) */
    int responderResources();

    /** @return the active side's initiator depth (the most RDMA READ/atomic requests this side must serve) */
    int initiatorDepth();

    /** @return the application's private data of the REQ (after the IP CM header), a copy */
    byte[] privateData();

    /**
     * Accepts ({@code rdma_accept}) and returns at once: creates the QP from {@code qp}, moves it to RTS with the
     * REQ's parameters bounded by this device and the options, and sends the REP. The QP can receive from now on
     * (post receives before waiting); the connection is {@linkplain Connection#established() established} when the
     * RTU arrives. If the REP goes unanswered after the peer's retries (ETIMEDOUT) or the peer rejects it
     * (ECONNREFUSED), {@link Connection#established()} fails and the QP is in ERR.
     *
     * @param qp how to build the QP (its type must be the REQ's)
     * @param privateData the REP's private data, at most {@link ConnectionManager#MAX_REP_PRIVATE_DATA} bytes, or
     *                    null
     * @return the connection, in {@link CmState#REP_SENT}
     * @throws CmException EINVAL for bad options, another QP type than the REQ's, or too much private data (the
     *                     request stays unanswered); EBUSY if the request was already answered; ECONNREFUSED if this
     *                     side cannot take the REQ's path MTU (the CM rejects with {@link RejectReason#INVALID_MTU})
     * @throws io.rvt.api.VerbsException the verbs' error if the QP cannot be created (the REQ is then rejected with
     *                                   {@link RejectReason#NO_QP})
     */
    Connection acceptAsync(QpOptions qp, byte[] privateData);

    /**
     * {@link #acceptAsync} and waits until the connection is established (needs a CM whose timers run on their own).
     * On failure the connection is closed before the exception is thrown.
     *
     * @param qp how to build the QP
     * @param privateData the REP's private data, or null
     * @param timeout how long to wait for the RTU
     * @return the established connection
     * @throws CmException as {@link #acceptAsync} and {@link Connection#awaitEstablished}
     */
    Connection accept(QpOptions qp, byte[] privateData, Duration timeout);

    /**
     * Rejects ({@code rdma_reject}) with {@link RejectReason#CONSUMER_DEFINED} and the application's reason in the
     * private data; the active side's connect fails with ECONNREFUSED carrying both.
     *
     * @param privateData the REJ's private data, at most {@link ConnectionManager#MAX_REJ_PRIVATE_DATA} bytes, or
     *                    null
     * @throws CmException EINVAL for too much private data; EBUSY if the request was already answered
     */
    void reject(byte[] privateData);

    /**
     * Rejects with an IBTA reason.
     *
     * @param reason the reason
     * @param privateData the REJ's private data, or null
     * @throws CmException EINVAL for too much private data; EBUSY if the request was already answered
     */
    void reject(RejectReason reason, byte[] privateData);
}
