package io.rvt.driver.sim.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FrameQueueTest {
    @Test
    void shouldQueueDeliveriesForTheHcaToDrainAndCountOverflows() {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("queue")).deterministic(1).build()) {
            FrameQueue queue = new FrameQueue(4);
            FabricPort a = f.newPort().attach();
            FabricPort b = f.newPort().handler(queue).attach();
            for (int i = 0; i < 6; i++) {
                a.send(b.lid(), ByteBuffer.allocate(4).putInt(0, i));
            }
            f.runUntilIdle();

            assertThat(queue.size()).isEqualTo(4);
            assertThat(queue.overflows()).isEqualTo(2);
            List<Integer> tags = new ArrayList<>();
            assertThat(queue.drain(frame -> {
                tags.add(frame.buffer().getInt(0));
                frame.release();
            }, 3)).isEqualTo(3);
            Frame last = queue.poll();
            tags.add(last.buffer().getInt(0));
            last.release();

            assertThat(tags).containsExactly(0, 1, 2, 3);
            assertThat(queue.poll()).isNull();
            assertThat(a.pool().available()).isEqualTo(a.pool().frames());
        }
    }
}
