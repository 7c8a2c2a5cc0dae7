package io.rvt.driver.sim.clock;

import io.rvt.api.spi.agent.DeadlineHeap;

/**
 * Something an {@link EventLoop} runs at a virtual time: subclass it and implement {@link #onEvent()}. An event
 * object is reusable — schedule it, let it run, schedule it again — so a steady state allocates nothing (driver-sim's
 * frames each carry one). An event is queued in at most one loop and at most once: scheduling it again moves it.
 *
 * <p>Events run in the order of their time, and of their scheduling sequence when times are equal (the order in which
 * {@link EventLoop#schedule(LoopEvent, long)} was called), which is what makes a run reproducible.
 */
public abstract class LoopEvent {
    /** Its place in the loop's queue: due time, scheduling sequence (the tie-break), slot; under the loop's lock. */
    final DeadlineHeap.Node<LoopEvent> node = new DeadlineHeap.Node<>(this);
    /** The loop this event was last scheduled on; written under that loop's lock. */
    EventLoop loop;

    /** Creates an event that is not scheduled. */
    protected LoopEvent() {
    }

    /**
     * Runs the event, on the thread driving the loop, with the loop's clock at the event's time. An exception
     * propagates out of the loop's {@code step}/{@code run*} call that ran it (the rest of the queue stays intact).
     */
    protected abstract void onEvent();

    /** @return the time the event was last scheduled for (ns of virtual time) */
    public final long time() {
        EventLoop l = loop;
        if (l == null) {
            return node.deadline();
        }
        synchronized (l.lock) {
            return node.deadline();
        }
    }

    /** @return true if the event is queued in a loop and has not run yet */
    public final boolean isScheduled() {
        EventLoop l = loop;
        if (l == null) {
            return false;
        }
        synchronized (l.lock) {
            return node.isQueued();
        }
    }
}
