package io.rvt.core.mcast;

import io.rvt.api.Gid;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.McastGroup;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A multicast group of a port ({@code struct rvt_mcast}): its MGID and MLID, the attached QPs and a reference
 * count. Lives in its port's {@link McastTable}.
 *
 * <p>rdmavt walks the group's QP list under RCU. Here {@link #qps()} is an immutable array that attach and detach
 * replace (copy-on-write, under the table lock), so the receive path reads it with one volatile load and no lock.
 * The reference count is 1 for the table's own reference plus one per {@link McastTable#find} not yet
 * {@link #release()}d; detach waits until it is back at 1 before it drops the detached QP's reference, which is
 * what rdmavt's {@code wait_event(mcast->wait, atomic_read(&mcast->refcount) <= 1)} guarantees: no finder still
 * delivers to a QP whose reference is gone.
 */
public final class RvtMcast implements McastGroup {
    private final Gid mgid;
    private final int mlid;
    /** {@code qp_list}: the attached QPs, oldest first; replaced (never modified) under the table lock. */
    private volatile DriverQp[] qps;
    /** {@code refcount}: 1 (the table) + active finders; 0 once detach removed the group and dropped the table's. */
    private final AtomicInteger refs = new AtomicInteger(1);
    /** {@code mcast->wait}: detach waits on {@link #idle} for {@link #refs} to drop to 1. */
    private final ReentrantLock waitLock = new ReentrantLock();
    private final Condition idle = waitLock.newCondition();

    RvtMcast(Gid mgid, int mlid, DriverQp first) {
        this.mgid = mgid;
        this.mlid = mlid;
        this.qps = new DriverQp[] {first};
    }

    @Override
    public Gid mgid() {
        return mgid;
    }

    @Override
    public int mlid() {
        return mlid;
    }

    /** @return the attached QPs (an immutable snapshot: never modify it); lock-free */
    @Override
    public DriverQp[] qps() {
        return qps;
    }

    /**
     * Drops the reference {@link McastTable#find} took and, if no other finder is left, wakes a detach waiting for
     * the group to go idle.
     *
     * @throws IllegalStateException if the group holds no reference to drop
     */
    @Override
    public void release() {
        int n = refs.decrementAndGet();
        if (n < 0) {
            refs.incrementAndGet();
            throw new IllegalStateException("release of multicast group " + mgid + " without a reference");
        }
        if (n <= 1) {
            // Signal under the lock: a detach that saw refs > 1 is either still before its await (and holds the
            // lock, so we wait for it to await) or already awaiting.
            waitLock.lock();
            try {
                idle.signalAll();
            } finally {
                waitLock.unlock();
            }
        }
    }

    /** @return the current reference count (1 = the table's only) */
    public int refCount() {
        return refs.get();
    }

    /** Takes a finder's reference; called by {@link McastTable#find} under the table lock. */
    void retainForFinder() {
        refs.incrementAndGet();
    }

    /** Drops the table's reference, after the group left the table and {@link #awaitIdle()} returned. */
    void dropTableReference() {
        refs.decrementAndGet();
    }

    /**
     * Waits, without a timeout and ignoring interrupts (as rdmavt's uninterruptible {@code wait_event} does; the
     * interrupt status is kept), until no finder holds the group.
     */
    void awaitIdle() {
        waitLock.lock();
        try {
            while (refs.get() > 1) {
                idle.awaitUninterruptibly();
            }
        } finally {
            waitLock.unlock();
        }
    }

    /** Under the table lock. */
    int indexOf(DriverQp qp) {
        DriverQp[] a = qps;
        for (int i = 0; i < a.length; i++) {
            if (a[i] == qp) {
                return i;
            }
        }
        return -1;
    }

    /** Under the table lock. */
    void append(DriverQp qp) {
        DriverQp[] a = qps;
        DriverQp[] b = Arrays.copyOf(a, a.length + 1);
        b[a.length] = qp;
        qps = b;
    }

    /** Under the table lock. */
    void remove(int index) {
        DriverQp[] a = qps;
        DriverQp[] b = new DriverQp[a.length - 1];
        System.arraycopy(a, 0, b, 0, index);
        System.arraycopy(a, index + 1, b, index, a.length - index - 1);
        qps = b;
    }

    @Override
    public String toString() {
        return "RvtMcast{mgid=" + mgid + ", mlid=0x" + Integer.toHexString(mlid) + ", qps=" + qps.length + ", refs="
                + refs.get() + '}';
    }
}
