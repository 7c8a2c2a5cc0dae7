package io.rvt.driver.sim.fabric;

import io.rvt.api.spi.agent.Agent;
import io.rvt.driver.sim.clock.NanoClock;
import java.util.concurrent.Executor;

/** When the {@link Forwarder}'s stages run: the mode-specific half of a fabric. */
abstract class Engine {
    final Forwarder forwarder;
    /**
     * The thread running the engine's duty cycle now, or null (set by the real-time engine around each cycle). Read
     * without synchronisation: a thread finds its own reference here only while it runs the cycle, as only it writes
     * that reference and it clears it before it leaves.
     */
    Thread cycleThread;

    Engine(Forwarder forwarder) {
        this.forwarder = forwarder;
    }

    abstract NanoClock clock();

    /** @return true if the calling thread runs the engine's duty cycle now */
    final boolean inCycle() {
        return cycleThread == Thread.currentThread();
    }

    /**
     * @return the send time to stamp on a frame a sender hands over now; any thread. The real-time engine returns 0
     *         and stamps frames itself when it takes them in (one clock read per batch instead of one per frame)
     */
    abstract long sendTime();

    /** Takes a stamped frame from a sender; any thread. @return false if it cannot be queued now */
    abstract boolean submit(Frame f);

    /** Runs {@link Forwarder#onSwitch} for {@code f} at {@code at}; delivery thread. */
    abstract void toSwitch(Frame f, long at);

    /** Runs {@link Forwarder#onDeliver} for {@code f} at {@code at}; delivery thread. */
    abstract void toDeliver(Frame f, long at);

    abstract Agent agent();

    abstract Executor executor();

    void portAttached(FabricPort p) {
    }

    /** Releases every frame still held; called after the delivery thread has stopped. */
    void close() {
    }
}
