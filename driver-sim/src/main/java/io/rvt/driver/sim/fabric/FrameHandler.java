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
}
