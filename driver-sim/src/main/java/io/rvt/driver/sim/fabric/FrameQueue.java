package io.rvt.driver.sim.fabric;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A bounded, allocation-free queue of frames that is itself a {@link FrameHandler}: install it as a port's handler
 * and drain it from the HCA's own thread (its receive agent), so the fabric's delivery thread only hands frames over.
 * A frame that finds the queue full is released and counted in {@link #overflows()}. Any number of threads may offer
 * and drain (a lock-free ring).
 */
public final class FrameQueue implements FrameHandler {
    private final MpmcRing<Frame> ring;
    private final AtomicLong overflows = new AtomicLong();

    /**
     * @param capacity the least capacity (rounded up to a power of two)
     */
    public FrameQueue(int capacity) {
        ring = new MpmcRing<>(capacity);
    }

    /** Queues the frame, or releases and counts it if the queue is full. */
    @Override
    public void onFrame(Frame frame) {
        if (!ring.offer(frame)) {
            overflows.incrementAndGet();
            frame.release();
        }
    }

    /** @return the oldest frame, now owned by the caller, or null if the queue is empty */
    public Frame poll() {
        return ring.poll();
    }

    /**
     * Hands up to {@code limit} frames, oldest first, to {@code handler} on the calling thread.
     *
     * @param handler takes each frame (and owns it)
     * @param limit the most frames to drain
     * @return the number drained
     */
    public int drain(FrameHandler handler, int limit) {
        int n = 0;
        Frame f;
        while (n < limit && (f = ring.poll()) != null) {
            handler.onFrame(f);
            n++;
        }
        return n;
    }

    /** @return the number of frames queued (exact only when no other thread uses the queue) */
    public int size() {
        return ring.size();
    }

    /** @return the capacity */
    public int capacity() {
        return ring.capacity();
    }

    /** @return frames released because the queue was full */
    public long overflows() {
        return overflows.get();
    }

    @Override
    public String toString() {
        return "FrameQueue{size=" + size() + ", capacity=" + capacity() + ", overflows=" + overflows() + '}';
    }
}
