package io.rvt.core;

import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link ReentrantLock} that spins a little before it parks: the stand-in for the spinlocks rdmavt takes around a
 * QP's send and receive state and a CQ's ring ({@code s_lock}, {@code s_hlock}, {@code r_rq.lock}, {@code cq->lock}).
 * Those critical sections last well under a microsecond, while parking and unparking a thread costs a futex call each
 * way: a poster and the driver's receive thread contending for a QP would otherwise take turns sleeping on every
 * packet. After {@value #SPINS} polls it parks like any {@code ReentrantLock}, so a descheduled holder costs little.
 * Non-fair, reentrant, and with every other method of {@code ReentrantLock} unchanged.
 */
public final class SpinningLock extends ReentrantLock {
    private static final long serialVersionUID = 1L;
    /** Polls of the lock word before parking: about a microsecond on current x86 cores. */
    static final int SPINS = 64;

    @Override
    public void lock() {
        if (tryLock()) {
            return;
        }
        for (int i = 0; i < SPINS; i++) {
            Thread.onSpinWait();
            // Read before the CAS (test-and-test-and-set), so spinning does not steal the line from the holder.
            if (!isLocked() && tryLock()) {
                return;
            }
        }
        super.lock();
    }
}
