package io.rvt.driver.jni;

import io.rvt.transport.ThreadScratch;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The ports to which a thread owes a progress ({@link io.rvt.api.spi.agent.ThreadingMode#PROGRESS}): a polling
 * thread's first post to a port after its last progress call drains and sends at once, on the posting thread (a
 * ping-pong's post, a lone post before a destroy); its later posts to that port before it progresses again do not
 * (one {@code sendmmsg} per post) but queue their QPs on the port's engine, and the thread sends them together at its
 * next progress call on ANY driver-jni HCA of the JVM ({@link JniDriver#progress(int)}: an empty poll of any CQ, any
 * wait of a verb), so a thread that posts a window of messages before it polls sends them in batches. The port's
 * backstop thread sends what a thread that never progresses again left (after its quiet period).
 *
 * <p>Kept per thread by a {@link ThreadScratch} (the thread's own map holds only JDK objects), and naming ports by
 * their slot in a table of running ports rather than holding them, so that neither a thread nor this class keeps a
 * closed driver (or the bundle's class loader) alive. Touched only by its thread.
 */
final class OwedSends {
    /** Each thread's ports; a port leaves when its queue is empty or its engine has stopped. */
    private static final ThreadScratch<OwedSends> BY_THREAD = new ThreadScratch<>(OwedSends::new);
    /** The running PROGRESS ports of the JVM (this class loader), by slot; a stopped port's slot is cleared. */
    private static final AtomicReferenceArray<PortEngine> RUNNING = new AtomicReferenceArray<>(1024);
    /** Ports owed at once before the oldest is sent at the post (a thread posting to many HCAs at once). */
    private static final int MAX_PORTS = 8;
    /**
     * A thread that progressed a driver-jni HCA within this long is taken for a poller that will do so again soon;
     * another thread's post goes out on its own stack as before.
     */
    private static final long POLLER_NANOS = 200_000L;

    private final int[] slots = new int[MAX_PORTS];
    private int count;
    /** The ports this thread posted to at once since its last progress call (their next posts are queued). */
    private final int[] sentAtOnce = new int[MAX_PORTS];
    private int sentAtOnceCount;
    /** When this thread last ran a driver-jni progress hook (System.nanoTime). */
    private long lastProgress = System.nanoTime() - 2 * POLLER_NANOS;

    private OwedSends() {
    }

    /**
     * @param p a port whose engine starts in PROGRESS mode
     * @return its slot, or -1 if the table is full (its posts then always go out on the posting thread)
     */
    static int register(PortEngine p) {
        for (int i = 0; i < RUNNING.length(); i++) {
            if (RUNNING.get(i) == null && RUNNING.compareAndSet(i, null, p)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * @param p a stopping port
     * @param slot its slot from {@link #register}, or -1
     */
    static void unregister(PortEngine p, int slot) {
        if (slot >= 0) {
            RUNNING.compareAndSet(slot, p, null);
        }
    }

    /**
     * Whether a post of the calling thread on {@code p} is left to its next progress: when another thread is in
     * {@code p}'s engine now (its cycle may hold this QP's packets unsent: a drain here must not overtake them), and
     * when the thread is a poller (it progressed within {@value #POLLER_NANOS} ns) that already posted to {@code p}
     * since that progress (its first post went out at once: a ping-pong's post waits for nothing, a stream's later
     * posts leave together). If so, records that the thread owes {@code p} a progress; the caller queues the QP on
     * the port.
     *
     * @param p the QP's port
     * @return true to queue the QP, false to drain it on this thread and send at once
     */
    static boolean leaveToProgress(PortEngine p) {
        OwedSends o = BY_THREAD.get();
        int slot = p.owedSlot();
        if (slot < 0) {
            return p.isCycling(); // no slot to owe: queued only behind another thread's cycle, for it or the backstop
        }
        boolean cycling = p.isCycling();
        if (!cycling && System.nanoTime() - o.lastProgress > POLLER_NANOS) {
            return false;
        }
        for (int i = 0; i < o.count; i++) {
            if (o.slots[i] == slot) {
                return true;
            }
        }
        if (!cycling && o.firstPostSinceProgress(slot)) {
            return false;
        }
        if (o.count == MAX_PORTS) {
            PortEngine oldest = RUNNING.get(o.slots[0]);
            if (oldest != null) {
                oldest.sendScheduled(Integer.MAX_VALUE); // the oldest goes now
            }
            o.remove(0);
        }
        o.slots[o.count++] = slot;
        return true;
    }

    /** @return the calling thread's owed ports, its progress call recorded (it is a poller) */
    static OwedSends progressing() {
        OwedSends o = BY_THREAD.get();
        o.lastProgress = System.nanoTime();
        o.sentAtOnceCount = 0; // a new stretch: the next post to each port goes out at once again
        return o;
    }

    /**
     * @param slot a port's slot
     * @return true, once per port between two progress calls of this thread (then recorded): its first post there
     */
    private boolean firstPostSinceProgress(int slot) {
        for (int i = 0; i < sentAtOnceCount; i++) {
            if (sentAtOnce[i] == slot) {
                return false;
            }
        }
        if (sentAtOnceCount == MAX_PORTS) {
            return false; // posting to many ports at once: queue the rest
        }
        sentAtOnce[sentAtOnceCount++] = slot;
        return true;
    }

    /**
     * Sends what this thread queued on its owed ports (also those of the HCA whose hook runs: its posts go out before
     * that HCA's receive).
     *
     * @param budget the work after which each port stops
     * @return the work done
     */
    int sendOwed(int budget) {
        int work = 0;
        for (int i = 0; i < count; i++) {
            PortEngine p = RUNNING.get(slots[i]);
            if (p != null) {
                work += p.sendScheduled(budget);
            }
        }
        return work;
    }

    /**
     * Forgets the ports whose queues are empty (sent, by this thread or whoever held the engine) or whose engines
     * have stopped; the others stay owed to this thread's next progress (another thread held the engine).
     */
    void prune() {
        for (int i = count - 1; i >= 0; i--) {
            PortEngine p = RUNNING.get(slots[i]);
            if (p == null || p.queue.isEmpty()) {
                remove(i);
            }
        }
    }

    /** @return true if this thread owes nothing */
    boolean isEmpty() {
        return count == 0;
    }

    private void remove(int i) {
        count--;
        System.arraycopy(slots, i + 1, slots, i, count - i);
    }
}
