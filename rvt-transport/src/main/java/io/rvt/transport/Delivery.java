package io.rvt.transport;

import io.rvt.api.Gid;
import io.rvt.api.PortCounter;
import io.rvt.api.spi.DriverPort;
import io.rvt.api.spi.DriverQp;
import io.rvt.transport.engine.QpProtocolState;
import io.rvt.transport.engine.RxInfo;
import io.rvt.transport.header.PacketHeaders;
import java.nio.ByteBuffer;

/**
 * One port's receive path as a {@link PacketDriver} runs it: the thread that hands received packets to the
 * transport, the QPs it scheduled meanwhile and the receive counters of its current batch. While the transport
 * processes a packet on this thread (it holds QP locks then), a QP that must send (an ACK, a response, a resumed
 * requester) is not handed to another thread but remembered here and drained by this thread at the end of the batch,
 * with no lock held. A QP is remembered once however many of its packets the batch held, so its ACKs coalesce into
 * one for its newest PSN (hfi1 defers ACKs to the end of a receive interrupt the same way). The RC responder goes one
 * step further and only owes the ACK while the batch runs ({@link RxInfo#deferAck}): the batch's end queues it, once
 * per QP, before the deferred drains.
 *
 * <p>A delivery made with its thread's send scratch ({@code PacketDriver.newDelivery(portNum, scratch)}) is that
 * thread's way into the driver's packet path: {@link #receive}, {@link #receiveMulticast}, {@link #endBatch()} and
 * {@link #drain}, so that a driver's receive and engine helpers need the delivery, not the driver.
 *
 * <p>Touched only by its receiving thread, except {@link #isCurrent()}, which any thread may ask.
 */
public final class Delivery implements RxInfo.Batch {
    /** QPs one batch may defer; beyond, they go to the driver's send thread. */
    static final int CAPACITY = 64;

    final int portNum;
    /** The driver whose packet path this is. */
    private final PacketDriver<?, ?> driver;
    /** The receiving thread's send scratch (the driver's {@code S}), or null if made without one. */
    final Object scratch;
    private final QpSendEngine[] deferred = new QpSendEngine[CAPACITY];
    private int deferredCount;
    /** QPs whose ACK the batch owes, queued at its end ({@link QpProtocolState#flushDeferredAck()}). */
    private final QpProtocolState[] acks = new QpProtocolState[CAPACITY];
    private int ackCount;
    /**
     * The thread inside {@link Transport#receive} for this port, else null. Plain, not volatile (two fences per
     * packet): {@link #isCurrent()} only asks whether it is the caller, and a thread always sees its own last write,
     * while another thread's value, stale or not, never equals the caller.
     */
    private Thread receiving;
    /** The QP of the batch's last packet, retained until the batch ends or a packet for another QP comes. */
    private DriverQp held;
    private int heldQpn;
    /** The batch's thread holds {@link #held}'s {@code recvLock} ({@link LockPolicy#recvLockOverRuns()}). */
    private boolean heldLocked;
    private long rxPackets;
    private long rxBytes;

    /** A delivery of no driver's (the transport's tests drive one themselves). */
    Delivery(int portNum) {
        this(portNum, null, null);
    }

    Delivery(int portNum, PacketDriver<?, ?> driver, Object scratch) {
        this.portNum = portNum;
        this.driver = driver;
        this.scratch = scratch;
    }

    /**
     * Hands a parsed unicast packet to the transport ({@code PacketDriver.receive} with this delivery). The calling
     * thread is this delivery's receiving thread. Never throws for a bad packet.
     *
     * @param buf the buffer the packet was parsed from
     * @param h its parsed headers
     * @param rx what the framing told the driver
     */
    public void receive(ByteBuffer buf, PacketHeaders h, RxInfo rx) {
        driver.receive(this, buf, h, rx);
    }

    /**
     * Hands a parsed multicast UD packet to every QP of the group on this delivery's port
     * ({@code PacketDriver.receiveMulticast}).
     *
     * @param mgid the group's GID
     * @param mlid the group's LID
     * @param buf the buffer the packet was parsed from
     * @param h its parsed headers
     * @param rx what the framing told the driver
     */
    public void receiveMulticast(Gid mgid, int mlid, ByteBuffer buf, PacketHeaders h, RxInfo rx) {
        driver.receiveMulticast(this, mgid, mlid, buf, h, rx);
    }

    /**
     * Ends a receive batch ({@code PacketDriver.endBatch}) with the send scratch this delivery was made with: its
     * packets added to the port's RX counters, then what it deferred sent.
     *
     * @throws IllegalStateException if it was made without a scratch
     */
    public void endBatch() {
        driver.endBatchBound(this);
    }

    /**
     * Drains a QP the driver's thread took from its queue ({@code PacketDriver.drain}) with the send scratch this
     * delivery was made with; the engine's pending counter was raised from 0 by whoever queued it.
     *
     * @param e the QP's engine, one of this driver's
     * @throws IllegalStateException if the delivery was made without a scratch
     */
    public void drain(QpSendEngine e) {
        driver.drainBound(this, e);
    }

    /** @return the port, 1-based */
    public int portNum() {
        return portNum;
    }

    /**
     * Counts a received packet (added to the port's {@code RX_PACKETS}/{@code RX_BYTES} at the batch's end: once per
     * batch rather than two atomic adds per packet, so the counters trail the wire by one batch).
     *
     * @param bytes its length on the wire
     */
    public void received(int bytes) {
        rxPackets++;
        rxBytes += bytes;
    }

    /**
     * Counts {@code packets} packets received at once (a run, {@code PacketHeaders.run}), as {@link #received(int)}
     * counts one.
     *
     * @param packets how many
     * @param bytes their length on the wire, together
     */
    public void received(int packets, int bytes) {
        rxPackets += packets;
        rxBytes += bytes;
    }

    /** @return true if no more QP can be deferred: drain now ({@link PacketDriver#drainDeferred}) */
    public boolean isFull() {
        return deferredCount == CAPACITY;
    }

    boolean isCurrent() {
        return receiving == Thread.currentThread();
    }

    void enter() {
        receiving = Thread.currentThread();
    }

    void leave() {
        receiving = null;
    }

    boolean defer(QpSendEngine e) {
        if (deferredCount == CAPACITY) {
            return false;
        }
        deferred[deferredCount++] = e;
        return true;
    }

    @Override
    public boolean deferAck(QpProtocolState st) {
        if (ackCount == CAPACITY) {
            return false;
        }
        acks[ackCount++] = st;
        return true;
    }

    /**
     * Queues the ACKs the batch owes (the receiving thread, no QP lock held, inside {@link #enter()}), so that their
     * QPs are deferred here for the drain that follows.
     */
    void flushAcks() {
        for (int i = 0; i < ackCount; i++) {
            QpProtocolState st = acks[i];
            acks[i] = null;
            st.queueDeferredAck();
        }
        ackCount = 0;
    }

    boolean hasAcks() {
        return ackCount != 0;
    }

    /** @return the most recently deferred QP, taken off the list, or null */
    QpSendEngine takeDeferred() {
        if (deferredCount == 0) {
            return null;
        }
        QpSendEngine e = deferred[--deferredCount];
        deferred[deferredCount] = null;
        return e;
    }

    /**
     * @param qpn a packet's destination QP number
     * @return the QP the batch holds a reference on if it has that number, else null
     */
    DriverQp held(int qpn) {
        DriverQp qp = held;
        return qp != null && heldQpn == qpn ? qp : null;
    }

    /** Keeps {@code qp}'s reference (taken by the caller) for the batch's next packets, dropping the one held. */
    void hold(DriverQp qp, int qpn) {
        releaseHeld();
        held = qp;
        heldQpn = qpn;
    }

    /** Takes the held QP's {@code recvLock} for the rest of its run ({@link LockPolicy#recvLockOverRuns()}). */
    void lockHeld() {
        held.recvLock().lock();
        heldLocked = true;
    }

    /**
     * Drops the reference the batch holds, and the held QP's {@code recvLock} if it holds that: at the batch's end (a
     * destroy waits for it), when a packet for another QP comes, before the deferred drains.
     */
    void releaseHeld() {
        DriverQp qp = held;
        if (qp != null) {
            held = null;
            if (heldLocked) {
                heldLocked = false;
                qp.recvLock().unlock();
            }
            qp.release();
        }
    }

    boolean hasCounts() {
        return rxPackets != 0;
    }

    void flushCounters(DriverPort port) {
        if (rxPackets != 0 && port != null) {
            port.addCounter(PortCounter.RX_PACKETS, rxPackets);
            port.addCounter(PortCounter.RX_BYTES, rxBytes);
        }
        rxPackets = 0;
        rxBytes = 0;
    }
}
