package io.rvt.driver.sim.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.driver.sim.fabric.RealTimeFabricTest.OrderChecker;
import org.junit.jupiter.api.Test;

/**
 * Trains ({@link Frame#then}): the frames of one send take one place in the port's queue and one pass through the
 * fabric, arrive in order, and every counter counts each frame; a train the fabric drops is dropped frame by frame;
 * a deterministic fabric and mixed destinations refuse trains.
 */
class FrameTrainTest {
    private static Frame tagged(FabricPort from, int dlid, int tag) {
        Frame f = from.acquire();
        f.buffer().putInt(0, tag);
        return f.length(64).dstLid(dlid);
    }

    /** A train of {@code n} frames tagged {@code from..from+n-1}. */
    private static Frame train(FabricPort port, int dlid, int from, int n) {
        Frame first = tagged(port, dlid, from);
        Frame last = first;
        for (int i = 1; i < n; i++) {
            last = last.then(tagged(port, dlid, from + i));
        }
        return first;
    }

    @Test
    void shouldDeliverATrainsFramesInOrderInOneCycleAndCountEachFrame() throws Exception {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("train")).realTime().threading(ThreadingMode.INVOKER)
                .build()) {
            OrderChecker checker = new OrderChecker();
            FabricPort a = f.newPort().attach();
            FabricPort b = f.newPort().handler(checker).attach();
            assertThat(a.send(train(a, b.lid(), 0, 5))).isTrue();
            assertThat(a.send(tagged(a, b.lid(), 5))).isTrue(); // a single frame after it
            assertThat(f.agent().doWork()).as("two sends taken in, two delivery runs").isEqualTo(4);
            assertThat(checker.received).isEqualTo(6);
            assertThat(checker.outOfOrder).isZero();
            assertThat(a.counters().txFrames()).isEqualTo(6);
            assertThat(a.counters().txBytes()).isEqualTo(6 * 64);
            assertThat(b.counters().rxFrames()).isEqualTo(6);
            assertThat(a.counters().trains()).isEqualTo(1);
            assertThat(f.counters().trains()).isEqualTo(1);
            assertThat(a.pool().available()).isEqualTo(a.pool().frames());
        }
    }

    @Test
    void shouldDropEveryFrameOfATrainToALidNoPortHas() throws Exception {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("train-lost")).realTime()
                .threading(ThreadingMode.INVOKER).build()) {
            FabricPort a = f.newPort().attach();
            assertThat(a.send(train(a, 0x777, 0, 4))).isTrue();
            f.agent().doWork();
            assertThat(a.counters().drops(DropCause.UNKNOWN_DESTINATION)).isEqualTo(4);
            assertThat(a.pool().available()).isEqualTo(a.pool().frames());
        }
    }

    @Test
    void shouldGiveTheWholeTrainBackWhenThePortsQueueIsFull() throws Exception {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("train-full")).realTime()
                .threading(ThreadingMode.INVOKER).build()) {
            FabricPort a = f.newPort().ingressCapacity(2).attach();
            FabricPort b = f.newPort().handler(new OrderChecker()).attach();
            assertThat(a.send(tagged(a, b.lid(), 0))).isTrue();
            assertThat(a.send(tagged(a, b.lid(), 1))).isTrue();
            Frame first = train(a, b.lid(), 2, 3);
            assertThat(a.send(first)).isFalse();
            for (Frame x = first; x != null; x = x.next()) {
                assertThat(x.isOwned()).as("refused, still the caller's: " + x).isTrue();
            }
            assertThat(a.counters().backpressure()).isEqualTo(1);
        }
    }

    @Test
    void shouldRefuseATrainOnADeterministicFabricOrForTwoDestinations() {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("train-det")).deterministic(1).build()) {
            FabricPort a = f.newPort().attach();
            FabricPort b = f.newPort().attach();
            assertThatThrownBy(() -> a.send(train(a, b.lid(), 0, 2))).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("real-time");
        }
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("train-two")).realTime()
                .threading(ThreadingMode.INVOKER).build()) {
            FabricPort a = f.newPort().attach();
            FabricPort b = f.newPort().attach();
            Frame first = tagged(a, b.lid(), 0);
            first.then(tagged(a, a.lid(), 1));
            assertThatThrownBy(() -> a.send(first)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("0x" + Integer.toHexString(b.lid()));
            assertThatThrownBy(() -> first.then(tagged(a, b.lid(), 2))).isInstanceOf(IllegalStateException.class);
        }
    }
}
