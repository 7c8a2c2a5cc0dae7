package io.rvt.api.spi.engine;

/**
 * The {@code bool *call_send} of {@code setup_wqe}: whether post send runs the driver's {@code do_send} in the
 * caller's thread (true) or hands the QP to the send engine with {@code schedule_send_no_lock} (false). rvt passes one
 * reusable instance per QP, under {@code postLock}.
 */
public final class CallSend {
    private boolean value;

    /** @return the current decision */
    public boolean get() {
        return value;
    }

    /**
     * @param value true to progress the send in the caller's thread, false to schedule it
     */
    public void set(boolean value) {
        this.value = value;
    }
}
