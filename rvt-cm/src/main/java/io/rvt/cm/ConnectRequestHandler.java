package io.rvt.cm;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Answers connection requests as they arrive at a {@link Listener} (the callback form of
 * {@link Listener#accept(java.time.Duration)}). Called on the CM's thread; it calls
 * {@link ConnectRequest#acceptAsync} or {@link ConnectRequest#reject}, now or later from any thread. While a request is
 * unanswered, a retransmitted REQ from the peer gets an MRA from the CM (librdmacm's delayed MRA), so the peer waits
 * up to {@link CmConfig#serviceTimeout()} longer.
 */
@ConsumerType
@FunctionalInterface
public interface ConnectRequestHandler {
    /**
     * @param request the request
     */
    void onRequest(ConnectRequest request);
}
