package io.rvt.driver.sim.fabric;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Receives the frames delivered to a {@link FabricPort} (the HCA's receive path). Called on the fabric's delivery
 * thread: the event loop's driving thread in deterministic mode, the delivery agent's thread in real-time mode; one
 * call at a time per fabric.
 */
@ConsumerType
@FunctionalInterface
public interface FrameHandler {
    /**
     * Takes a delivered frame. The handler now owns it and must {@link Frame#release()} it, now or later and on any
     * thread (it may pass it to another thread first). Its buffer has position 0 and limit {@link Frame#length()}. An
     * exception is counted and passed to the fabric's error handler; the frame is then still the handler's.
     *
     * @param frame the frame
     */
    void onFrame(Frame frame);

    /**
     * The frames delivered to this port in a row (one duty cycle of the real-time delivery agent; a single frame in
     * deterministic mode) have all been passed to {@link #onFrame}: the moment to send what the receive path
     * deferred, as hfi1 sends the ACKs it coalesced at the end of a receive interrupt. Same thread as
     * {@link #onFrame}. Does nothing by default.
     */
    default void onBatchEnd() {
    }

    /**
     * @return true if this handler takes frames whose bytes are still {@link Frame#hasDeferredBytes() deferred}: it
     *         reads a payload left in the sender's memory from the frame's slices and trusts sealed frames without
     *         reading their checksum (or calls {@link Frame#completeBytes()}); false (the default) to have the fabric
     *         complete the bytes before delivery
     */
    default boolean acceptsDeferredBytes() {
        return false;
    }

    /**
     * @return true if this handler takes {@link Frame#burst bursts} (it also {@link #acceptsDeferredBytes() accepts
     *         deferred bytes}: a burst's payload is only in its slices); false (the default): senders send it one
     *         packet per frame, and a burst that meets it anyway (the handler was replaced while the burst was on its
     *         way) is dropped as {@link DropCause#NO_HANDLER}, each of its packets counted
     */
    default boolean acceptsBursts() {
        return false;
    }
}
