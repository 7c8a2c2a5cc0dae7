package io.rvt.core.cq;

import io.rvt.api.AsyncEvent;
import io.rvt.api.AsyncEventHandler;
import io.rvt.api.AsyncEventType;
import io.rvt.api.CompletionChannel;
import io.rvt.api.CompletionHandler;
import io.rvt.api.CqNotify;
import io.rvt.api.DeviceCounter;
import io.rvt.api.Errno;
import io.rvt.api.VerbsException;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.spi.Callback;
import io.rvt.api.spi.DriverCq;
import io.rvt.api.spi.RvtDriver;
import io.rvt.core.base.CoreDevice;
import io.rvt.core.base.Errors;
import io.rvt.core.base.SpinningLock;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A completion queue ({@code struct rvt_cq}, kernel CQ): a ring of {@code cqe + 1} pre-allocated
 * {@link WorkCompletion}s holding at most {@code cqe}, a one-shot notification arm, and the completion work that
 * calls the application's handler on the CQ's executor.
 *
 * <p>Threads: {@link #enter}, {@link #pollCq}, {@link #reqNotifyCq} and {@link #resizeCq} serialise on the CQ lock
 * ({@code cq->lock}); entering and polling allocate nothing. The handler runs on the executor chosen at creation
 * ({@code comp_vector_cpu}), never concurrently with itself, and is called again if a notification fires while it
 * runs.
 *
 * <p>Overflow is permanent ({@code cq_full}): once an insert fails, every later one fails too and raises
 * {@link AsyncEventType#CQ_ERR} again.
 */
public final class RvtCq implements DriverCq {
    private static final System.Logger LOG = System.getLogger(RvtCq.class.getName());
    /** {@code RVT_CQ_NONE}: notification not armed. */
    private static final int NOTIFY_NONE = 3;
    private static final int SOLICITED = CqNotify.SOLICITED.bit();
    private static final int NEXT_COMP = CqNotify.NEXT_COMP.bit();
    private static final int SOLICITED_MASK = SOLICITED | NEXT_COMP;
    /** {@link #users} value once destroyed. */
    private static final int DESTROYED = -1;

    private static final VarHandle HEAD;
    private static final VarHandle TAIL;
    private static final VarHandle CQE;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(RvtCq.class, "head", int.class);
            TAIL = l.findVarHandle(RvtCq.class, "tail", int.class);
            CQE = l.findVarHandle(RvtCq.class, "cqe", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final CoreDevice dev;
    /** The device's driver, whose progress hook an empty poll runs. */
    private final RvtDriver driver;
    private final CompletionHandler handler;
    private final AsyncEventHandler eventHandler;
    private final int compVector;
    private final int compVectorCpu;
    private final Executor executor;
    /** {@code cq->lock}: the ring, its indices, {@code notify}, {@code cq_full}, resize. */
    private final SpinningLock lock = new SpinningLock();
    /** The ring; replaced by resize under {@link #lock}. */
    private WorkCompletion[] ring;
    /** {@code ibcq.cqe}: written under {@link #lock} with setRelease; read lock-free by {@link #capacity()}. */
    private int cqe;
    /** Next slot to fill; written under {@link #lock} with setRelease; pairs with getAcquire in {@link #head()}. */
    private int head;
    /** Next slot to poll; written under {@link #lock} with setRelease; pairs with getAcquire in {@link #tail()}. */
    private int tail;
    /** {@code notify}: SOLICITED, NEXT_COMP or {@link #NOTIFY_NONE}; under {@link #lock}. */
    private int notify = NOTIFY_NONE;
    /** {@code cq_full}: sticky overflow; under {@link #lock}. */
    private boolean cqFull;
    /** {@code triggered}: notifications fired; the completion task compares it around each handler call. */
    private final AtomicInteger triggered = new AtomicInteger();
    /** True while a completion task is queued or running (one at a time). */
    private final AtomicBoolean scheduled = new AtomicBoolean();
    /** Guards {@link #handlerRunning}, {@link #handlerThread} and the destroyed state against the handler. */
    private final ReentrantLock handlerLock = new ReentrantLock();
    private final Condition handlerIdle = handlerLock.newCondition();
    private boolean handlerRunning;
    private Thread handlerThread;
    /** QPs using this CQ, or {@link #DESTROYED}. */
    private final AtomicInteger users = new AtomicInteger();
    /** Set once by {@link #destroyCq()} (under {@link #handlerLock}); read by every verb. */
    private volatile boolean destroyed;
    private final Runnable completionTask = this::runCompletionWork;
    /** The completion channel events go to ({@code ibv_cq.channel}), or null. */
    private final RvtCompChannel channel;
    /** Events taken from {@link #channel} for this CQ ({@code comp_events_reported}); under the channel's lock. */
    long eventsReported;
    /** Events acknowledged ({@code comp_events_completed}); under the channel's lock. */
    long eventsAcked;
    /** Set when the CQ left its channel on destroy: no more events are queued; under the channel's lock. */
    boolean channelDetached;

    private RvtCq(CoreDevice dev, int cqe, int compVector, int compVectorCpu, Executor executor,
            RvtCompChannel channel, CompletionHandler handler, AsyncEventHandler eventHandler) {
        this.dev = dev;
        this.driver = dev.driver();
        this.cqe = cqe;
        this.ring = newRing(cqe);
        this.compVector = compVector;
        this.compVectorCpu = compVectorCpu;
        this.executor = executor;
        this.handler = handler;
        this.eventHandler = eventHandler;
        this.channel = channel;
    }

    private static WorkCompletion[] newRing(int cqe) {
        WorkCompletion[] r = new WorkCompletion[cqe + 1];
        for (int i = 0; i < r.length; i++) {
            r[i] = new WorkCompletion();
        }
        return r;
    }

    /**
     * Mirrors {@code rvt_create_cq}.
     *
     * @param dev the device
     * @param cqe the capacity, 1..{@code max_cqe}
     * @param compVector the completion vector (negative means 0; taken modulo {@code num_comp_vectors})
     * @param handler called (on the CQ's executor) when an armed notification fires; may be null
     * @param eventHandler receives {@code CQ_ERR}; null for the device's handler
     * @return the CQ
     * @throws VerbsException EINVAL for a bad {@code cqe}, ENOMEM when {@code max_cq} CQs exist
     */
    public static RvtCq create(CoreDevice dev, int cqe, int compVector, CompletionHandler handler,
            AsyncEventHandler eventHandler) {
        return create(dev, cqe, compVector, null, handler, eventHandler);
    }

    /**
     * Mirrors {@code rvt_create_cq} for {@code ibv_create_cq} with a completion channel: the CQ's
     * {@code comp_handler} queues an event on {@code channel} (uverbs' {@code ib_uverbs_comp_handler}) and calls
     * {@code handler}, if given.
     *
     * @param dev the device
     * @param cqe the capacity, 1..{@code max_cqe}
     * @param compVector the completion vector (negative means 0; taken modulo {@code num_comp_vectors})
     * @param channel the completion channel, or null
     * @param handler called (on the CQ's executor) when an armed notification fires; may be null
     * @param eventHandler receives {@code CQ_ERR}; null for the device's handler
     * @return the CQ
     * @throws VerbsException EINVAL for a bad {@code cqe}; EBADF for a channel that is not rvt's, is another
     *         device's or was destroyed (uverbs' {@code lookup_get_fd_uobject}: a descriptor that is not a completion
     *         channel of the CQ's context); ENOMEM when {@code max_cq} CQs exist
     */
    public static RvtCq create(CoreDevice dev, int cqe, int compVector, CompletionChannel channel,
            CompletionHandler handler, AsyncEventHandler eventHandler) {
        dev.checkAlive();
        int maxCqe = dev.props().maxCqe();
        if (cqe < 1 || cqe > maxCqe) {
            throw Errors.inval("createCq: cqe " + cqe + " is outside 1..max_cqe " + maxCqe);
        }
        if (channel != null && !(channel instanceof RvtCompChannel)) {
            throw Errors.of(Errno.EBADF.value(), "createCq: " + channel.getClass().getName()
                    + " is not a completion channel of " + dev.name() + " (createCompChannel)");
        }
        RvtCompChannel ch = (RvtCompChannel) channel;
        int vector = Math.max(compVector, 0) % Math.max(1, dev.params().numCompVectors());
        int maxCq = dev.props().maxCq();
        if (ch != null) {
            ch.attach(dev);
        }
        if (!dev.tryCount(DeviceCounter.CQS_ALLOCATED, maxCq)) {
            if (ch != null) {
                ch.unattach();
            }
            throw Errors.nomem("createCq: max_cq " + maxCq + " completion queues exist on " + dev.name());
        }
        try {
            int cpu = dev.provides(Callback.COMP_VECT_CPU_LOOKUP)
                    ? dev.driver().compVectCpuLookup(dev, vector) : 0;
            Executor executor = dev.completionExecutor(cpu);
            return new RvtCq(dev, cqe, vector, cpu, executor, ch, handler, eventHandler);
        } catch (RuntimeException | Error e) {
            dev.uncount(DeviceCounter.CQS_ALLOCATED);
            if (ch != null) {
                ch.unattach();
            }
            throw e;
        }
    }

    /** @return the completion vector in effect */
    public int compVector() {
        return compVector;
    }

    /**
     * @return the executor its completion handler runs on ({@link CoreDevice#completionExecutor}), where rvt-core also
     *         defers a QP error transition it cannot run on the caller's thread
     */
    public Executor completionExecutor() {
        return executor;
    }

    /** @return the executor index from {@code comp_vect_cpu_lookup} ({@code comp_vector_cpu}) */
    public int compVectorCpu() {
        return compVectorCpu;
    }

    /**
     * Counts a QP that uses this CQ.
     *
     * @throws VerbsException EINVAL if the CQ was destroyed
     */
    public void addUser() {
        while (true) {
            int n = users.get();
            if (n == DESTROYED) {
                throw Errors.inval("completion queue was destroyed (CQ destroyed)");
            }
            if (users.compareAndSet(n, n + 1)) {
                return;
            }
        }
    }

    /** Counts a QP that stopped using this CQ. */
    public void removeUser() {
        if (users.decrementAndGet() < 0) {
            users.incrementAndGet();
            throw new IllegalStateException("removeUser without addUser on a CQ of " + dev.name());
        }
    }

    /** @return QPs using this CQ (0 once destroyed) */
    public int userCount() {
        return Math.max(users.get(), 0);
    }

    /** @return true once destroyed */
    public boolean isDestroyed() {
        return destroyed;
    }

    /** @return true once an insert failed ({@code cq_full}; sticky) */
    public boolean isFull() {
        lock.lock();
        try {
            return cqFull;
        } finally {
            lock.unlock();
        }
    }

    private void checkLive(String verb) {
        if (destroyed) {
            throw Errors.inval(verb + ": CQ destroyed");
        }
    }

    // ------------------------------------------------------------------ DriverCq

    /**
     * Mirrors {@code rvt_cq_enter}.
     *
     * @param wc the completion, copied
     * @param solicited the packet's solicited-event bit
     * @return false if the CQ is, or ever was, full (the completion is dropped and {@code CQ_ERR} raised), or was
     *         destroyed
     */
    @Override
    public boolean enter(WorkCompletion wc, boolean solicited) {
        boolean overflow = false;
        boolean fire = false;
        lock.lock();
        try {
            if (destroyed) {
                return false;
            }
            int h = head;
            int next;
            if (h >= cqe) {
                h = cqe;
                next = 0;
            } else {
                next = h + 1;
            }
            if (next == tail || cqFull) {
                if (!cqFull) {
                    LOG.log(System.Logger.Level.WARNING, "CQ is full! (device {0}, cqe {1})", dev.name(), cqe);
                    cqFull = true;
                }
                overflow = true;
            } else {
                ring[h].copyFrom(wc);
                // release: pairs with getAcquire in head()
                HEAD.setRelease(this, next);
                if (notify == NEXT_COMP
                        || (notify == SOLICITED && (solicited || wc.status() != WcStatus.SUCCESS))) {
                    notify = NOTIFY_NONE;
                    triggered.incrementAndGet();
                    fire = true;
                }
            }
        } finally {
            lock.unlock();
        }
        if (overflow) {
            dev.dispatch(AsyncEvent.ofCq(AsyncEventType.CQ_ERR, this), eventHandler);
            return false;
        }
        if (fire) {
            if (channel != null) {
                channel.post(this);
            }
            schedule();
        }
        return true;
    }

    /** Queues the completion work unless it is already queued or running (which then loops). */
    private void schedule() {
        if (handler == null || !scheduled.compareAndSet(false, true)) {
            return;
        }
        try {
            executor.execute(completionTask);
        } catch (RejectedExecutionException e) {
            scheduled.set(false);
            LOG.log(System.Logger.Level.DEBUG, "completion executor of {0} refused the CQ handler", dev.name());
        }
    }

    /**
     * The completion work ({@code send_complete}): calls the handler until no notification fired during the call.
     */
    private void runCompletionWork() {
        while (true) {
            int t = triggered.get();
            handlerLock.lock();
            try {
                if (destroyed) {
                    scheduled.set(false);
                    return;
                }
                handlerRunning = true;
                handlerThread = Thread.currentThread();
            } finally {
                handlerLock.unlock();
            }
            try {
                handler.onCompletion(this);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "completion handler failed on a CQ of " + dev.name(), e);
            } finally {
                handlerLock.lock();
                try {
                    handlerRunning = false;
                    handlerThread = null;
                    handlerIdle.signalAll();
                } finally {
                    handlerLock.unlock();
                }
            }
            if (triggered.get() != t) {
                continue;
            }
            scheduled.set(false);
            // A notification between the check and the clear found scheduled still set and did not queue a task:
            // take the work back, unless another task was queued meanwhile.
            if (triggered.get() == t || !scheduled.compareAndSet(false, true)) {
                return;
            }
        }
    }

    /**
     * Mirrors {@code ib_cq_head}: the head index. Lock-free; may be stale.
     *
     * @return the next slot to fill
     */
    @Override
    public int head() {
        // acquire: pairs with setRelease in enter() and resizeCq()
        return (int) HEAD.getAcquire(this);
    }

    /**
     * Mirrors {@code ib_cq_tail}: the tail index. Lock-free; may be stale.
     *
     * @return the next slot to poll
     */
    @Override
    public int tail() {
        // acquire: pairs with setRelease in pollCq() and resizeCq()
        return (int) TAIL.getAcquire(this);
    }

    // ------------------------------------------------------------------ CompletionQueue

    @Override
    public CoreDevice device() {
        return dev;
    }

    /**
     * The lock-free emptiness check of a poller: a spinning poller must not take the lock that {@link #enter} needs,
     * or every completion would wait for the poller to wake it. A stale answer is harmless: "empty" only means "try
     * again", and a non-empty ring is re-read under the lock.
     */
    private boolean looksEmpty() {
        // acquire: pairs with the setRelease of head in enter(); tail is written only by pollers
        return (int) TAIL.getOpaque(this) == (int) HEAD.getAcquire(this);
    }

    /**
     * rvt extension: an empty CQ runs the driver's progress hook ({@link RvtDriver#progress(int)}, a bounded piece of
     * its engines' work on this thread) and looks again, so the polling thread runs the network.
     */
    private boolean emptyAfterProgress() {
        return looksEmpty() && (driver.progress(RvtDriver.POLL_BUDGET) == 0 || looksEmpty());
    }

    /**
     * Mirrors {@code rvt_poll_cq}. Works after the device was removed, so applications can drain flushed
     * completions; allocation-free.
     *
     * @throws VerbsException EINVAL if {@code max} is negative or exceeds {@code out.length}, or the CQ was destroyed
     */
    @Override
    public int pollCq(WorkCompletion[] out, int max) {
        checkLive("pollCq");
        if (out == null) {
            throw Errors.inval("pollCq: out is null");
        }
        if (max < 0 || max > out.length) {
            throw Errors.inval("pollCq: max " + max + " is outside 0..out.length " + out.length);
        }
        if (emptyAfterProgress()) {
            return 0;
        }
        // Checked before anything is taken: a null entry must not cost the completion it would have received.
        for (int i = 0; i < max; i++) {
            if (out[i] == null) {
                throw Errors.inval("pollCq: out[" + i + "] is null");
            }
        }
        lock.lock();
        try {
            int c = cqe;
            int t = tail;
            if (t > c) {
                t = c;
            }
            int h = head;
            int n = 0;
            while (n < max && t != h) {
                out[n++].copyFrom(ring[t]);
                t = t >= c ? 0 : t + 1;
            }
            // release: pairs with getAcquire in tail()
            TAIL.setRelease(this, t);
            return n;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean pollCq(WorkCompletion out) {
        checkLive("pollCq");
        if (out == null) {
            throw Errors.inval("pollCq: out is null");
        }
        if (emptyAfterProgress()) {
            return false;
        }
        lock.lock();
        try {
            int c = cqe;
            int t = tail;
            if (t > c) {
                t = c;
            }
            if (t == head) {
                return false;
            }
            out.copyFrom(ring[t]);
            // release: pairs with getAcquire in tail()
            TAIL.setRelease(this, t >= c ? 0 : t + 1);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Mirrors {@code rvt_req_notify_cq}. An armed NEXT_COMP is never downgraded to SOLICITED (IBTA C11-31/32).
     * <b>[quirk, refused]</b> rdmavt turns SOLICITED|NEXT_COMP into "disarmed"; rvt rejects that combination, and a
     * call with neither, with EINVAL.
     */
    @Override
    public int reqNotifyCq(int flags) {
        dev.checkAlive();
        checkLive("reqNotifyCq");
        int arm = flags & SOLICITED_MASK;
        if ((flags & ~CqNotify.ALL) != 0 || (arm != SOLICITED && arm != NEXT_COMP)) {
            throw Errors.inval("reqNotifyCq: flags " + CqNotify.describe(flags)
                    + " must hold exactly one of SOLICITED and NEXT_COMP, optionally REPORT_MISSED_EVENTS");
        }
        lock.lock();
        try {
            if (notify != NEXT_COMP) {
                notify = arm;
            }
            return CqNotify.REPORT_MISSED_EVENTS.in(flags) && head != tail ? 1 : 0;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Mirrors {@code rvt_resize_cq}: queued completions move, in order, to the start of a new ring; {@code notify},
     * {@code triggered} and {@code cq_full} are unchanged.
     */
    @Override
    public void resizeCq(int newCqe) {
        dev.checkAlive();
        checkLive("resizeCq");
        int maxCqe = dev.props().maxCqe();
        if (newCqe < 1 || newCqe > maxCqe) {
            throw Errors.inval("resizeCq: cqe " + newCqe + " is outside 1..max_cqe " + maxCqe);
        }
        WorkCompletion[] fresh = newRing(newCqe);
        lock.lock();
        try {
            int c = cqe;
            int h = Math.min(head, c);
            int t = Math.min(tail, c);
            int n = h >= t ? h - t : c + 1 + h - t;
            if (newCqe < n) {
                throw Errors.inval("resizeCq: cqe " + newCqe + " is below the " + n + " completions queued");
            }
            for (int i = 0; i < n; i++) {
                fresh[i].copyFrom(ring[t]);
                t = t >= c ? 0 : t + 1;
            }
            ring = fresh;
            // release: pair with getAcquire in capacity(), head() and tail()
            CQE.setRelease(this, newCqe);
            HEAD.setRelease(this, n);
            TAIL.setRelease(this, 0);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public RvtCompChannel channel() {
        return channel;
    }

    /** Mirrors {@code ibv_ack_cq_events}; see {@link RvtCompChannel#ack}. */
    @Override
    public void ackCqEvents(int nevents) {
        checkLive("ackCqEvents");
        if (channel == null) {
            throw Errors.inval("ackCqEvents: the CQ has no completion channel (nevents " + nevents + ")");
        }
        channel.ack(this, nevents);
    }

    @Override
    public long unackedCqEvents() {
        return channel != null ? channel.unacked(this) : 0;
    }

    @Override
    public int capacity() {
        // acquire: pairs with setRelease in resizeCq()
        return (int) CQE.getAcquire(this);
    }

    /**
     * Mirrors {@code rvt_destroy_cq}: waits for a running completion handler to return (unless called from that
     * handler) and makes every later verb on the CQ fail with EINVAL; a queued handler call is dropped.
     *
     * @throws VerbsException EBUSY while QPs use the CQ or events taken from its channel are unacknowledged,
     *         EINVAL if already destroyed
     */
    @Override
    public void destroyCq() {
        // No liveness check: applications must be able to clean up after the device went away.
        if (channel != null) {
            // the unacknowledged events, the QPs and the leaving are one step under the channel's lock
            channel.detach(this, this::markDestroyed);
        } else {
            markDestroyed();
        }
        lock.lock();
        try {
            // Under the CQ lock too, so enter() sees it and stops inserting.
            handlerLock.lock();
            try {
                destroyed = true;
            } finally {
                handlerLock.unlock();
            }
        } finally {
            lock.unlock();
        }
        handlerLock.lock();
        try {
            if (handlerThread != Thread.currentThread()) {
                while (handlerRunning) {
                    handlerIdle.awaitUninterruptibly();
                }
            }
        } finally {
            handlerLock.unlock();
        }
        dev.uncount(DeviceCounter.CQS_ALLOCATED);
    }

    /** The users check of {@link #destroyCq()}: from no QPs to {@link #DESTROYED}. */
    private void markDestroyed() {
        while (true) {
            int n = users.get();
            if (n == DESTROYED) {
                throw Errors.inval("destroyCq: CQ destroyed");
            }
            if (n > 0) {
                throw Errors.busy("destroyCq: " + n + " QP" + (n == 1 ? " uses" : "s use") + " the CQ");
            }
            if (users.compareAndSet(0, DESTROYED)) {
                return;
            }
        }
    }

    @Override
    public String toString() {
        return "RvtCq{" + dev.name() + ", cqe=" + capacity() + ", head=" + head() + ", tail=" + tail()
                + (destroyed ? ", destroyed" : "") + '}';
    }
}
