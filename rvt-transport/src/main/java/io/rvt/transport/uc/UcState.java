package io.rvt.transport.uc;

import io.rvt.api.WorkCompletion;
import io.rvt.api.spi.Sge;
import io.rvt.api.spi.engine.EngineQp;
import io.rvt.api.spi.engine.SgeState;
import io.rvt.transport.engine.QpProtocolState;
import io.rvt.transport.engine.SendScheduler;

/**
 * What the UC engine keeps per QP beyond the QP's own state ({@code s_len} is in {@code qp.requester()},
 * {@code r_rcv_len} in {@code qp.responder()}): the responder's saved receive position and scratch objects, under
 * {@code recvLock}.
 *
 * <p>The saved position is UC's rewind (rdmavt's {@code RVT_R_REWIND_SGE} with {@code s_rdma_read_sge}): when a
 * SEND is cut short by a lost packet, its receive WQE is not completed but reused for the next SEND. rvt's
 * {@code SgeState} cannot be copied, so the engine keeps its own copy of the receive WQE's SGEs, each holding a
 * region reference of its own, and rebuilds the cursor from it.
 */
public final class UcState extends QpProtocolState {
    /** The receive completion being built (recvLock). */
    final WorkCompletion recvWc = new WorkCompletion();
    /** Target of an RDMA WRITE, validated by {@code rkeyOk} (recvLock). */
    final Sge target = new Sge();

    /** The SEND's receive WQE, as consumed: a reference per entry while {@link #savedCount} > 0 (recvLock). */
    Sge[] saved = new Sge[0];
    /** Entries of {@link #saved} in use; 0 when no SEND is in progress or pending reuse. */
    int savedCount;
    /** Total bytes the saved entries describe. */
    int savedTotal;
    /** A rebuilt cursor's entries (their references belong to the QP's receive cursor). */
    Sge[] cursor = new Sge[0];
    /** {@code RVT_R_REWIND_SGE}: the saved receive WQE waits to be reused by the next SEND. */
    boolean rewind;

    /**
     * @param qp the UC QP
     * @param engine the UC engine
     * @param scheduler the driver's send scheduler
     */
    public UcState(EngineQp qp, UcEngine engine, SendScheduler scheduler) {
        super(qp, scheduler);
        engine(engine, this);
    }

    /** Saves the receive cursor's entries (just set up by {@code getRwqe}), taking a reference for each. */
    void save(SgeState ss) {
        int n = ss.numSge();
        if (saved.length < n) {
            saved = grow(saved, n);
            cursor = grow(cursor, n);
        }
        // Walk the cursor to read its entries, then rebuild it over our copy: no reference changes hands.
        int total = ss.totalLen();
        for (int i = 0; i < n; i++) {
            saved[i].copyFrom(ss.sge());
            cursor[i].copyFrom(ss.sge());
            ss.updateSge(ss.sge().sgeLength(), false);
        }
        for (int i = 0; i < n; i++) {
            if (saved[i].mr() != null) {
                saved[i].mr().retain();
            }
        }
        ss.init(cursor, 0, n, total);
        savedCount = n;
        savedTotal = total;
    }

    /** Points the receive cursor at a fresh copy of the saved entries (with references of its own). */
    void restore(SgeState ss) {
        for (int i = 0; i < savedCount; i++) {
            cursor[i].copyFrom(saved[i]);
            if (cursor[i].mr() != null) {
                cursor[i].mr().retain();
            }
        }
        ss.init(cursor, 0, savedCount, savedTotal);
    }

    /** Drops the saved entries' references. */
    void release() {
        for (int i = 0; i < savedCount; i++) {
            saved[i].release();
        }
        savedCount = 0;
        savedTotal = 0;
        rewind = false;
    }

    private static Sge[] grow(Sge[] old, int n) {
        Sge[] a = new Sge[n];
        System.arraycopy(old, 0, a, 0, old.length);
        for (int i = old.length; i < n; i++) {
            a[i] = new Sge();
        }
        return a;
    }

    @Override
    public void reset() {
        release();
        target.clear();
    }

    @Override
    public String toString() {
        return "UcState{saved=" + savedCount + ", rewind=" + rewind + '}';
    }
}
