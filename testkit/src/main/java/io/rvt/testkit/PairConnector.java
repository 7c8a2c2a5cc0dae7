package io.rvt.testkit;

import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * How {@link Verbs#connected} brings the two QPs of a connected pair to RTS. By default ({@link #direct()}) by
 * {@code modify_qp} alone, as {@code ibv_rc_pingpong} does once it has exchanged QPN, PSN and GID: INIT, RTR and
 * RTS on each side, no connection manager, no packet. rvt-cm's tests give a connector that connects through the CM
 * (a REQ/REP/RTU exchange over the devices' GSI QPs), so the suite runs CM-connected there and, with that connector
 * from rvt-cm's test-jar, on the loopback driver's one device (its GSI QP sending to itself); a fixture chooses with
 * {@link DriverFixture#connector()}.
 */
@ConsumerType
public interface PairConnector extends AutoCloseable {
    /**
     * What both QPs of a pair are asked for.
     *
     * @param type RC or UC
     * @param queueDepth send and receive queue depth
     * @param maxSge scatter/gather entries per work request
     * @param accessFlags the QPs' remote access rights ({@code qp_access_flags})
     * @param retryCount the RC retry count (0..7)
     * @param rnrRetry the RC RNR retry count (7 = forever)
     * @param minRnrTimer the RNR NAK timer code the QPs send
     * @param localAckTimeout the RC local ACK timeout code (4.096 us x 2^code)
     * @param rdAtomic RDMA READ and atomic operations in flight, each way (bounded by the devices)
     */
    record Spec(QpType type, int queueDepth, int maxSge, int accessFlags, int retryCount, int rnrRetry,
            int minRnrTimer, int localAckTimeout, int rdAtomic) {
    }

    /**
     * One QP of a connected pair.
     *
     * @param qp the QP, in RTS
     * @param sendPsn its first send PSN (the peer's expected receive PSN)
     * @param connection the connector's handle of it (rvt-cm's {@code Connection}), or null for a direct pair
     */
    record Connected(QueuePair qp, int sendPsn, Object connection) {
    }

    /**
     * Creates a QP on each side's PD and CQs and connects the two.
     *
     * @param a the active side (its PD, CQs and buffer)
     * @param b the passive side
     * @param spec what both QPs are asked for
     * @param verbs the test's helpers, to wait (driving the fixture) and to draw PSNs from the fixture's seed
     * @return {@code a}'s and {@code b}'s QPs, in RTS
     */
    Connected[] connect(Endpoint.Resources a, Endpoint.Resources b, Spec spec, Verbs verbs);

    /** Releases what the connector holds (a CM's handles); the QPs themselves go with the test's fixture. */
    @Override
    default void close() {
    }

    /** @return a connector that moves both QPs to RTS by {@code modify_qp}, as {@code ibv_rc_pingpong} does */
    static PairConnector direct() {
        return DirectConnector.INSTANCE;
    }
}
