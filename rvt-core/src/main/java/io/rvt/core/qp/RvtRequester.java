package io.rvt.core.qp;

import io.rvt.api.PortCounter;
import io.rvt.api.spi.Aeth;
import io.rvt.api.spi.QpPrivate;
import io.rvt.api.spi.RvtTimer;
import io.rvt.api.spi.SendEngine;
import io.rvt.api.spi.Seq24;
import io.rvt.api.spi.Timeouts;
import io.rvt.api.spi.TimerService;
import io.rvt.api.spi.engine.QpFlags;
import io.rvt.api.spi.engine.RequesterState;
import io.rvt.api.spi.engine.SendWqe;

/**
 * A QP's requester state (see {@link RequesterState} for the fields and their lock) and rdmavt's RC credit and timer
 * helpers: {@code rvt_rc_credit_avail}, {@code rvt_get_credit}, the retry timer ({@code rvt_add_retry_timer_ext},
 * {@code rvt_mod_retry_timer_ext}, {@code rvt_rc_timeout}) and the RNR timer ({@code rvt_add_rnr_timer},
 * {@code rvt_rc_rnr_retry}), {@code rvt_stop_rc_timers} and {@code rvt_del_timers_sync}.
 *
 * <p>The timers fire on the timer service's thread, which takes the QP's locks in order ({@code recvLock} then
 * {@code sendLock} for the retry timer, {@code sendLock} for the RNR timer) and asks the driver to restart or
 * reschedule the send engine.
 */
public final class RvtRequester extends RequesterState {
    private final RvtQp qp;
    private final TimerService ts;
    // Made by ensureTimers before the QP first leaves RESET (an idle QP has none); armed only with TIMER/WAIT_RNR set.
    private RvtTimer retryTimer;
    private RvtTimer rnrTimer;

    RvtRequester(RvtQp qp, TimerService ts) {
        this.qp = qp;
        this.ts = ts;
    }

    /**
     * Creates the two timers, once. Called by {@code modify_qp} before it takes the QP's locks (a timer service may
     * have locks of its own, which its expiring timers hold while they take the QP's), so the modify that moves the
     * QP out of RESET publishes them with its state.
     */
    synchronized void ensureTimers() {
        if (retryTimer == null) {
            rnrTimer = ts.newTimer("qp rnr", this::rcRnrRetry);
            retryTimer = ts.newTimer("qp retry", this::rcTimeout);
        }
    }

    /** Mirrors the requester half of {@code rvt_init_qp}. */
    void init(int idleState) {
        clear(idleState);
    }

    @Override
    public boolean creditAvail(SendWqe wqe) {
        if ((flags & QpFlags.S_UNLIMITED_CREDIT) == 0 && Seq24.cmpMsn(wqe.ssn(), lsn + 1) > 0) {
            flags |= QpFlags.S_WAIT_SSN_CREDIT;
            qp.iport().addCounter(PortCounter.RC_CRWAITS, 1);
            return false;
        }
        return true;
    }

    @Override
    public void getCredit(int aeth) {
        int code = Aeth.code(aeth);
        if (code == Aeth.CREDIT_INVAL) {
            if ((flags & QpFlags.S_UNLIMITED_CREDIT) == 0) {
                flags |= QpFlags.S_UNLIMITED_CREDIT;
                releaseCreditWait();
            }
        } else if ((flags & QpFlags.S_UNLIMITED_CREDIT) == 0) {
            int newLsn = (aeth + Aeth.credits(code)) & Seq24.MASK;
            if (Seq24.cmpMsn(newLsn, lsn) > 0) {
                lsn = newLsn;
                releaseCreditWait();
            }
        }
    }

    private void releaseCreditWait() {
        if ((flags & QpFlags.S_WAIT_SSN_CREDIT) != 0) {
            flags &= ~QpFlags.S_WAIT_SSN_CREDIT;
            scheduleSend();
        }
    }

    /** {@code schedule_send}, when the driver has a send engine (one that declined POST_SEND may not). */
    private void scheduleSend() {
        SendEngine send = qp.device().sendEngine();
        if (send != null) {
            send.scheduleSend(qp);
        }
    }

    private long ticksToNanos(long ticks) {
        return Timeouts.ticksToNanos(ticks, qp.device().timerService().hz());
    }

    @Override
    public void addRetryTimer() {
        addRetryTimerExt(0);
    }

    @Override
    public void addRetryTimerExt(int shift) {
        flags |= QpFlags.S_TIMER;
        retryTimer.arm(ticksToNanos(qp.device().busyTicks() + (qp.timeoutTicks() << shift)));
    }

    @Override
    public void modRetryTimer() {
        modRetryTimerExt(0);
    }

    @Override
    public void modRetryTimerExt(int shift) {
        flags |= QpFlags.S_TIMER;
        retryTimer.arm(ticksToNanos(qp.device().busyTicks() + (qp.timeoutTicks() << shift)));
    }

    @Override
    public void addRnrTimer(int aeth) {
        flags |= QpFlags.S_WAIT_RNR;
        rnrTimer.arm(Timeouts.rnrTableToMicros(Aeth.code(aeth)) * 1000L);
    }

    @Override
    public void stopRcTimers() {
        if ((flags & (QpFlags.S_TIMER | QpFlags.S_WAIT_RNR)) != 0) {
            flags &= ~(QpFlags.S_TIMER | QpFlags.S_WAIT_RNR);
            retryTimer.cancel();
            rnrTimer.cancel();
        }
    }

    /**
     * The error path's part ({@code rvt_error_qp}): stops the retry timer; rdmavt leaves the RNR timer running
     * ([quirk]): its expiry only clears WAIT_RNR and reschedules.
     */
    void stopRetryTimerOnError() {
        if ((flags & (QpFlags.S_TIMER | QpFlags.S_WAIT_RNR)) != 0) {
            flags &= ~(QpFlags.S_TIMER | QpFlags.S_WAIT_RNR);
            retryTimer.cancel();
        }
        flags &= ~QpFlags.S_ANY_WAIT_SEND;
    }

    /** Mirrors {@code rvt_del_timers_sync}: cancels both timers and waits for running callbacks (no QP lock held). */
    void delTimersSync() {
        if (retryTimer != null) {
            retryTimer.cancelSync();
            rnrTimer.cancelSync();
        }
    }

    /** Cancels both timers without waiting (create failure, destroy). */
    void closeTimers() {
        if (retryTimer != null) {
            retryTimer.cancel();
            rnrTimer.cancel();
        }
    }

    /** Mirrors {@code rvt_rc_timeout}: the retry timer expired. */
    private void rcTimeout() {
        qp.recvLock().lock();
        qp.sendLock().lock();
        try {
            if ((flags & QpFlags.S_TIMER) != 0) {
                flags &= ~QpFlags.S_TIMER;
                RvtIbport port = qp.iport();
                if (port != null) {
                    port.addCounter(PortCounter.RC_TIMEOUTS, 1);
                }
                QpPrivate priv = qp.device().qpPrivate();
                if (priv != null) {
                    priv.notifyRestartRc(qp, lastPsn + 1, 1);
                }
                scheduleSend();
            }
        } finally {
            qp.sendLock().unlock();
            qp.recvLock().unlock();
        }
    }

    /** Mirrors {@code rvt_rc_rnr_retry}: the RNR timer expired. */
    private void rcRnrRetry() {
        qp.sendLock().lock();
        try {
            flags &= ~QpFlags.S_WAIT_RNR;
            scheduleSend();
        } finally {
            qp.sendLock().unlock();
        }
    }
}
