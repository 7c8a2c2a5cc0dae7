package io.rvt.cm;

import io.rvt.api.Gid;
import io.rvt.api.PathMtu;
import io.rvt.api.QueuePair;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A connected QP and its communication ID (an {@code rdma_cm_id} with its QP, or DiSNI's
 * {@code RdmaActiveEndpoint}). Post to and poll {@link #qp()} as to any QP: the CM is not on the data path. Either
 * side may {@link #disconnect()}; the other side then gets {@link CmEventType#DISCONNECTED}, and on both the QP goes to
 * ERR so that its posted work requests flush. {@link #close()} also destroys the QP. Thread-safe.
 */
@ProviderType
public interface Connection extends AutoCloseable {
    /** @return the connected QP (RC or UC), created by the CM; destroyed by {@link #close()} */
    QueuePair qp();

    /** @return the communication ID's current state */
    CmState state();

    /** @return true on the side that connected, false on the side that accepted */
    boolean isActiveSide();

    /** @return the peer's port GID */
    Gid remoteGid();

    /** @return the peer's QP number */
    int remoteQpn();

    /** @return the CM port */
    int port();

    /** @return the service ID */
    long serviceId();

    /** @return this side's communication ID */
    int localCommId();

    /** @return the peer's communication ID */
    int remoteCommId();

    /** @return the path MTU both QPs use */
    PathMtu pathMtu();

    /** @return this QP's initiator depth ({@code max_rd_atomic}) as agreed */
    int initiatorDepth();

    /** @return this QP's responder resources ({@code max_dest_rd_atomic}) as agreed */
    int responderResources();

    /**
     * @return this QP's starting send PSN ({@code sq_psn}): the Starting PSN the peer put in its REQ or REP, the PSN
     *         it expects first (ib_cm's meaning, {@code cm_init_qp_rts_attr})
     */
    int sendPsn();

    /**
     * @return this QP's first expected receive PSN ({@code rq_psn}): the one this side chose and put in its REQ or
     *         REP (rdma_cm's {@code seq_num})
     */
    int receivePsn();

    /**
     * @return a copy of the peer's private data: the REP's for the active side, the REQ's (after the IP CM header)
     *         for the passive side
     */
    byte[] remotePrivateData();

    /**
     * @return a future done with this connection when it is established (RTU sent or received), or failed with a
     *         {@link CmException} when the attempt fails
     */
    CompletableFuture<Connection> established();

    /**
     * Waits until the connection is established (needs a CM whose timers run on their own).
     *
     * @param timeout how long to wait
     * @return this
     * @throws CmException the attempt's error (ECONNREFUSED with the REJ's reason and private data, ETIMEDOUT after
     *                     the retries, ENODEV), or ETIMEDOUT if {@code timeout} passed first (the attempt goes on)
     */
    Connection awaitEstablished(Duration timeout);

    /** @return the error that ended the attempt or the connection, or null */
    CmException failure();

    /**
     * @return a future done with the {@link CmEventType#DISCONNECTED} event when either side ends the connection
     *         (its private data is the peer's DREQ's or DREP's); never fails
     */
    CompletableFuture<CmEvent> disconnected();

    /**
     * Disconnects ({@code rdma_disconnect}) with no private data.
     *
     * @see #disconnect(byte[])
     */
    void disconnect();

    /**
     * Disconnects: moves the QP to ERR (posted work requests flush) and sends a DREQ; the peer answers with a DREP,
     * or the CM gives up after its retries. Does nothing if the connection is already down or going down.
     *
     * @param privateData the DREQ's private data, at most {@link ConnectionManager#MAX_DREQ_PRIVATE_DATA} bytes, or
     *                    null
     * @throws CmException EINVAL for too much private data
     */
    void disconnect(byte[] privateData);

    /**
     * Adds a listener of this connection's events (in addition to the CM-wide ones).
     *
     * @param listener the listener
     */
    void addEventListener(CmEventListener listener);

    /**
     * Disconnects if still connected and destroys the QP ({@code rdma_destroy_qp} + {@code rdma_destroy_id}). The
     * communication ID stays in timewait for a while so that late MADs of this connection are recognised. Idempotent.
     */
    @Override
    void close();
}
