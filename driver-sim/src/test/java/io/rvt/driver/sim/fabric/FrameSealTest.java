package io.rvt.driver.sim.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A sender's seal survives an unchanged crossing and is broken by anything that changes the bytes. */
class FrameSealTest {
    private static final int FRAMES = 200;

    /** Sends {@value #FRAMES} frames (sealed or not) over a link with {@code faults}; the seals seen on delivery. */
    private static List<Boolean> sealsOnDelivery(FaultConfig faults, boolean seal) {
        List<Boolean> seen = new ArrayList<>();
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("seal")).deterministic(7).faults(faults).build()) {
            FabricPort a = f.newPort().attach();
            FabricPort b = f.newPort().handler(frame -> {
                seen.add(frame.isSealed());
                frame.release();
            }).attach();
            for (int i = 0; i < FRAMES; i++) {
                Frame frame = a.acquire();
                frame.put(ByteBuffer.wrap(new byte[64])).dstLid(b.lid());
                if (seal) {
                    frame.seal();
                }
                assertThat(a.send(frame)).isTrue();
                f.runUntilIdle();
            }
        }
        return seen;
    }

    @Test
    void shouldKeepTheSealWhenTheFabricLeavesTheBytesAlone() {
        List<Boolean> seen = sealsOnDelivery(FaultConfig.NONE, true);
        assertThat(seen).hasSize(FRAMES).containsOnly(true);
    }

    @Test
    void shouldBreakTheSealWhenCorruptionFlipsABit() {
        List<Boolean> seen = sealsOnDelivery(FaultConfig.builder().corruption(1.0).build(), true);
        assertThat(seen).hasSize(FRAMES).containsOnly(false);
    }

    @Test
    void shouldSealBothCopiesWhenAFrameIsDuplicated() {
        List<Boolean> seen = sealsOnDelivery(FaultConfig.builder().duplication(1.0).build(), true);
        assertThat(seen).hasSize(2 * FRAMES).containsOnly(true);
    }

    @Test
    void shouldNotSealAFrameTheSenderLeftUnsealed() {
        assertThat(sealsOnDelivery(FaultConfig.NONE, false)).hasSize(FRAMES).containsOnly(false);
    }

    @Test
    void shouldHandOutUnsealedFramesFromThePool() {
        FramePool pool = FramePool.heap(1, 128, 0);
        Frame frame = pool.acquire();
        frame.seal();
        assertThat(frame.isSealed()).isTrue();
        frame.release();
        assertThat(pool.acquire().isSealed()).isFalse();
    }
}
