package io.rvt.core.srq;

import io.rvt.core.base.SpinningLock;
import static io.rvt.api.Errno.EINVAL;
import static io.rvt.api.Errno.ENOMEM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.RecvWorkRequest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RvtRqTest {
    private static final long SEED = 0x5EED_2026_0001L;

    // ------------------------------------------------------------------ helpers

    /** A request whose id and SGEs are derived from {@code id}, with {@code numSge} entries. */
    static RecvWorkRequest wr(long id, int numSge, int capacity) {
        RecvWorkRequest w = new RecvWorkRequest(capacity).wrId(id).numSge(numSge);
        for (int i = 0; i < numSge; i++) {
            w.sge(i).set(addr(id, i), length(id, i), lkey(id, i));
        }
        return w;
    }

    static long addr(long id, int i) {
        return id * 4096 + i * 64L;
    }

    static int length(long id, int i) {
        return (int) ((id + i) & 0x7FFF);
    }

    static int lkey(long id, int i) {
        return (int) (id * 31 + i) ^ 0x5A5A;
    }

    static void assertEntry(RvtRwqe e, long id, int numSge, String why) {
        assertThat(e.wrId()).as("wrId; %s", why).isEqualTo(id);
        assertThat(e.numSge()).as("numSge of %d; %s", id, why).isEqualTo(numSge);
        for (int i = 0; i < numSge; i++) {
            assertThat(e.addr(i)).as("addr[%d] of %d; %s", i, id, why).isEqualTo(addr(id, i));
            assertThat(e.length(i)).as("length[%d] of %d; %s", i, id, why).isEqualTo(length(id, i));
            assertThat(e.lkey(i)).as("lkey[%d] of %d; %s", i, id, why).isEqualTo(lkey(id, i));
        }
    }

    static int post(RvtRq rq, RecvWorkRequest w) {
        SpinningLock p = rq.producerLock();
        p.lock();
        try {
            return rq.post(w);
        } finally {
            p.unlock();
        }
    }

    static boolean take(RvtRq rq, RvtRwqe dst) {
        SpinningLock c = rq.consumerLock();
        c.lock();
        try {
            return rq.take(dst);
        } finally {
            c.unlock();
        }
    }

    static int resize(RvtRq rq, int newSize) {
        rq.producerLock().lock();
        try {
            rq.consumerLock().lock();
            try {
                return rq.resize(newSize);
            } finally {
                rq.consumerLock().unlock();
            }
        } finally {
            rq.producerLock().unlock();
        }
    }

    // ------------------------------------------------------------------ rvt_free_rq

    @Test
    void shouldHoldAndAcceptNothingWhenFreed() {
        RvtRq rq = new RvtRq(8, 2);
        assertThat(post(rq, wr(1, 1, 2))).isZero();
        rq.free();
        assertThat(take(rq, new RvtRwqe(2))).as("a freed queue has no entries").isFalse();
        assertThat(post(rq, wr(2, 1, 2))).as("a freed queue accepts nothing").isEqualTo(-ENOMEM.value());
        assertThat(rq.size()).isEqualTo(1);
    }

    // ------------------------------------------------------------------ full / empty / wrap

    @Test
    void shouldRefuseEveryPostWhenRingHasOneSlot() {
        RvtRq rq = new RvtRq(1, 1);
        RvtRwqe dst = new RvtRwqe(1);

        assertThat(post(rq, wr(1, 1, 1))).isEqualTo(-ENOMEM.value());
        assertThat(post(rq, wr(2, 0, 1))).isEqualTo(-ENOMEM.value());
        assertThat(take(rq, dst)).isFalse();
        assertThat(rq.headAcquire()).isZero();
        assertThat(rq.tail()).isZero();
    }

    @Test
    void shouldHoldSizeMinusOneEntriesWhenFilled() {
        RvtRq rq = new RvtRq(5, 2);
        for (int i = 0; i < 4; i++) {
            assertThat(post(rq, wr(i, 2, 2))).as("post %d", i).isZero();
        }
        assertThat(post(rq, wr(99, 1, 2))).isEqualTo(-ENOMEM.value());
        rq.producerLock().lock();
        try {
            assertThat(rq.isFull()).isTrue();
        } finally {
            rq.producerLock().unlock();
        }
        assertThat(rq.count(rq.headAcquire(), rq.tail())).isEqualTo(4);

        RvtRwqe dst = new RvtRwqe(2);
        for (int i = 0; i < 4; i++) {
            assertThat(take(rq, dst)).isTrue();
            assertEntry(dst, i, 2, "fill then drain");
        }
        assertThat(take(rq, dst)).isFalse();
    }

    @Test
    void shouldReturnEinvalWhenRequestHasMoreSgesThanMaxSge() {
        RvtRq rq = new RvtRq(4, 2);

        assertThat(post(rq, wr(7, 3, 3))).isEqualTo(-EINVAL.value());
        assertThat(rq.headAcquire()).isZero();
        assertThat(post(rq, wr(8, 0, 3))).isZero();
    }

    @Test
    void shouldKeepOrderAndContentWhenIndicesWrapAround() {
        RvtRq rq = new RvtRq(3, 3);
        RvtRwqe dst = new RvtRwqe(3);
        long next = 0;
        long expected = 0;
        for (int round = 0; round < 50; round++) {
            // alternate one and two entries in flight so head and tail cross the end at different phases
            int burst = 1 + (round & 1);
            for (int i = 0; i < burst; i++, next++) {
                assertThat(post(rq, wr(next, (int) (next % 4), 3))).as("post %d", next).isZero();
            }
            for (int i = 0; i < burst; i++, expected++) {
                assertThat(take(rq, dst)).as("take %d", expected).isTrue();
                assertEntry(dst, expected, (int) (expected % 4), "round " + round);
            }
            assertThat(rq.headAcquire()).isBetween(0, 2);
            assertThat(rq.tail()).isEqualTo(rq.headAcquire());
        }
    }

    @Test
    void shouldRejectDestinationWhenSmallerThanMaxSge() {
        RvtRq rq = new RvtRq(4, 3);
        post(rq, wr(1, 1, 3));
        RvtRwqe small = new RvtRwqe(2);

        rq.consumerLock().lock();
        try {
            assertThatThrownBy(() -> rq.take(small)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("2").hasMessageContaining("3");
        } finally {
            rq.consumerLock().unlock();
        }
    }

    // ------------------------------------------------------------------ count

    @Test
    void shouldCountWithinZeroAndSizeWhenInputsAreSanitisedExhaustively() {
        for (int size = 1; size <= 40; size++) {
            RvtRq rq = new RvtRq(size, 0);
            for (int head = 0; head < size; head++) {
                for (int tail = 0; tail < size; tail++) {
                    int n = rq.count(head, tail);
                    assertThat(n).as("size=%d head=%d tail=%d", size, head, tail).isBetween(0, size - 1)
                            .isEqualTo(Math.floorMod(head - tail, size));
                }
            }
        }
    }

    @Test
    void shouldCountWithinZeroAndSizeWhenSizesAreLarge() {
        SplittableRandom rnd = new SplittableRandom(SEED);
        for (int k = 0; k < 10; k++) {
            int size = 41 + rnd.nextInt(1 << 16);
            RvtRq rq = new RvtRq(size, 0);
            int[] edges = {0, 1, size / 2, size - 2, size - 1};
            for (int head : edges) {
                for (int tail : edges) {
                    assertThat(rq.count(head, tail)).as("seed=%d size=%d head=%d tail=%d", SEED, size, head, tail)
                            .isBetween(0, size - 1).isEqualTo(Math.floorMod(head - tail, size));
                }
            }
            for (int j = 0; j < 2000; j++) {
                int head = rnd.nextInt(size);
                int tail = rnd.nextInt(size);
                assertThat(rq.count(head, tail)).as("seed=%d size=%d head=%d tail=%d", SEED, size, head, tail)
                        .isBetween(0, size - 1).isEqualTo(Math.floorMod(head - tail, size));
            }
        }
    }

    @Test
    void shouldRefreshApproximateCountOnlyWhenBelowThreshold() {
        RvtRq rq = new RvtRq(64, 1);
        RvtRwqe dst = new RvtRwqe(1);
        for (int i = 0; i < 20; i++) {
            post(rq, wr(i, 1, 1));
        }
        assertThat(rq.approxCount()).isZero();

        take(rq, dst); // 0 < 16: refreshed to 20, then 19
        assertThat(rq.approxCount()).isEqualTo(19);
        for (int i = 20; i < 25; i++) {
            post(rq, wr(i, 1, 1)); // real count 24; the approximate one does not see these
        }
        take(rq, dst);
        take(rq, dst);
        take(rq, dst);
        assertThat(rq.approxCount()).isEqualTo(16);
        take(rq, dst); // 16 is not below the threshold: no refresh
        assertThat(rq.approxCount()).isEqualTo(15);
        take(rq, dst); // 15 < 16: refreshed to the real 20, then 19 (14 without the refresh)
        assertThat(rq.approxCount()).isEqualTo(19);
        assertThat(dst.wrId()).isEqualTo(5);

        rq.consumerLock().lock();
        try {
            assertThat(rq.refreshCount()).isEqualTo(19);
        } finally {
            rq.consumerLock().unlock();
        }
        assertThat(RvtRq.COUNT_THRESHOLD).isEqualTo(16);
    }

    // ------------------------------------------------------------------ model-based random sequences

    @Test
    void shouldMatchQueueModelWhenOperationsAreRandom() {
        SplittableRandom seeds = new SplittableRandom(SEED);
        for (int run = 0; run < 300; run++) {
            long seed = seeds.nextLong();
            SplittableRandom rnd = new SplittableRandom(seed);
            int size = 1 + rnd.nextInt(40);
            int maxSge = rnd.nextInt(4);
            RvtRq rq = new RvtRq(size, maxSge);
            RvtRwqe dst = new RvtRwqe(maxSge);
            ArrayDeque<long[]> model = new ArrayDeque<>(); // {id, numSge}
            long nextId = 1;
            for (int step = 0; step < 400; step++) {
                String ctx = "seed=" + seed + " size=" + size + " maxSge=" + maxSge + " step=" + step;
                int op = rnd.nextInt(10);
                if (op < 5) {
                    int numSge = rnd.nextInt(maxSge + 2);
                    long id = nextId++;
                    int r = post(rq, wr(id, numSge, maxSge + 1));
                    int expected = numSge > maxSge ? -EINVAL.value() : model.size() == size - 1 ? -ENOMEM.value() : 0;
                    assertThat(r).as("post; %s", ctx).isEqualTo(expected);
                    if (r == 0) {
                        model.addLast(new long[] {id, numSge});
                    }
                } else if (op < 9) {
                    boolean got = take(rq, dst);
                    assertThat(got).as("take; %s", ctx).isEqualTo(!model.isEmpty());
                    if (got) {
                        long[] m = model.removeFirst();
                        assertEntry(dst, m[0], (int) m[1], ctx);
                    }
                } else {
                    int newSize = 1 + rnd.nextInt(40);
                    int r = resize(rq, newSize);
                    assertThat(r).as("resize to %d with %d queued; %s", newSize, model.size(), ctx)
                            .isEqualTo(newSize <= model.size() ? -EINVAL.value() : 0);
                    if (r == 0) {
                        size = newSize;
                    }
                }
                int exact = rq.count(rq.headAcquire(), rq.tail());
                assertThat(exact).as("exact count; %s", ctx).isEqualTo(model.size());
                assertThat(rq.size()).as("size; %s", ctx).isEqualTo(size);
                assertThat(rq.approxCount()).as("approximate count is a lower bound; %s", ctx)
                        .isBetween(0, model.size());
            }
        }
    }

    // ------------------------------------------------------------------ resize

    @Test
    void shouldPreserveOrderWhenResizedLargerAndSmaller() {
        RvtRq rq = new RvtRq(6, 2);
        RvtRwqe dst = new RvtRwqe(2);
        // move the indices off zero so the queued entries wrap around the end
        for (int i = 0; i < 4; i++) {
            post(rq, wr(100 + i, 1, 2));
            take(rq, dst);
        }
        for (int i = 0; i < 5; i++) {
            assertThat(post(rq, wr(i, i % 3, 2))).isZero();
        }
        assertThat(rq.headAcquire()).isLessThan(rq.tail()); // wrapped

        assertThat(resize(rq, 20)).isZero();
        assertThat(rq.size()).isEqualTo(20);
        assertThat(rq.tail()).isZero();
        assertThat(rq.headAcquire()).isEqualTo(5);
        assertThat(post(rq, wr(5, 2, 2))).isZero();

        assertThat(resize(rq, 7)).isZero(); // 6 queued fit in 7 slots exactly
        assertThat(post(rq, wr(6, 1, 2))).isEqualTo(-ENOMEM.value());
        for (int i = 0; i < 6; i++) {
            assertThat(take(rq, dst)).isTrue();
            assertEntry(dst, i, i == 5 ? 2 : i % 3, "after two resizes");
        }
        assertThat(take(rq, dst)).isFalse();
    }

    @Test
    void shouldReturnEinvalAndKeepEntriesWhenResizedBelowQueuedCount() {
        RvtRq rq = new RvtRq(10, 1);
        for (int i = 0; i < 6; i++) {
            post(rq, wr(i, 1, 1));
        }

        assertThat(resize(rq, 6)).isEqualTo(-EINVAL.value());
        assertThat(resize(rq, 3)).isEqualTo(-EINVAL.value());
        assertThat(resize(rq, 0)).isEqualTo(-EINVAL.value());

        assertThat(rq.size()).isEqualTo(10);
        RvtRwqe dst = new RvtRwqe(1);
        for (int i = 0; i < 6; i++) {
            assertThat(take(rq, dst)).isTrue();
            assertEntry(dst, i, 1, "after refused resizes");
        }
    }

    // ------------------------------------------------------------------ flush

    @Test
    void shouldVisitExactlyQueuedEntriesInOrderWhenFlushed() {
        RvtRq rq = new RvtRq(5, 1);
        RvtRwqe dst = new RvtRwqe(1);
        for (int i = 0; i < 3; i++) {
            post(rq, wr(50 + i, 1, 1));
            take(rq, dst);
        }
        for (int i = 0; i < 4; i++) {
            post(rq, wr(i, 1, 1));
        }
        List<Long> seen = new ArrayList<>();

        int n;
        rq.consumerLock().lock();
        try {
            n = rq.flush(seen::add);
        } finally {
            rq.consumerLock().unlock();
        }

        assertThat(n).isEqualTo(4);
        assertThat(seen).containsExactly(0L, 1L, 2L, 3L);
        assertThat(rq.tail()).isEqualTo(rq.headAcquire());
        assertThat(rq.approxCount()).isZero();
        assertThat(take(rq, dst)).isFalse();
        assertThat(post(rq, wr(9, 1, 1))).isZero();
        assertThat(take(rq, dst)).isTrue();
        assertThat(dst.wrId()).isEqualTo(9);
    }

    @Test
    void shouldVisitNothingWhenFlushingAnEmptyQueue() {
        RvtRq rq = new RvtRq(4, 0);
        List<Long> seen = new ArrayList<>();
        rq.consumerLock().lock();
        try {
            assertThat(rq.flush(seen::add)).isZero();
        } finally {
            rq.consumerLock().unlock();
        }
        assertThat(seen).isEmpty();
    }

    // ------------------------------------------------------------------ concurrency

    @Test
    void shouldDeliverEveryEntryInOrderWhenOneProducerAndOneConsumerRunConcurrently() throws Exception {
        final int total = 100_000;
        final int maxSge = 3;
        RvtRq rq = new RvtRq(8, maxSge);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<?> producer = pool.submit(() -> {
                RecvWorkRequest w = new RecvWorkRequest(maxSge);
                for (long id = 0; id < total; ) {
                    int n = (int) (id % (maxSge + 1));
                    w.wrId(id).numSge(n);
                    for (int i = 0; i < n; i++) {
                        w.sge(i).set(addr(id, i), length(id, i), lkey(id, i));
                    }
                    int r = post(rq, w);
                    if (r == 0) {
                        id++;
                    } else if (r == -ENOMEM.value()) {
                        Thread.yield();
                    } else {
                        throw new AssertionError("post " + id + " returned " + r);
                    }
                }
            });
            Future<?> consumer = pool.submit(() -> {
                RvtRwqe dst = new RvtRwqe(maxSge);
                for (long id = 0; id < total; ) {
                    if (take(rq, dst)) {
                        assertEntry(dst, id, (int) (id % (maxSge + 1)), "concurrent entry " + id);
                        id++;
                    } else {
                        Thread.yield();
                    }
                }
            });
            producer.get(60, TimeUnit.SECONDS);
            consumer.get(60, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertThat(rq.count(rq.headAcquire(), rq.tail())).isZero();
    }
}
