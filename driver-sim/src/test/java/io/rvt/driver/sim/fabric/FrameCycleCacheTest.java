package io.rvt.driver.sim.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.spi.agent.ThreadingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A real-time port's own pool keeps frames released in the fabric's duty cycle for the cycle's next acquires. */
class FrameCycleCacheTest {
    private static Frame frameTo(FabricPort from, int dlid) {
        Frame f = from.acquire();
        f.buffer().putInt(0, 42);
        return f.length(64).dstLid(dlid);
    }

    @Test
    void shouldHandTheCycleTheFrameItReleasedWhenItAcquiresAgain() throws Exception {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("cache")).realTime().threading(ThreadingMode.INVOKER)
                .build()) {
            FabricPort a = f.newPort().pool(16, 64, 0, false).attach();
            List<Boolean> same = new ArrayList<>();
            FabricPort b = f.newPort().handler(frame -> {
                frame.release();
                Frame again = a.acquire(); // in the cycle: the frame just released, without the ring
                same.add(again == frame);
                again.release();
            }).attach();
            assertThat(a.send(frameTo(a, b.lid()))).isTrue();
            f.agent().doWork();
            assertThat(same).containsExactly(true);
            assertThat(a.pool().available()).as("cached frames count as free").isEqualTo(16);
        }
    }

    @Test
    void shouldGiveAWaitingSenderTheCachedFramesAtTheEndOfTheNextCycle() throws Exception {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("cache-wait")).realTime()
                .threading(ThreadingMode.INVOKER).build()) {
            FabricPort a = f.newPort().pool(8, 64, 0, false).attach(); // a cache of 8 / 4 = 2 frames
            FabricPort b = f.newPort().handler(Frame::release).attach();
            assertThat(a.send(frameTo(a, b.lid()))).isTrue();
            assertThat(a.send(frameTo(a, b.lid()))).isTrue();
            f.agent().doWork(); // both released in the cycle: kept by it
            List<Frame> held = new ArrayList<>();
            for (Frame x; (x = a.acquire()) != null;) {
                held.add(x);
            }
            assertThat(held).as("outside the cycle only the ring's frames").hasSize(6);
            AtomicInteger refills = new AtomicInteger();
            a.pool().refillListener(refills::incrementAndGet);
            assertThat(a.pool().armRefill()).isTrue();

            f.agent().doWork();

            assertThat(refills).hasValue(1);
            assertThat(a.acquire()).isNotNull();
            assertThat(a.acquire()).isNotNull();
            assertThat(a.acquire()).isNull();
        }
    }

    @Test
    void shouldNotKeepFramesInADeterministicFabric() throws Exception {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("cache-det")).deterministic(1).build()) {
            FabricPort a = f.newPort().pool(8, 64, 0, false).attach();
            FabricPort b = f.newPort().handler(Frame::release).attach();
            assertThat(a.send(frameTo(a, b.lid()))).isTrue();
            f.runUntilIdle();
            int n = 0;
            while (a.acquire() != null) {
                n++;
            }
            assertThat(n).isEqualTo(8);
        }
    }
}
