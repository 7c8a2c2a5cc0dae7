package io.rvt.api;

/**
 * Queue pair state, with the numeric values of {@code enum ib_qp_state} and, for each state, the capability bits of
 * rdmavt's {@code ib_rvt_state_ops} table. Code asks {@link #can(int)} instead of comparing states, as rdmavt does.
 *
 * <table>
 * <caption>Capabilities per state</caption>
 * <tr><th>state</th><th>post send</th><th>post recv</th><th>process recv</th><th>process send</th>
 * <th>next send</th><th>flush send</th><th>flush recv</th></tr>
 * <tr><td>RESET</td><td></td><td></td><td></td><td></td><td></td><td></td><td></td></tr>
 * <tr><td>INIT</td><td></td><td>x</td><td></td><td></td><td></td><td></td><td></td></tr>
 * <tr><td>RTR</td><td></td><td>x</td><td>x</td><td></td><td></td><td></td><td></td></tr>
 * <tr><td>RTS</td><td>x</td><td>x</td><td>x</td><td>x</td><td>x</td><td></td><td></td></tr>
 * <tr><td>SQD</td><td>x</td><td>x</td><td>x</td><td>x</td><td></td><td></td><td></td></tr>
 * <tr><td>SQE</td><td>x</td><td>x</td><td>x</td><td></td><td></td><td>x</td><td></td></tr>
 * <tr><td>ERR</td><td>x</td><td>x</td><td></td><td></td><td></td><td>x</td><td>x</td></tr>
 * </table>
 */
public enum QpState {
    /** Reset: nothing allowed. */
    RESET(0, 0),
    /** Initialised: receives may be posted. */
    INIT(1, Ops.POST_RECV_OK),
    /** Ready to receive. */
    RTR(2, Ops.POST_RECV_OK | Ops.PROCESS_RECV_OK),
    /** Ready to send. */
    RTS(3, Ops.POST_RECV_OK | Ops.PROCESS_RECV_OK | Ops.POST_SEND_OK | Ops.PROCESS_SEND_OK
            | Ops.PROCESS_NEXT_SEND_OK),
    /** Send queue drain: WQEs in progress finish, no new WQE starts. */
    SQD(4, Ops.POST_RECV_OK | Ops.PROCESS_RECV_OK | Ops.POST_SEND_OK | Ops.PROCESS_SEND_OK),
    /** Send queue error (not RC): sends flush, receives continue. */
    SQE(5, Ops.POST_RECV_OK | Ops.PROCESS_RECV_OK | Ops.POST_SEND_OK | Ops.FLUSH_SEND),
    /** Error: everything posted is flushed with {@link WcStatus#WR_FLUSH_ERR}. */
    ERR(6, Ops.POST_RECV_OK | Ops.POST_SEND_OK | Ops.FLUSH_SEND | Ops.FLUSH_RECV);

    /**
     * The capability bits of {@code ib_rvt_state_ops} (rdmavt's {@code RVT_POST_SEND_OK} and friends).
     */
    public static final class Ops {
        /** {@code RVT_POST_SEND_OK}: postSend is accepted. */
        public static final int POST_SEND_OK = 0x01;
        /** {@code RVT_POST_RECV_OK}: postRecv is accepted. */
        public static final int POST_RECV_OK = 0x02;
        /** {@code RVT_PROCESS_RECV_OK}: incoming requests are processed. */
        public static final int PROCESS_RECV_OK = 0x04;
        /** {@code RVT_PROCESS_SEND_OK}: the send engine may process WQEs already started. */
        public static final int PROCESS_SEND_OK = 0x08;
        /** {@code RVT_PROCESS_NEXT_SEND_OK}: the send engine may start a new WQE. */
        public static final int PROCESS_NEXT_SEND_OK = 0x10;
        /** {@code RVT_FLUSH_SEND}: posted send WQEs are completed with {@code WR_FLUSH_ERR}. */
        public static final int FLUSH_SEND = 0x20;
        /** {@code RVT_FLUSH_RECV}: posted receive WQEs are completed with {@code WR_FLUSH_ERR}. */
        public static final int FLUSH_RECV = 0x40;
        /** {@code RVT_PROCESS_OR_FLUSH_SEND}. */
        public static final int PROCESS_OR_FLUSH_SEND = PROCESS_SEND_OK | FLUSH_SEND;
        /** {@code RVT_SEND_OR_FLUSH_OR_RECV_OK}. */
        public static final int SEND_OR_FLUSH_OR_RECV_OK = PROCESS_SEND_OK | FLUSH_SEND | PROCESS_RECV_OK;

        private Ops() {
        }
    }

    private static final QpState[] BY_VALUE = values();

    private final int value;
    private final int ops;

    QpState(int value, int ops) {
        this.value = value;
        this.ops = ops;
    }

    /** @return the {@code ib_qp_state} value */
    public int value() {
        return value;
    }

    /** @return this state's {@code ib_rvt_state_ops} bits ({@link Ops}) */
    public int ops() {
        return ops;
    }

    /**
     * @param opMask one or more {@link Ops} bits
     * @return true if this state has any of the bits in {@code opMask}
     */
    public boolean can(int opMask) {
        return (ops & opMask) != 0;
    }

    /**
     * @param value an {@code ib_qp_state} value
     * @return the state
     * @throws IllegalArgumentException if no state has that value
     */
    public static QpState of(int value) {
        if (value < 0 || value >= BY_VALUE.length) {
            throw new IllegalArgumentException("unknown QP state value: " + value);
        }
        return BY_VALUE[value];
    }
}
