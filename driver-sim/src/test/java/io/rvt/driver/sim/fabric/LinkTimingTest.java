package io.rvt.driver.sim.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LinkTimingTest {
    private final Fabric fabric = Fabric.builder(TestSupport.uniqueName("timing")).deterministic(1).build();

    @AfterEach
    void close() {
        fabric.close();
    }

    @Test
    void shouldArriveAtExactVirtualTimesWhenLinksHaveBandwidthAndLatency() {
        Recorder rb = new Recorder(fabric);
        FabricPort a = fabric.newPort().link(LinkModel.of(100_000_000_000L, 500)).attach();
        FabricPort b = fabric.newPort().link(LinkModel.of(10_000_000_000L, 200)).handler(rb).attach();

        a.send(b.lid(), ByteBuffer.allocate(1000));
        a.send(b.lid(), ByteBuffer.allocate(1000));
        fabric.runUntilIdle();

        // 1st: a serialises 80 ns, +500 at the switch (580), b's link 800 ns (1380), +200 => 1580
        // 2nd: a is busy until 80, done 160, switch 660; b's link busy until 1380, done 2180, +200 => 2380
        assertThat(rb.times()).containsExactly(1580L, 2380L);
    }

    @Test
    void shouldQueueOnTheReceiversLinkWhenTwoSendersConverge() {
        Recorder rb = new Recorder(fabric);
        FabricPort a = fabric.newPort().link(LinkModel.of(100_000_000_000L, 0)).attach();
        FabricPort c = fabric.newPort().link(LinkModel.of(100_000_000_000L, 0)).attach();
        FabricPort b = fabric.newPort().link(LinkModel.of(10_000_000_000L, 0)).handler(rb).attach();

        a.send(b.lid(), ByteBuffer.allocate(1000).putInt(0, 1));
        c.send(b.lid(), ByteBuffer.allocate(1000).putInt(0, 2));
        fabric.runUntilIdle();

        // both reach the switch at 80; b's link takes them one after the other, 800 ns each
        assertThat(rb.times()).containsExactly(880L, 1680L);
        assertThat(rb.firstInts()).containsExactly(1, 2);
    }

    @Test
    void shouldArriveAtTheSendTimeWhenLinksAreIdeal() {
        Recorder rb = new Recorder(fabric);
        FabricPort a = fabric.newPort().attach();
        FabricPort b = fabric.newPort().handler(rb).attach();
        fabric.runFor(12_345);

        a.send(b.lid(), ByteBuffer.allocate(4000));
        fabric.runUntilIdle();

        assertThat(rb.times()).containsExactly(12_345L);
        assertThat(LinkModel.IDEAL.serializationNanos(4000)).isZero();
        assertThat(LinkModel.of(3, 0).serializationNanos(1)).as("rounded up").isEqualTo(2_666_666_667L);
    }

    @Test
    void shouldMatchTheReferenceModelWhenLinksAndTrafficAreRandom() {
        for (int round = 0; round < 30; round++) {
            long seed = new SplittableRandom().nextLong();
            SplittableRandom r = new SplittableRandom(seed);
            try (Fabric f = Fabric.builder(TestSupport.uniqueName("timing-prop")).deterministic(seed).build()) {
                LinkModel src = LinkModel.of(r.nextInt(4) == 0 ? 0 : 1_000_000_000L * (1 + r.nextInt(200)),
                        r.nextLong(5_000));
                LinkModel dst = LinkModel.of(r.nextInt(4) == 0 ? 0 : 1_000_000_000L * (1 + r.nextInt(200)),
                        r.nextLong(5_000));
                Recorder rb = new Recorder(f);
                FabricPort a = f.newPort().link(src).attach();
                FabricPort b = f.newPort().link(dst).handler(rb).attach();
                List<Long> expected = new ArrayList<>();
                long txFree = Long.MIN_VALUE;
                long outFree = Long.MIN_VALUE;
                long now = 0;
                for (int i = 0; i < 50; i++) {
                    if (r.nextBoolean()) {
                        long gap = r.nextLong(2_000);
                        f.runFor(gap);
                        now += gap;
                    }
                    int len = 1 + r.nextInt(4096);
                    a.send(b.lid(), ByteBuffer.allocate(len));
                    long txEnd = Math.max(now, txFree) + src.serializationNanos(len);
                    txFree = txEnd;
                    long outEnd = Math.max(txEnd + src.latencyNanos(), outFree) + dst.serializationNanos(len);
                    outFree = outEnd;
                    expected.add(outEnd + dst.latencyNanos());
                }
                f.runUntilIdle();
                assertThat(rb.times()).as("seed=0x%x src=%s dst=%s", seed, src, dst).isEqualTo(expected);
            }
        }
    }

    @Test
    void shouldStampTimeAndIncreasingSequenceWhenSent() {
        List<Frame> seen = new ArrayList<>();
        List<long[]> stamps = new ArrayList<>();
        FabricPort a = fabric.newPort().link(LinkModel.of(0, 1_000)).attach();
        FabricPort b = fabric.newPort().handler(fr -> {
            stamps.add(new long[] {fr.timestamp(), fr.sequence(), fabric.nanoTime()});
            seen.add(fr);
            fr.release();
        }).attach();

        a.send(b.lid(), ByteBuffer.allocate(10));
        fabric.runFor(300);
        a.send(b.lid(), ByteBuffer.allocate(10));
        fabric.runUntilIdle();

        assertThat(stamps).hasSize(2);
        assertThat(stamps.get(0)).containsExactly(0, 1, 1_000);
        assertThat(stamps.get(1)).containsExactly(300, 2, 1_300);
    }
}
