package io.rvt.transport;

import io.rvt.api.Gid;
import io.rvt.api.PortCounter;
import io.rvt.api.QpType;
import io.rvt.api.spi.DriverPort;
import io.rvt.api.spi.DriverQp;
import io.rvt.transport.engine.DriverStateKey;
import io.rvt.transport.engine.RxInfo;
import io.rvt.transport.engine.TxInfo;
import io.rvt.transport.header.PacketHeaders;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * The packet path of a software HCA built on {@link Transport}, written once: the send engine's drain loop, the
 * deferral of sends scheduled on a receiving thread to the end of its batch, the receive path from a parsed packet to
 * the transport and back, and the port counters of both directions. A driver extends it and supplies only its wire:
 * how one packet is made and leaves ({@link #sendPacket}), what a drain hands to the wire at its end
 * ({@link #packetsOut}), which thread runs a drain that cannot run on the caller's ({@link #schedule}), and, on
 * receive, how bytes become a parsed packet, which it passes to {@link #receive}.
 *
 * <h2>Send</h2>
 * {@code scheduleSend} (QP locks held) never drains on the caller's stack: on a receiving thread inside
 * {@link #receive} it remembers the QP in that port's {@link Delivery}, drained at {@link #endBatch}; elsewhere it
 * {@link #schedule}s it. {@code doSend} (no lock held) drains on the caller's thread unless
 * {@link #drainsHere} says otherwise. A drain calls {@link #sendPacket} until it returns 0 (nothing to send) or -1
 * (the wire has no room: {@link #waitForWire}); the QP's {@link QpSendEngine} counter makes sure one thread drains a
 * QP at a time and that a request arriving meanwhile makes the drainer loop once more.
 *
 * <h2>Receive</h2>
 * The driver's receiving thread parses a packet and calls {@link #receive} (or {@link #receiveMulticast}) with its
 * port's {@link Delivery}, then {@link #endBatch} when its batch ends.
 *
 * @param <E> the driver's per-QP send-engine state
 * @param <S> the driver's per-thread send scratch (the {@link TxInfo}, buffers and checksum state one drain uses)
 */
@ConsumerType
public abstract class PacketDriver<E extends QpSendEngine, S> extends TransportDriver {
    private volatile Delivery[] deliveries = new Delivery[0];
    /** {@link #lockPolicy()}, asked at the first drain or receive. */
    private LockPolicy policy;

    /** The key of this driver's engines, of class {@code E}: {@link #engine(DriverQp)} reads them typed. */
    private final DriverStateKey<E> engines;

    /**
     * For subclasses: {@code super(MyQp.class)}, the class of the per-QP state the driver's
     * {@link #newSendEngine(DriverQp)} makes (rdmavt's {@code qp_priv_alloc}), which {@link #engine(DriverQp)} then
     * reads back as that class ({@code qp->priv}) with no cast in the driver.
     *
     * @param engineType {@code E}'s class: {@code QpSendEngine.class} for a driver with no per-QP state of its own
     * @throws NullPointerException if {@code engineType} is null
     */
    protected PacketDriver(Class<E> engineType) {
        this.engines = DriverStateKey.of(engineType);
    }

    /**
     * The driver's per-QP state: rdmavt's {@code qp->priv} as the driver's own struct, made by
     * {@link #newSendEngine(DriverQp)} in {@code qp_priv_alloc} and stopped in {@code qp_priv_free}.
     *
     * @param qp a QP of this driver's
     * @return its engine, or null for a QP without one (its {@code priv} was not made by this driver)
     */
    protected final E engine(DriverQp qp) {
        return engines.get(qp);
    }

    @Override
    final DriverStateKey<E> engineKey() {
        return engines;
    }

    /**
     * Creates the receive path state of one port; call once per port (or per receiving thread) while building.
     *
     * @param portNum the port, 1-based
     * @return its delivery state
     */
    protected final Delivery newDelivery(int portNum) {
        return add(new Delivery(portNum, this, null));
    }

    /**
     * Creates the receive path of one receiving thread bound to that thread's send scratch, so that a helper of the
     * driver that holds it receives, ends batches and drains through it ({@link Delivery#receive},
     * {@link Delivery#endBatch()}, {@link Delivery#drain}) without coming back through the driver.
     *
     * @param portNum the port, 1-based
     * @param scratch the send scratch of the thread that will use it
     * @return its delivery state
     * @throws NullPointerException if {@code scratch} is null
     */
    protected final Delivery newDelivery(int portNum, S scratch) {
        return add(new Delivery(portNum, this, java.util.Objects.requireNonNull(scratch, "scratch")));
    }

    private synchronized Delivery add(Delivery d) {
        Delivery[] all = Arrays.copyOf(deliveries, deliveries.length + 1);
        all[all.length - 1] = d;
        deliveries = all;
        return d;
    }

    // ------------------------------------------------------------------ the wire (supplied by the driver)

    /**
     * Makes the next packet of the engine's QP ({@code transport().makePacket}) and puts it on the wire.
     *
     * @param e the QP's engine; the calling thread is its one drainer
     * @param scratch the calling thread's scratch
     * @return 1 if a packet was made (sent, queued or dropped), 0 if the QP has nothing to send now, -1 if the wire
     *         has no room (the drain stops and {@link #waitForWire} is called)
     */
    protected abstract int sendPacket(E e, S scratch);

    /**
     * Hands what the drain queued to the wire, before the QP may be drained by another thread (its later packets must
     * not overtake these). Nothing by default.
     *
     * @param e the QP's engine
     * @param scratch the calling thread's scratch
     */
    protected void packetsOut(E e, S scratch) {
    }

    /**
     * Queues a drain on a thread of the driver's (its send engine, event loop or executor). The engine's pending
     * counter was raised from 0, so each QP is queued at most once at a time.
     *
     * @param e the QP's engine
     */
    protected abstract void schedule(E e);

    /** @return the calling thread's send scratch */
    protected abstract S sendScratch();

    /**
     * The wire had no room ({@link #sendPacket} returned -1): the engine stays pending. By default the drain is
     * scheduled again; a driver with a wait list parks it until room comes back.
     *
     * @param e the QP's engine
     */
    protected void waitForWire(E e) {
        schedule(e);
    }

    /** @return false once the driver is closed: scheduling and posting then send nothing */
    protected boolean acceptsSends() {
        return true;
    }

    /**
     * @param e the engine of a QP just posted to ({@code doSend})
     * @return true to drain on the posting thread (the default), false to {@link #schedule} it (e.g. the caller is
     *         the driver's own engine thread, which drains later in its cycle)
     */
    protected boolean drainsHere(E e) {
        return true;
    }

    /**
     * rvt extension: how the engine holds a QP's locks around the driver's code ({@link LockPolicy}): asked once, at
     * the first drain or receive. By default the three deprecated hooks' answers, all false unless a subclass
     * overrides them: {@link LockPolicy#PER_PACKET}.
     *
     * @return the driver's lock policy, not null
     */
    @SuppressWarnings("deprecation") // the hooks this replaces keep working for drivers that override them
    protected LockPolicy lockPolicy() {
        return new LockPolicy(holdsSendLockOverDrains(), holdsRecvLockOverRuns(), schedulesDeferred());
    }

    /** @return {@link #lockPolicy()}, asked the first time */
    private LockPolicy policy() {
        LockPolicy p = policy;
        if (p == null) {
            p = lockPolicy();
            if (p == null) {
                throw new IllegalStateException(getClass().getName() + ".lockPolicy() returned null");
            }
            policy = p; // immutable: a race asks twice and keeps an equal policy
        }
        return p;
    }

    /**
     * How a drain deferred by a receiving thread runs at the end of its batch.
     *
     * @return {@link LockPolicy#schedulesDeferred()}; false by default
     * @deprecated override {@link #lockPolicy()}; asked only by its default
     */
    @Deprecated
    protected boolean schedulesDeferred() {
        return false;
    }

    /** The most packets a drain makes in one hold of the QP's {@code sendLock} (LockPolicy.sendLockOverDrains). */
    static final int SEND_LOCK_PACKETS = 32;

    /**
     * Whether a drain holds the QP's {@code sendLock} over up to {@value #SEND_LOCK_PACKETS} of its packets.
     *
     * @return {@link LockPolicy#sendLockOverDrains()}; false by default
     * @deprecated override {@link #lockPolicy()}; asked only by its default
     */
    @Deprecated
    protected boolean holdsSendLockOverDrains() {
        return false;
    }

    /**
     * Whether {@link #receive} keeps an RC QP's {@code recvLock} over a run of a batch's packets to it.
     *
     * @return {@link LockPolicy#recvLockOverRuns()}; false by default
     * @deprecated override {@link #lockPolicy()}; asked only by its default
     */
    @Deprecated
    protected boolean holdsRecvLockOverRuns() {
        return false;
    }

    /**
     * @param qp the retained destination QP of a packet
     * @param port the port it arrived on
     * @return false to drop the packet (the driver counts why); true by default
     */
    protected boolean admits(DriverQp qp, DriverPort port) {
        return true;
    }

    /**
     * Counts a packet dropped as malformed (unparsable, bad checksum, unknown QP): {@code RX_MALFORMED}.
     *
     * @param port the port it arrived on
     */
    protected void dropMalformed(DriverPort port) {
        port.addCounter(PortCounter.RX_MALFORMED, 1);
    }

    // ------------------------------------------------------------------ send

    /** Mirrors {@code schedule_send}: QP locks are held, so the drain is deferred or queued, never run here. */
    @Override
    public final boolean scheduleSend(DriverQp qp) {
        E e = engine(qp);
        if (e != null && acceptsSends() && e.request()) {
            Delivery d = delivering();
            if (d == null || !d.defer(e)) {
                schedule(e);
            }
        }
        return true;
    }

    /** Mirrors {@code schedule_send_no_lock}: as {@link #doSend}. */
    @Override
    public final boolean scheduleSendNoLock(DriverQp qp) {
        doSend(qp);
        return true;
    }

    /** Mirrors {@code do_send}: no lock held, so the caller drains the QP itself (see {@link #drainsHere}). */
    @Override
    public final void doSend(DriverQp qp) {
        E e = engine(qp);
        if (e != null && acceptsSends() && e.request()) {
            if (drainsHere(e)) {
                drain(e, sendScratch());
            } else {
                schedule(e);
            }
        }
    }

    /**
     * Runs the QP's send engine until it has nothing to send and no request came in meanwhile; the caller raised the
     * engine's pending counter from 0 (or took it from a queue that did).
     *
     * @param e the QP's engine
     * @param scratch the calling thread's scratch
     */
    protected final void drain(E e, S scratch) {
        int seen = e.begin();
        boolean hold = policy().sendLockOverDrains();
        try {
            while (true) {
                int r = 0;
                e.drainedHint = false;
                try {
                    for (int held = 0; !e.isStopped(); held++) {
                        if (hold && !e.holdsSendLock) {
                            e.holdSendLock(); // the transport's lock of it per packet is then a re-entry
                            held = 0;
                        }
                        if ((r = sendPacket(e, scratch)) <= 0) {
                            break;
                        }
                        if (e.takeDrainedHint()) {
                            r = 0; // the engine said that was the last packet for now: no empty call to find out
                            break;
                        }
                        if (held == SEND_LOCK_PACKETS - 1) {
                            e.letGoOfSendLock(); // others (an ACK's receive, a timer) get it between
                        }
                    }
                } finally {
                    e.letGoOfSendLock();
                }
                packetsOut(e, scratch);
                flushTxCounters(e);
                if (r < 0) {
                    // Pending stays raised: the wait (or the queue) owns the next drain.
                    waitForWire(e);
                    return;
                }
                seen = e.finish(seen);
                if (seen < 0) {
                    return;
                }
            }
        } finally {
            e.end();
        }
    }

    /**
     * Counts a packet the drain put on the wire of {@code portNum}: added to the port's {@code TX_PACKETS} and
     * {@code TX_BYTES} at the drain's end (once per drain rather than two atomic adds per packet; a 64 KiB WRITE is
     * 16 packets), so the counters trail the wire by at most one drain.
     *
     * @param e the QP's engine
     * @param portNum the port
     * @param bytes the packet's length on the wire
     */
    protected final void countSent(E e, int portNum, int bytes) {
        countSent(e, portNum, 1, bytes);
    }

    /**
     * Counts {@code packets} packets the drain put on the wire of {@code portNum} at once (a run that
     * {@link TxInfo#runLimit(int)} let one {@code makePacket} describe), as {@link #countSent(QpSendEngine, int, int)}
     * counts one.
     *
     * @param e the QP's engine
     * @param portNum the port
     * @param packets how many packets
     * @param bytes their length on the wire, together
     */
    protected final void countSent(E e, int portNum, int packets, int bytes) {
        if (e.txPackets != 0 && e.txPort != portNum) {
            flushTxCounters(e); // the QP moved to another port mid-drain
        }
        e.txPort = portNum;
        e.txPackets += packets;
        e.txBytes += bytes;
    }

    private void flushTxCounters(E e) {
        if (e.txPackets == 0) {
            return;
        }
        Transport t = transport();
        if (t != null) {
            DriverPort port = t.device().port(e.txPort);
            port.addCounter(PortCounter.TX_PACKETS, e.txPackets);
            port.addCounter(PortCounter.TX_BYTES, e.txBytes);
        }
        e.txPackets = 0;
        e.txBytes = 0;
    }

    /** @return the delivery whose receiving thread is the caller, inside {@link #receive}; else null */
    private Delivery delivering() {
        for (Delivery d : deliveries) {
            if (d.isCurrent()) {
                return d;
            }
        }
        return null;
    }

    // ------------------------------------------------------------------ receive

    /**
     * Hands a parsed unicast packet to the transport: finds and retains its QP ({@code rvt_lookup_qpn}), asks
     * {@link #admits}, runs {@link Transport#receive} with sends deferred to {@code d}. The reference is kept for the
     * batch's next packets to the same QP (one look-up and one reference count per run of them rather than per
     * packet) and released at {@link #endBatch} or when a packet for another QP comes, so a QP's destroy waits at
     * most for the batch's end. A packet for an unknown QP is dropped as malformed. Never throws for a bad packet.
     *
     * @param d the port's delivery (the calling thread is its receiving thread)
     * @param buf the buffer the packet was parsed from
     * @param h its parsed headers
     * @param rx what the framing told the driver
     */
    protected final void receive(Delivery d, ByteBuffer buf, PacketHeaders h, RxInfo rx) {
        Transport t = transport();
        if (t == null) {
            return;
        }
        DriverPort port = t.device().port(d.portNum);
        int qpn = h.destQp();
        DriverQp qp = d.held(qpn);
        if (qp == null) {
            d.releaseHeld(); // the previous run's QP (and its recvLock) before this one's
            qp = t.device().lookupQpnAndRetain(port, qpn);
            if (qp == null) {
                for (int i = h.runPackets(); i > 0; i--) {
                    dropMalformed(port); // each packet of a run
                }
                return;
            }
            d.hold(qp, qpn); // one reference for the batch's packets to this QP in a row, released at its end
            if (qp.type() == QpType.RC && policy().recvLockOverRuns()) {
                d.lockHeld(); // and one recvLock (LockPolicy.recvLockOverRuns)
            }
        }
        if (admits(qp, port)) {
            d.enter();
            rx.batch(d);
            try {
                t.receive(qp, buf, h, rx);
            } finally {
                rx.batch(null);
                d.leave();
            }
        }
    }

    /**
     * Hands a parsed multicast UD packet to every QP of the group on the delivery's port
     * ({@link Transport#receiveMulticast}).
     *
     * @param d the port's delivery
     * @param mgid the group's GID
     * @param mlid the group's LID
     * @param buf the buffer the packet was parsed from
     * @param h its parsed headers
     * @param rx what the framing told the driver
     */
    protected final void receiveMulticast(Delivery d, Gid mgid, int mlid, ByteBuffer buf, PacketHeaders h,
            RxInfo rx) {
        d.releaseHeld(); // UD QPs' recvLocks are taken with no RC QP's held
        Transport t = transport();
        if (t != null) {
            t.receiveMulticast(t.device().port(d.portNum), mgid, mlid, buf, h, rx);
        }
    }

    /**
     * Runs the drains {@code d}'s receiving thread deferred ({@link LockPolicy#schedulesDeferred()}), now that it
     * holds no QP lock.
     *
     * @param d the port's delivery
     * @param scratch the receiving thread's send scratch
     */
    protected final void drainDeferred(Delivery d, S scratch) {
        d.releaseHeld(); // mid-batch (the delivery is full): no QP lock while the drains run
        if (d.hasAcks()) {
            d.enter(); // the QPs the ACKs schedule are deferred to d, drained below
            try {
                d.flushAcks();
            } finally {
                d.leave();
            }
        }
        QpSendEngine q = d.takeDeferred();
        if (q == null) {
            return;
        }
        boolean queue = policy().schedulesDeferred();
        do {
            E e = engines.cast(q); // only this driver's engines are deferred (scheduleSend took them from its QPs)
            if (queue) {
                schedule(e);
            } else {
                drain(e, scratch);
            }
        } while ((q = d.takeDeferred()) != null);
    }

    /**
     * Ends a receive batch: adds its packets to the port's RX counters, then sends what it deferred (ACKs coalesced
     * over the batch, one per QP for its newest PSN; responses; resumed requesters).
     *
     * @param d the port's delivery
     * @param scratch the receiving thread's send scratch
     */
    protected final void endBatch(Delivery d, S scratch) {
        d.releaseHeld();
        if (d.hasCounts()) {
            Transport t = transport();
            d.flushCounters(t == null ? null : t.device().port(d.portNum));
        }
        drainDeferred(d, scratch);
    }

    /** {@link Delivery#endBatch()}: {@link #endBatch(Delivery, Object)} with the scratch it was made with. */
    final void endBatchBound(Delivery d) {
        endBatch(d, boundScratch(d));
    }

    /** {@link Delivery#drain}: {@link #drain} with the delivery's scratch. */
    final void drainBound(Delivery d, QpSendEngine q) {
        drain(engines.cast(q), boundScratch(d)); // scheduled engines are this driver's (schedule took them from its QPs)
    }

    @SuppressWarnings("unchecked") // only newDelivery(int, S) binds a scratch
    private S boundScratch(Delivery d) {
        Object sc = d.scratch;
        if (sc == null) {
            throw new IllegalStateException("the delivery of port " + d.portNum
                    + " has no send scratch: make it with newDelivery(portNum, scratch)");
        }
        return (S) sc;
    }
}
