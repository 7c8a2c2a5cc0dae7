package io.rvt.driver.sim.fabric;

/**
 * Frames held until due, earliest first by (due time, sequence): a receiving port's in-flight frames in real-time
 * mode. Touched only by the delivery agent's thread. The array grows only when full (warm-up), never in a steady
 * state.
 */
final class FrameHeap {
    private Frame[] heap = new Frame[64];
    private int size;

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    /** @return the earliest due time; the heap must not be empty */
    long peekDue() {
        return heap[0].due;
    }

    void add(Frame f) {
        if (size == heap.length) {
            Frame[] bigger = new Frame[size * 2];
            System.arraycopy(heap, 0, bigger, 0, size);
            heap = bigger;
        }
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            Frame p = heap[parent];
            if (!before(f, p)) {
                break;
            }
            heap[i] = p;
            i = parent;
        }
        heap[i] = f;
    }

    /** @return the earliest frame, or null if empty */
    Frame poll() {
        if (size == 0) {
            return null;
        }
        Frame first = heap[0];
        int last = --size;
        Frame moved = heap[last];
        heap[last] = null;
        if (last > 0) {
            int i = 0;
            int half = last >>> 1;
            while (i < half) {
                int child = 2 * i + 1;
                Frame c = heap[child];
                int right = child + 1;
                if (right < last && before(heap[right], c)) {
                    child = right;
                    c = heap[child];
                }
                if (!before(c, moved)) {
                    break;
                }
                heap[i] = c;
                i = child;
            }
            heap[i] = moved;
        }
        return first;
    }

    private static boolean before(Frame a, Frame b) {
        return a.due < b.due || (a.due == b.due && a.sequence() < b.sequence());
    }
}
