package io.rvt.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.spi.RvtTimer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ManualTimerServiceTest {
    private final ManualTimerService timers = new ManualTimerService();
    private final List<String> log = new ArrayList<>();

    private RvtTimer timer(String name) {
        return timers.newTimer(name, () -> log.add(name + "@" + timers.nanoTime()));
    }

    @Test
    void shouldRunDueTimersInDeadlineThenArmingOrderWithTheClockAtEachDeadline() {
        RvtTimer a = timer("a");
        RvtTimer b = timer("b");
        RvtTimer c = timer("c");
        RvtTimer d = timer("d");
        c.arm(30);
        a.arm(10);
        d.arm(10);
        b.arm(50);
        assertThat(timers.pendingCount()).isEqualTo(4);
        assertThat(timers.advance(29)).isEqualTo(2);
        assertThat(log).containsExactly("a@10", "d@10");
        assertThat(timers.nanoTime()).isEqualTo(29);
        assertThat(timers.advance(100)).isEqualTo(2);
        assertThat(log).containsExactly("a@10", "d@10", "c@30", "b@50");
        assertThat(timers.nanoTime()).isEqualTo(129);
        assertThat(timers.pendingCount()).isZero();
    }

    @Test
    void shouldMatchASortedModelWhenTimersAreArmedCancelledAndAdvancedRandomly() {
        long seed = 0x5EED_7173L;
        SplittableRandom rnd = new SplittableRandom(seed);
        int n = 8;
        RvtTimer[] ts = new RvtTimer[n];
        long[] deadline = new long[n];
        long[] order = new long[n];
        boolean[] armed = new boolean[n];
        for (int i = 0; i < n; i++) {
            ts[i] = timer("t" + i);
        }
        long seq = 0;
        for (int step = 0; step < 1000; step++) {
            String ctx = "seed=" + seed + " step=" + step;
            int i = rnd.nextInt(n);
            int op = rnd.nextInt(4);
            if (op < 2) {
                long delay = rnd.nextInt(5) * 10L;
                ts[i].arm(delay);
                deadline[i] = timers.nanoTime() + delay;
                order[i] = seq++;
                armed[i] = true;
            } else if (op == 2) {
                assertThat(ts[i].cancel()).as(ctx).isEqualTo(armed[i]);
                armed[i] = false;
            } else {
                long target = timers.nanoTime() + rnd.nextInt(40);
                List<Integer> due = new ArrayList<>();
                for (int k = 0; k < n; k++) {
                    if (armed[k] && deadline[k] <= target) {
                        due.add(k);
                    }
                }
                due.sort((x, y) -> deadline[x] != deadline[y] ? Long.compare(deadline[x], deadline[y])
                        : Long.compare(order[x], order[y]));
                List<String> expected = new ArrayList<>();
                for (int k : due) {
                    expected.add("t" + k + "@" + deadline[k]);
                    armed[k] = false;
                }
                log.clear();
                assertThat(timers.advance(target - timers.nanoTime())).as(ctx).isEqualTo(due.size());
                assertThat(log).as(ctx).isEqualTo(expected);
                assertThat(timers.nanoTime()).as(ctx).isEqualTo(target);
            }
            for (int k = 0; k < n; k++) {
                assertThat(ts[k].isPending()).as(ctx + " t" + k).isEqualTo(armed[k]);
            }
        }
    }

    @Test
    void shouldRunTheEarliestTimerAndMoveTheClockWhenRunNextIsCalled() {
        RvtTimer a = timer("a");
        RvtTimer b = timer("b");
        b.arm(700);
        a.arm(300);
        a.arm(500);
        assertThat(timers.runNext()).isTrue();
        assertThat(log).containsExactly("a@500");
        assertThat(timers.nanoTime()).isEqualTo(500);
        assertThat(timers.runNext()).isTrue();
        assertThat(timers.runNext()).isFalse();
        assertThat(log).containsExactly("a@500", "b@700");
        assertThatThrownBy(() -> timers.advance(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.arm(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(timers.hz()).isEqualTo(1000);
    }

    @Test
    void shouldRunATimerArmedByAnActionWithinTheSameAdvanceWhenItIsDue() {
        RvtTimer later = timer("later");
        RvtTimer first = timers.newTimer("first", () -> {
            log.add("first@" + timers.nanoTime());
            later.arm(5);
        });
        first.arm(10);
        timers.advance(20);
        assertThat(log).containsExactly("first@10", "later@15");
        first.arm(10);
        timers.advance(12);
        assertThat(later.isPending()).isTrue();
        assertThat(timers.pendingCount()).isEqualTo(1);
    }

    @Test
    void shouldPropagateAnActionsExceptionAndKeepLaterTimersPending() {
        RvtTimer bad = timers.newTimer("bad", () -> {
            throw new IllegalStateException("boom");
        });
        RvtTimer good = timer("good");
        bad.arm(1);
        good.arm(2);
        assertThatThrownBy(() -> timers.advance(10)).isInstanceOf(IllegalStateException.class).hasMessage("boom");
        assertThat(good.isPending()).isTrue();
        assertThat(bad.isPending()).isFalse();
    }

    @Test
    void shouldWaitForAnActionRunningOnAnotherThreadWhenCancelledSynchronously() throws Exception {
        CountDownLatch inAction = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<RvtTimer> self = new AtomicReference<>();
        RvtTimer t = timers.newTimer("t", () -> {
            inAction.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            self.get().arm(1);
        });
        self.set(t);
        t.arm(1);
        Thread advancer = new Thread(() -> timers.advance(1), "advancer");
        advancer.start();
        assertThat(inAction.await(10, TimeUnit.SECONDS)).isTrue();

        CompletableFuture<Void> cancelled = new CompletableFuture<>();
        Thread canceller = new Thread(() -> {
            t.cancelSync();
            cancelled.complete(null);
        }, "canceller");
        canceller.start();
        awaitBlocked(canceller);
        assertThat(cancelled).isNotDone();
        release.countDown();
        cancelled.get(10, TimeUnit.SECONDS);
        advancer.join(10_000);
        assertThat(t.isPending()).as("the re-arming by the action was cancelled too").isFalse();
    }

    /** Waits (10 s at the most) until {@code t} waits or is blocked: here, in cancelSync. */
    private static void awaitBlocked(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            Thread.State s = t.getState();
            if (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING || s == Thread.State.BLOCKED) {
                return;
            }
            assertThat(System.nanoTime() - deadline).as("%s to block (state %s)", t.getName(), s).isNegative();
            Thread.sleep(1);
        }
    }
}
