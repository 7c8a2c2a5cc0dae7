package io.rvt.api.spi.engine;

import io.rvt.api.spi.DriverQp;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The engine's view of a queue pair ({@code struct rvt_qp}'s send ring, requester, responder and ack queue): what
 * rvt-core's QP and rvt-transport's engines share beyond the driver's {@link DriverQp}, as four objects, each with
 * its locking rule on its class:
 * <ul>
 * <li>{@link #sendQueue()}: the send ring and its index protocol ({@code s_head}, {@code s_last}, reserved WQEs);</li>
 * <li>{@link #requester()}: the send engine's cursors, PSNs, retries, credits and timers ({@code sendLock});</li>
 * <li>{@link #responder()}: the receive path's PSN, MSN, flags and receive cursor ({@code recvLock});</li>
 * <li>{@link #ackQueue()}: RC's ack queue, where the receive path hands responses to the send engine.</li>
 * </ul>
 * Every QP rvt-core makes is one; {@link #of} reaches it from a driver callback's {@link DriverQp}.
 */
@ProviderType
public interface EngineQp extends DriverQp {
    /** @return the send ring and its index protocol */
    SendQueue sendQueue();

    /** @return the requester's state, credits and timers ({@code sendLock}) */
    RequesterState requester();

    /** @return the responder's state and receive-WQE helpers ({@code recvLock}) */
    ResponderState responder();

    /** @return RC's responder ack queue ({@code s_ack_queue}); empty (size 0) for other QP types */
    AckQueue ackQueue();

    /**
     * The engine view of a QP rvt-core made (every {@link DriverQp} a callback receives is one).
     *
     * @param qp a QP from rvt-core
     * @return the same QP as an {@code EngineQp}
     * @throws IllegalArgumentException naming the class if {@code qp} was not made by rvt-core (a test double)
     */
    static EngineQp of(DriverQp qp) {
        if (qp instanceof EngineQp e) {
            return e;
        }
        throw new IllegalArgumentException("not a QP of rvt-core: " + (qp == null ? "null" : qp.getClass().getName()));
    }
}
