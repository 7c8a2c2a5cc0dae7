package io.rvt.cm;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A listen on one CM port ({@code rdma_listen}): REQs whose service ID is {@code 0x0000000001060000 | port} come
 * here, REQs for a port nobody listens on get a REJ with {@link RejectReason#INVALID_SERVICE_ID}. Requests are queued
 * until taken with {@link #accept(Duration)} or {@link #nextRequest()}, or handed to the
 * {@link ConnectRequestHandler} the listener was made with. Thread-safe.
 */
@ProviderType
public interface Listener extends AutoCloseable {
    /** @return the CM port */
    int port();

    /** @return the service ID it listens on ({@code 0x0000000001060000 | port}) */
    long serviceId();

    /**
     * Waits for the next connection request ({@code rdma_get_cm_event} for {@code RDMA_CM_EVENT_CONNECT_REQUEST}).
     * Needs a CM whose timers run on their own (not a deterministic fabric that the calling thread drives; use
     * {@link #nextRequest()} there).
     *
     * @param timeout how long to wait
     * @return the request, to accept or reject
     * @throws CmException ETIMEDOUT if none came in time; ENODEV if the listener or its CM was closed meanwhile
     */
    ConnectRequest accept(Duration timeout);

    /**
     * @return a future of the next connection request not yet taken; it fails with a {@link CmException} (ENODEV)
     *         when the listener is closed first. Not for a listener with a {@link ConnectRequestHandler}.
     */
    CompletableFuture<ConnectRequest> nextRequest();

    /** @return true until {@link #close()} */
    boolean isOpen();

    /**
     * Stops listening and frees the port; queued requests that nobody took are rejected
     * ({@link RejectReason#INVALID_SERVICE_ID}), connections already accepted are not affected. Idempotent.
     */
    @Override
    void close();
}
