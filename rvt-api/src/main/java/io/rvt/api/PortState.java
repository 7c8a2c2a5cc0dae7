package io.rvt.api;

/** Logical port state, with the numeric values of {@code enum ib_port_state}. */
public enum PortState {
    /** No state change. */
    NOP(0),
    /** Link down. */
    DOWN(1),
    /** Link up, not configured. */
    INIT(2),
    /** Configured, waiting to become active. */
    ARMED(3),
    /** Active: traffic flows. */
    ACTIVE(4),
    /** Active, deferred. */
    ACTIVE_DEFER(5);

    private final int value;

    PortState(int value) {
        this.value = value;
    }

    /** @return the {@code ib_port_state} value */
    public int value() {
        return value;
    }
}
