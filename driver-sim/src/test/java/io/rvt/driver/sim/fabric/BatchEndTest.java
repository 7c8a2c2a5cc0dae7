package io.rvt.driver.sim.fabric;

import io.rvt.api.spi.agent.ThreadingMode;
import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.driver.sim.clock.VirtualClock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** FrameHandler.onBatchEnd: after the frames one duty cycle delivered to a port, or after each deterministic frame. */
class BatchEndTest {
    /** Records "f<tag>" per frame and "end" per batch end. */
    static final class Log implements FrameHandler {
        final List<String> events = new ArrayList<>();

        @Override
        public void onFrame(Frame frame) {
            events.add("f" + frame.buffer().getInt(0));
            frame.release();
        }

        @Override
        public void onBatchEnd() {
            events.add("end");
        }
    }

    private static void send(FabricPort from, FabricPort to, int tag) {
        Frame f = from.acquire();
        f.buffer().putInt(0, tag);
        f.length(64).dstLid(to.lid());
        assertThat(from.send(f)).isTrue();
    }

    @Test
    void shouldEndTheBatchOnceAfterEveryFrameOfADutyCycleWhenRealTime() throws Exception {
        VirtualClock clock = new VirtualClock();
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("batch-rt")).realTime().clock(clock)
                .threading(ThreadingMode.INVOKER).build()) {
            Log log = new Log();
            FabricPort a = f.newPort().attach();
            FabricPort b = f.newPort().handler(log).attach();
            send(a, b, 1);
            send(a, b, 2);
            send(a, b, 3);
            f.agent().doWork();
            assertThat(log.events).containsExactly("f1", "f2", "f3", "end");
            f.agent().doWork();
            assertThat(log.events).as("no frame, no batch end").hasSize(4);
            send(a, b, 4);
            f.agent().doWork();
            assertThat(log.events).containsExactly("f1", "f2", "f3", "end", "f4", "end");
        }
    }

    @Test
    void shouldEndABatchAfterEachFrameWhenDeterministic() {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("batch-det")).deterministic(1).build()) {
            Log log = new Log();
            FabricPort a = f.newPort().attach();
            FabricPort b = f.newPort().handler(log).attach();
            send(a, b, 1);
            send(a, b, 2);
            f.runUntilIdle();
            assertThat(log.events).containsExactly("f1", "end", "f2", "end");
        }
    }
}
