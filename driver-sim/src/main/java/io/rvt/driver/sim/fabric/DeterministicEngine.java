package io.rvt.driver.sim.fabric;

import io.rvt.api.spi.agent.Agent;
import io.rvt.driver.sim.clock.EventLoop;
import io.rvt.driver.sim.clock.NanoClock;
import java.util.concurrent.Executor;

/** Deterministic mode: each stage of a frame is its (reused) event on the loop, at its virtual time. */
final class DeterministicEngine extends Engine {
    private final EventLoop loop;

    DeterministicEngine(Forwarder forwarder, EventLoop loop) {
        super(forwarder);
        this.loop = loop;
    }

    EventLoop loop() {
        return loop;
    }

    @Override
    NanoClock clock() {
        return loop;
    }

    @Override
    long sendTime() {
        return loop.nanoTime();
    }

    @Override
    boolean submit(Frame f) {
        f.stage = Frame.STAGE_SEND;
        loop.schedule(f.event, f.timestamp());
        return true;
    }

    @Override
    void toSwitch(Frame f, long at) {
        f.stage = Frame.STAGE_SWITCH;
        loop.schedule(f.event, at);
    }

    @Override
    void toDeliver(Frame f, long at) {
        f.stage = Frame.STAGE_DELIVER;
        loop.schedule(f.event, at);
    }

    @Override
    Agent agent() {
        return loop.agent();
    }

    @Override
    Executor executor() {
        return loop.executor();
    }
}
