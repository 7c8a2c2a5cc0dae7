package io.rvt.core.cq;

import io.rvt.api.CompletionChannel;
import io.rvt.api.CompletionQueue;
import io.rvt.api.Errno;
import io.rvt.api.VerbsException;
import io.rvt.api.spi.RvtDriver;
import io.rvt.core.base.CoreDevice;
import io.rvt.core.base.Errors;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A completion event channel (libibverbs' {@code struct ibv_comp_channel}; the kernel's uverbs completion event file,
 * {@code struct ib_uverbs_completion_event_file}): a FIFO of events, each naming the CQ whose armed notification
 * fired, shared by the CQs created on it.
 *
 * <p>Events are queued by {@link RvtCq#enter} on the thread that entered the completion (as uverbs'
 * {@code ib_uverbs_comp_handler} runs where rdmavt calls {@code comp_handler}), counted for their CQ when taken
 * ({@code comp_events_reported}, counted by the kernel as it reads each event out) and dropped if their CQ is
 * destroyed first ({@code ib_uverbs_release_ucq}). A waiter runs the driver's progress hook between parks.
 *
 * <p>Lock: {@link #lock} guards the queue, the CQ count, {@link #destroyed}, every attached CQ's reported count and
 * its detached flag; it is never held while calling the driver or the listener.
 */
public final class RvtCompChannel implements CompletionChannel {
    private static final System.Logger LOG = System.getLogger(RvtCompChannel.class.getName());
    /** The first park of a waiter whose progress call found nothing to do. */
    static final long MIN_PARK_NANOS = 20_000L;
    /**
     * The longest park between a waiter's progress calls: a driver whose engines only the caller runs
     * ({@code ThreadingMode.INVOKER}, a deterministic fabric) moves again at least this often; with a backstop
     * ({@code PROGRESS}) it matches the backstop's quiet period, so the waiter and the backstop hand over smoothly.
     */
    static final long MAX_PARK_NANOS = 1_000_000L;

    private final CoreDevice dev;
    private final RvtDriver driver;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition queued = lock.newCondition();
    /** The events: each the CQ it is for. */
    private final ArrayDeque<RvtCq> events = new ArrayDeque<>();
    /** CQs created on the channel and not destroyed ({@code ibv_comp_channel.refcnt}). */
    private int cqs;
    private boolean destroyed;
    private volatile EventListener listener;

    private RvtCompChannel(CoreDevice dev) {
        this.dev = dev;
        this.driver = dev.driver();
    }

    /**
     * Mirrors {@code ibv_create_comp_channel}.
     *
     * @param dev the device
     * @return the channel
     * @throws VerbsException ENODEV if the device was removed
     */
    public static RvtCompChannel create(CoreDevice dev) {
        dev.checkAlive();
        return new RvtCompChannel(dev);
    }

    @Override
    public CoreDevice device() {
        return dev;
    }

    private VerbsException closed(String verb) {
        return new VerbsException(Errno.EBADF, verb + ": the completion channel of " + dev.name()
                + " was destroyed");
    }

    /**
     * Associates a CQ being created ({@code ibv_create_cq}'s {@code channel}; the channel's {@code refcnt}).
     *
     * @param cqDevice the device of the CQ
     * @throws VerbsException EBADF for another device's channel or a destroyed one, as uverbs refuses a channel
     *                        descriptor of another context ({@code lookup_get_fd_uobject})
     */
    void attach(CoreDevice cqDevice) {
        if (cqDevice != dev) {
            throw new VerbsException(Errno.EBADF, "createCq: the completion channel belongs to " + dev.name()
                    + ", not " + cqDevice.name());
        }
        lock.lock();
        try {
            if (destroyed) {
                throw closed("createCq");
            }
            cqs++;
        } finally {
            lock.unlock();
        }
    }

    /** Undoes {@link #attach} for a CQ whose creation failed afterwards. */
    void unattach() {
        lock.lock();
        try {
            cqs--;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The destroy of an attached CQ: refused while events taken for it are not acknowledged; else {@code check}
     * runs (the CQ's own refusals) and the CQ leaves the channel, its queued events dropped, all under the lock so
     * that no event is taken for it meanwhile.
     *
     * @param cq the CQ
     * @param check the CQ's other checks, which may throw; run under the channel's lock
     * @throws VerbsException EBUSY while events are unacknowledged, or what {@code check} throws
     */
    void detach(RvtCq cq, Runnable check) {
        lock.lock();
        try {
            long unacked = cq.eventsReported - cq.eventsAcked;
            if (unacked > 0) {
                throw Errors.busy("destroyCq: " + unacked + " completion event" + (unacked == 1 ? "" : "s")
                        + " taken from the channel and not acknowledged (ackCqEvents)");
            }
            check.run();
            cq.channelDetached = true;
            for (Iterator<RvtCq> it = events.iterator(); it.hasNext(); ) {
                if (it.next() == cq) {
                    it.remove();
                }
            }
            cqs--;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Queues an event for {@code cq} (uverbs' {@code ib_uverbs_comp_handler}) and wakes a waiter; then tells the
     * listener. Called by {@link RvtCq#enter} with no lock held.
     *
     * @param cq the CQ whose notification fired
     */
    void post(RvtCq cq) {
        lock.lock();
        try {
            if (destroyed || cq.channelDetached) {
                return;
            }
            events.add(cq);
            queued.signal();
        } finally {
            lock.unlock();
        }
        EventListener l = listener;
        if (l != null) {
            try {
                l.onCqEvent(this);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "completion channel listener failed on " + dev.name(), e);
            }
        }
    }

    /**
     * Mirrors {@code ibv_ack_cq_events} for a CQ of this channel.
     *
     * @param cq the CQ
     * @param n how many
     * @throws VerbsException EINVAL for a negative {@code n} or more than are unacknowledged
     */
    void ack(RvtCq cq, int n) {
        lock.lock();
        try {
            long unacked = cq.eventsReported - cq.eventsAcked;
            if (n < 0 || n > unacked) {
                throw Errors.inval("ackCqEvents: nevents " + n + " is outside 0.." + unacked
                        + " (the events taken for the CQ and not yet acknowledged)");
            }
            cq.eventsAcked += n;
        } finally {
            lock.unlock();
        }
    }

    /**
     * @param cq a CQ of this channel
     * @return its events taken and not acknowledged
     */
    long unacked(RvtCq cq) {
        lock.lock();
        try {
            return cq.eventsReported - cq.eventsAcked;
        } finally {
            lock.unlock();
        }
    }

    /** Takes an event under the lock; EBADF once destroyed. */
    private RvtCq take(String verb) {
        lock.lock();
        try {
            if (destroyed) {
                throw closed(verb);
            }
            RvtCq cq = events.poll();
            if (cq != null) {
                cq.eventsReported++;
            }
            return cq;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Mirrors {@code ibv_get_cq_event} with the wait for the descriptor. The waiting thread alternates between the
     * driver's progress hook for waits ({@link RvtDriver#progressWhileWaiting()}: a deterministic driver-sim fabric
     * driven by its callers takes its next event there) and parks that grow from {@link #MIN_PARK_NANOS} to {@link #MAX_PARK_NANOS} while the
     * hook has nothing to do (another thread is in the engines, or they are idle); an event queued by another thread
     * ends the park at once.
     */
    @Override
    public CompletionQueue getCqEvent(long timeout, TimeUnit unit) {
        if (unit == null) {
            throw Errors.inval("getCqEvent: unit is null");
        }
        if (timeout < 0) {
            throw Errors.inval("getCqEvent: timeout " + timeout + " " + unit + " is negative");
        }
        long start = System.nanoTime();
        long budget = unit.toNanos(timeout);
        long park = MIN_PARK_NANOS;
        while (true) {
            RvtCq cq = take("getCqEvent");
            if (cq != null) {
                return cq;
            }
            if (driver.progressWhileWaiting()) {
                park = MIN_PARK_NANOS;
                continue; // the engines did work: an event may have come from it
            }
            long left = budget - (System.nanoTime() - start);
            if (left <= 0) {
                return take("getCqEvent");
            }
            lock.lock();
            try {
                if (events.isEmpty() && !destroyed) {
                    queued.awaitNanos(Math.min(park, left));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new VerbsException(Errno.EINTR, "getCqEvent: interrupted while waiting on the completion"
                        + " channel of " + dev.name());
            } finally {
                lock.unlock();
            }
            park = Math.min(2 * park, MAX_PARK_NANOS);
        }
    }

    @Override
    public CompletionQueue tryGetCqEvent() {
        RvtCq cq = take("tryGetCqEvent");
        if (cq != null) {
            return cq;
        }
        driver.progress(RvtDriver.POLL_BUDGET);
        return take("tryGetCqEvent");
    }

    @Override
    public int pendingEvents() {
        lock.lock();
        try {
            return events.size();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void setEventListener(EventListener l) {
        this.listener = l;
    }

    /**
     * Mirrors {@code ibv_destroy_comp_channel}: refused while CQs are associated (libibverbs checks the channel's
     * {@code refcnt}).
     */
    @Override
    public void destroyCompChannel() {
        lock.lock();
        try {
            if (destroyed) {
                throw closed("destroyCompChannel");
            }
            if (cqs > 0) {
                throw Errors.busy("destroyCompChannel: " + cqs + " completion queue" + (cqs == 1 ? " is" : "s are")
                        + " associated with the channel");
            }
            destroyed = true;
            events.clear();
            queued.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** @return true once destroyed */
    public boolean isDestroyed() {
        lock.lock();
        try {
            return destroyed;
        } finally {
            lock.unlock();
        }
    }

    /** @return the CQs associated with the channel */
    public int cqCount() {
        lock.lock();
        try {
            return cqs;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "RvtCompChannel{" + dev.name() + ", cqs=" + cqCount() + ", pending=" + pendingEvents()
                + (isDestroyed() ? ", destroyed" : "") + '}';
    }
}
