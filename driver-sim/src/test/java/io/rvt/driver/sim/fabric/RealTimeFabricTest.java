package io.rvt.driver.sim.fabric;

import io.rvt.api.spi.agent.ThreadingMode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.spi.agent.BackoffIdleStrategy;
import io.rvt.api.spi.agent.BusySpinIdleStrategy;
import io.rvt.api.spi.agent.IdleStrategy;
import io.rvt.api.spi.agent.SleepingIdleStrategy;
import io.rvt.api.spi.agent.YieldingIdleStrategy;
import io.rvt.driver.sim.clock.VirtualClock;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class RealTimeFabricTest {
    /** Checks order without allocating: counts frames and frames that arrived out of order. */
    static final class OrderChecker implements FrameHandler {
        volatile long received;
        volatile long outOfOrder;
        private int last = -1;

        @Override
        public void onFrame(Frame frame) {
            int tag = frame.buffer().getInt(0);
            if (tag != last + 1) {
                outOfOrder++;
            }
            last = tag;
            frame.release();
            received++;
        }
    }

    static Stream<IdleStrategy> idleStrategies() {
        return Stream.of(new BusySpinIdleStrategy(), new YieldingIdleStrategy(), new BackoffIdleStrategy(),
                new SleepingIdleStrategy(10_000));
    }

    private static Frame acquireSpinning(FabricPort port) {
        Frame f;
        while ((f = port.acquire()) == null) {
            Thread.onSpinWait();
        }
        return f;
    }

    private static void sendSpinning(FabricPort port, Frame f) {
        while (!port.send(f)) {
            Thread.onSpinWait();
        }
    }

    private static void sendTagged(FabricPort from, int dstLid, int first, int count) {
        sendTagged(from, dstLid, first, count, 64);
    }

    private static void sendTagged(FabricPort from, int dstLid, int first, int count, int length) {
        for (int i = first; i < first + count; i++) {
            Frame f = acquireSpinning(from);
            f.buffer().putInt(0, i);
            f.length(length).dstLid(dstLid);
            sendSpinning(from, f);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("idleStrategies")
    @Timeout(20)
    void shouldDeliverInOrderWhenRealTimeUnderEachIdleStrategy(IdleStrategy idle) {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("rt-" + idle.alias())).realTime().idleStrategy(idle)
                .defaultLink(LinkModel.of(400_000_000_000L, 200)).build()) {
            OrderChecker checker = new OrderChecker();
            FabricPort a = f.newPort().pool(128, 256, 0, false).attach();
            FabricPort b = f.newPort().handler(checker).attach();

            sendTagged(a, b.lid(), 0, 20_000);
            TestSupport.await(() -> checker.received == 20_000, () -> "20000 frames, got " + checker.received);

            assertThat(checker.outOfOrder).as(idle.alias()).isZero();
            assertThat(b.counters().rxFrames()).isEqualTo(20_000);
            assertThat(f.counters().totalDrops()).isZero();
        }
    }

    @Test
    @Timeout(20)
    void shouldAllocateNothingOnTheSenderOrTheAgentWhenInSteadyState() {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("rt-alloc")).realTime()
                .idleStrategy(new BackoffIdleStrategy()).defaultLink(LinkModel.of(100_000_000_000L, 100)).build()) {
            OrderChecker checker = new OrderChecker();
            FabricPort a = f.newPort().pool(256, 256, 0, false).attach();
            FabricPort b = f.newPort().handler(checker).attach();
            long agentThread = f.thread().getId();

            sendTagged(a, b.lid(), 0, 50_000); // warm-up: JIT, heap arrays at their size
            TestSupport.await(() -> checker.received == 50_000, () -> "warm-up, got " + checker.received);
            long senderBefore = TestSupport.allocatedBytes();
            long agentBefore = TestSupport.allocatedBytes(agentThread);
            sendTagged(a, b.lid(), 50_000, 100_000);
            long senderAllocated = TestSupport.allocatedBytes() - senderBefore;
            TestSupport.await(() -> checker.received == 150_000, () -> "150000 frames, got " + checker.received);
            long agentAllocated = TestSupport.allocatedBytes(agentThread) - agentBefore;

            // Allocation per frame would show as megabytes; allow a few hundred bytes of JVM noise.
            assertThat(senderAllocated).as("bytes allocated by the sender over 100k frames").isLessThan(1024);
            assertThat(agentAllocated).as("bytes allocated by the agent over 100k frames").isLessThan(1024);
            assertThat(checker.outOfOrder).isZero();
        }
    }

    @Test
    void shouldHoldFramesUntilDueWhenTheClockIsInjected() throws Exception {
        VirtualClock clock = new VirtualClock();
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("rt-clock")).realTime().clock(clock)
                .threading(ThreadingMode.INVOKER).defaultLink(LinkModel.of(8_000_000_000L, 1_000)).build()) {
            OrderChecker checker = new OrderChecker();
            FabricPort a = f.newPort().attach();
            FabricPort b = f.newPort().handler(checker).attach();
            sendTagged(a, b.lid(), 0, 2, 1000); // 1000 bytes: 1000 ns per link; due at 4000 and 5000

            assertThat(f.agent().doWork()).isEqualTo(2); // taken in, held
            clock.advanceTo(3_999);
            f.agent().doWork();
            assertThat(checker.received).isZero();
            clock.advanceTo(4_000);
            f.agent().doWork();
            assertThat(checker.received).isEqualTo(1);
            clock.advanceTo(5_000);
            f.agent().doWork();
            assertThat(checker.received).isEqualTo(2);
        }
    }

    @Test
    void shouldReturnFalseWithoutAllocatingWhenTheQueueIsFullOrThePoolEmpty() {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("rt-full")).realTime()
                .threading(ThreadingMode.INVOKER).build()) {
            FabricPort a = f.newPort().pool(16, 64, 0, false).ingressCapacity(8).attach();
            FabricPort b = f.newPort().handler(new OrderChecker()).attach();
            for (int i = 0; i < 8; i++) {
                assertThat(a.send(acquireSpinning(a).length(8).dstLid(b.lid()))).isTrue();
            }
            Frame refused = a.acquire().length(8).dstLid(b.lid());
            ByteBuffer src = ByteBuffer.allocate(8);
            for (int i = 0; i < 20_000; i++) { // warm-up of the refusal paths
                a.send(refused);
                a.send(b.lid(), src);
            }

            long before = TestSupport.allocatedBytes();
            boolean anyAccepted = false;
            for (int i = 0; i < 100_000; i++) {
                anyAccepted |= a.send(refused);      // queue full: the caller keeps the frame
                anyAccepted |= a.send(b.lid(), src); // copies into a pooled frame, or fails
            }
            long allocated = TestSupport.allocatedBytes() - before;

            assertThat(anyAccepted).isFalse();
            assertThat(refused.isOwned()).isTrue();
            assertThat(allocated).as("bytes allocated by 200k refused sends").isLessThan(1024);
            assertThat(a.counters().backpressure()).isGreaterThanOrEqualTo(240_000);

            while (a.acquire() != null) {
                // drain the pool
            }
            assertThat(a.acquire()).isNull();
            assertThat(a.send(b.lid(), src)).as("pool exhausted").isFalse();
            assertThat(a.pool().exhaustedCount()).isPositive();
        }
    }

    @Test
    @Timeout(10)
    void shouldRunExecutorTasksOnTheAgentThreadAndRejectThemWhenClosed() throws Exception {
        Fabric f = Fabric.builder(TestSupport.uniqueName("rt-exec")).realTime().build();
        AtomicReference<String> thread = new AtomicReference<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        f.executor().execute(() -> {
            thread.set(Thread.currentThread().getName());
            done.complete(null);
        });
        done.get();
        f.close();

        assertThat(thread.get()).isEqualTo(f.thread().getName());
        assertThatThrownBy(() -> f.executor().execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
    }

    @Test
    void shouldReturnHeldFramesToTheirPoolsWhenClosed() throws Exception {
        VirtualClock clock = new VirtualClock();
        Fabric f = Fabric.builder(TestSupport.uniqueName("rt-close")).realTime().clock(clock)
                .threading(ThreadingMode.INVOKER).defaultLink(LinkModel.of(0, 1_000_000)).build();
        FabricPort a = f.newPort().pool(32, 64, 0, false).attach();
        FabricPort b = f.newPort().handler(new OrderChecker()).attach();
        sendTagged(a, b.lid(), 0, 10);
        f.agent().doWork();          // all ten held on b's heap
        sendTagged(a, b.lid(), 10, 5); // five still in a's queue

        f.close();

        assertThat(a.pool().available()).isEqualTo(32);
        assertThat(f.counters().drops(DropCause.CLOSED)).isEqualTo(15);
    }

    @Test
    @Timeout(20)
    void shouldKeepEachSendersOrderWhenSeveralThreadsSendToOnePort() throws Exception {
        try (Fabric f = Fabric.builder(TestSupport.uniqueName("rt-mp")).realTime().build()) {
            int perSender = 20_000;
            long[] lastSeen = {-1, -1};
            long[] violations = new long[1];
            long[] received = new long[1];
            FabricPort b = f.newPort().handler(frame -> {
                int sender = frame.srcLid() - 1;
                int tag = frame.buffer().getInt(0);
                if (tag != lastSeen[sender] + 1) {
                    violations[0]++;
                }
                lastSeen[sender] = tag;
                frame.release();
                synchronized (received) {
                    received[0]++;
                }
            }).lid(10).attach();
            FabricPort s1 = f.newPort().lid(1).attach();
            FabricPort s2 = f.newPort().lid(2).attach();
            CompletableFuture<Void> t1 = CompletableFuture.runAsync(() -> sendTagged(s1, b.lid(), 0, perSender));
            CompletableFuture<Void> t2 = CompletableFuture.runAsync(() -> sendTagged(s2, b.lid(), 0, perSender));
            t1.get();
            t2.get();
            TestSupport.await(() -> {
                synchronized (received) {
                    return received[0] == 2L * perSender;
                }
            }, () -> "all frames, got " + received[0]);

            synchronized (received) {
                assertThat(violations[0]).isZero();
            }
        }
    }
}
