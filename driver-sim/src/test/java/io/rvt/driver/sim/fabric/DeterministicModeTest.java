package io.rvt.driver.sim.fabric;

import io.rvt.api.spi.agent.ThreadingMode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.spi.RvtTimer;
import io.rvt.driver.sim.clock.EventLoop;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class DeterministicModeTest {
    @Test
    void shouldInterleaveTimersTasksAndFramesByVirtualTime() {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("interleave")).deterministic(5)
                .defaultLink(LinkModel.of(0, 500)).build()) {
            List<String> log = new ArrayList<>();
            FabricPort a = f.newPort().attach();
            FabricPort b = f.newPort().handler(fr -> {
                log.add("frame@" + f.nanoTime());
                fr.release();
            }).attach();
            RvtTimer retry = f.timerService().newTimer("retry", () -> log.add("retry@" + f.nanoTime()));
            RvtTimer rnr = f.timerService().newTimer("rnr", () -> log.add("rnr@" + f.nanoTime()));

            retry.arm(1_500);
            rnr.arm(700);
            f.executor().execute(() -> {
                log.add("send@" + f.nanoTime());
                a.send(b.lid(), ByteBuffer.allocate(8)); // arrives at 500 + 500
            });
            f.runFor(800);
            rnr.cancel();
            retry.arm(100); // re-armed at 800 => 900
            f.runUntilIdle();

            assertThat(log).containsExactly("send@0", "rnr@700", "retry@900", "frame@1000");
            assertThat(f.timerService().nanoTime()).isEqualTo(1_000);
        }
    }

    @Test
    void shouldStopAtTheConditionWhenRunUntilAFrameArrives() {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("until")).deterministic(5)
                .defaultLink(LinkModel.of(1_000_000_000L, 0)).build()) {
            Recorder rb = new Recorder(f);
            FabricPort a = f.newPort().attach();
            FabricPort b = f.newPort().handler(rb).attach();
            for (int i = 0; i < 10; i++) {
                a.send(b.lid(), ByteBuffer.allocate(125)); // 1000 ns on each link
            }

            assertThat(f.runUntil(() -> rb.count() == 3, 1_000_000)).isTrue();

            assertThat(f.nanoTime()).isEqualTo(4_000);
            assertThat(f.runUntil(() -> rb.count() == 100, 5_000)).isFalse();
            assertThat(f.nanoTime()).isEqualTo(9_000);
        }
    }

    @Test
    void shouldShareOneLoopAndClockWhenTwoFabricsUseTheSameLoop() {
        EventLoop loop = new EventLoop();
        try (Fabric one = Fabric.builder(TestSupport.uniqueName("shared1")).deterministic(1).eventLoop(loop).build();
                Fabric two = Fabric.builder(TestSupport.uniqueName("shared2")).deterministic(2).eventLoop(loop)
                        .build()) {
            List<String> log = new ArrayList<>();
            FabricPort a1 = one.newPort().link(LinkModel.of(0, 300)).attach();
            FabricPort b1 = one.newPort().handler(fr -> { log.add("one@" + loop.nanoTime()); fr.release(); }).attach();
            FabricPort a2 = two.newPort().link(LinkModel.of(0, 200)).attach();
            FabricPort b2 = two.newPort().handler(fr -> { log.add("two@" + loop.nanoTime()); fr.release(); }).attach();

            a1.send(b1.lid(), ByteBuffer.allocate(1));
            a2.send(b2.lid(), ByteBuffer.allocate(1));
            loop.runUntilIdle();

            assertThat(log).containsExactly("two@200", "one@300");
            assertThat(one.loop()).isSameAs(two.loop());
        }
        assertThatThrownBy(() -> Fabric.builder("x").realTime().eventLoop(loop).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shared event loop");
    }

    @Test
    @Timeout(10)
    void shouldRunTheLoopOnItsOwnThreadWhenDedicated() {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("det-thread")).deterministic(9)
                .threading(ThreadingMode.DEDICATED).defaultLink(LinkModel.of(0, 1_000_000)).build()) {
            List<Long> times = Collections.synchronizedList(new ArrayList<>());
            List<String> threads = Collections.synchronizedList(new ArrayList<>());
            FabricPort a = f.newPort().attach();
            FabricPort b = f.newPort().handler(fr -> {
                times.add(f.nanoTime());
                threads.add(Thread.currentThread().getName());
                fr.release();
            }).attach();

            // One task, so all five leave at virtual time 0: tasks submitted one by one race the loop thread, which
            // may already have moved virtual time on to the first delivery when the later ones arrive.
            f.executor().execute(() -> {
                for (int i = 0; i < 5; i++) {
                    a.send(b.lid(), ByteBuffer.allocate(4));
                }
            });
            TestSupport.await(() -> times.size() == 5, () -> "5 deliveries, got " + times);

            assertThat(times).containsOnly(2_000_000L);
            assertThat(threads).containsOnly(f.thread().getName());
            assertThatThrownBy(f::runUntilIdle).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void shouldRefuseLoopOperationsWhenRealTime() {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("rt")).realTime().threading(ThreadingMode.INVOKER)
                .build()) {
            assertThatThrownBy(f::loop).isInstanceOf(IllegalStateException.class).hasMessageContaining("real-time");
            assertThatThrownBy(f::timerService).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(f::trace).isInstanceOf(IllegalStateException.class);
            assertThat(f.traceHash()).isZero();
        }
    }
}
