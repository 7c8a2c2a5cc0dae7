package io.rvt.api.spi;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * How a driver lets go of a QP that is reset or enters the error state, handed to rvt-core by
 * {@link RvtDriver#qpQuiesce()}: rdmavt's {@code flush_qp_waiters}, {@code stop_send_queue}, {@code quiesce_qp} and
 * {@code notify_error_qp} pointers of {@code struct rvt_driver_provided}.
 *
 * <p>rdmavt requires them for {@code create_qp}, {@code modify_qp} and {@code destroy_qp}, since a kernel driver keeps
 * QPs on I/O wait lists and in-flight transmit state. rvt lets a driver with neither (one whose send work holds a QP
 * reference that {@code destroyQp} waits for, as it/loopback-driver's) hand in none: rvt-core then skips the four.
 */
@ConsumerType
public interface QpQuiesce {
    /**
     * Mirrors {@code flush_qp_waiters}: remove {@code qp} from the driver's I/O wait lists (dropping the references
     * those lists hold). First step of a reset; all three locks held.
     *
     * @param qp the QP
     */
    void flushQpWaiters(DriverQp qp);

    /**
     * Mirrors {@code stop_send_queue}: cancel the QP's send-engine work and wait for it to finish. Called during
     * reset with no lock held.
     *
     * @param qp the QP
     */
    void stopSendQueue(DriverQp qp);

    /**
     * Mirrors {@code quiesce_qp}: wait for in-flight transmissions of the QP and free its tx state. Called during
     * reset after the timers were cancelled; no lock held.
     *
     * @param qp the QP
     */
    void quiesceQp(DriverQp qp);

    /**
     * Mirrors {@code notify_error_qp}: the QP just entered ERR: remove it from I/O wait lists if not busy, drop cached
     * tx state. {@code recvLock} and {@code sendLock} held.
     *
     * @param qp the QP
     */
    void notifyErrorQp(DriverQp qp);
}
