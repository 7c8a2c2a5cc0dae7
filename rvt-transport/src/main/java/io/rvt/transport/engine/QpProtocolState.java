package io.rvt.transport.engine;

import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.engine.EngineQp;
import io.rvt.transport.Transport;
import io.rvt.transport.header.PacketHeaders;
import java.nio.ByteBuffer;

/**
 * The per-QP protocol state of one transport (RC, UC or UD), what {@link Transport#newQpState} creates and a driver
 * returns from {@code qpPrivAlloc} so that it becomes the QP's {@code priv}. It holds the engine's cursors beyond
 * those rdmavt keeps in {@code struct rvt_qp} and the scratch objects (work completions, SGEs) that keep the engines
 * free of per-packet allocation.
 *
 * <p>A driver that needs per-QP state of its own (rdmavt's {@code qp->priv} as the driver's struct) keeps it here
 * under its {@link DriverStateKey} ({@link #driverState(DriverStateKey, Object)}) rather than wrapping this object:
 * the transport finds its state through {@code qp.priv()}, the driver its own through the key, typed.
 *
 * <p>Each state carries its {@link ProtocolEngine} (bound by the subclass's constructor) and its driver's
 * {@link SendScheduler}, so the transport dispatches by the state it finds and schedules sends without going back
 * through the core to the driver.
 */
public abstract class QpProtocolState {
    private final EngineQp qp;
    private final SendScheduler scheduler;
    /** Set by the subclass's constructor ({@link #engine}), before the state is published through the QP. */
    private Bound<?> engine;
    /** The driver's own per-QP state, stored and read through a {@link DriverStateKey} of its class. */
    private volatile Object driverState;

    /**
     * @param qp the QP this state belongs to
     * @param scheduler how its send engine is scheduled: the driver's {@code scheduleSend}
     */
    protected QpProtocolState(DriverQp qp, SendScheduler scheduler) {
        this.qp = EngineQp.of(qp);
        this.scheduler = scheduler;
    }

    /** Asks the driver to run the QP's send engine ({@code schedule_send}). Caller holds {@code sendLock}. */
    public final void scheduleSend() {
        scheduler.scheduleSend(qp);
    }

    /** @return the QP this state belongs to */
    public final EngineQp qp() {
        return qp;
    }

    /** @return the driver's own per-QP state, or null: read through a {@link DriverStateKey}, which checks its class */
    final Object driverState() {
        return driverState;
    }

    /**
     * Stores the driver's own per-QP state, what its {@code qp_priv_alloc} makes beside this one (rdmavt's
     * {@code qp->priv}); {@link DriverStateKey#get} reads it back as {@code T}.
     *
     * @param key the driver's key
     * @param state its state for this QP, or null to forget it ({@code qp_priv_free})
     * @param <T> the class of the state
     * @throws IllegalStateException if {@code state} is not of the key's class (a raw or unchecked caller)
     */
    public final <T> void driverState(DriverStateKey<T> key, T state) {
        this.driverState = key.cast(state);
    }

    /**
     * Forgets all protocol state, as after a transition to RESET. Called with the QP's three locks held.
     */
    public abstract void reset();

    /**
     * Queues the ACK the engine deferred to the end of a receive batch ({@link RxInfo#deferAck}), if it still owes it:
     * what the batch calls at its end ({@link RxInfo.Batch}), on the receiving thread with no lock of the QP held.
     */
    public final void queueDeferredAck() {
        flushDeferredAck();
    }

    /**
     * Lets go of a drain's hold of the QP's {@code sendLock}, if the calling thread drains the QP and holds it over
     * the drain's packets (rvt-transport's {@code PacketDriver.holdsSendLockOverDrains()}): an engine calls it before
     * it takes {@code recvLock}, which it must not take under {@code sendLock}. Asks the driver's
     * {@link SendScheduler#letGoOfSendLock}.
     */
    public final void letGoOfSendLock() {
        scheduler.letGoOfSendLock(qp);
    }

    /**
     * Queues the ACK the engine deferred to the end of a receive batch ({@link RxInfo#deferAck}), if it still owes
     * it. Called by the receiving thread with no lock of the QP held. Nothing by default.
     */
    protected void flushDeferredAck() {
    }

    /**
     * Binds the state to its engine; a subclass calls it from its constructor, passing itself.
     *
     * @param engine the engine of this state's transport service
     * @param self this state, as the type the engine works on
     * @param <S> that type
     */
    protected final <S extends QpProtocolState> void engine(ProtocolEngine<S> engine, S self) {
        if (self != this) {
            throw new IllegalArgumentException("a state binds its engine to itself, not to " + self);
        }
        this.engine = new Bound<>(engine, self);
    }

    /**
     * Makes the QP's next packet with its engine ({@link ProtocolEngine#makePacket}): what {@code Transport.makePacket}
     * dispatches to; a driver calls that, not this.
     *
     * @param buf the packet buffer
     * @param offset where the BTH goes
     * @param tx filled when a packet was written
     * @return transport bytes written, or 0
     */
    public final int makePacket(ByteBuffer buf, int offset, TxInfo tx) {
        return engine.makePacket(buf, offset, tx);
    }

    /**
     * Hands a received packet to the QP's engine ({@link ProtocolEngine#receive}): what {@code Transport.receive}
     * dispatches to.
     *
     * @param buf the packet's buffer
     * @param hdr its parsed headers
     * @param rx what the driver knows of it beyond them
     * @param pkeyIndex the P_Key index it matched
     */
    public final void receive(ByteBuffer buf, PacketHeaders hdr, RxInfo rx, int pkeyIndex) {
        engine.receive(buf, hdr, rx, pkeyIndex);
    }

    /** Tells the QP's engine the QP entered the error state ({@link ProtocolEngine#error}), for {@code Transport}. */
    public final void error() {
        engine.error();
    }

    /**
     * Restarts the QP's RC requester at {@code psn} ({@link ProtocolEngine#restart}), for {@code Transport}.
     *
     * @param psn the PSN to resend from
     * @param wait 1 to send one packet and wait for its ACK
     */
    public final void restart(int psn, int wait) {
        engine.restart(psn, wait);
    }

    /** An engine with the state it works on, typed together: the transport dispatches without casts. */
    private static final class Bound<S extends QpProtocolState> {
        final ProtocolEngine<S> engine;
        private final S state;

        Bound(ProtocolEngine<S> engine, S state) {
            this.engine = engine;
            this.state = state;
        }

        int makePacket(ByteBuffer buf, int offset, TxInfo tx) {
            return engine.makePacket(state.qp(), state, buf, offset, tx);
        }

        void receive(ByteBuffer buf, PacketHeaders hdr, RxInfo rx, int pkeyIndex) {
            engine.receive(state.qp(), state, buf, hdr, rx, pkeyIndex);
        }

        void error() {
            engine.error(state.qp(), state);
        }

        void restart(int psn, int wait) {
            engine.restart(state.qp(), state, psn, wait);
        }
    }
}
