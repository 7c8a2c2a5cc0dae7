package io.rvt.driver.sim.fabric;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** Padding before the producers' index, so it does not share a cache line with the object header or others. */
abstract class MpmcRingLhsPad {
    long p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/** The producers' index. */
abstract class MpmcRingTail extends MpmcRingLhsPad {
    /** Next position to claim; advanced by CAS by any producer. */
    long tail;
}

/** Padding between the producers' and the consumers' indexes. */
abstract class MpmcRingMidPad extends MpmcRingTail {
    long p21, p22, p23, p24, p25, p26, p27, p28, p29, p30, p31, p32, p33, p34, p35;
}

/** The consumers' index. */
abstract class MpmcRingHead extends MpmcRingMidPad {
    /** Next position to take; advanced by CAS by any consumer. */
    long head;
}

/** Padding after the consumers' index. */
abstract class MpmcRingRhsPad extends MpmcRingHead {
    long p41, p42, p43, p44, p45, p46, p47, p48, p49, p50, p51, p52, p53, p54, p55;
}

/**
 * A bounded multi-producer multi-consumer queue of references that allocates nothing per element (Dmitry Vyukov's
 * bounded MPMC queue). Each slot carries a sequence number: a producer claims position {@code p} by CAS on
 * {@code tail} when the slot's sequence equals {@code p}, writes the element, then publishes it with a release store
 * of {@code p + 1}; a consumer claims position {@code p} by CAS on {@code head} when the slot's sequence equals
 * {@code p + 1}, reads the element, then frees the slot with a release store of {@code p + capacity}.
 *
 * <p>Used for frame pools' free lists, for the simulated HCA's send-engine queue, for ports' ingress queues in real-time mode and for {@link FrameQueue}.
 *
 * @param <E> the element type
 */
public final class MpmcRing<E> extends MpmcRingRhsPad {
    private static final VarHandle SEQUENCE = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle TAIL;
    private static final VarHandle HEAD;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            TAIL = lookup.findVarHandle(MpmcRingTail.class, "tail", long.class);
            HEAD = lookup.findVarHandle(MpmcRingHead.class, "head", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Object[] items;
    private final long[] sequences;
    private final int mask;

    /**
     * @param minCapacity the least capacity; rounded up to a power of two, at least 2 (with one slot a freed slot's
     *        sequence would equal the next producer's position and the ring would look empty and full at once)
     */
    public MpmcRing(int minCapacity) {
        if (minCapacity < 1 || minCapacity > (1 << 30)) {
            throw new IllegalArgumentException("ring capacity=" + minCapacity + " must be in [1, 2^30]");
        }
        int capacity = 2;
        while (capacity < minCapacity) {
            capacity <<= 1;
        }
        items = new Object[capacity];
        sequences = new long[capacity];
        for (int i = 0; i < capacity; i++) {
            sequences[i] = i;
        }
        mask = capacity - 1;
        VarHandle.releaseFence(); // publish the initial sequences to threads that get the ring through a race
    }

    /** @return the number of slots, a power of two */
    public int capacity() {
        return mask + 1;
    }

    /**
     * @param e the element, not null
     * @return false if the ring is full
     */
    public boolean offer(E e) {
        long pos = (long) TAIL.getOpaque(this);
        while (true) {
            int i = (int) pos & mask;
            long seq = (long) SEQUENCE.getAcquire(sequences, i); // acquire: pairs with the release in poll()
            long diff = seq - pos;
            if (diff == 0) {
                if (TAIL.weakCompareAndSet(this, pos, pos + 1)) {
                    items[i] = e;
                    SEQUENCE.setRelease(sequences, i, pos + 1); // release: pairs with the acquire in poll()
                    return true;
                }
                pos = (long) TAIL.getVolatile(this);
            } else if (diff < 0) {
                return false;
            } else {
                pos = (long) TAIL.getVolatile(this);
            }
        }
    }

    /**
     * Adds an element to a ring that is never really full (a free list that holds at most its own elements, a queue
     * that holds each owner at most once). {@link #offer} can still fail for a moment there: a consumer that claimed
     * the slot ahead of the tail and was preempted before freeing it makes the ring look full. This waits that out,
     * spinning then yielding.
     *
     * @param e the element, not null
     * @throws IllegalStateException if the ring is really full (more elements than the caller's invariant allows)
     */
    public void put(E e) {
        int tries = 0;
        while (!offer(e)) {
            if (isFull()) {
                throw new IllegalStateException("ring of capacity " + (mask + 1) + " is full");
            }
            if (++tries < 100) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }

    /** @return the oldest element, or null if the ring is empty */
    @SuppressWarnings("unchecked")
    public E poll() {
        long pos = (long) HEAD.getOpaque(this);
        while (true) {
            int i = (int) pos & mask;
            long seq = (long) SEQUENCE.getAcquire(sequences, i); // acquire: pairs with the release in offer()
            long diff = seq - (pos + 1);
            if (diff == 0) {
                if (HEAD.weakCompareAndSet(this, pos, pos + 1)) {
                    E e = (E) items[i];
                    items[i] = null;
                    SEQUENCE.setRelease(sequences, i, pos + mask + 1); // release: pairs with the acquire in offer()
                    return e;
                }
                pos = (long) HEAD.getVolatile(this);
            } else if (diff < 0) {
                return null;
            } else {
                pos = (long) HEAD.getVolatile(this);
            }
        }
    }

    /**
     * {@link #poll()} for a ring that one thread at a time takes from (a port's ingress, drained only by its fabric's
     * delivery agent): the head is advanced by a plain store instead of a CAS. Mixing it with {@link #poll()}, or two
     * threads calling it at once, breaks the ring.
     *
     * @return the oldest element, or null if the ring is empty
     */
    @SuppressWarnings("unchecked")
    public E pollSingleConsumer() {
        long pos = (long) HEAD.getOpaque(this);
        int i = (int) pos & mask;
        if ((long) SEQUENCE.getAcquire(sequences, i) != pos + 1) { // acquire: pairs with the release in offer()
            return null;
        }
        E e = (E) items[i];
        items[i] = null;
        HEAD.setOpaque(this, pos + 1);
        SEQUENCE.setRelease(sequences, i, pos + mask + 1); // release: pairs with the acquire in offer()
        return e;
    }

    /**
     * @return true if every slot was claimed by a producer and not yet by a consumer at one instant (the head read
     *         the same before and after the tail; the tail never runs more than a capacity ahead of the head)
     */
    private boolean isFull() {
        long h = (long) HEAD.getVolatile(this);
        long t = (long) TAIL.getVolatile(this);
        return h == (long) HEAD.getVolatile(this) && t - h > mask;
    }

    /** @return the number of elements; exact only when no other thread is using the ring */
    public int size() {
        long h = (long) HEAD.getVolatile(this);
        long t = (long) TAIL.getVolatile(this);
        long n = t - h;
        return n < 0 ? 0 : (int) Math.min(n, mask + 1);
    }
}
