package io.rvt.driver.sim.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link DropRule}: a test's precise fault loses exactly the frames it picks, counted as {@link DropCause#RULE}. */
class DropRuleTest {
    private static final int FRAMES = 100;

    /** Sends frames 0..FRAMES-1 (their first int is their number) from a to b and runs the fabric until idle. */
    private static void sendAll(Fabric f, FabricPort a, FabricPort b) {
        for (int i = 0; i < FRAMES; i++) {
            Frame frame = a.acquire();
            frame.put(ByteBuffer.allocate(32).putInt(0, i)).dstLid(b.lid());
            assertThat(a.send(frame)).isTrue();
            f.runUntilIdle();
        }
    }

    @Test
    void shouldLoseExactlyTheFramesTheRuleChoosesWhenOneIsSet() {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("rule")).deterministic(1).build()) {
            Recorder rb = new Recorder(f);
            FabricPort a = f.newPort().attach();
            FabricPort b = f.newPort().handler(rb).attach();
            List<String> asked = new ArrayList<>();
            f.dropRule((from, to, bytes) -> {
                asked.add(from.lid() + ">" + to.lid());
                assertThat(bytes.isReadOnly()).isTrue();
                assertThat(bytes.position()).isZero();
                assertThat(bytes.remaining()).isEqualTo(32);
                int n = bytes.getInt(0);
                return n == 7 || n == 42;
            });
            sendAll(f, a, b);

            assertThat(rb.firstInts()).hasSize(FRAMES - 2).doesNotContain(7, 42);
            assertThat(f.counters().drops(DropCause.RULE)).isEqualTo(2);
            assertThat(b.counters().drops(DropCause.RULE)).isEqualTo(2);
            assertThat(f.counterMap()).containsEntry("drop.rule", 2L);
            assertThat(asked).hasSize(FRAMES).containsOnly(a.lid() + ">" + b.lid());
        }
    }

    @Test
    void shouldDeliverEveryFrameAgainWhenTheRuleIsRemoved() {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("rule")).deterministic(1).build()) {
            Recorder rb = new Recorder(f);
            FabricPort a = f.newPort().attach();
            FabricPort b = f.newPort().handler(rb).attach();
            DropRule all = (from, to, bytes) -> true;
            f.dropRule(all);
            assertThat(f.dropRule()).isSameAs(all);
            f.dropRule(null);
            sendAll(f, a, b);

            assertThat(rb.count()).isEqualTo(FRAMES);
            assertThat(f.counters().totalDrops()).isZero();
        }
    }

    @Test
    void shouldBuildNoBurstsWhileARuleIsSet() {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("rule")).realTime().build()) {
            FabricPort a = f.newPort().attach();
            FabricPort b = f.newPort().handler(new FrameHandler() {
                @Override
                public void onFrame(Frame frame) {
                    frame.release();
                }

                @Override
                public boolean acceptsBursts() {
                    return true;
                }
            }).attach();
            assertThat(f.burstLimit(a, b.lid())).isEqualTo(Frame.MAX_BURST);
            int epoch = f.burstEpoch();
            f.dropRule((from, to, bytes) -> false);

            assertThat(f.burstEpoch()).isNotEqualTo(epoch);
            assertThat(f.burstLimit(a, b.lid())).isEqualTo(1);
            f.dropRule(null);
            assertThat(f.burstLimit(a, b.lid())).isEqualTo(Frame.MAX_BURST);
        }
    }
}
