package io.rvt.core.srq;

import static io.rvt.api.Errno.EINVAL;

import io.rvt.api.AsyncEvent;
import io.rvt.api.AsyncEventHandler;
import io.rvt.api.AsyncEventType;
import io.rvt.api.DeviceAttributes;
import io.rvt.api.DeviceCounter;
import io.rvt.api.Errno;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SharedReceiveQueue;
import io.rvt.api.SrqAttr;
import io.rvt.api.SrqAttrMask;
import io.rvt.api.SrqInitAttr;
import io.rvt.api.VerbsException;
import io.rvt.api.WorkRequestException;
import io.rvt.core.base.CoreDevice;
import io.rvt.core.base.Errors;
import io.rvt.core.base.SpinningLock;
import io.rvt.core.mr.RvtPd;

/**
 * A shared receive queue ({@code struct rvt_srq}; semantics §9.6): an {@link RvtRq} ring that every QP attached to
 * it consumes from, its PD, and the armed limit of the {@link AsyncEventType#SRQ_LIMIT_REACHED} event.
 *
 * <p>Threads: any thread may post; posting serialises on the ring's producer lock. {@code limit} is protected by the
 * ring's consumer lock, as rdmavt protects it by {@code c_lock}. {@link #modifySrq} resizes with both ring locks
 * held. The QP receive path ({@code RvtQp.getRwqe}) drives the limit with {@link #checkLimitLocked()} under the
 * consumer lock and {@link #raiseLimitEvent()} after releasing it; see {@link RvtRq} for the whole sequence.
 *
 * <p>Event delivery: rdmavt checks the limit only if the SRQ has an event handler, and delivers the event to it. rvt
 * delivers through {@link CoreDevice#dispatch}: to the SRQ's handler if one was given at creation, else to the
 * device's handler. Because the device handler can be set at any time and is the fallback for every object event,
 * rvt treats the event as always deliverable: the limit is checked and disarmed whether or not the SRQ has its own
 * handler. The only observable difference from rdmavt is for an SRQ without a handler on a device without one: the
 * event is dropped by {@code dispatch} and {@link #querySrq} shows the limit disarmed (0), where rdmavt would keep it
 * armed.
 */
public final class RvtSrq implements SharedReceiveQueue {
    private final CoreDevice dev;
    private final RvtPd pd;
    private final RvtRq rq;
    private final AsyncEventHandler eventHandler;
    /** {@code srq->limit}: 0 = disarmed; written and read under {@code rq.consumerLock()}. */
    private int limit;
    /** Guards {@link #users} and {@link #destroyed}. */
    private final Object useLock = new Object();
    /** QPs created on this SRQ and not yet destroyed ({@code ib_srq.usecnt}); under {@link #useLock}. */
    private int users;
    /** Set once by {@link #destroySrq()} under {@link #useLock}; read by the verbs. */
    private volatile boolean destroyed;

    private RvtSrq(CoreDevice dev, RvtPd pd, RvtRq rq, int limit, AsyncEventHandler eventHandler) {
        this.dev = dev;
        this.pd = pd;
        this.rq = rq;
        this.limit = limit;
        this.eventHandler = eventHandler;
    }

    /**
     * Mirrors {@code rvt_create_srq}: checks the type ({@code EOPNOTSUPP} unless {@link SrqInitAttr#SRQT_BASIC}),
     * {@code maxSge} in {@code 1..max_srq_sge} and {@code maxWr} in {@code 1..max_srq_wr} ({@code EINVAL}), builds a
     * ring of {@code maxWr + 1} slots, counts the SRQ against {@code max_srq} ({@code ENOMEM}) and takes a use of
     * the PD (EINVAL if it was deallocated). The limit must be in {@code 0..maxWr}, as
     * {@code modifySrq} requires (rdmavt does not validate it at creation).
     * Nothing is counted or retained when it fails.
     *
     * @param dev the device
     * @param pd the PD the SRQ belongs to
     * @param init the attributes
     * @return the SRQ
     * @throws VerbsException ENODEV, EOPNOTSUPP, EINVAL or ENOMEM, naming the field and value
     */
    public static RvtSrq create(CoreDevice dev, RvtPd pd, SrqInitAttr init) {
        if (init == null) {
            throw Errors.inval("createSrq: init is null");
        }
        dev.checkAlive();
        if (init.srqType() != SrqInitAttr.SRQT_BASIC) {
            throw Errors.notsupp("srqType " + init.srqType() + " is not supported (only SRQT_BASIC = "
                    + SrqInitAttr.SRQT_BASIC + ")");
        }
        DeviceAttributes props = dev.props();
        int maxSge = init.maxSge();
        if (maxSge == 0 || maxSge > props.maxSrqSge()) {
            throw Errors.inval("srq maxSge " + maxSge + " must be in 1.." + props.maxSrqSge() + " (max_srq_sge)");
        }
        int maxWr = init.maxWr();
        if (maxWr == 0 || maxWr > props.maxSrqWr()) {
            throw Errors.inval("srq maxWr " + maxWr + " must be in 1.." + props.maxSrqWr() + " (max_srq_wr)");
        }
        if (init.srqLimit() < 0 || init.srqLimit() > maxWr) {
            // modifySrq's rule (limit below the ring's maxWr + 1 slots); rdmavt takes it at creation unchecked
            // ([deviation]).
            throw Errors.inval("srqLimit " + init.srqLimit() + " must be in 0.." + maxWr + " (at most maxWr "
                    + maxWr + ", as modifySrq requires)");
        }
        RvtRq rq = allocRq(maxWr, maxSge);
        if (!dev.tryCount(DeviceCounter.SRQS_ALLOCATED, props.maxSrq())) {
            throw Errors.nomem("device " + dev.name() + " already has max_srq=" + props.maxSrq() + " SRQs");
        }
        try {
            pd.retainUse();
        } catch (RuntimeException e) {
            dev.uncount(DeviceCounter.SRQS_ALLOCATED); // a deallocated PD: leave the count as it was
            throw e;
        }
        return new RvtSrq(dev, pd, rq, init.srqLimit(), init.eventHandler());
    }

    /** rdmavt's {@code rvt_alloc_rq} failing is {@code -ENOMEM}; a Java ring that cannot be allocated is the same. */
    private static RvtRq allocRq(int maxWr, int maxSge) {
        if (maxWr == Integer.MAX_VALUE) {
            throw Errors.nomem("srq maxWr " + maxWr + ": a ring of maxWr + 1 slots cannot be allocated");
        }
        try {
            return new RvtRq(maxWr + 1, maxSge);
        } catch (OutOfMemoryError e) {
            throw Errors.nomem("srq maxWr " + maxWr + ", maxSge " + maxSge + ": the ring cannot be allocated");
        }
    }

    // ------------------------------------------------------------------ core-internal

    /** @return the ring */
    public RvtRq rq() {
        return rq;
    }

    /** @return the PD */
    public RvtPd pd() {
        return pd;
    }

    /** @return the handler given at creation, or null (events then go to the device's handler) */
    public AsyncEventHandler eventHandler() {
        return eventHandler;
    }

    /** @return the armed limit ({@code srq->limit}); 0 = disarmed. Takes the consumer lock (reentrant). */
    public int limit() {
        SpinningLock c = rq.consumerLock();
        c.lock();
        try {
            return limit;
        } finally {
            c.unlock();
        }
    }

    /**
     * The limit step of {@code rvt_get_rwqe} (semantics §5.3), called right after a successful
     * {@link RvtRq#take(RvtRwqe)} with {@code rq().consumerLock()} still held: if the approximate count is below the
     * armed limit, recount exactly; if the exact count is still below it, disarm ({@code limit = 0}) and return
     * true. The caller must then call {@link #raiseLimitEvent()} after releasing the consumer lock. Fires at most
     * once per arming; {@link #modifySrq} with {@link SrqAttrMask#LIMIT} re-arms.
     *
     * @return true if the caller must raise the event
     */
    public boolean checkLimitLocked() {
        assert rq.consumerLock().isHeldByCurrentThread() : "checkLimitLocked without consumerLock";
        int lim = limit;
        if (lim == 0 || rq.approxCount() >= lim) {
            return false;
        }
        if (rq.refreshCount() >= lim) {
            return false;
        }
        limit = 0;
        return true;
    }

    /**
     * Delivers {@link AsyncEventType#SRQ_LIMIT_REACHED} for this SRQ to its handler, else the device's. Call with no
     * ring lock held, after {@link #checkLimitLocked()} returned true.
     */
    public void raiseLimitEvent() {
        dev.dispatch(AsyncEvent.ofSrq(AsyncEventType.SRQ_LIMIT_REACHED, this), eventHandler);
    }

    /**
     * Counts a QP created on this SRQ ({@code atomic_inc(&srq->usecnt)}); {@link #destroySrq()} fails with EBUSY
     * while any is counted.
     *
     * @throws VerbsException EINVAL if the SRQ was destroyed
     */
    public void addUser() {
        synchronized (useLock) {
            if (destroyed) {
                throw Errors.inval("SRQ " + this + " was destroyed");
            }
            users++;
        }
    }

    /**
     * Uncounts a QP counted by {@link #addUser()} (when the QP is destroyed).
     *
     * @throws IllegalStateException if no user is counted
     */
    public void removeUser() {
        synchronized (useLock) {
            if (users == 0) {
                throw new IllegalStateException("removeUser on SRQ " + this + " without a user");
            }
            users--;
        }
    }

    /** @return QPs counted by {@link #addUser()} */
    public int userCount() {
        synchronized (useLock) {
            return users;
        }
    }

    private void checkUsable() {
        dev.checkAlive();
        if (destroyed) {
            throw Errors.inval("SRQ " + this + " was destroyed");
        }
    }

    // ------------------------------------------------------------------ SharedReceiveQueue

    @Override
    public CoreDevice device() {
        return dev;
    }

    /**
     * Mirrors {@code rvt_post_srq_recv}: no state check, no flush mode; each request is posted under the producer
     * lock on its own (as rdmavt does), so requests before a failing one stay posted.
     */
    @Override
    public void postSrqRecv(RecvWorkRequest wr) {
        if (wr == null) {
            throw new WorkRequestException(Errno.EINVAL, WorkRequestException.NO_INDEX, "postSrqRecv: wr is null");
        }
        checkUsable();
        SpinningLock p = rq.producerLock();
        int index = 0;
        for (RecvWorkRequest w = wr; w != null; w = w.next(), index++) {
            int r;
            int slots;
            p.lock();
            try {
                r = rq.post(w);
                slots = rq.size();
            } finally {
                p.unlock();
            }
            if (r != 0) {
                throw new WorkRequestException(r, index, r == -EINVAL.value()
                        ? "numSge " + w.numSge() + " exceeds the SRQ's maxSge " + rq.maxSge()
                        : "SRQ is full: " + (slots - 1) + " work requests queued (maxWr " + (slots - 1) + ")");
            }
        }
    }

    /**
     * Mirrors {@code rvt_modify_srq} (semantics §9.6).
     * <ul>
     * <li>{@link SrqAttrMask#MAX_WR}: {@code maxWr > max_srq_wr} → EINVAL; the effective limit (the new one if
     * {@link SrqAttrMask#LIMIT} is also set, else the armed one) {@code > maxWr} → EINVAL; {@code maxWr + 1} not
     * above the queued count → EINVAL; else the queued entries move in order to a ring of {@code maxWr + 1} slots
     * and the new limit, if given, is armed. Both ring locks are held throughout (rdmavt holds only the consumer
     * lock, a race with concurrent posts that rvt does not reproduce). [quirk 34a, reproduced] {@code maxWr = 0}
     * is accepted on an empty SRQ with no armed limit: the ring then has one slot and every later post fails with
     * ENOMEM (while {@code createSrq} refuses {@code maxWr = 0}).</li>
     * <li>{@link SrqAttrMask#LIMIT} only: {@code srqLimit >= maxWr + 1} → EINVAL; else armed (0 disarms).</li>
     * </ul>
     * A mask with neither bit does nothing; a mask with bits that {@code SrqAttrMask} does not define is refused with
     * EINVAL (rdmavt ignores them). On any error nothing changes.
     */
    @Override
    public void modifySrq(SrqAttr attr, int mask) {
        if (attr == null) {
            throw Errors.inval("modifySrq: attr is null");
        }
        checkUsable();
        if ((mask & ~SrqAttrMask.ALL) != 0) {
            throw Errors.inval("modifySrq mask " + SrqAttrMask.describe(mask) + " has bits outside "
                    + SrqAttrMask.describe(SrqAttrMask.ALL));
        }
        if (SrqAttrMask.MAX_WR.in(mask)) {
            resize(attr, SrqAttrMask.LIMIT.in(mask));
        } else if (SrqAttrMask.LIMIT.in(mask)) {
            SpinningLock c = rq.consumerLock();
            c.lock();
            try {
                if (attr.srqLimit() >= rq.size()) {
                    throw Errors.inval("srqLimit " + attr.srqLimit() + " must be below the SRQ size " + rq.size()
                            + " (maxWr " + (rq.size() - 1) + " + 1)");
                }
                limit = attr.srqLimit();
            } finally {
                c.unlock();
            }
        }
    }

    private void resize(SrqAttr attr, boolean setLimit) {
        int maxWr = attr.maxWr();
        int maxSrqWr = dev.props().maxSrqWr();
        if (maxWr > maxSrqWr) {
            throw Errors.inval("srq maxWr " + maxWr + " exceeds max_srq_wr " + maxSrqWr);
        }
        if (maxWr == Integer.MAX_VALUE) {
            throw Errors.nomem("srq maxWr " + maxWr + ": a ring of maxWr + 1 slots cannot be allocated");
        }
        SpinningLock p = rq.producerLock();
        SpinningLock c = rq.consumerLock();
        p.lock();
        try {
            c.lock();
            try {
                int lim = setLimit ? attr.srqLimit() : limit;
                if (lim > maxWr) {
                    throw Errors.inval((setLimit ? "srqLimit " : "armed srq limit ") + lim + " exceeds the new maxWr "
                            + maxWr);
                }
                int queued = rq.count(rq.headAcquire(), rq.tail());
                int r;
                try {
                    r = rq.resize(maxWr + 1);
                } catch (OutOfMemoryError e) {
                    throw Errors.nomem("srq maxWr " + maxWr + ": the new ring cannot be allocated");
                }
                if (r != 0) {
                    throw Errors.inval("srq maxWr " + maxWr + " leaves no room for the " + queued
                            + " queued work requests (a ring of maxWr + 1 slots holds maxWr)");
                }
                if (setLimit) {
                    limit = attr.srqLimit();
                }
            } finally {
                c.unlock();
            }
        } finally {
            p.unlock();
        }
    }

    /** Mirrors {@code rvt_query_srq}: {@code maxWr = size - 1}, {@code maxSge}, {@code srqLimit = limit}. */
    @Override
    public SrqAttr querySrq(SrqAttr out) {
        if (out == null) {
            throw Errors.inval("querySrq: out is null");
        }
        checkUsable();
        SpinningLock c = rq.consumerLock();
        c.lock();
        try {
            return out.maxWr(rq.size() - 1).maxSge(rq.maxSge()).srqLimit(limit);
        } finally {
            c.unlock();
        }
    }

    /**
     * Mirrors {@code rvt_destroy_srq} with the IB core's use check: EBUSY while a QP uses the SRQ (nothing changes);
     * else uncounts it and drops its use of the PD. A second call fails with EINVAL.
     */
    @Override
    public void destroySrq() {
        // No liveness check: applications must be able to clean up after the device went away.
        synchronized (useLock) {
            if (destroyed) {
                throw Errors.inval("SRQ " + this + " was already destroyed");
            }
            if (users > 0) {
                throw Errors.busy("SRQ " + this + " is used by " + users + " QP" + (users == 1 ? "" : "s"));
            }
            destroyed = true;
        }
        dev.uncount(DeviceCounter.SRQS_ALLOCATED);
        pd.releaseUse();
    }

    @Override
    public String toString() {
        return "RvtSrq@" + Integer.toHexString(System.identityHashCode(this)) + "{device=" + dev.name() + '}';
    }
}
