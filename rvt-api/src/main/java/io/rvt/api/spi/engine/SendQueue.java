package io.rvt.api.spi.engine;

import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A QP's send queue: the ring of send WQEs and rdmavt's index protocol over it ({@code s_head}, {@code s_last},
 * {@code s_avail}, {@code s_reserved_used}, {@code struct rvt_qp}'s send half and the {@code rdmavt_qp.h} helpers
 * that keep it).
 *
 * <h2>The index protocol</h2>
 * {@link #size()} slots ({@code max_send_wr + 1 + reserved_operations}); WQEs in {@code [last, head)} are posted and
 * not yet completed. Two threads share the ring without a common lock:
 * <ul>
 * <li>the poster, under {@code postLock}, fills the slot at {@code head} and publishes it with a release store of the
 * new {@code head}; the driver reads it with {@link #head()}, an acquire load, so it sees the whole WQE;</li>
 * <li>the send engine, under {@code sendLock}, retires the WQE at {@code last} with {@link #completeSwqe}, which
 * first drops a reserved WQE's count ({@link #wqeUnreserve}, with a full fence), then publishes the new
 * {@code last} with a release store; the poster reads it with an acquire load when its cached {@link #avail()} runs
 * out, so it never reuses a slot still being read, and sees the reserved count already lowered.</li>
 * </ul>
 * The engine's own cursors over the ring ({@code s_acked}, {@code s_cur}, {@code s_tail}) are in
 * {@link RequesterState}.
 */
@ProviderType
public interface SendQueue {
    /** @return slots in the ring ({@code s_size}) */
    int size();

    /** @return most SGEs per send WQE ({@code s_max_sge}) */
    int maxSge();

    /** @return {@code s_head} with acquire semantics (pairs with the post's release store) */
    int head();

    /** @return {@code s_last} with acquire semantics (pairs with the release store in {@link #completeSwqe}) */
    int last();

    /**
     * Mirrors {@code rvt_get_swqe_ptr}. The slots exist once the QP has first left RESET (an idle QP has none; a QP
     * in RESET is given no work).
     *
     * @param index a ring index, below {@link #size()}
     * @return the slot
     */
    SendWqe swqe(int index);

    /**
     * Mirrors {@code rvt_qp_swqe_incr}: the ring index after {@code index}.
     *
     * @param index a ring index
     * @return {@code index + 1}, or 0 past the end
     */
    int swqeIncr(int index);

    /** @return {@code s_reserved_used}: posted WQEs occupying reserved slots */
    int reservedUsed();

    /** @return {@code s_avail}: cached lower bound of free ordinary slots (under {@code postLock}) */
    int avail();

    /**
     * Mirrors {@code rvt_qp_is_avail}: whether a normal or reserved WQE may be posted now (poster, {@code postLock}
     * held). Recomputes {@code s_avail} from {@code s_last} when the cache is 0.
     *
     * @param reservedOp whether the WQE would take a reserved slot
     * @return true if a slot is available
     */
    boolean isAvail(boolean reservedOp);

    /**
     * Mirrors {@code rvt_qp_wqe_reserve}: counts {@code wqe} as occupying a reserved slot. Called by the post path only
     * ({@code postLock} held), before {@code head} is published.
     *
     * @param wqe the WQE (unused, as in rdmavt)
     */
    void wqeReserve(SendWqe wqe);

    /**
     * Mirrors {@code rvt_qp_wqe_unreserve}: if {@code sendFlags} has {@link QpFlags#SEND_RESERVE_USED}, uncounts the
     * reserved slot with a full fence. Must precede the {@code last} update for that WQE; {@link #completeSwqe} does
     * both, so drivers do not call this themselves.
     *
     * @param sendFlags the WQE's send flags
     */
    void wqeUnreserve(int sendFlags);

    /**
     * Mirrors {@code rvt_qp_complete_swqe}: retires the WQE at {@code last} (send engine, {@code sendLock} held):
     * unreserves it, drops its references, publishes the new {@code last}, and inserts a completion unless it is a
     * reserved operation, or it succeeded unsignalled on a {@code SIGNAL_REQ_WR} QP. Errors always complete.
     *
     * @param wqe the WQE at {@code last}
     * @param opcode the completion opcode
     * @param status the status
     * @return the new {@code last}
     */
    int completeSwqe(SendWqe wqe, WcOpcode opcode, WcStatus status);

    /**
     * Mirrors {@code rvt_send_complete}: {@link #completeSwqe} with the opcode from the operation table, then drags
     * the requester's {@code acked}, {@code cur} and {@code tail} past the completed slot and ends SQD draining. Does
     * nothing in RESET, INIT and RTR. {@code sendLock} held.
     *
     * @param wqe the WQE at {@code last}
     * @param status the status
     */
    void sendComplete(SendWqe wqe, WcStatus status);

    /**
     * Mirrors {@code rvt_put_qp_swqe}: drops the WQE's region references and its cached address attributes.
     *
     * @param wqe the WQE
     */
    void putSwqe(SendWqe wqe);

    /** @return deferred local operations in the ring ({@code local_ops_pending}) */
    int localOpsPending();

    /** Decrements {@code local_ops_pending} after the engine executed a deferred LOCAL_INV. */
    void localOpDone();
    /**
     * Starts a run of completions ({@code sendLock} held) whose WQEs' region references are dropped together, one
     * atomic operation per region, by {@link #endCompletions()} under the same hold: an ACK that retires many WQEs of
     * one buffer. Call {@code endCompletions} in a {@code finally}: until then the references are still counted. An
     * rvt extension (rdmavt puts each SGE's); nothing by default.
     */
    default void beginCompletions() {
    }

    /** Ends a run begun by {@link #beginCompletions()}, dropping the references it deferred ({@code sendLock} held). */
    default void endCompletions() {
    }
}
