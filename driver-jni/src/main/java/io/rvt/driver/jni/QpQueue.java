package io.rvt.driver.jni;

import io.rvt.transport.QpSendEngine;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A bounded lock-free queue of QPs waiting for their port engine (many producers: whoever schedules a send; the
 * consumers: the engine's holder and the backstop standing in for a stalled one). Each slot carries a sequence number
 * that tells producers and consumers whose turn it is (the classic bounded MPMC array queue), so offer and poll
 * allocate nothing.
 */
final class QpQueue {
    private final int mask;
    private final AtomicReferenceArray<QpSendEngine> items;
    private final AtomicLongArray sequence;
    private final AtomicLong tail = new AtomicLong();
    private final AtomicLong head = new AtomicLong();

    /**
     * @param minCapacity at least this many entries (rounded up to a power of two)
     */
    QpQueue(int minCapacity) {
        int cap = Integer.highestOneBit(Math.max(2, minCapacity - 1)) << 1;
        this.mask = cap - 1;
        this.items = new AtomicReferenceArray<>(cap);
        this.sequence = new AtomicLongArray(cap);
        for (int i = 0; i < cap; i++) {
            sequence.set(i, i);
        }
    }

    /**
     * @param qp a QP
     * @return false if the queue is full
     */
    boolean offer(QpSendEngine qp) {
        while (true) {
            long t = tail.get();
            int i = (int) t & mask;
            long s = sequence.get(i);
            if (s == t) {
                if (tail.compareAndSet(t, t + 1)) {
                    items.lazySet(i, qp);
                    sequence.set(i, t + 1);
                    return true;
                }
            } else if (s < t) {
                return false;
            }
            Thread.onSpinWait();
        }
    }

    /**
     * @return the oldest QP, or null if none waits (any thread: the engine's holder, and the backstop standing in for
     *         a stalled one)
     */
    QpSendEngine poll() {
        while (true) {
            long h = head.get();
            int i = (int) h & mask;
            long s = sequence.get(i);
            if (s == h + 1) {
                if (head.compareAndSet(h, h + 1)) {
                    QpSendEngine qp = items.get(i);
                    items.lazySet(i, null);
                    sequence.set(i, h + mask + 1);
                    return qp;
                }
            } else if (s < h + 1) {
                return null;
            }
            Thread.onSpinWait();
        }
    }

    /** @return true if nothing waits */
    boolean isEmpty() {
        return sequence.get((int) head.get() & mask) != head.get() + 1;
    }
}
