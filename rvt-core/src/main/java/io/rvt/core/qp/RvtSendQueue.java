package io.rvt.core.qp;

import io.rvt.api.QpState;
import io.rvt.api.QpState.Ops;
import io.rvt.api.SendFlag;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.spi.OperationParams;
import io.rvt.api.spi.Sge;
import io.rvt.api.spi.engine.QpFlags;
import io.rvt.api.spi.engine.SendQueue;
import io.rvt.api.spi.engine.SendWqe;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A QP's send ring and rdmavt's index protocol over it ({@code s_head}, {@code s_last}, {@code s_avail},
 * {@code s_reserved_used}, {@code local_ops_pending}).
 *
 * <h2>Who writes what, and how the other side sees it</h2>
 * <ul>
 * <li>{@code head}: the poster, under {@code postLock}, after it has filled the slot: a release store
 * ({@link #publish}). The engine reads it with an acquire load ({@link #head()}): a slot it reaches is complete.</li>
 * <li>{@code last}: the engine, under {@code sendLock}, in {@link #completeSwqe} (and the reset, with every lock): a
 * release store after the slot was read for the last time. The poster reads it with an acquire load only when its
 * cached {@code avail} runs out ({@link #isAvail}), so it never refills a slot still being read.</li>
 * <li>{@code reservedUsed}: incremented by the poster ({@link #wqeReserve}), decremented by the engine
 * ({@link #wqeUnreserve}) followed by a full fence, both before that WQE's {@code last} release: a poster that sees
 * the new {@code last} sees the lower count ({@code smp_mb__before_atomic} in rdmavt).</li>
 * <li>{@code avail}: the poster's own cache, a lower bound of the free ordinary slots, never read by the engine.</li>
 * </ul>
 * Two deviations from rdmavt ([deviation], semantics §4.3): a reserved post also needs the ring not to be physically
 * full (the slot after {@code head} is not {@code last}), and the recomputed {@code avail} never exceeds
 * {@code size - 1 - reserved}. rdmavt checks only the reserved count, which a completion lowers before it publishes
 * {@code s_last}: a reserved post in that window took the empty-marker slot and the next ordinary post overwrote the
 * WQE being retired. The count is compared unsigned, as rdmavt's {@code u32}: a count an unbalanced unreserve drove
 * below zero fails closed.
 */
public final class RvtSendQueue implements SendQueue {
    private static final VarHandle HEAD;
    private static final VarHandle LAST;
    private static final VarHandle RESERVED_USED;
    private static final VarHandle UNBALANCED;
    private static final VarHandle OVERSHOOTS;
    private static final VarHandle LOCAL_OPS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(RvtSendQueue.class, "head", int.class);
            LAST = l.findVarHandle(RvtSendQueue.class, "last", int.class);
            RESERVED_USED = l.findVarHandle(RvtSendQueue.class, "reservedUsed", int.class);
            UNBALANCED = l.findVarHandle(RvtSendQueue.class, "unbalancedUnreserves", int.class);
            OVERSHOOTS = l.findVarHandle(RvtSendQueue.class, "availOvershoots", int.class);
            LOCAL_OPS = l.findVarHandle(RvtSendQueue.class, "localOpsPending", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final RvtQp qp;
    /** The slots; null until {@link #allocate()} (the QP's first way out of RESET, every lock held). */
    private RvtSwqe[] ring;
    private final int size;
    private final int maxSge;
    private final int reserved;
    /** s_head: next slot to fill (see the class comment). */
    @SuppressWarnings("unused")
    private int head;
    /** s_last: oldest uncompleted slot (see the class comment). */
    @SuppressWarnings("unused")
    private int last;
    /** s_avail: cached free ordinary slots; postLock only. */
    private int avail;
    // The four counters are volatile ints updated through VarHandles rather than AtomicIntegers: an idle QP (issue 16)
    // would otherwise carry four more 16-byte objects.
    /** Reserved WQEs in flight. */
    private volatile int reservedUsed;
    /** Unreserves without a reserved WQE in flight, and s_avail recomputations past the bound (both: bugs). */
    private volatile int unbalancedUnreserves;
    private volatile int availOvershoots;
    /** local_ops_pending: deferred LOCAL_INVs queued; post increments, the engine decrements. */
    private volatile int localOpsPending;
    /** s_draining: SQD waits for the WQEs started before it; written with recvLock and sendLock. */
    boolean draining;
    /** References of completed WQEs dropped together at the end of a run of completions (sendLock); allocated with
     *  the ring (an idle QP in RESET completes nothing). */
    private DeferredReleases deferred;
    /** Completion scratch for completeSwqe (sendLock); allocated with the ring. */
    private WorkCompletion wc;

    RvtSendQueue(RvtQp qp, int maxSendWr, int maxSge, int reserved) {
        this.qp = qp;
        this.reserved = reserved;
        this.size = maxSendWr + 1 + reserved;
        this.maxSge = maxSge;
        this.avail = maxSendWr;
    }

    /**
     * Allocates the slots, once: a QP in RESET accepts no post, so an idle QP holds no WQE (see
     * {@code RvtQp.allocateProtocolState}).
     */
    void allocate() {
        if (ring != null) {
            return;
        }
        RvtSwqe[] r = new RvtSwqe[size];
        for (int i = 0; i < size; i++) {
            r[i] = new RvtSwqe(maxSge);
        }
        wc = new WorkCompletion();
        deferred = new DeferredReleases();
        ring = r;
    }

    /** Empties the ring's indices (rvt_init_qp); every lock held, or the QP not yet shared. */
    void reset() {
        HEAD.setRelease(this, 0);
        LAST.setRelease(this, 0);
        reservedUsed = 0;
        draining = false;
    }

    /** @return {@code max_send_wr}: the ordinary slots */
    int maxSendWr() {
        return size - 1 - reserved;
    }

    /** @return the driver's {@code reserved_operations} */
    int reserved() {
        return reserved;
    }

    /** @return whether posted WQEs wait (acquire loads of both indices) */
    boolean hasPosted() {
        return (int) LAST.getAcquire(this) != (int) HEAD.getAcquire(this);
    }

    /** @return whether the ring is empty as the poster sees it (postLock held; rdmavt's call_send test) */
    boolean emptyForPoster() {
        return (int) HEAD.get(this) == (int) LAST.getOpaque(this);
    }

    /** @return the slot the next post fills (postLock held) */
    int headForPoster() {
        return (int) HEAD.get(this);
    }

    /**
     * Publishes a filled slot: the post's last step (postLock held).
     *
     * @param reservedOp whether it took a reserved slot (counted) or an ordinary one (from the cached avail)
     * @param next the index after the filled slot
     */
    void publish(RvtSwqe wqe, boolean reservedOp, int next) {
        if (reservedOp) {
            wqe.sendFlags |= QpFlags.SEND_RESERVE_USED;
            wqeReserve(wqe);
        } else {
            wqe.sendFlags &= ~QpFlags.SEND_RESERVE_USED;
            avail--;
        }
        // release: the WQE is complete before it is reachable; pairs with getAcquire in head().
        HEAD.setRelease(this, next);
    }

    /** Mirrors the send half of {@code rvt_clear_mr_refs}: drops every posted WQE's references, no completions. */
    void clearPosted() {
        int l = (int) LAST.getAcquire(this);
        int h = (int) HEAD.getAcquire(this);
        while (l != h) {
            putSwqe(ring[l]);
            l = swqeIncr(l);
            LAST.setRelease(this, l); // release: pairs with getAcquire in isAvail()
        }
    }

    /** Completes every posted WQE with {@code status}, in order (all locks held). */
    void flushPosted(WcStatus status) {
        int h = (int) HEAD.getAcquire(this);
        while ((int) LAST.getAcquire(this) != h) {
            sendComplete(ring[(int) LAST.getAcquire(this)], status);
        }
    }

    /** @return whether a posted WQE references the region with {@code lkey} (all locks held) */
    boolean hasLkey(int lkey) {
        int h = (int) HEAD.get(this);
        for (int i = (int) LAST.get(this); i != h; i = swqeIncr(i)) {
            RvtSwqe w = ring[i];
            for (int k = 0; k < w.numSge; k++) {
                Sge s = w.sge(k);
                if (s.mr() != null && s.mr().lkey() == lkey) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Counts a deferred LOCAL_INV (postLock held). */
    void localOpQueued() {
        LOCAL_OPS.getAndAdd(this, 1);
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public int maxSge() {
        return maxSge;
    }

    @Override
    public int head() {
        return (int) HEAD.getAcquire(this); // acquire: pairs with the setRelease in publish
    }

    @Override
    public int last() {
        return (int) LAST.getAcquire(this); // acquire: pairs with the setRelease in completeSwqe
    }

    @Override
    public RvtSwqe swqe(int index) {
        return ring[index];
    }

    @Override
    public int swqeIncr(int index) {
        return index + 1 == size ? 0 : index + 1;
    }

    @Override
    public int reservedUsed() {
        return reservedUsed;
    }

    @Override
    public int avail() {
        return avail;
    }

    @Override
    public boolean isAvail(boolean reservedOp) {
        if (reservedOp) {
            // volatile read: sees every decrement that wqeUnreserve made before its fence
            if (Integer.compareUnsigned(reservedUsed, reserved) >= 0) {
                return false;
            }
            // acquire: the retiring slot counts as taken until completeSwqe has published last past it
            return swqeIncr((int) HEAD.get(this)) != (int) LAST.getAcquire(this);
        }
        if (avail != 0) {
            return true; // the cached lower bound: no cross-thread state is read on this path
        }
        VarHandle.fullFence(); // pairs with the fence in wqeUnreserve (rdmavt's smp_mb__before_atomic)
        // acquire: pairs with the setRelease in completeSwqe; read last before the reserved count.
        int l = (int) LAST.getAcquire(this);
        int h = (int) HEAD.get(this);
        int slots = h >= l ? size - (h - l) : l - h;
        int used = reservedUsed;
        int a = slots - 1 - (reserved - used);
        if (a <= 0) {
            return false;
        }
        int bound = size - 1 - reserved;
        if (a > bound) {
            OVERSHOOTS.getAndAdd(this, 1);
            System.getLogger(RvtQp.class.getName()).log(System.Logger.Level.WARNING,
                    "QP 0x" + Integer.toHexString(qp.qpNum()) + ": s_avail " + a + " exceeds " + bound
                            + "; clamped");
            a = bound;
        }
        avail = a;
        return true;
    }

    /**
     * Mirrors {@code rvt_qp_wqe_reserve}: one more reserved WQE in flight (the caller flags the WQE with
     * {@code SEND_RESERVE_USED}).
     *
     * @param wqe the WQE being posted
     */
    @Override
    public void wqeReserve(SendWqe wqe) {
        RESERVED_USED.getAndAdd(this, 1);
    }

    /**
     * Mirrors {@code rvt_qp_wqe_unreserve}: a WQE flagged {@code SEND_RESERVE_USED} is retired, the reserved count
     * drops. An unreserve that finds no reserved WQE in flight (a driver bug) is counted
     * ({@link #unbalancedUnreserves()}) and logged once per QP; the count still drops, as in rdmavt, and the unsigned
     * comparison in {@link #isAvail(boolean)} then refuses reserved posts.
     *
     * @param flags the retired WQE's send flags
     */
    @Override
    public void wqeUnreserve(int flags) {
        if ((flags & QpFlags.SEND_RESERVE_USED) != 0) {
            if ((int) RESERVED_USED.getAndAdd(this, -1) <= 0 && (int) UNBALANCED.getAndAdd(this, 1) == 0) {
                System.getLogger(RvtQp.class.getName()).log(System.Logger.Level.WARNING,
                        "QP 0x" + Integer.toHexString(qp.qpNum()) + ": wqe_unreserve without a reserved WQE in"
                                + " flight (reserved count now " + reservedUsed + "); reserved posts now fail");
            }
            // Must precede the last update: a poster that sees the new s_last sees the smaller count.
            VarHandle.fullFence();
        }
    }

    /** @return how many unreserves found no reserved WQE in flight (driver bugs; logged once) */
    public int unbalancedUnreserves() {
        return unbalancedUnreserves;
    }

    /** @return how many times the recomputed {@code s_avail} exceeded its bound and was clamped (should be 0) */
    public int availOvershoots() {
        return availOvershoots;
    }

    /**
     * Mirrors {@code rvt_qp_complete_swqe} (see the class comment for the order of its stores).
     */
    @Override
    public int completeSwqe(SendWqe w, WcOpcode opcode, WcStatus status) {
        RvtSwqe wqe = (RvtSwqe) w;
        int flags = wqe.sendFlags;
        wqeUnreserve(flags);
        putSwqe(wqe);
        boolean needCompletion = (flags & QpFlags.SEND_RESERVE_USED) == 0
                && ((qp.requester().flags & QpFlags.S_SIGNAL_REQ_WR) == 0 || SendFlag.SIGNALED.in(flags)
                        || status != WcStatus.SUCCESS);
        long wrId = 0;
        int byteLen = 0;
        if (needCompletion) {
            // Capture before the release: afterwards a poster may reuse the slot.
            wrId = wqe.wrId;
            byteLen = wqe.length;
        }
        int next = swqeIncr((int) LAST.get(this));
        // release: pairs with getAcquire in isAvail(); wqeUnreserve above came first.
        LAST.setRelease(this, next);
        if (needCompletion) {
            wc.clear().wrId(wrId).status(status).opcode(opcode).qpNum(qp.qpNum()).byteLen(byteLen);
            qp.sendCq(wc, status != WcStatus.SUCCESS);
        }
        return next;
    }

    @Override
    public void sendComplete(SendWqe wqe, WcStatus status) {
        if (!qp.state().can(Ops.PROCESS_OR_FLUSH_SEND)) {
            return;
        }
        int old = (int) LAST.get(this);
        OperationParams p = wqe.opcode() == null ? null : qp.device().operationTable().get(wqe.opcode());
        WcOpcode wcOp = p == null || p.wcOpcode() == null ? WcOpcode.SEND : p.wcOpcode();
        int next = completeSwqe(wqe, wcOp, status);
        RvtRequester req = qp.requester();
        if (req.acked == old) {
            req.acked = next;
        }
        if (req.cur == old) {
            req.cur = next;
        }
        if (req.tail == old) {
            req.tail = next;
        }
        // the state after the completion, as rvt_send_complete reads it: a completion that overflowed the send CQ
        // moved the QP to ERR (rvt_error_qp), and an errored QP's s_draining stays as it was
        if (qp.state() == QpState.SQD && next == req.cur) {
            draining = false;
        }
    }

    @Override
    public void beginCompletions() {
        if (deferred != null) {
            deferred.begin();
        }
    }

    @Override
    public void endCompletions() {
        if (deferred != null) {
            deferred.end();
        }
    }

    @Override
    public void putSwqe(SendWqe w) {
        RvtSwqe wqe = (RvtSwqe) w;
        if (deferred != null && deferred.active()) {
            wqe.putMrs(deferred);
        } else {
            wqe.putMrs();
        }
        wqe.numSge = 0;
        if (qp.type().isUdLike()) {
            wqe.clearAh();
        }
    }

    @Override
    public int localOpsPending() {
        return localOpsPending;
    }

    @Override
    public void localOpDone() {
        LOCAL_OPS.getAndAdd(this, -1);
    }

    @Override
    public String toString() {
        return "SendQueue{size=" + size + ", head=" + head() + ", last=" + last() + ", avail=" + avail
                + ", reservedUsed=" + reservedUsed + '}';
    }
}
