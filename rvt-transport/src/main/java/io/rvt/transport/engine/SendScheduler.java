package io.rvt.transport.engine;

import io.rvt.api.spi.DriverQp;
import io.rvt.transport.Transport;

/**
 * How the transport asks its driver to run a QP's send engine later ({@code schedule_send}): handed to
 * {@link Transport} by the driver that owns it, so the protocol engines never reach their driver through the core.
 * The transport calls it with the QP's {@code sendLock} held, from receive paths and timers; the driver must queue the
 * drain, never run it on the calling thread's stack.
 */
public interface SendScheduler {
    /**
     * Queues a drain of {@code qp}'s send engine. Caller holds {@code sendLock}.
     *
     * @param qp the QP
     */
    void scheduleSend(DriverQp qp);

    /**
     * Lets go of a drain's hold of {@code qp}'s {@code sendLock}, if the calling thread drains {@code qp} and holds
     * it over the drain's packets (rvt-transport's {@code PacketDriver.holdsSendLockOverDrains()}); otherwise
     * nothing. An engine asks it ({@link QpProtocolState#letGoOfSendLock()}) before taking {@code recvLock}. Nothing
     * by default: a driver whose drains hold no lock has nothing to let go of.
     *
     * @param qp a QP whose {@code sendLock} the caller no longer holds itself
     */
    default void letGoOfSendLock(DriverQp qp) {
    }
}
