package io.rvt.driver.sim;

import io.rvt.driver.sim.fabric.FabricPort;

/**
 * The send engines that found one port's pool empty, in the order they did: each waits (its pending count left
 * raised, so it is queued here at most once) until the pool's refill listener, this, runs on the thread that
 * returns a frame; then all of them are scheduled again (a woken engine that finds the pool empty again waits
 * again). In a deterministic fabric that is an event at the virtual time the frame came back.
 */
final class FrameWait implements Runnable {
    private final SimDriver driver;
    private final FabricPort port;
    /** Waiting engines, linked through {@link SimQp#nextWaiting}; under this object's monitor. */
    private SimQp head;
    private SimQp tail;

    FrameWait(SimDriver driver, FabricPort port) {
        this.driver = driver;
        this.port = port;
    }

    void park(SimQp s) {
        synchronized (this) {
            s.nextWaiting = null;
            if (tail == null) {
                head = s;
            } else {
                tail.nextWaiting = s;
            }
            tail = s;
        }
        if (!port.pool().armRefill()) {
            run(); // a frame came back since the engine looked
        }
    }

    /** @return true if {@code s} was waiting here (and is not any more) */
    synchronized boolean remove(SimQp s) {
        SimQp prev = null;
        for (SimQp q = head; q != null; prev = q, q = q.nextWaiting) {
            if (q == s) {
                if (prev == null) {
                    head = q.nextWaiting;
                } else {
                    prev.nextWaiting = q.nextWaiting;
                }
                if (tail == q) {
                    tail = prev;
                }
                q.nextWaiting = null;
                return true;
            }
        }
        return false;
    }

    /** A frame came back: schedule every waiting engine. */
    @Override
    public void run() {
        SimQp s;
        synchronized (this) {
            s = head;
            head = null;
            tail = null;
        }
        while (s != null) {
            SimQp next = s.nextWaiting;
            s.nextWaiting = null;
            driver.schedule(s);
            s = next;
        }
    }

    /** @return which QPs wait, for the fabric's "cannot make progress" error */
    @Override
    public synchronized String toString() {
        StringBuilder sb = new StringBuilder("send engines of ").append(driver.name()).append(" waiting for a frame:");
        for (SimQp s = head; s != null; s = s.nextWaiting) {
            sb.append(" qp 0x").append(Integer.toHexString(s.qp.qpNum()));
        }
        return head == null ? sb.append(" none").toString() : sb.toString();
    }
}
