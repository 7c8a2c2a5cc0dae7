package io.rvt.api;

import java.util.concurrent.TimeUnit;
import org.osgi.annotation.versioning.ConsumerType;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A completion event channel ({@code struct ibv_comp_channel}, made by {@code ibv_create_comp_channel}; in the kernel
 * the uverbs completion event file whose {@code ib_uverbs_comp_handler} is each of its CQs' {@code comp_handler}): a
 * queue of completion events shared by any number of completion queues of one device. A CQ created on it
 * ({@link Device#createCq(int, int, CompletionChannel, CompletionHandler, AsyncEventHandler)}) and armed with
 * {@link CompletionQueue#reqNotifyCq(int)} adds one event when its armed notification fires (rdmavt's
 * {@code rvt_cq_enter} calling {@code comp_handler}); {@link #getCqEvent(long, TimeUnit)} takes events in the order
 * they came and says which CQ each is for; {@link CompletionQueue#ackCqEvents(int)} acknowledges them.
 *
 * <p>Waiting: where libibverbs blocks in {@code read} on the channel's file descriptor (or the application in
 * {@code poll}/{@code epoll} on it), rvt's {@link #getCqEvent(long, TimeUnit)} blocks with a timeout, and the
 * non-blocking {@link #tryGetCqEvent()} (the descriptor's {@code O_NONBLOCK} read, {@code EAGAIN} being null) with
 * {@link #setEventListener(EventListener)} serve selector-style loops: the listener is told when an event comes, e.g.
 * to call {@code java.nio.channels.Selector.wakeup()} or complete a future. rvt extension, the progress hook: a thread
 * waiting in {@code getCqEvent} runs the driver's engines as a verb that waits does
 * ({@link io.rvt.api.spi.RvtDriver#progressWhileWaiting()}), and one finding the channel empty in
 * {@code tryGetCqEvent} as an empty {@code pollCq} does ({@link io.rvt.api.spi.RvtDriver#progress(int)}), so that a
 * program whose only thread waits for events still moves the network when no other thread does.
 *
 * <p>Every method may be called from any thread.
 */
@ProviderType
public interface CompletionChannel {
    /** @return the device the channel belongs to ({@code ibv_comp_channel.context}) */
    Device device();

    /**
     * Takes the oldest completion event, waiting up to {@code timeout} for one ({@code ibv_get_cq_event}, with the
     * wait for the channel's descriptor that libibverbs leaves to {@code poll}). Each event taken must be acknowledged
     * with {@link CompletionQueue#ackCqEvents(int)} on the CQ returned before that CQ can be destroyed. The event
     * disarms the CQ: call {@link CompletionQueue#reqNotifyCq(int)} again for the next, then poll the CQ.
     *
     * <p>While it waits the calling thread runs the driver's progress hook whenever no other thread is in the
     * driver's engines, and parks between turns; a new event wakes it at once.
     *
     * @param timeout the longest wait; 0 takes an event only if one is queued (after one run of the progress hook)
     * @param unit the timeout's unit
     * @return the CQ the event is for, or null if none came within the timeout
     * @throws VerbsException EINVAL for a negative timeout or a null unit; EBADF if the channel is, or while waiting
     *         was, destroyed ({@code read} on a closed descriptor); EINTR if the thread was interrupted (its
     *         interrupt status stays set)
     */
    CompletionQueue getCqEvent(long timeout, TimeUnit unit);

    /**
     * Takes the oldest completion event if there is one, without waiting ({@code ibv_get_cq_event} on a channel whose
     * descriptor is {@code O_NONBLOCK}: null is its {@code EAGAIN}). An empty channel first runs the driver's progress
     * hook once and looks again, as an empty {@code pollCq} does.
     *
     * @return the CQ the event is for, or null if none is queued
     * @throws VerbsException EBADF if the channel was destroyed
     */
    CompletionQueue tryGetCqEvent();

    /**
     * rvt extension: the events queued and not yet taken (what makes the channel's descriptor readable in
     * {@code poll}). Does not run the progress hook.
     *
     * @return the number of queued events; 0 once destroyed
     */
    int pendingEvents();

    /**
     * rvt extension, the wake-up hook of selector-style loops (where a C program adds the channel's descriptor to
     * its {@code epoll} set): {@code listener} is called after each event is queued, on the thread that queued it (a
     * driver's engine, a thread in the progress hook, or one of rvt's completion threads), with no rvt lock held. It
     * must be quick and must not block: wake the loop ({@code Selector.wakeup()}, {@code LockSupport.unpark}) and let
     * it take the event with {@link #tryGetCqEvent()}. A listener that throws is logged.
     *
     * @param listener the listener, or null to remove it
     */
    void setEventListener(EventListener listener);

    /**
     * Destroys the channel ({@code ibv_destroy_comp_channel}). Threads waiting in
     * {@link #getCqEvent(long, TimeUnit)} wake and fail with EBADF; queued events are dropped.
     *
     * @throws VerbsException EBUSY while completion queues are associated with the channel (as libibverbs refuses),
     *         naming how many; EBADF if already destroyed
     */
    void destroyCompChannel();

    /**
     * rvt extension: told when a completion event is queued on a channel (see
     * {@link CompletionChannel#setEventListener(EventListener)}).
     */
    @ConsumerType
    @FunctionalInterface
    interface EventListener {
        /**
         * @param channel the channel that has a new event
         */
        void onCqEvent(CompletionChannel channel);
    }
}
