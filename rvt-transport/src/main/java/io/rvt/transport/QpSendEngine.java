package io.rvt.transport;

import io.rvt.api.spi.DriverQp;
import io.rvt.transport.engine.DriverStateKey;
import io.rvt.transport.engine.Packets;
import io.rvt.transport.engine.QpProtocolState;
import io.rvt.transport.engine.TxInfo;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A packet driver's per-QP send-engine state, kept in the QP's {@link QpProtocolState} under a
 * {@link DriverStateKey} (rdmavt's {@code qp->priv}, the driver's part, which {@code qp_priv_alloc} makes: here
 * {@code TransportDriver.newSendEngine}): a request counter that
 * serialises the engine without locks. Whoever raises it from 0 ({@link #request()}) drains the QP; requests that
 * arrive meanwhile make the drainer loop once more ({@link #finish(int)}), so none is lost and no two threads drain
 * one QP at once (rdmavt's {@code RVT_S_BUSY}, without the lock). Subclass it to keep more per-QP driver state: a
 * {@link PacketDriver}{@code <E, S>} reads it back typed ({@link PacketDriver#engine(DriverQp)}).
 */
public class QpSendEngine {
    /** The key every engine is stored and found under, whatever its subclass: the transport's own reads. */
    public static final DriverStateKey<QpSendEngine> KEY = DriverStateKey.of(QpSendEngine.class);
    /** The QP. */
    public final DriverQp qp;
    private final AtomicInteger pending = new AtomicInteger();
    private volatile Thread drainer;
    private volatile boolean stopped;
    /** Packets and bytes sent on port {@code txPort} during the current drain, not yet in its counters (drainer). */
    int txPackets;
    long txBytes;
    int txPort = 1;
    /** Set by {@link Transport#makePacket} when the packet it made was the QP's last for now (drainer). */
    boolean drainedHint;
    /** The drainer holds the QP's {@code sendLock} over its packets ({@link LockPolicy#sendLockOverDrains()}). */
    boolean holdsSendLock;

    /**
     * @param qp the QP
     */
    public QpSendEngine(DriverQp qp) {
        this.qp = qp;
    }

    /**
     * The send engine of {@code qp} as the base class ({@link #KEY}); a {@link PacketDriver} reads its own class with
     * {@link PacketDriver#engine(DriverQp)}.
     *
     * @param qp a QP
     * @return its engine state, or null for a QP without one (not made by a {@link TransportDriver})
     */
    public static QpSendEngine of(DriverQp qp) {
        return KEY.get(qp);
    }

    /**
     * Asks for a drain.
     *
     * @return true if the caller must drain the QP now (or hand it to a thread that will), false if a drainer is
     *         already on it and will see this request
     */
    public final boolean request() {
        return pending.getAndIncrement() == 0;
    }

    /**
     * Marks the start of a drain on the calling thread.
     *
     * @return the requests seen so far, for {@link #finish(int)}
     */
    public final int begin() {
        drainer = Thread.currentThread();
        return pending.get();
    }

    /**
     * Ends a drain that found nothing more to send, unless requests came in since {@code seen}.
     *
     * @param seen what {@link #begin()} or the previous {@code finish} returned
     * @return -1 if the drain is over (the next {@link #request()} starts a new one), else the requests seen now: drain
     *         again
     */
    public final int finish(int seen) {
        if (pending.compareAndSet(seen, 0)) {
            return -1;
        }
        return pending.get();
    }

    /** @return whether the last packet made left the QP nothing to send ({@link TxInfo#isDrained()}), clearing it */
    final boolean takeDrainedHint() {
        boolean h = drainedHint;
        if (h) {
            drainedHint = false;
        }
        return h;
    }

    /** Takes the QP's {@code sendLock} for the drain's next packets; the drainer only. */
    final void holdSendLock() {
        qp.sendLock().lock();
        holdsSendLock = true;
    }

    /** Lets go of the drain's hold of {@code sendLock}, if it has one; the drainer only. */
    final void letGoOfSendLock() {
        if (holdsSendLock) {
            holdsSendLock = false;
            qp.sendLock().unlock();
        }
    }

    /**
     * If the calling thread drains {@code qp} and holds its {@code sendLock} over the drain's packets
     * ({@link LockPolicy#sendLockOverDrains()}), lets go of that hold (the drain takes it again for its next
     * packet): for the transport, which must hold no {@code sendLock} when it takes {@code recvLock}. Otherwise nothing.
     *
     * @param qp a QP whose {@code sendLock} the caller no longer holds itself
     */
    public static void letGoOfSendLock(DriverQp qp) {
        QpSendEngine e = of(qp);
        if (e != null && e.holdsSendLock && e.drainer == Thread.currentThread()) {
            e.letGoOfSendLock();
        }
    }

    /** Marks the end of a drain on this thread (also one that left requests pending, to be rescheduled). */
    public final void end() {
        drainer = null;
    }

    /** @return true once the QP was freed: its engine must send nothing more */
    public final boolean isStopped() {
        return stopped;
    }

    /** Mirrors {@code qp_priv_free}'s part: stops the engine for good. */
    public final void stop() {
        stopped = true;
    }

    /**
     * Waits until no other thread is draining this QP ({@code stop_send_queue}); a drain on the calling thread (one
     * queued behind it) is not waited for.
     */
    public final void awaitIdle() {
        while (true) {
            Thread d = drainer;
            if (d == null || d == Thread.currentThread()) {
                return;
            }
            Thread.onSpinWait();
        }
    }
}
