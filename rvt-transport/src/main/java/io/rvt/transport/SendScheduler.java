package io.rvt.transport;

import io.rvt.api.spi.DriverQp;

/**
 * How the transport asks its driver to run a QP's send engine later ({@code schedule_send}): handed to
 * {@link Transport} by the driver that owns it, so the protocol engines never reach their driver through the core.
 * The transport calls it with the QP's {@code sendLock} held, from receive paths and timers; the driver must queue the
 * drain, never run it on the calling thread's stack.
 */
@FunctionalInterface
public interface SendScheduler {
    /**
     * Queues a drain of {@code qp}'s send engine. Caller holds {@code sendLock}.
     *
     * @param qp the QP
     */
    void scheduleSend(DriverQp qp);
}
