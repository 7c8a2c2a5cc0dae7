package io.rvt.driver.sim.fabric;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fixed set of {@link Frame}s, all allocated up front (heap buffers, or slices of one direct buffer), handed out by
 * {@link #acquire()} and returned by {@link Frame#release()}. An empty pool is backpressure: {@code acquire()}
 * returns null and counts it, and nothing is ever allocated after construction. Thread-safe: any thread may acquire
 * and any thread may release (a lock-free ring is the free list). A real-time port's own pool also keeps up to a
 * quarter of its frames (at most {@value #CACHE_MAX}) that come back during the fabric's duty cycle for the cycle's own
 * next acquires, without the ring's atomic instructions.
 *
 * <p>A sender that found the pool empty need not poll it: it {@linkplain #armRefill() arms} the pool's
 * {@linkplain #refillListener(Runnable) refill listener}, which then runs once, on the thread that returns the next
 * frame (in a deterministic fabric, an event on its loop).
 */
public final class FramePool {
    /** Default number of frames of a port's pool. */
    public static final int DEFAULT_FRAMES = 256;
    /** Default MTU (largest payload) in bytes: IBTA's 4096. */
    public static final int DEFAULT_MTU = 4096;
    /** Default headroom in bytes beyond the MTU, for headers (LRH, GRH, BTH, extension headers, ICRC). */
    public static final int DEFAULT_HEADROOM = 128;

    /** The most frames the cycle's cache keeps. */
    static final int CACHE_MAX = 64;
    private static final VarHandle CACHED;

    static {
        try {
            CACHED = MethodHandles.lookup().findVarHandle(FramePool.class, "cached", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final MpmcRing<Frame> free;
    /**
     * The engine whose duty cycle may use {@link #cache} ({@link #cacheFor}), or null. Only the thread running that
     * cycle touches the cache, so it needs no atomic instruction: the cycle runs on one thread at a time.
     */
    private Engine cacheEngine;
    private final Frame[] cache;
    /** Frames in {@link #cache}; written with release by the cycle's thread, read with acquire by {@link #available}. */
    private int cached;
    private final int frames;
    private final int frameCapacity;
    private final boolean direct;
    private final AtomicLong exhausted = new AtomicLong();
    /** Set by {@link #armRefill()}, cleared by whoever runs the listener: the one thread that swaps it to false. */
    private final AtomicBoolean refillArmed = new AtomicBoolean();
    private volatile Runnable refillListener;

    private FramePool(int frames, int frameCapacity, boolean direct) {
        if (frames < 1) {
            throw new IllegalArgumentException("pool frames=" + frames + " must be at least 1");
        }
        if (frameCapacity < 1) {
            throw new IllegalArgumentException("pool frameCapacity=" + frameCapacity + " must be at least 1");
        }
        this.frames = frames;
        this.frameCapacity = frameCapacity;
        this.direct = direct;
        this.free = new MpmcRing<>(frames);
        this.cache = new Frame[Math.min(CACHE_MAX, frames / 4)];
        ByteBuffer slab = direct ? ByteBuffer.allocateDirect(Math.multiplyExact(frames, frameCapacity)) : null;
        for (int i = 0; i < frames; i++) {
            ByteBuffer b;
            if (direct) {
                b = slab.slice(i * frameCapacity, frameCapacity);
            } else {
                b = ByteBuffer.allocate(frameCapacity);
            }
            free.offer(new Frame(this, b));
        }
    }

    /**
     * Creates a pool of heap frames.
     *
     * @param frames the number of frames, at least 1
     * @param mtu the largest payload in bytes
     * @param headroom bytes for headers beyond the MTU
     * @return the pool
     */
    public static FramePool heap(int frames, int mtu, int headroom) {
        return new FramePool(frames, Math.addExact(mtu, headroom), false);
    }

    /**
     * Creates a pool of direct frames (slices of one direct buffer).
     *
     * @param frames the number of frames, at least 1
     * @param mtu the largest payload in bytes
     * @param headroom bytes for headers beyond the MTU
     * @return the pool
     */
    public static FramePool direct(int frames, int mtu, int headroom) {
        return new FramePool(frames, Math.addExact(mtu, headroom), true);
    }

    /**
     * Takes a frame: owned by the caller, length 0, LIDs 0, buffer cleared (its bytes are whatever the last user left).
     *
     * @return the frame, or null if the pool is empty (counted in {@link #exhaustedCount()})
     */
    public Frame acquire() {
        Frame f;
        int n = cached;
        Engine e = cacheEngine;
        if (n > 0 && e != null && e.inCycle()) {
            f = cache[--n];
            cache[n] = null;
            CACHED.setRelease(this, n);
        } else {
            f = free.poll();
            if (f == null) {
                exhausted.incrementAndGet();
                return null;
            }
        }
        f.reset();
        f.state = Frame.OWNED;
        return f;
    }

    /** A frame comes back: to the cycle's cache when released in the cycle and no sender waits, else to the ring. */
    void recycle(Frame f) {
        int n = cached;
        Engine e = cacheEngine;
        if (n < cache.length && e != null && e.inCycle() && !refillArmed.get()) {
            cache[n] = f;
            CACHED.setRelease(this, n + 1);
            return; // a sender that arms from now on is seen by endCycle()
        }
        toRing(f);
        // The put's CAS, then this volatile read; armRefill writes the flag, then reads the ring: one of the two sees
        // the other, so a frame returned while a sender arms is never missed.
        if (refillArmed.get() && refillArmed.compareAndSet(true, false)) {
            runRefillListener();
        }
    }

    private void toRing(Frame f) {
        try {
            free.put(f); // a pool never holds more than its frames; Frame's state check catches a double release
        } catch (IllegalStateException e) {
            throw new IllegalStateException("frame pool overflow: a frame was released twice? " + f, e);
        }
    }

    /**
     * Lets {@code engine}'s duty cycle keep frames released in it for its own next acquires (a port's own pool on a
     * real-time fabric).
     */
    void cacheFor(Engine engine) {
        cacheEngine = engine;
    }

    /**
     * The end of {@link #cacheFor the engine's} duty cycle, on its thread: if a sender waits for a frame, the cached
     * ones go to the ring and the refill listener runs.
     */
    void endCycle() {
        int n = cached;
        if (n == 0 || !refillArmed.get()) {
            return;
        }
        for (int i = 0; i < n; i++) {
            toRing(cache[i]);
            cache[i] = null;
        }
        CACHED.setRelease(this, 0);
        if (refillArmed.compareAndSet(true, false)) {
            runRefillListener();
        }
    }

    /**
     * Sets who is told that frames came back after {@link #armRefill()}: the pool's owner (a simulated HCA's port
     * wakes the send engines that found it empty). One listener per pool; a second call replaces the first.
     *
     * @param listener runs on the thread that returns a frame (or that arms a pool a frame already came back to);
     *        it must only schedule work, not send; null for none
     */
    public void refillListener(Runnable listener) {
        this.refillListener = listener;
    }

    /**
     * Asks for one call of the {@linkplain #refillListener(Runnable) refill listener} when a frame comes back. If a
     * frame came back since the caller found the pool empty, the notice is taken back and this returns false: the
     * caller should try {@link #acquire()} again (or run the listener itself).
     *
     * @return true if armed (the pool was still empty), false if a frame is free now
     */
    public boolean armRefill() {
        refillArmed.set(true);
        if (free.size() > 0 && refillArmed.compareAndSet(true, false)) {
            return false;
        }
        return true; // still empty, or a returning thread already took the notice and runs the listener
    }

    /** @return true while a sender waits for a frame to come back ({@link #armRefill()} and no frame since) */
    public boolean isRefillArmed() {
        return refillArmed.get();
    }

    /** @return the refill listener, or null */
    public Runnable refillListener() {
        return refillListener;
    }

    private void runRefillListener() {
        Runnable l = refillListener;
        if (l != null) {
            l.run();
        }
    }

    /** @return the number of frames free now (exact only when no other thread uses the pool) */
    public int available() {
        return free.size() + (int) CACHED.getAcquire(this);
    }

    /** @return the number of frames the pool was built with */
    public int frames() {
        return frames;
    }

    /** @return the capacity of each frame's buffer: MTU plus headroom */
    public int frameCapacity() {
        return frameCapacity;
    }

    /** @return true if the frames' buffers are direct */
    public boolean isDirect() {
        return direct;
    }

    /** @return how many times {@link #acquire()} found the pool empty */
    public long exhaustedCount() {
        return exhausted.get();
    }

    @Override
    public String toString() {
        return "FramePool{frames=" + frames + ", frameCapacity=" + frameCapacity + (direct ? ", direct" : ", heap")
                + ", available=" + available() + '}';
    }
}
