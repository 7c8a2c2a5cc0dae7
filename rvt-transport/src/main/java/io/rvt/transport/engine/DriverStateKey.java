package io.rvt.transport.engine;

import io.rvt.api.spi.DriverQp;
import java.util.Objects;

/**
 * The typed key to a driver's own per-QP state, which sits in the QP's {@link QpProtocolState} (the QP's
 * {@code priv}) beside the transport's: rdmavt's {@code qp->priv} as the driver's own struct (hfi1's
 * {@code struct hfi1_qp_priv}), which the driver's {@code rvt_driver_provided.qp_priv_alloc} returns and its
 * {@code qp_priv_free} frees. A driver creates its key once, for the class of its state (as Netty's
 * {@code AttributeKey}), and reads the state through it without a cast of its own:
 *
 * <pre>{@code
 * static final DriverStateKey<MyQp> STATE = DriverStateKey.of(MyQp.class);
 * ...
 * MyQp s = STATE.get(qp); // qp->priv
 * }</pre>
 *
 * <p>The key checks the class when the state is stored and when it is read (one type check, no allocation), so a
 * state of the wrong class fails where it is stored, naming both classes, instead of as a {@code ClassCastException}
 * later in the packet path. Keys hold nothing per QP: a QP keeps one object of its driver's, whatever the number of
 * keys that read it (a driver's state class and, for rvt-transport's {@code PacketDriver}, its base
 * {@code QpSendEngine}).
 *
 * @param <T> the class of the driver's per-QP state
 */
public final class DriverStateKey<T> {
    private final Class<T> type;

    private DriverStateKey(Class<T> type) {
        this.type = type;
    }

    /**
     * @param type the class of the driver's per-QP state (its {@code qp_priv_alloc}'s result)
     * @param <T> that class
     * @return a key that stores and reads states of that class
     * @throws NullPointerException if {@code type} is null
     */
    public static <T> DriverStateKey<T> of(Class<T> type) {
        return new DriverStateKey<>(Objects.requireNonNull(type, "type"));
    }

    /** @return the class of the states this key stores and reads */
    public Class<T> type() {
        return type;
    }

    /**
     * The driver's state of {@code qp} ({@code qp->priv}, the driver's part).
     *
     * @param qp a QP
     * @return its driver state, or null if it has none (its {@code priv} is not a {@link QpProtocolState}, or none was
     *         stored)
     * @throws IllegalStateException if the QP's driver state is not of this key's class
     */
    public T get(DriverQp qp) {
        Object st = qp.priv();
        return st instanceof QpProtocolState ? get((QpProtocolState) st) : null;
    }

    /**
     * @param st a QP's protocol state
     * @return the driver state in it, or null if none was stored
     * @throws IllegalStateException if it is not of this key's class
     */
    public T get(QpProtocolState st) {
        return cast(st.driverState());
    }

    /**
     * For code that serves several drivers and reads one kind of state where there is one: the driver state in
     * {@code st} if it is of this key's class, else null (never throws).
     *
     * @param st a QP's protocol state
     * @return its driver state as this key's class, or null
     */
    public T find(QpProtocolState st) {
        Object s = st.driverState();
        return type.isInstance(s) ? type.cast(s) : null;
    }

    /**
     * Checks that {@code state} is of this key's class: for a driver that keeps its states in a queue of their base
     * class and takes them out again.
     *
     * @param state a driver state, or null
     * @return {@code state} as this key's class
     * @throws IllegalStateException if it is not of that class
     */
    public T cast(Object state) {
        if (state == null || type.isInstance(state)) {
            return type.cast(state);
        }
        throw new IllegalStateException(
                "the QP's driver state is a " + state.getClass().getName() + ", not a " + type.getName());
    }

    @Override
    public String toString() {
        return "DriverStateKey[" + type.getName() + "]";
    }
}
