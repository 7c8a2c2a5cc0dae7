package io.rvt.it.interop.tools;

import io.rvt.api.CompletionChannel;
import io.rvt.api.CompletionQueue;
import io.rvt.api.CqNotify;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waits for the completion of one work request on a CQ that others share, keeping those that come first for their
 * own waits (a SEND's completion may come before or after the peer's answer to it, as the ACK travels). Every wait
 * ends at the run's deadline; a completion with an error status fails the run, naming it.
 *
 * <p>An empty poll runs driver-jni's port engine (its progress hook); after a few it parks 100 us between polls, so
 * that a run waiting on a slow peer (rxe under TCG) leaves the machine's cores to it; the port's own thread takes
 * over the engine meanwhile.
 *
 * <p>On a CQ made on a completion channel it waits as rping's {@code cq_thread} does instead: an empty poll arms the
 * CQ ({@code ibv_req_notify_cq}), polls once more (a completion that came before the arming), and blocks in
 * {@code ibv_get_cq_event} (rvt's {@code getCqEvent}, which runs the progress hook meanwhile), acknowledging each event
 * at once ({@code ibv_ack_cq_events(cq, 1)}); {@link #events()} counts them.
 */
final class CompletionWaiter {
    private static final int SPINS = 64;
    private static final long PARK_NANOS = 100_000;
    /** How long a flush may come before the end of the connection is reported. */
    private static final long FLUSH_TO_END_NANOS = 5_000_000_000L;

    /** The longest one wait for an event, so that the run's deadline and a connection's end are seen. */
    private static final long EVENT_WAIT_MILLIS = 20;

    private final CompletionQueue cq;
    private final CompletionChannel channel;
    private final ToolContext ctx;
    private final List<WorkCompletion> unclaimed = new ArrayList<>();
    private long events;

    /**
     * @param cq the CQ
     * @param ctx the run (its deadline)
     */
    CompletionWaiter(CompletionQueue cq, ToolContext ctx) {
        this(cq, null, ctx);
    }

    /**
     * @param cq the CQ
     * @param channel the completion channel {@code cq} was made on, to wait on its events, or null to poll
     * @param ctx the run (its deadline)
     */
    CompletionWaiter(CompletionQueue cq, CompletionChannel channel, ToolContext ctx) {
        this.cq = cq;
        this.channel = channel;
        this.ctx = ctx;
    }

    /** @return the completion events taken (and acknowledged) from the channel */
    long events() {
        return events;
    }

    /**
     * @param wrId the work request's ID
     * @param what what it is, for the failure message
     * @return its successful completion
     * @throws ToolFailure on an error status or when the run's time is up
     */
    WorkCompletion await(long wrId, String what) throws ToolFailure {
        WorkCompletion wc = awaitOrEnd(wrId, what, () -> false);
        if (wc == null) {
            throw new ToolFailure(what + ": flushed");
        }
        return wc;
    }

    /**
     * Waits for the completion of the last RC send of a run whose peer may be gone by then: the peer's own success
     * says the message arrived, but its ACK may have been lost with the peer ending right after (the retries then
     * end in RETRY_EXC_ERR).
     *
     * @param wrId the work request's ID
     * @param what what it is, for the failure message
     * @return true if it completed successfully, false if its ACK never came
     * @throws ToolFailure on any other error status or when the run's time is up
     */
    boolean awaitLast(long wrId, String what) throws ToolFailure {
        try {
            return await(wrId, what) != null;
        } catch (LastSendUnacknowledged e) {
            return false;
        }
    }

    /**
     * Waits for a completion that may never come because the peer ends the connection (rping's server waits for the
     * next advertisement until the client disconnects).
     *
     * @param wrId the work request's ID
     * @param what what it is, for the failure message
     * @param ended true once the connection has ended
     * @return its successful completion, or null if the connection ended and the request was flushed or is still
     *         waiting
     * @throws ToolFailure on an error status other than a flush after the end, or when the run's time is up
     */
    WorkCompletion awaitOrEnd(long wrId, String what, BooleanSupplier ended) throws ToolFailure {
        int empty = 0;
        while (true) {
            WorkCompletion wc = take(wrId);
            if (wc == null) {
                wc = new WorkCompletion();
                if (cq.pollCq(wc)) {
                    empty = 0;
                    if (wc.wrId() != wrId) {
                        unclaimed.add(wc);
                        continue;
                    }
                } else {
                    wc = null;
                }
            }
            if (wc != null) {
                if (wc.status() == WcStatus.SUCCESS) {
                    return wc;
                }
                if (wc.status() == WcStatus.WR_FLUSH_ERR && endsSoon(ended)) {
                    return null;
                }
                String message = what + " (wr_id " + wrId + ") completed with " + wc.status() + ": " + wc;
                throw wc.status() == WcStatus.RETRY_EXC_ERR ? new LastSendUnacknowledged(message)
                        : new ToolFailure(message);
            }
            if (ended.getAsBoolean()) {
                return null;
            }
            ctx.checkDeadline(what + " (wr_id " + wrId + ")");
            if (channel != null) {
                awaitEvent();
            } else if (++empty > SPINS) {
                LockSupport.parkNanos(PARK_NANOS);
            } else {
                Thread.onSpinWait();
            }
        }
    }

    /**
     * A flush may come before the CM reports the end: the DREQ's handling moves the QP to ERR first. Waits a little
     * for the end.
     */
    private static boolean endsSoon(BooleanSupplier ended) {
        long until = System.nanoTime() + FLUSH_TO_END_NANOS;
        while (!ended.getAsBoolean()) {
            if (System.nanoTime() - until > 0) {
                return false;
            }
            LockSupport.parkNanos(PARK_NANOS);
        }
        return true;
    }

    /** Arms the CQ, and if nothing came meanwhile, waits a while for its event and acknowledges it. */
    private void awaitEvent() {
        cq.reqNotifyCq(CqNotify.NEXT_COMP.bit());
        WorkCompletion wc = new WorkCompletion();
        if (cq.pollCq(wc)) {
            unclaimed.add(wc); // came before the arming; the armed CQ's next completion still queues an event
            return;
        }
        CompletionQueue ready = channel.getCqEvent(EVENT_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        if (ready != null) {
            ready.ackCqEvents(1);
            events++;
        }
    }

    /** A send whose ACK never came: a failure, except for {@link #awaitLast}. */
    private static final class LastSendUnacknowledged extends ToolFailure {
        private static final long serialVersionUID = 1L;

        LastSendUnacknowledged(String message) {
            super(message);
        }
    }

    private WorkCompletion take(long wrId) {
        for (Iterator<WorkCompletion> it = unclaimed.iterator(); it.hasNext();) {
            WorkCompletion wc = it.next();
            if (wc.wrId() == wrId) {
                it.remove();
                return wc;
            }
        }
        return null;
    }
}
