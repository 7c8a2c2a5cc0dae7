package io.rvt.api.spi.engine;

import io.rvt.api.spi.Sge;

/**
 * One entry of an RC QP's responder ack queue ({@code struct rvt_ack_entry}): a request that needs a response beyond
 * a plain ACK (RDMA READ, atomic), kept so that a duplicate can be answered again. rdmavt sizes the queue
 * {@code rvt_max_atomic} and releases {@link #rdmaSge()}'s reference on error and reset. Guarded by the QP's
 * {@code sendLock}.
 */
public final class AckEntry {
    private int opcode;
    private boolean sent;
    private int psn;
    private int lpsn;
    private final Sge rdmaSge = new Sge();
    private long atomicData;

    /** @return the BTH opcode of the request */
    public int opcode() {
        return opcode;
    }

    /**
     * @param v the BTH opcode of the request
     * @return this
     */
    public AckEntry opcode(int v) {
        opcode = v;
        return this;
    }

    /** @return whether the response has been sent */
    public boolean sent() {
        return sent;
    }

    /**
     * @param v whether the response has been sent
     * @return this
     */
    public AckEntry sent(boolean v) {
        sent = v;
        return this;
    }

    /** @return first PSN of the request */
    public int psn() {
        return psn;
    }

    /**
     * @param v first PSN
     * @return this
     */
    public AckEntry psn(int v) {
        psn = v;
        return this;
    }

    /** @return last PSN of the request */
    public int lpsn() {
        return lpsn;
    }

    /**
     * @param v last PSN
     * @return this
     */
    public AckEntry lpsn(int v) {
        lpsn = v;
        return this;
    }

    /** @return the RDMA READ source (holds a region reference while set) */
    public Sge rdmaSge() {
        return rdmaSge;
    }

    /** @return the atomic's original value, returned in the AtomicAckETH */
    public long atomicData() {
        return atomicData;
    }

    /**
     * @param v the atomic's original value
     * @return this
     */
    public AckEntry atomicData(long v) {
        atomicData = v;
        return this;
    }
}
