package io.rvt.launcher.pingpong;

import io.rvt.api.CompletionChannel;
import io.rvt.api.CompletionQueue;
import io.rvt.api.CqNotify;
import io.rvt.api.Device;
import io.rvt.api.WorkCompletion;
import java.util.concurrent.TimeUnit;

/**
 * The examples' {@code -e}: wait for a CQ's completion event instead of polling it, on a completion channel as
 * {@code ibv_rc_pingpong} does ({@code ibv_create_comp_channel}, {@code ibv_req_notify_cq}, {@code ibv_get_cq_event},
 * and {@code ibv_ack_cq_events} once for all events at the end). Create the CQ on {@link #channel()}; {@link #take}
 * arms the CQ, polls once for what came before the arming, and waits on the channel; {@link #ack} acknowledges the
 * events before the CQ is destroyed, {@link #close()} destroys the channel after.
 */
public final class CqEvents {
    /**
     * The longest wait on the channel between runs of the host's progress (the channel's own wait runs the driver's
     * progress hook; a host whose network only its caller runs, {@code --threading invoker}, moves it here).
     */
    private static final long WAIT_NANOS = 1_000_000;
    private final CompletionChannel channel;
    /** Events taken and not yet acknowledged, as the examples' {@code num_cq_events}. */
    private int events;

    /**
     * @param dev the device the CQ will be on
     */
    public CqEvents(Device dev) {
        this.channel = dev.createCompChannel();
    }

    /** @return the channel to create the CQ on */
    public CompletionChannel channel() {
        return channel;
    }

    /**
     * @param cq the CQ created on {@link #channel()}
     * @param wc filled with the completion
     * @param deadline {@link System#nanoTime()} by which one must have come
     * @param progress run between waits (moves a network the host runs on this thread)
     * @return true if a completion came, false at the deadline
     */
    boolean take(CompletionQueue cq, WorkCompletion wc, long deadline, Runnable progress) {
        while (true) {
            cq.reqNotifyCq(CqNotify.NEXT_COMP.bit());
            if (cq.pollCq(wc)) {
                return true;
            }
            while (channel.getCqEvent(WAIT_NANOS, TimeUnit.NANOSECONDS) == null) {
                if (System.nanoTime() - deadline > 0) {
                    return cq.pollCq(wc);
                }
                progress.run();
            }
            events++;
            if (cq.pollCq(wc)) {
                return true;
            }
        }
    }

    /** @return the events taken and not yet acknowledged (the examples' {@code num_cq_events}) */
    public int events() {
        return events;
    }

    /**
     * Arms the CQ for its next completion's event ({@code ibv_req_notify_cq(cq, 0)}).
     *
     * @param cq the CQ created on {@link #channel()}
     */
    public void arm(CompletionQueue cq) {
        cq.reqNotifyCq(CqNotify.NEXT_COMP.bit());
    }

    /**
     * perftest's {@code ctx_notify_events}: waits on the channel (at most {@link #WAIT_NANOS} at a time, so that the
     * caller's deadlines and other queues are looked at between waits) and, if the CQ's event came, counts it and
     * arms the CQ again; the caller then polls the CQ, which finds whatever completed before the arming. The CQ must
     * have been {@link #arm armed} before the first wait.
     *
     * @param cq the CQ created on {@link #channel()}
     * @param progress run when no event came (moves a network the host runs on this thread)
     * @return whether an event came
     */
    public boolean awaitEvent(CompletionQueue cq, Runnable progress) {
        if (channel.getCqEvent(WAIT_NANOS, TimeUnit.NANOSECONDS) == null) {
            progress.run();
            return false;
        }
        events++;
        arm(cq);
        return true;
    }

    /**
     * Acknowledges every event taken ({@code ibv_ack_cq_events(cq, num_cq_events)}) so that {@code cq} can be
     * destroyed.
     *
     * @param cq the CQ
     */
    public void ack(CompletionQueue cq) {
        cq.ackCqEvents(events);
        events = 0;
    }

    /** Destroys the channel ({@code ibv_destroy_comp_channel}); its CQ must be destroyed first. */
    public void close() {
        channel.destroyCompChannel();
    }
}
