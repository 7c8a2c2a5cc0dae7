package io.rvt.api.spi.engine;

/**
 * An RC QP's responder ack queue ({@code s_ack_queue} of {@code struct rvt_qp}, sized {@code rvt_max_atomic}) and
 * the cursor of the response builder that drains it: the requests that need a response beyond a plain ACK (RDMA
 * READ, atomics), kept so that a duplicate can be answered again, and the ACK or NAK queued for the send engine.
 *
 * <h2>Locking</h2>
 * This is where the receive path hands work to the send engine. The responder fills an entry and advances
 * {@link #head} ({@code r_head_ack_queue}) holding {@code recvLock} and then {@code sendLock}; the response builder
 * reads entries and writes every other field holding {@code sendLock}. So a reader with {@code sendLock} sees
 * everything stable, and one with {@code recvLock} only sees {@link #head} stable.
 */
public final class AckQueue {
    private final AckEntry[] entries;
    /** {@code r_head_ack_queue}: the next entry the responder fills. */
    public int head;
    /** {@code s_tail_ack_queue}: the oldest entry whose response is not yet sent. */
    public int tail;
    /** {@code s_ack_state}: the opcode of the last response built. */
    public int state;
    /** {@code s_ack_psn}: the PSN of the queued ACK or NAK. */
    public int psn;
    /** {@code s_nak_state}: the syndrome of the queued NAK, 0 for an ACK. */
    public int nakState;
    /** The MSN the queued NAK reports (taken when it was queued; rvt's, not rdmavt's). */
    public int nakMsn;
    /** {@code s_ack_rdma_psn}: the PSN of the next RDMA READ response packet. */
    public int rdmaPsn;
    /** {@code s_ack_rdma_sge}: the cursor over the RDMA READ source being answered (no references of its own). */
    public final SgeState rdmaSge = new SgeState();

    /**
     * @param size entries ({@code rvt_max_atomic}: the driver's {@code max_rdma_atomic} + 1)
     */
    public AckQueue(int size) {
        entries = new AckEntry[size];
        for (int i = 0; i < size; i++) {
            entries[i] = new AckEntry();
        }
    }

    /** @return how many entries the queue has */
    public int size() {
        return entries.length;
    }

    /**
     * @param i index, below {@link #size()}
     * @return the entry ({@code s_ack_queue[i]})
     */
    public AckEntry entry(int i) {
        return entries[i];
    }

    /**
     * @param i an index, below {@link #size()}
     * @return the index after {@code i}, or 0 past the end
     */
    public int next(int i) {
        return i + 1 == entries.length ? 0 : i + 1;
    }

    /**
     * Drops the region reference every entry holds ({@code rvt_clear_mr_refs}: on error and on reset).
     */
    public void releaseReferences() {
        for (AckEntry e : entries) {
            e.rdmaSge().release();
        }
    }

    /**
     * @param lkey a region's key
     * @return true if an entry references the region (its RDMA READ source)
     */
    public boolean hasLkey(int lkey) {
        for (AckEntry e : entries) {
            if (e.rdmaSge().mr() != null && e.rdmaSge().mr().lkey() == lkey) {
                return true;
            }
        }
        return false;
    }

    /**
     * Empties the queue as on the way to RESET: cursors and builder state to their initial values, every entry
     * marked never used (opcode 0, as qib tests). The references were dropped by {@link #releaseReferences()}.
     *
     * @param ackState {@link #state} of an idle builder ({@code IB_OPCODE_RC_ACKNOWLEDGE})
     */
    public void reset(int ackState) {
        head = 0;
        tail = 0;
        state = ackState;
        psn = 0;
        nakState = 0;
        nakMsn = 0;
        rdmaPsn = 0;
        rdmaSge.clear();
        for (AckEntry e : entries) {
            e.opcode(0).sent(false).psn(0).lpsn(0).atomicData(0);
            e.rdmaSge().clear();
        }
    }

    @Override
    public String toString() {
        return "AckQueue{size=" + entries.length + ", head=" + head + ", tail=" + tail + ", state=0x"
                + Integer.toHexString(state) + ", psn=" + psn + ", nakState=0x" + Integer.toHexString(nakState) + '}';
    }
}
