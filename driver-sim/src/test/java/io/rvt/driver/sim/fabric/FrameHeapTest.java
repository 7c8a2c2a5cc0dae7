package io.rvt.driver.sim.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Frames come out earliest first by (due, sequence), whatever order they went in. */
class FrameHeapTest {
    private static Frame frame(long due, long sequence) {
        Frame f = new Frame(null, ByteBuffer.allocate(1));
        f.due = due;
        f.sequence(sequence);
        return f;
    }

    private static void check(long seed, int reorderPercent) {
        SplittableRandom r = new SplittableRandom(seed);
        FrameHeap heap = new FrameHeap();
        List<Frame> model = new ArrayList<>();
        long due = 0;
        long seq = 0;
        for (int step = 0; step < 20_000; step++) {
            if (r.nextInt(100) < 55) {
                due += r.nextInt(3); // mostly in order, often equal due times
                long d = r.nextInt(100) < reorderPercent ? due - r.nextInt(50) : due;
                Frame f = frame(d, seq++);
                heap.add(f);
                model.add(f);
            } else if (!model.isEmpty()) {
                model.sort(Comparator.<Frame>comparingLong(f -> f.due).thenComparingLong(Frame::sequence));
                assertThat(heap.peekDue()).as("seed %d step %d", seed, step).isEqualTo(model.get(0).due);
                assertThat(heap.poll()).as("seed %d step %d", seed, step).isSameAs(model.remove(0));
            }
            assertThat(heap.size()).isEqualTo(model.size());
        }
        model.sort(Comparator.<Frame>comparingLong(f -> f.due).thenComparingLong(Frame::sequence));
        for (Frame f : model) {
            assertThat(heap.poll()).isSameAs(f);
        }
        assertThat(heap.isEmpty()).isTrue();
        assertThat(heap.poll()).isNull();
    }

    @Test
    void shouldReleaseFramesInDueOrderWhenTheyArriveInOrder() {
        check(1, 0);
    }

    @Test
    void shouldReleaseFramesInDueOrderWhenSomeArriveEarlyOrLate() {
        check(2, 10);
        check(3, 60);
    }
}
