package io.rvt.core.base;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;

/**
 * The stand-in for the spinlocks rdmavt takes around a QP's send and receive state and a CQ's ring ({@code s_lock},
 * {@code s_hlock}, {@code r_rq.lock}, {@code cq->lock}): a reentrant, non-fair lock that spins before it parks.
 *
 * <p>The driver SPI hands these locks out as a plain {@link Lock}. Why not a {@code ReentrantLock}: these critical
 * sections last well under a microsecond and are taken about ten times per message, and an uncontended
 * {@code ReentrantLock} pays two fences per lock and unlock (its release is a volatile store); here unlocking is a
 * release store (no fence on x86), which halves the cost of a lock-unlock pair. A thread that finds the lock held spins {@value #SPINS} times, then parks; the unlocker unparks
 * a parked thread. Because the release is not followed by a fence, an unlocker can miss a waiter that is just
 * going to sleep, so a parked thread also wakes after {@value #PARK_NANOS} ns and tries again: a lost wake-up costs at
 * most that, and it can only happen to a thread that already spun through a contended lock.
 *
 * <p>Supported: {@link #lock}, {@link #lockInterruptibly}, both {@link #tryLock}s, {@link #unlock} and the queries
 * rvt-core uses ({@link #isLocked}, {@link #isHeldByCurrentThread}, {@link #getHoldCount}, {@link #isParked},
 * {@link #hasParkedThreads}). {@link #newCondition()} throws {@code UnsupportedOperationException}, as
 * {@link Lock#newCondition()} allows: rdmavt's spinlocks have no condition variables, and waiting under one would be
 * a bug. Not final only so that tests can pause a thread on its way into a QP's lock.
 */
public class SpinningLock implements Lock {
    /** Polls of the lock word before parking: about a microsecond on current x86 cores. */
    static final int SPINS = 64;
    /** The longest a parked thread sleeps before it looks again (bounds a missed wake-up). */
    static final long PARK_NANOS = 50_000L;

    private static final VarHandle WORD;

    static {
        try {
            WORD = MethodHandles.lookup().findVarHandle(SpinningLock.class, "word", int.class);
            PARKERS = MethodHandles.lookup().findVarHandle(SpinningLock.class, "parkers", int.class);
            PARKED = MethodHandles.lookup().findVarHandle(SpinningLock.class, "parked", AtomicReferenceArray.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** 0 free, 1 held; CAS to take, release store to give back. */
    private volatile int word;
    /** The holder; written only by the holder (set after taking, cleared before giving back). */
    private Thread owner;
    /** Re-entries of the holder; touched only by the holder. */
    private int holds;
    /** Slots the unlocker finds parked (or about to park) threads in; a waiter finding none free just sleeps its
     *  {@value #PARK_NANOS} ns. Made by the first thread that has to park (most locks never contend, and a QP has
     *  three of them), then fixed: parking allocates nothing after that. */
    private volatile AtomicReferenceArray<Thread> parked;
    /** How many threads hold a slot in {@link #parked}: read by every unlock, beside the lock word. */
    private volatile int parkers;
    /** Parked threads an unlock can wake directly; more wait for their timeout (several waiters on one spinlock). */
    static final int PARK_SLOTS = 4;
    private static final VarHandle PARKERS;
    private static final VarHandle PARKED;

    @Override
    public void lock() {
        Thread me = Thread.currentThread();
        if (owner == me) {
            holds++;
            return;
        }
        if (!WORD.compareAndSet(this, 0, 1)) {
            acquireSlow(me, false, 0L);
        }
        owner = me;
        holds = 1;
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        Thread me = Thread.currentThread();
        if (owner == me) {
            holds++;
            return;
        }
        if (!WORD.compareAndSet(this, 0, 1) && !acquireSlow(me, true, 0L)) {
            throw new InterruptedException();
        }
        owner = me;
        holds = 1;
    }

    @Override
    public boolean tryLock() {
        Thread me = Thread.currentThread();
        if (owner == me) {
            holds++;
            return true;
        }
        if (word == 0 && WORD.compareAndSet(this, 0, 1)) {
            owner = me;
            holds = 1;
            return true;
        }
        return false;
    }

    @Override
    public boolean tryLock(long timeout, TimeUnit unit) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        if (tryLock()) {
            return true;
        }
        long nanos = unit.toNanos(timeout);
        if (nanos <= 0) {
            return false;
        }
        Thread me = Thread.currentThread();
        long deadline = System.nanoTime() + nanos;
        if (!acquireSlow(me, true, deadline)) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            return false;
        }
        owner = me;
        holds = 1;
        return true;
    }

    /**
     * Spins, then parks until the word is taken.
     *
     * @param deadline {@link System#nanoTime()} to give up at, or 0 for never
     * @return true once taken; false if interrupted (when {@code interruptible}) or past the deadline
     */
    private boolean acquireSlow(Thread me, boolean interruptible, long deadline) {
        for (int i = 0; i < SPINS; i++) {
            Thread.onSpinWait();
            // Read before the CAS (test-and-test-and-set), so spinning does not steal the line from the holder.
            if (word == 0 && WORD.compareAndSet(this, 0, 1)) {
                return true;
            }
        }
        AtomicReferenceArray<Thread> parked = parkingSlots();
        int slot = -1;
        for (int i = 0; i < PARK_SLOTS && slot < 0; i++) {
            if (parked.get(i) == null && parked.compareAndSet(i, null, me)) {
                slot = i;
            }
        }
        if (slot >= 0) {
            PARKERS.getAndAdd(this, 1); // a full fence: the re-check below sees an unlock that happened before it
        } else {
            VarHandle.fullFence();
        }
        boolean interrupted = false;
        try {
            while (true) {
                if (word == 0 && WORD.compareAndSet(this, 0, 1)) {
                    return true;
                }
                long wait = PARK_NANOS;
                if (deadline != 0) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return false;
                    }
                    wait = Math.min(wait, left);
                }
                LockSupport.parkNanos(this, wait);
                if (Thread.interrupted()) {
                    if (interruptible) {
                        return false;
                    }
                    interrupted = true;
                }
            }
        } finally {
            if (slot >= 0) {
                parked.set(slot, null);
                PARKERS.getAndAdd(this, -1);
            }
            if (interrupted) {
                me.interrupt(); // lock() is not interruptible: keep the status for the caller
            }
        }
    }

    private AtomicReferenceArray<Thread> parkingSlots() {
        AtomicReferenceArray<Thread> p = parked;
        if (p == null) {
            p = new AtomicReferenceArray<>(PARK_SLOTS);
            if (!PARKED.compareAndSet(this, null, p)) {
                p = parked;
            }
        }
        return p;
    }

    @Override
    public void unlock() {
        if (owner != Thread.currentThread()) {
            throw new IllegalMonitorStateException("unlock of a SpinningLock not held by " + Thread.currentThread());
        }
        if (--holds > 0) {
            return;
        }
        owner = null;
        WORD.setRelease(this, 0);
        if ((int) PARKERS.getOpaque(this) != 0) {
            AtomicReferenceArray<Thread> parked = this.parked; // set before any parker counted itself
            for (int i = 0; parked != null && i < PARK_SLOTS; i++) {
                Thread next = parked.get(i);
                if (next != null) {
                    LockSupport.unpark(next);
                    break;
                }
            }
        }
    }

    /** @throws UnsupportedOperationException always: rdmavt's spinlocks have no condition variables */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("a SpinningLock has no conditions (it stands for a spinlock)");
    }

    /** @return how many times the calling thread holds this lock (0 if it does not) */
    public int getHoldCount() {
        return owner == Thread.currentThread() ? holds : 0;
    }

    /** @return true if the calling thread holds this lock */
    public boolean isHeldByCurrentThread() {
        return owner == Thread.currentThread();
    }

    /** @return true if any thread holds this lock (a snapshot) */
    public boolean isLocked() {
        return word != 0;
    }

    private Thread owner() {
        return word != 0 ? owner : null;
    }

    /**
     * @param thread a thread
     * @return true if {@code thread} is parked waiting for this lock
     */
    public boolean isParked(Thread thread) {
        AtomicReferenceArray<Thread> parked = this.parked;
        if (parked == null) {
            return false;
        }
        for (int i = 0; i < PARK_SLOTS; i++) {
            if (parked.get(i) == thread) {
                return true;
            }
        }
        return false;
    }

    /** @return true if any thread is parked waiting for this lock */
    public boolean hasParkedThreads() {
        return parkers != 0;
    }

    @Override
    public String toString() {
        Thread o = owner();
        return "SpinningLock@" + Integer.toHexString(hashCode())
                + (o == null ? "[Unlocked]" : "[Locked by thread " + o.getName() + "]");
    }
}
