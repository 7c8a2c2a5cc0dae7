package io.rvt.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A completion queue ({@code struct ib_cq}; rdmavt: {@code struct rvt_cq}): a ring of {@link #capacity()} work
 * completions. Polling copies into caller-owned {@link WorkCompletion} objects, so steady-state polling allocates
 * nothing. Any thread may poll; polls are serialised by the CQ's lock.
 *
 * <p>Overflow is permanent, as in rdmavt: once a completion could not be inserted the CQ raises
 * {@link AsyncEventType#CQ_ERR}, the QP that overflowed it goes to the error state, and every later insert fails.
 */
@ProviderType
public interface CompletionQueue {
    /** @return the device the CQ belongs to */
    Device device();

    /**
     * Copies up to {@code max} completions, oldest first, into {@code out[0..]} ({@code ibv_poll_cq}; rdmavt:
     * {@code rvt_poll_cq}).
     *
     * @param out reusable completions to fill
     * @param max the most to take, at most {@code out.length}
     * @return the number copied, 0 if the CQ is empty
     */
    int pollCq(WorkCompletion[] out, int max);

    /**
     * Polls one completion into {@code out}.
     *
     * @param out a reusable completion to fill
     * @return true if one was copied
     */
    boolean pollCq(WorkCompletion out);

    /**
     * Arms the completion handler for the next completion ({@link CqNotify#NEXT_COMP}) or the next solicited or error
     * completion ({@link CqNotify#SOLICITED}) ({@code ibv_req_notify_cq}; rdmavt: {@code rvt_req_notify_cq}). An
     * armed NEXT_COMP is never downgraded to SOLICITED.
     *
     * @param flags {@link CqNotify} bits: exactly one of SOLICITED and NEXT_COMP, optionally REPORT_MISSED_EVENTS
     * @return 1 if REPORT_MISSED_EVENTS was given and the CQ is not empty, else 0
     * @throws VerbsException EINVAL if both or neither of SOLICITED and NEXT_COMP are given (rdmavt would silently
     *                        disarm; rvt refuses)
     */
    int reqNotifyCq(int flags);

    /**
     * The completion channel the CQ was created on ({@code ibv_cq.channel}).
     *
     * @return the channel, or null if the CQ has none
     */
    CompletionChannel channel();

    /**
     * Acknowledges completion events taken for this CQ with {@link CompletionChannel#getCqEvent} or
     * {@link CompletionChannel#tryGetCqEvent()} ({@code ibv_ack_cq_events}). One call may acknowledge several
     * (acknowledging costs a lock, so programs count events and acknowledge them together). A CQ with events taken
     * and not acknowledged cannot be destroyed.
     *
     * @param nevents how many, 0 up to the events taken and not yet acknowledged
     * @throws VerbsException EINVAL if the CQ has no channel, {@code nevents} is negative or more than were taken
     *         and not acknowledged (libibverbs returns nothing and would count the excess, hanging the CQ's destroy),
     *         naming both numbers; EINVAL if the CQ was destroyed
     */
    void ackCqEvents(int nevents);

    /**
     * rvt extension: the events taken from the channel for this CQ and not yet acknowledged (libibverbs'
     * {@code comp_events_completed} against the kernel's {@code comp_events_reported}).
     *
     * @return the count; 0 for a CQ without a channel
     */
    long unackedCqEvents();

    /**
     * Changes the capacity ({@code ibv_resize_cq}; rdmavt: {@code rvt_resize_cq}); queued completions keep their order.
     *
     * @param cqe the new capacity, 1..{@code max_cqe}, at least the number queued
     * @throws VerbsException EINVAL for a bad size or one smaller than the number of queued completions
     */
    void resizeCq(int cqe);

    /** @return the number of completions the CQ holds ({@code ibcq.cqe}) */
    int capacity();

    /**
     * Destroys the CQ ({@code ibv_destroy_cq}), waiting for a running completion handler to return. Events for it
     * still queued on its channel are dropped and the channel no longer counts it.
     *
     * @throws VerbsException EBUSY while a QP uses it, and while events taken from its channel are not acknowledged
     *         ({@link #ackCqEvents(int)}; libibverbs' {@code ibv_destroy_cq} instead blocks until they are, which
     *         never ends in a thread that forgot one), naming how many
     */
    void destroyCq();
}
