package io.rvt.driver.sim.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Each fault at its configured rate, for fixed seeds. With n = 10,000 frames and p = 0.1 the count has a standard
 * deviation of 30, so [900, 1100] is more than three deviations either side.
 */
class FaultInjectionTest {
    private static final int FRAMES = 10_000;
    private static final long SEED = 0xC0FFEE;

    /** What a run produced. */
    record Run(long hash, Counters counters, Recorder received, byte[][] sent, String trace) {
    }

    private static Run run(long seed, FaultConfig faults) {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("faults")).deterministic(seed)
                .defaultLink(LinkModel.of(100_000_000_000L, 300)).faults(faults).traceCapacity(32).build()) {
            Recorder rb = new Recorder(f);
            FabricPort a = f.newPort().pool(64, 256, 0, false).attach();
            FabricPort b = f.newPort().handler(rb).attach();
            SplittableRandom bytes = new SplittableRandom(99); // the same frames whatever the fabric's seed
            byte[][] sent = new byte[FRAMES][];
            for (int i = 0; i < FRAMES; i++) {
                byte[] payload = new byte[64 + bytes.nextInt(192)];
                bytes.nextBytes(payload);
                ByteBuffer.wrap(payload).putInt(0, i);
                sent[i] = payload;
                Frame frame = a.acquire();
                while (frame == null) { // the pool is small: let the fabric deliver and free frames
                    f.step();
                    frame = a.acquire();
                }
                frame.put(ByteBuffer.wrap(payload)).dstLid(b.lid());
                assertThat(a.send(frame)).isTrue();
                f.runFor(5);
            }
            f.runUntilIdle();
            assertThat(a.pool().available()).isEqualTo(a.pool().frames());
            return new Run(f.traceHash(), f.counters(), rb, sent, f.trace().toString());
        }
    }

    @Test
    void shouldLoseFramesAtTheConfiguredRateWhenLossIsOn() {
        Run run = run(SEED, FaultConfig.builder().loss(0.1).build());

        long lost = run.counters().drops(DropCause.LOSS);
        assertThat(lost).as("seed=0x%x", SEED).isBetween(900L, 1100L);
        assertThat(run.received().count()).isEqualTo(FRAMES - lost);
        assertThat(run.counters().totalDrops()).isEqualTo(lost);
    }

    @Test
    void shouldDuplicateFramesAtTheConfiguredRateWhenDuplicationIsOn() {
        Run run = run(SEED, FaultConfig.builder().duplication(0.1).build());

        long dups = run.counters().duplicated();
        assertThat(dups).as("seed=0x%x", SEED).isBetween(900L, 1100L);
        assertThat(run.received().count()).isEqualTo(FRAMES + dups);
        assertThat(run.received().firstInts().stream().distinct().count()).isEqualTo(FRAMES);
    }

    @Test
    void shouldDelayAndReorderFramesAtTheConfiguredRateWhenReorderingIsOn() {
        Run run = run(SEED, FaultConfig.builder().reorder(0.1, 2_000).build());

        long delayed = run.counters().reordered();
        assertThat(delayed).as("seed=0x%x", SEED).isBetween(900L, 1100L);
        assertThat(run.received().count()).isEqualTo(FRAMES);
        int inversions = 0;
        int previous = -1;
        for (int tag : run.received().firstInts()) {
            if (tag < previous) {
                inversions++;
            }
            previous = tag;
        }
        assertThat(inversions).as("frames overtaken, seed=0x%x", SEED).isPositive().isLessThanOrEqualTo((int) delayed);
    }

    @Test
    void shouldFlipExactlyOneBitAtTheConfiguredRateWhenCorruptionIsOn() {
        Run run = run(SEED, FaultConfig.builder().corruption(0.1).build());

        long corrupted = run.counters().corrupted();
        assertThat(corrupted).as("seed=0x%x", SEED).isBetween(900L, 1100L);
        int differing = 0;
        for (Recorder.Delivery d : run.received().deliveries) {
            // no loss or duplication here: the fabric numbers frames in send order, from 1
            byte[] original = run.sent()[(int) d.sequence() - 1];
            int distance = bitDistance(original, d.bytes());
            assertThat(distance).as("bits flipped in delivery seq=%d, seed=0x%x", d.sequence(), SEED).isBetween(0, 1);
            differing += distance;
        }
        assertThat(differing).isEqualTo((int) corrupted);
    }

    private static int bitDistance(byte[] x, byte[] y) {
        int bits = 0;
        for (int i = 0; i < x.length; i++) {
            bits += Integer.bitCount((x[i] ^ y[i]) & 0xFF);
        }
        return bits;
    }

    @Test
    void shouldReplayExactlyWithTheSameSeedAndDifferWithAnother() {
        FaultConfig all = FaultConfig.builder().loss(0.05).duplication(0.05).reorder(0.05, 1_000).corruption(0.05)
                .build();

        Run first = run(SEED, all);
        Run second = run(SEED, all);
        Run other = run(SEED + 1, all);

        assertThat(second.hash()).as("same seed 0x%x", SEED).isEqualTo(first.hash());
        assertThat(second.trace()).isEqualTo(first.trace());
        assertThat(second.received().times()).isEqualTo(first.received().times());
        assertThat(other.hash()).as("seed 0x%x vs 0x%x", SEED, SEED + 1).isNotEqualTo(first.hash());
    }

    @Test
    void shouldApplyALinksOwnFaultsInsteadOfTheFabricDefault() {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("own-faults")).deterministic(SEED)
                .faults(FaultConfig.builder().loss(1.0).build()).build()) {
            Recorder lossless = new Recorder(f);
            Recorder lossy = new Recorder(f);
            FabricPort a = f.newPort().attach();
            FabricPort b = f.newPort().faults(FaultConfig.NONE).handler(lossless).attach();
            FabricPort c = f.newPort().handler(lossy).attach();

            for (int i = 0; i < 100; i++) {
                a.send(b.lid(), ByteBuffer.allocate(8));
                a.send(c.lid(), ByteBuffer.allocate(8));
            }
            f.runUntilIdle();

            assertThat(lossless.count()).isEqualTo(100);
            assertThat(lossy.count()).isZero();
            assertThat(c.counters().drops(DropCause.LOSS)).isEqualTo(100);
            assertThat(b.link().hasOwnFaults()).isTrue();
            assertThat(c.link().faults()).isEqualTo(f.defaultFaults());

            c.link().faults(FaultConfig.NONE);
            a.send(c.lid(), ByteBuffer.allocate(8));
            f.runUntilIdle();
            assertThat(lossy.count()).isEqualTo(1);
        }
    }

    @Test
    void shouldPrintTheLastRecordsAndTheHashWhenTheTraceIsBounded() {
        Run run = run(SEED, FaultConfig.builder().loss(0.1).corruption(0.1).build());

        assertThat(run.trace()).startsWith("trace: ").contains("32 kept, hash=" + Long.toHexString(run.hash()));
        assertThat(run.trace().lines().count()).isEqualTo(33);
        assertThat(run.trace()).containsPattern("t=\\d+ DELIVER seq=\\d+ src=0x1 dst=0x2 len=\\d+ crc=[0-9a-f]+");
    }
}
