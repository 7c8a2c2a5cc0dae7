package io.rvt.api.spi.agent;

import java.util.Objects;

/**
 * A binary min-heap of deadlines, for the runtime's timer queues (rvt-core's real-time timer agent, driver-sim's
 * virtual-time event loop): each queued thing owns one {@link Node}, made once, so that queueing, moving and removing
 * it allocate nothing and take O(log n) (the node knows its slot). Order: by deadline, compared as
 * {@code System.nanoTime()} values are ({@code a - b < 0}, so that deadlines may wrap; any two queued at once must lie
 * within 2^63 ns of each other), then by a sequence number the caller gives (FIFO among equal deadlines when it counts
 * up). Not thread-safe: its owner serialises every call (one agent thread, or a lock).
 *
 * @param <T> what the nodes carry
 */
public final class DeadlineHeap<T> {
    private Node<?>[] heap;
    private int size;

    /**
     * One queued thing's place in a heap: made once per thing, reused for every queueing.
     *
     * @param <T> what it carries
     */
    public static final class Node<T> {
        private final T owner;
        private long deadline;
        private long seq;
        private int index = -1;

        /**
         * @param owner what this node carries, returned by {@link #owner()}
         */
        public Node(T owner) {
            this.owner = Objects.requireNonNull(owner, "owner");
        }

        /** @return what this node carries */
        public T owner() {
            return owner;
        }

        /** @return the deadline it was last queued under */
        public long deadline() {
            return deadline;
        }

        /** @return the sequence number it was last queued with */
        public long seq() {
            return seq;
        }

        /** @return true while it is in a heap */
        public boolean isQueued() {
            return index >= 0;
        }
    }

    /**
     * @param initialCapacity the slots to start with, at least 1 (the heap doubles when full)
     */
    public DeadlineHeap(int initialCapacity) {
        if (initialCapacity < 1) {
            throw new IllegalArgumentException("initialCapacity must be at least 1, got " + initialCapacity);
        }
        heap = new Node<?>[initialCapacity];
    }

    /** @return the number of queued nodes */
    public int size() {
        return size;
    }

    /** @return true if nothing is queued */
    public boolean isEmpty() {
        return size == 0;
    }

    /**
     * Queues {@code node}, or moves it if it is queued already.
     *
     * @param node     a node of this heap's kind
     * @param deadline its deadline
     * @param seq      the tie-break among equal deadlines (lower first)
     */
    public void add(Node<T> node, long deadline, long seq) {
        if (node.index >= 0) {
            remove(node);
        }
        if (size == heap.length) {
            Node<?>[] grown = new Node<?>[size * 2];
            System.arraycopy(heap, 0, grown, 0, size);
            heap = grown;
        }
        node.deadline = deadline;
        node.seq = seq;
        siftUp(size++, node);
    }

    /** @return the node with the earliest deadline, or null if empty */
    @SuppressWarnings("unchecked")
    public Node<T> peek() {
        return size == 0 ? null : (Node<T>) heap[0];
    }

    /** @return the earliest deadline; only when not {@link #isEmpty()} */
    public long peekDeadline() {
        return heap[0].deadline;
    }

    /**
     * Takes out the node with the earliest deadline.
     *
     * @return its owner, or null if empty
     */
    @SuppressWarnings("unchecked")
    public T poll() {
        if (size == 0) {
            return null;
        }
        Node<T> n = (Node<T>) heap[0];
        removeAt(0);
        return n.owner;
    }

    /**
     * Takes {@code node} out, if it is queued.
     *
     * @param node the node
     * @return true if it was queued
     */
    public boolean remove(Node<T> node) {
        int i = node.index;
        if (i < 0 || i >= size || heap[i] != node) {
            return false;
        }
        removeAt(i);
        return true;
    }

    /** Takes every node out (each then says it is not queued). */
    public void clear() {
        for (int i = 0; i < size; i++) {
            heap[i].index = -1;
            heap[i] = null;
        }
        size = 0;
    }

    private void removeAt(int i) {
        Node<?> removed = heap[i];
        int last = --size;
        Node<?> moved = heap[last];
        heap[last] = null;
        removed.index = -1;
        if (i != last) {
            siftDown(i, moved);
            if (heap[i] == moved) {
                siftUp(i, moved);
            }
        }
    }

    private void siftUp(int i, Node<?> n) {
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            Node<?> p = heap[parent];
            if (!before(n, p)) {
                break;
            }
            heap[i] = p;
            p.index = i;
            i = parent;
        }
        heap[i] = n;
        n.index = i;
    }

    private void siftDown(int i, Node<?> n) {
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            Node<?> c = heap[child];
            int right = child + 1;
            if (right < size && before(heap[right], c)) {
                child = right;
                c = heap[child];
            }
            if (!before(c, n)) {
                break;
            }
            heap[i] = c;
            c.index = i;
            i = child;
        }
        heap[i] = n;
        n.index = i;
    }

    private static boolean before(Node<?> a, Node<?> b) {
        long d = a.deadline - b.deadline;
        return d < 0 || (d == 0 && a.seq < b.seq);
    }
}
