package io.rvt.driver.sim.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class MpmcRingTest {
    @Test
    void shouldBeFifoAndBoundedWhenUsedByOneThread() {
        assertThat(new MpmcRing<Integer>(1).capacity()).isEqualTo(2);
        MpmcRing<Integer> ring = new MpmcRing<>(3); // rounds up to 4

        assertThat(ring.capacity()).isEqualTo(4);
        for (int i = 0; i < 4; i++) {
            assertThat(ring.offer(i)).isTrue();
        }
        assertThat(ring.offer(99)).isFalse();
        assertThat(ring.size()).isEqualTo(4);
        for (int i = 0; i < 4; i++) {
            assertThat(ring.poll()).isEqualTo(i);
        }
        assertThat(ring.poll()).isNull();
    }

    @Test
    void shouldMatchAQueueModelWhenOperationsAreRandom() {
        for (int round = 0; round < 50; round++) {
            long seed = new SplittableRandom().nextLong();
            SplittableRandom r = new SplittableRandom(seed);
            int capacity = 2 << r.nextInt(6);
            MpmcRing<Integer> ring = new MpmcRing<>(capacity);
            ArrayDeque<Integer> model = new ArrayDeque<>();
            for (int op = 0; op < 2_000; op++) {
                if (r.nextBoolean()) {
                    int v = r.nextInt();
                    boolean expected = model.size() < capacity;
                    assertThat(ring.offer(v)).as("seed=0x%x op=%d offer", seed, op).isEqualTo(expected);
                    if (expected) {
                        model.add(v);
                    }
                } else {
                    assertThat(ring.poll()).as("seed=0x%x op=%d poll", seed, op).isEqualTo(model.poll());
                }
                assertThat(ring.size()).as("seed=0x%x op=%d size", seed, op).isEqualTo(model.size());
            }
        }
    }

    @Test
    @Timeout(20)
    void shouldHandEveryElementToExactlyOneConsumerWhenProducersAndConsumersRace() throws Exception {
        int perProducer = 50_000;
        MpmcRing<Integer> ring = new MpmcRing<>(64);
        BitSet seen = new BitSet(2 * perProducer);
        AtomicInteger taken = new AtomicInteger();
        AtomicInteger duplicates = new AtomicInteger();
        Runnable consumer = () -> {
            while (taken.get() < 2 * perProducer) {
                Integer v = ring.poll();
                if (v == null) {
                    Thread.yield(); // four busy threads on a small machine: give the core away
                    continue;
                }
                synchronized (seen) {
                    if (seen.get(v)) {
                        duplicates.incrementAndGet();
                    }
                    seen.set(v);
                }
                taken.incrementAndGet();
            }
        };
        CompletableFuture<Void> c1 = CompletableFuture.runAsync(consumer);
        CompletableFuture<Void> c2 = CompletableFuture.runAsync(consumer);
        CompletableFuture<Void> p1 = CompletableFuture.runAsync(() -> produce(ring, 0, perProducer));
        Thread p2 = new Thread(() -> produce(ring, perProducer, perProducer));
        p2.start();
        p1.get();
        p2.join();
        c1.get();
        c2.get();

        assertThat(duplicates.get()).isZero();
        assertThat(seen.cardinality()).isEqualTo(2 * perProducer);
    }

    @Test
    @Timeout(20)
    void shouldHandEveryElementOnceAndInEachProducersOrderToTheSingleConsumer() throws Exception {
        int perProducer = 50_000;
        MpmcRing<Integer> ring = new MpmcRing<>(64);
        CompletableFuture<Void> p1 = CompletableFuture.runAsync(() -> produce(ring, 0, perProducer));
        Thread p2 = new Thread(() -> produce(ring, perProducer, perProducer));
        p2.start();
        int[] next = {0, perProducer}; // what each producer must deliver next
        for (int taken = 0; taken < 2 * perProducer;) {
            Integer v = ring.pollSingleConsumer();
            if (v == null) {
                Thread.yield();
                continue;
            }
            int producer = v < perProducer ? 0 : 1;
            assertThat(v).as("element from producer %d", producer).isEqualTo(next[producer]);
            next[producer]++;
            taken++;
        }
        p1.get();
        p2.join();
        assertThat(next).containsExactly(perProducer, 2 * perProducer);
        assertThat(ring.pollSingleConsumer()).isNull();
        assertThat(ring.offer(7)).isTrue();
        assertThat(ring.pollSingleConsumer()).isEqualTo(7);
    }

    private static void produce(MpmcRing<Integer> ring, int from, int count) {
        for (int i = from; i < from + count; i++) {
            while (!ring.offer(i)) {
                Thread.yield(); // four busy threads on a small machine: give the core away
            }
        }
    }

    @Test
    void shouldPutWhileThereIsRoomAndRefuseWhenReallyFull() {
        MpmcRing<Integer> ring = new MpmcRing<>(2);
        ring.put(1);
        ring.put(2);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ring.put(3))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("capacity 2");
        assertThat(ring.poll()).isEqualTo(1);
        ring.put(3);
        assertThat(ring.poll()).isEqualTo(2);
        assertThat(ring.poll()).isEqualTo(3);
    }

    @Test
    @Timeout(60)
    void shouldNeverOverflowAPoolWhoseFramesCycleBetweenThreads() throws Exception {
        // Exactly as many frames as slots: a consumer preempted between claiming a slot and freeing it makes the ring
        // look full to a releaser; put() must wait that out instead of failing.
        FramePool pool = FramePool.heap(4, 64, 0);
        int threads = 4;
        int cycles = 200_000;
        CompletableFuture<?>[] fs = new CompletableFuture<?>[threads];
        for (int t = 0; t < threads; t++) {
            fs[t] = CompletableFuture.runAsync(() -> {
                for (int i = 0; i < cycles; i++) {
                    Frame f;
                    while ((f = pool.acquire()) == null) {
                        Thread.onSpinWait();
                    }
                    f.release();
                }
            });
        }
        CompletableFuture.allOf(fs).get();
        assertThat(pool.available()).isEqualTo(4);
    }
}
