package io.rvt.core.srq;

import static io.rvt.api.Errno.EINVAL;
import static io.rvt.api.Errno.ENOMEM;

import io.rvt.api.RecvWorkRequest;
import io.rvt.core.base.SpinningLock;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.LongConsumer;

/**
 * A receive queue ({@code struct rvt_rq} with its kernel ring {@code struct rvt_krwq}): a ring of {@link #size()}
 * {@link RvtRwqe} slots holding at most {@code size - 1} posted receive work requests, in {@code [tail, head)}. Used
 * both as a QP's own receive queue and as the ring of an {@link RvtSrq}.
 *
 * <h2>Two sides, two locks</h2>
 * <ul>
 * <li><b>Producer</b> ({@code p_lock}, {@code head}): {@code postRecv} / {@code postSrqRecv} hold
 * {@link #producerLock()} and call {@link #post(RecvWorkRequest)} (or {@link #isFull()} in the QP's flush mode).
 * {@code head} is written only by the producer, with a release store after the slot is filled.</li>
 * <li><b>Consumer</b> ({@code c_lock}, {@code tail}, {@code count}): {@code getRwqe} and the QP error flush hold
 * {@link #consumerLock()} and call {@link #take(RvtRwqe)} / {@link #flush(LongConsumer)}. {@code tail} is written
 * only by the consumer, with a release store after the slot was read. The consumer's fields live in a separate
 * object, padded, so that posting and consuming do not share a cache line (the kernel puts them on separate cache
 * lines).</li>
 * <li>{@link #resize(int)} (SRQ only) needs <b>both</b> locks, taken in the order producer, then consumer. No other
 * path takes both, and none takes them in the other order. A QP's own queue uses the QP's {@code recvLock} as its
 * consumer lock ({@link #RvtRq(int, int, SpinningLock)}), held before the producer lock.</li>
 * </ul>
 *
 * <h2>Consumer call sequence ({@code rvt_get_rwqe}, semantics §5.3)</h2>
 * <pre>{@code
 * rq.consumerLock().lock();
 * try {
 *     if (!state.can(PROCESS_RECV_OK)) return 0;
 *     if (!rq.take(dst)) return 0;              // refreshes the approximate count below 16; 0 entries -> false
 *     if (!wrIdOnly && !initSge(dst)) return -1; // the RWQE is consumed either way
 *     recvWrId = dst.wrId(); set WRID_VALID;
 *     raise = srq != null && srq.checkLimitLocked();    // exact recount + disarm, still under the consumer lock
 * } finally {
 *     rq.consumerLock().unlock();
 * }
 * if (raise) srq.raiseLimitEvent();             // outside the lock
 * return 1;
 * }</pre>
 * {@link #approxCount()} and {@link #refreshCount()} are public for callers that need the count itself
 * ({@code rvt_compute_aeth} reads the approximate count without the lock, as rdmavt does).
 *
 * <h2>Memory ordering (semantics §1.7)</h2>
 * {@code head}: {@code setRelease} in {@link #post} / {@link #resize}, {@code getAcquire} in {@link #headAcquire()}
 * (used by {@link #refreshCount()} before any slot is read). {@code tail}: {@code setRelease} in {@link #take} /
 * {@link #flush} / {@link #resize}, {@code getAcquire} in {@link #post} before a slot is overwritten. The slot array
 * and {@link #size()} change only in {@link #resize} with both locks held, so either lock makes them stable.
 */
public final class RvtRq {
    /** {@code RVT_RWQ_COUNT_THRESHOLD}: the approximate count is refreshed from {@code head} only below this. */
    public static final int COUNT_THRESHOLD = 16;

    private final int maxSge;
    private final Producer producer = new Producer();
    private final Consumer consumer;
    /** The consumer lock is the QP's {@code recvLock}, which ranks above {@code p_lock} (see {@link #free}). */
    private final boolean outerConsumerLock;
    /** {@code kwq->curr_wq}: the slots; replaced only by {@link #resize} with both locks held. */
    private RvtRwqe[] wq;
    /** {@code rq->size}: slots in {@link #wq}; written only by {@link #resize} with both locks held. */
    private int size;

    /**
     * Mirrors {@code rvt_alloc_rq} for a kernel ring: {@code size} slots of {@code maxSge} entries each, empty.
     *
     * @param size slots, {@code max_wr + 1}; at least 1
     * @param maxSge scatter entries per slot, at least 0
     */
    public RvtRq(int size, int maxSge) {
        this(size, maxSge, null);
    }

    /**
     * A QP's own receive queue, whose consumer lock is the QP's {@code recvLock} ({@code r_lock}): every consumer of
     * a QP's own queue ({@code rvt_get_rwqe}, the error flush) already holds it, so the consumer's lock is a re-entry
     * of a lock held rather than a second atomic per received message. rdmavt takes {@code kwq->c_lock} inside
     * {@code r_lock} anyway ([deviation]: the same exclusion for one CAS less; an SRQ, consumed under several QPs'
     * {@code r_lock}s, keeps a lock of its own). With such a lock the queue's order is {@code recvLock → p_lock}.
     *
     * @param size slots, {@code max_wr + 1}; at least 1
     * @param maxSge scatter entries per slot, at least 0
     * @param consumerLock the lock every consumer holds (the QP's {@code recvLock}), or null for one of its own
     */
    public RvtRq(int size, int maxSge, SpinningLock consumerLock) {
        this.outerConsumerLock = consumerLock != null;
        this.consumer = new Consumer(consumerLock != null ? consumerLock : new SpinningLock());
        if (size < 1) {
            throw new IllegalArgumentException("receive queue size must be at least 1, got " + size);
        }
        if (maxSge < 0) {
            throw new IllegalArgumentException("receive queue maxSge must be at least 0, got " + maxSge);
        }
        this.maxSge = maxSge;
        this.size = size;
        this.wq = new RvtRwqe[size];
        for (int i = 0; i < size; i++) {
            wq[i] = new RvtRwqe(maxSge);
        }
    }

    /** @return {@code p_lock}: held by posters around {@link #post} and {@link #isFull} */
    public SpinningLock producerLock() {
        return producer.lock;
    }

    /** @return {@code c_lock}: held by the consumer around {@link #take}, {@link #flush} and the SRQ limit check */
    public SpinningLock consumerLock() {
        return consumer.lock;
    }

    /**
     * @return {@code rq->size}: slots in the ring ({@code max_wr + 1}); stable while either lock is held, and for a
     *         QP's own queue (never resized) always
     */
    public int size() {
        return size;
    }

    /** @return {@code rq->max_sge}: scatter entries per slot */
    public int maxSge() {
        return maxSge;
    }

    /**
     * Mirrors {@code rvt_get_rq_count}: entries in {@code [tail, head)}.
     *
     * @param head a head index in {@code [0, size)}
     * @param tail a tail index in {@code [0, size)}
     * @return {@code head - tail}, plus {@code size} if negative: in {@code [0, size)}
     */
    public int count(int head, int tail) {
        int n = head - tail;
        if (n < 0) {
            n += size;
        }
        return n;
    }

    /** @return {@code head} with acquire semantics; any thread */
    public int headAcquire() {
        // acquire: pairs with setRelease in post() and resize()
        return (int) Producer.HEAD.getAcquire(producer);
    }

    /** @return {@code tail} with acquire semantics; any thread */
    public int tail() {
        // acquire: pairs with setRelease in take(), flush() and resize()
        return (int) Consumer.TAIL.getAcquire(consumer);
    }

    // ------------------------------------------------------------------ producer side (producerLock held)

    /**
     * Posts one receive work request: rdmavt's per-WR step of {@code rvt_post_recv} / {@code rvt_post_srq_recv}
     * (semantics §5.2, step 3): too many SGEs → {@code -EINVAL}; {@code next == tail} → {@code -ENOMEM}; else copy
     * {@code wr_id}, {@code num_sge} and the SGEs into the slot at {@code head} and release-publish
     * {@code head = next}. SGEs are not validated here (that happens when the entry is consumed). Caller holds
     * {@link #producerLock()}.
     *
     * @param wr the request; only its own fields are read, not its chain
     * @return 0, {@code -EINVAL} if {@code wr.numSge() > maxSge()}, {@code -ENOMEM} if the ring is full
     */
    public int post(RecvWorkRequest wr) {
        assert producer.lock.isHeldByCurrentThread() : "post without producerLock";
        if (wr.numSge() > maxSge) {
            return -EINVAL.value();
        }
        int head = producer.head; // written only under producerLock, which we hold
        int next = head + 1 == size ? 0 : head + 1;
        // acquire: pairs with setRelease in take()/flush(): the consumer finished reading the slot we may reuse
        if (next == (int) Consumer.TAIL.getAcquire(consumer)) {
            return -ENOMEM.value();
        }
        wq[head].copyFrom(wr);
        // release: pairs with getAcquire in headAcquire() (used by take()/refreshCount()/flush())
        Producer.HEAD.setRelease(producer, next);
        return 0;
    }

    /**
     * The queue-full test of {@code rvt_post_recv} on its own: a QP in flush mode (ERR) completes posted requests
     * with {@code WR_FLUSH_ERR} without storing them, but still fails with {@code -ENOMEM} when the ring is full.
     * Caller holds {@link #producerLock()}.
     *
     * @return true if {@code advance(head) == tail}
     */
    public boolean isFull() {
        assert producer.lock.isHeldByCurrentThread() : "isFull without producerLock";
        int head = producer.head;
        int next = head + 1 == size ? 0 : head + 1;
        // acquire: pairs with setRelease in take()/flush()
        return next == (int) Consumer.TAIL.getAcquire(consumer);
    }

    // ------------------------------------------------------------------ consumer side (consumerLock held)

    /**
     * @return {@code kwq->count}: the consumer's approximate number of entries, a lower bound of the real one
     *         (posts since the last refresh are not in it). Exact while {@link #consumerLock()} is held only right
     *         after {@link #refreshCount()}; may be read without the lock for an estimate ({@code rvt_compute_aeth}).
     */
    public int approxCount() {
        return (int) Consumer.COUNT.getOpaque(consumer);
    }

    /**
     * Recomputes the count exactly from {@link #headAcquire()} and {@code tail} ({@code kwq->count =
     * rvt_get_rq_count(rq, head, tail)}). Caller holds {@link #consumerLock()}.
     *
     * @return the exact count
     */
    public int refreshCount() {
        assert consumer.lock.isHeldByCurrentThread() : "refreshCount without consumerLock";
        int n = count(headAcquire(), consumer.tail);
        Consumer.COUNT.setOpaque(consumer, n);
        return n;
    }

    /**
     * Consumes the entry at {@code tail} into {@code dst}: the ring part of {@code rvt_get_rwqe} (semantics §5.3).
     * If the approximate count is below {@link #COUNT_THRESHOLD} it is refreshed from {@code head} first; if it is
     * then 0, nothing happens and false is returned. Otherwise the entry ({@code wr_id}, {@code num_sge}, SGEs) is
     * copied into {@code dst}, then {@code tail} is advanced with a release store, then the count is decremented.
     * Caller holds {@link #consumerLock()}; see the class comment for the whole {@code getRwqe} sequence.
     *
     * <p>Two deliberate differences from rdmavt, neither visible to a well-behaved application: (1) rdmavt publishes
     * the new tail before it has read the entry (relying on the verbs rule that the poster does not repost before
     * the completion); here the entry is copied first, as semantics §1.7 says the Java consumer SHOULD. (2) rdmavt
     * skips the {@code count--} when the SGEs then fail validation although the entry is consumed, which leaves the
     * approximate count one too high; here the count is decremented with the consumption, so it stays a lower
     * bound.
     *
     * @param dst receives the entry; its capacity must be at least {@link #maxSge()}
     * @return true if an entry was consumed, false if the queue is empty
     * @throws IllegalArgumentException if {@code dst} is too small
     */
    public boolean take(RvtRwqe dst) {
        assert consumer.lock.isHeldByCurrentThread() : "take without consumerLock";
        if (dst.maxSge() < maxSge) {
            throw new IllegalArgumentException("destination RWQE holds " + dst.maxSge()
                    + " SGEs, the receive queue up to " + maxSge);
        }
        Consumer c = consumer;
        int n = c.count;
        if (n < COUNT_THRESHOLD) {
            n = refreshCount();
        }
        if (n == 0) {
            return false;
        }
        int tail = c.tail;
        dst.copyFrom(wq[tail]);
        // release: pairs with getAcquire in post()/isFull(): the slot may be overwritten only after we read it
        Consumer.TAIL.setRelease(c, tail + 1 == size ? 0 : tail + 1);
        Consumer.COUNT.setOpaque(c, n - 1);
        return true;
    }

    /**
     * As {@link #take}, but without the copy: returns the entry at {@code tail} in its slot, which the caller reads
     * and then consumes with {@link #advance()} (the producer reuses the slot only after that release store). Caller
     * holds {@link #consumerLock()} from here to {@code advance}.
     *
     * @return the entry, or null if the queue is empty
     */
    public RvtRwqe peek() {
        assert consumer.lock.isHeldByCurrentThread() : "peek without consumerLock";
        Consumer c = consumer;
        int n = c.count;
        if (n < COUNT_THRESHOLD) {
            n = refreshCount();
        }
        return n == 0 ? null : wq[c.tail];
    }

    /** Consumes the entry {@link #peek()} returned, which the caller has finished reading ({@link #consumerLock()}). */
    public void advance() {
        assert consumer.lock.isHeldByCurrentThread() : "advance without consumerLock";
        Consumer c = consumer;
        int tail = c.tail;
        // release: pairs with getAcquire in post()/isFull(): the slot may be overwritten only after we read it
        Consumer.TAIL.setRelease(c, tail + 1 == size ? 0 : tail + 1);
        Consumer.COUNT.setOpaque(c, c.count - 1);
    }

    /**
     * The receive-queue part of {@code rvt_error_qp} (semantics §7.7 step 9): hands the {@code wr_id} of every
     * entry from {@code tail} to {@code head}, in order, to {@code wrIds} (which inserts the {@code WR_FLUSH_ERR}
     * completions), then publishes {@code tail = head}. Caller holds {@link #consumerLock()} (nested inside the QP's
     * receive and send locks). The approximate count is set to 0, which is exact now; rdmavt leaves it stale.
     *
     * @param wrIds called once per flushed entry, oldest first
     * @return the number of entries flushed
     */
    public int flush(LongConsumer wrIds) {
        assert consumer.lock.isHeldByCurrentThread() : "flush without consumerLock";
        Consumer c = consumer;
        int head = headAcquire();
        int tail = c.tail;
        int n = 0;
        while (tail != head) {
            wrIds.accept(wq[tail].wrId());
            tail = tail + 1 == size ? 0 : tail + 1;
            n++;
        }
        // release: pairs with getAcquire in post()/isFull()
        Consumer.TAIL.setRelease(c, tail);
        Consumer.COUNT.setOpaque(c, 0);
        return n;
    }

    // ------------------------------------------------------------------ resize (both locks held)

    /**
     * The ring part of {@code rvt_modify_srq(IB_SRQ_MAX_WR)} (semantics §9.6): moves the queued entries, in order,
     * to slots {@code 0..n-1} of a ring of {@code newSize} slots and sets {@code head = n}, {@code tail = 0}. A
     * {@code newSize} not above the queued count {@code n} returns {@code -EINVAL} and changes nothing.
     *
     * <p>The caller holds <b>both</b> {@link #producerLock()} and {@link #consumerLock()}, in that order. rdmavt
     * swaps the ring under {@code c_lock} only, so a concurrent {@code post_srq_recv} can race with the swap
     * ([quirk]); holding both locks fixes that.
     *
     * <p>Slot objects are reused (the queued ones keep their order, free ones follow), so shrinking allocates
     * nothing and growing allocates only the extra slots.
     *
     * @param newSize slots in the new ring, {@code max_wr + 1}
     * @return 0, or {@code -EINVAL} if {@code newSize < 1} or {@code newSize <= count}
     */
    public int resize(int newSize) {
        assert producer.lock.isHeldByCurrentThread() : "resize without producerLock";
        assert consumer.lock.isHeldByCurrentThread() : "resize without consumerLock";
        if (newSize < 1) {
            return -EINVAL.value();
        }
        RvtRwqe[] old = wq;
        int head = producer.head;
        int tail = consumer.tail;
        int n = count(head, tail);
        if (newSize <= n) {
            return -EINVAL.value();
        }
        RvtRwqe[] ring = new RvtRwqe[newSize];
        int reused = Math.min(old.length, newSize);
        for (int i = 0, j = tail; i < reused; i++) {
            ring[i] = old[j];
            j = j + 1 == old.length ? 0 : j + 1;
        }
        for (int i = reused; i < newSize; i++) {
            ring[i] = new RvtRwqe(maxSge);
        }
        wq = ring;
        size = newSize;
        // release: pairs with getAcquire in headAcquire() / post()
        Producer.HEAD.setRelease(producer, n);
        Consumer.TAIL.setRelease(consumer, 0);
        Consumer.COUNT.setOpaque(consumer, n);
        return 0;
    }

    /**
     * Mirrors {@code rvt_free_rq}: drops the ring (the garbage collector frees it). Afterwards the queue holds
     * nothing and accepts nothing: {@link #post} fails with {@code -ENOMEM} and {@link #take} finds no entry. Used on
     * create-failure paths and at destroy; takes both locks.
     */
    public void free() {
        if (outerConsumerLock) {
            consumer.lock.lock(); // the QP's recvLock: taken before p_lock, as the QP's error flush does
        }
        producer.lock.lock();
        consumer.lock.lock();
        try {
            wq = new RvtRwqe[] {new RvtRwqe(0)};
            size = 1;
            Producer.HEAD.setRelease(producer, 0);
            Consumer.TAIL.setRelease(consumer, 0);
            Consumer.COUNT.setOpaque(consumer, 0);
        } finally {
            consumer.lock.unlock();
            producer.lock.unlock();
            if (outerConsumerLock) {
                consumer.lock.unlock();
            }
        }
    }

    @Override
    public String toString() {
        return "RvtRq{size=" + size + ", maxSge=" + maxSge + ", head=" + headAcquire() + ", tail=" + tail() + '}';
    }

    // ------------------------------------------------------------------ the two sides

    /** Cache-line padding ahead of a side's hot fields. */
    @SuppressWarnings("unused")
    private abstract static class LeftPad {
        long p01, p02, p03, p04, p05, p06, p07, p08;
    }

    /** The producer's fields ({@code p_lock}, {@code head}). */
    @SuppressWarnings("unused")
    private static final class Producer extends LeftPad {
        static final VarHandle HEAD;

        static {
            try {
                HEAD = MethodHandles.lookup().findVarHandle(Producer.class, "head", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final SpinningLock lock = new SpinningLock();
        /** {@code kwq->head}: next slot to fill; written only under {@link #lock}, published with setRelease. */
        int head;
        long p11, p12, p13, p14, p15, p16, p17, p18;
    }

    /** The consumer's fields ({@code c_lock}, {@code tail}, {@code count}). */
    @SuppressWarnings("unused")
    private static final class Consumer extends LeftPad {
        static final VarHandle TAIL;
        static final VarHandle COUNT;

        static {
            try {
                MethodHandles.Lookup l = MethodHandles.lookup();
                TAIL = l.findVarHandle(Consumer.class, "tail", int.class);
                COUNT = l.findVarHandle(Consumer.class, "count", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final SpinningLock lock;
        /** {@code kwq->tail}: oldest posted slot; written only under {@link #lock}, published with setRelease. */
        int tail;
        /** {@code kwq->count}: approximate entries; written only under {@link #lock} (opaque, read racily). */
        int count;
        long p11, p12, p13, p14, p15, p16, p17, p18;

        Consumer(SpinningLock lock) {
            this.lock = lock;
        }
    }
}
