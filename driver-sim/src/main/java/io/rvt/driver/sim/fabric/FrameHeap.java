package io.rvt.driver.sim.fabric;

/**
 * Frames held until due, earliest first by (due time, sequence): a receiving port's in-flight frames in real-time
 * mode. Touched only by the delivery agent's thread. The arrays grow only when full (warm-up), never in a steady
 * state.
 *
 * <p>Frames nearly always come in due order (a link adds the same latency to every frame), so they go to a FIFO run
 * kept in order, and only a frame due before the run's last (a reordering fault, links of different latencies) goes
 * to a binary heap; taking the earlier head of the two gives the same order as one heap, at O(1) for the common case.
 */
final class FrameHeap {
    private Frame[] heap = new Frame[64];
    private int size;
    /** The in-order run: a ring of {@code runSize} frames from {@code runHead}, each not before the previous. */
    private Frame[] run = new Frame[64];
    private int runHead;
    private int runSize;

    boolean isEmpty() {
        return size == 0 && runSize == 0;
    }

    int size() {
        return size + runSize;
    }

    /** @return the earliest due time; must not be empty */
    long peekDue() {
        if (runSize == 0) {
            return heap[0].due;
        }
        Frame r = run[runHead];
        return size == 0 || r.due <= heap[0].due ? r.due : heap[0].due;
    }

    void add(Frame f) {
        if (runSize == 0 || !before(f, run[(runHead + runSize - 1) & (run.length - 1)])) {
            if (runSize == run.length) {
                Frame[] bigger = new Frame[runSize * 2];
                for (int i = 0; i < runSize; i++) {
                    bigger[i] = run[(runHead + i) & (run.length - 1)];
                }
                run = bigger;
                runHead = 0;
            }
            run[(runHead + runSize) & (run.length - 1)] = f;
            runSize++;
            return;
        }
        addToHeap(f);
    }

    /** @return the earliest frame, or null if empty */
    Frame poll() {
        if (runSize == 0) {
            return pollHeap();
        }
        Frame r = run[runHead];
        if (size != 0 && before(heap[0], r)) {
            return pollHeap();
        }
        run[runHead] = null;
        runHead = (runHead + 1) & (run.length - 1);
        runSize--;
        return r;
    }

    private void addToHeap(Frame f) {
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

    private Frame pollHeap() {
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
