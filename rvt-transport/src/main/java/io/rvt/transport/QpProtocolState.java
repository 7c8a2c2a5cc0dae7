package io.rvt.transport;

import io.rvt.api.spi.DriverQp;

/**
 * The per-QP protocol state of one transport (RC, UC or UD), what {@link Transport#newQpState} creates and a driver
 * returns from {@code qpPrivAlloc} so that it becomes the QP's {@code priv}. It holds the engine's cursors beyond
 * those rdmavt keeps in {@code struct rvt_qp} and the scratch objects (work completions, SGEs) that keep the engines
 * free of per-packet allocation.
 *
 * <p>A driver that needs per-QP state of its own keeps it in {@link #driverData(Object)} rather than wrapping this
 * object: the transport finds its state through {@code qp.priv()}.
 */
public abstract class QpProtocolState {
    private final DriverQp qp;
    private volatile Object driverData;

    /**
     * @param qp the QP this state belongs to
     */
    protected QpProtocolState(DriverQp qp) {
        this.qp = qp;
    }

    /** @return the QP this state belongs to */
    public final DriverQp qp() {
        return qp;
    }

    /** @return the driver's own per-QP object, or null */
    public final Object driverData() {
        return driverData;
    }

    /**
     * @param data the driver's own per-QP object
     */
    public final void driverData(Object data) {
        this.driverData = data;
    }

    /**
     * Forgets all protocol state, as after a transition to RESET. Called with the QP's three locks held.
     */
    public abstract void reset();
}
