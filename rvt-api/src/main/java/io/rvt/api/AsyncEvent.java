package io.rvt.api;

/**
 * An asynchronous event ({@code struct ib_event}): its type and the object it concerns. Exactly one of
 * {@link #qp()}, {@link #cq()}, {@link #srq()} is non-null for object events; port events carry
 * {@link #portNum()}; device events carry neither.
 */
public final class AsyncEvent {
    private final AsyncEventType type;
    private final Device device;
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final SharedReceiveQueue srq;
    private final int portNum;

    private AsyncEvent(AsyncEventType type, Device device, QueuePair qp, CompletionQueue cq, SharedReceiveQueue srq,
            int portNum) {
        this.type = type;
        this.device = device;
        this.qp = qp;
        this.cq = cq;
        this.srq = srq;
        this.portNum = portNum;
    }

    /**
     * @param type the event type
     * @param qp the QP
     * @return a QP event
     */
    public static AsyncEvent ofQp(AsyncEventType type, QueuePair qp) {
        return new AsyncEvent(type, qp.device(), qp, null, null, 0);
    }

    /**
     * @param type the event type
     * @param cq the CQ
     * @return a CQ event
     */
    public static AsyncEvent ofCq(AsyncEventType type, CompletionQueue cq) {
        return new AsyncEvent(type, cq.device(), null, cq, null, 0);
    }

    /**
     * @param type the event type
     * @param srq the SRQ
     * @return an SRQ event
     */
    public static AsyncEvent ofSrq(AsyncEventType type, SharedReceiveQueue srq) {
        return new AsyncEvent(type, srq.device(), null, null, srq, 0);
    }

    /**
     * @param type the event type
     * @param device the device
     * @param portNum the port, 1-based
     * @return a port event
     */
    public static AsyncEvent ofPort(AsyncEventType type, Device device, int portNum) {
        return new AsyncEvent(type, device, null, null, null, portNum);
    }

    /**
     * @param type the event type
     * @param device the device
     * @return a device event
     */
    public static AsyncEvent ofDevice(AsyncEventType type, Device device) {
        return new AsyncEvent(type, device, null, null, null, 0);
    }

    /** @return the event type */
    public AsyncEventType type() {
        return type;
    }

    /** @return the device the event happened on */
    public Device device() {
        return device;
    }

    /** @return the QP, or null */
    public QueuePair qp() {
        return qp;
    }

    /** @return the CQ, or null */
    public CompletionQueue cq() {
        return cq;
    }

    /** @return the SRQ, or null */
    public SharedReceiveQueue srq() {
        return srq;
    }

    /** @return the port (1-based), or 0 */
    public int portNum() {
        return portNum;
    }

    @Override
    public String toString() {
        return "AsyncEvent{" + type + (qp != null ? ", qpn=" + qp.qpNum() : "") + (cq != null ? ", cq" : "")
                + (srq != null ? ", srq" : "") + (portNum != 0 ? ", port=" + portNum : "") + '}';
    }
}
