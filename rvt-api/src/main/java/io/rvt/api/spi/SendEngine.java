package io.rvt.api.spi;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * The send engine a driver hands rvt-core ({@link RvtDriver#sendEngine()}): rdmavt's {@code schedule_send},
 * {@code schedule_send_no_lock} and {@code do_send} pointers of {@code struct rvt_driver_provided}. Required by
 * {@link Verb#POST_SEND} ({@code schedule_send}, {@code do_send}) and {@link Verb#MODIFY_QP} ({@code schedule_send}):
 * registration refuses a driver that hands in none unless it declines both verbs.
 */
@ConsumerType
public interface SendEngine {
    /**
     * Mirrors {@code schedule_send}: queue send-engine work for {@code qp} if the driver's "send ok" conditions hold.
     * Called by the error transition when WQEs are posted, by retry and RNR timer expiry, and when a credit wait is
     * released; drivers call it themselves too. {@code sendLock} held (and {@code recvLock} on error and timeout
     * paths), so it must only queue: running the send engine here (which takes other QPs' locks, e.g. in loopback)
     * could deadlock.
     *
     * @param qp the QP
     * @return true if work was queued (rvt ignores it)
     */
    boolean scheduleSend(DriverQp qp);

    /**
     * Mirrors {@code schedule_send_no_lock}: queue send work for {@code qp} unconditionally. Called by
     * {@code postSend} after dropping {@code postLock}, whenever it does not call {@link #doSend}; no lock held.
     * rdmavt calls the pointer without checking it (a NULL crashes the kernel); rvt's default takes
     * {@code sendLock} and calls {@link #scheduleSend}.
     *
     * @param qp the QP
     * @return true if work was queued (rvt ignores it)
     */
    default boolean scheduleSendNoLock(DriverQp qp) {
        qp.sendLock().lock();
        try {
            return scheduleSend(qp);
        } finally {
            qp.sendLock().unlock();
        }
    }

    /**
     * Mirrors {@code do_send}: run the send engine on {@code qp} synchronously, in the poster's thread. Called by
     * {@code postSend} when exactly one WR was posted and the decision says so; no lock held.
     *
     * @param qp the QP
     */
    void doSend(DriverQp qp);
}
