package io.rvt.api.spi;

import io.rvt.api.QpInitAttr;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * The driver's per-QP state, handed to rvt-core by {@link RvtDriver#qpPrivate()}: rdmavt's {@code qp_priv_alloc},
 * {@code qp_priv_init}, {@code qp_priv_free}, {@code notify_qp_reset} and {@code notify_restart_rc} pointers of
 * {@code struct rvt_driver_provided}.
 *
 * <p>rdmavt requires all but {@code qp_priv_init} at registration ({@code rvt_driver_qp_init}), since every kernel
 * driver keeps protocol state per QP. rvt lets a driver without any (one that sends through rvt-core's software
 * loopback, {@link DriverQp#rucLoopback()}) hand in none: then {@link DriverQp#priv()} is null, and a reset or a
 * retry timer has nothing of the driver's to reset or rewind. A driver that sends RC packets itself needs
 * {@link #notifyRestartRc}, or a timed-out RC requester would not go back.
 */
@ConsumerType
public interface QpPrivate {
    /**
     * Mirrors {@code qp_priv_alloc}: allocate the driver's per-QP state. Called by {@code createQp} after the send
     * ring, ack queue and timers exist and before the receive queue and QPN; no lock held.
     *
     * @param rdi the device
     * @param qp the QP being created
     * @return the private object (may be null), stored as {@link DriverQp#priv()}
     * @throws io.rvt.api.VerbsException to fail the create with its errno
     */
    Object qpPrivAlloc(DriverDevice rdi, DriverQp qp);

    /**
     * Mirrors {@code qp_priv_init}: finish driver setup once the QP has its number. Called at the end of
     * {@code createQp}; no lock held. Optional within the group (NULL in rdmavt: nothing); rdmavt leaks the QPN when
     * this fails; rvt frees it.
     *
     * @param rdi the device
     * @param qp the QP
     * @param init the creation attributes
     * @return 0, or a negative errno to fail the create
     */
    default int qpPrivInit(DriverDevice rdi, DriverQp qp, QpInitAttr init) {
        return 0;
    }

    /**
     * Mirrors {@code qp_priv_free}: free the driver's per-QP state. Called by {@code destroyQp} once the last reference
     * is gone, and on create failure; no lock held.
     *
     * @param rdi the device
     * @param qp the QP
     */
    void qpPrivFree(DriverDevice rdi, DriverQp qp);

    /**
     * Mirrors {@code notify_qp_reset}: reset the driver's per-QP protocol state. Called on every transition to RESET
     * (and by destroy), after region references were dropped, before rvt re-initialises the QP's fields. All three
     * locks held.
     *
     * @param qp the QP
     */
    void notifyQpReset(DriverQp qp);

    /**
     * Mirrors {@code notify_restart_rc}: rewind the RC requester to {@code psn} (go-back-N) after the retry timer
     * expired ({@code psn = s_last_psn + 1}, {@code wait = 1}). {@code recvLock} and {@code sendLock} held.
     *
     * @param qp the QP
     * @param psn the PSN to restart from
     * @param wait whether to wait for an ACK before sending more (1 from the timer)
     */
    void notifyRestartRc(DriverQp qp, int psn, int wait);
}
