package io.rvt.core.timer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.spi.RvtTimer;
import io.rvt.core.TestUtil;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class SystemTimerServiceTest {
    private static final long HOUR = TimeUnit.HOURS.toNanos(1);

    private final SystemTimerService timers = new SystemTimerService("rvt-test-timer");

    @AfterEach
    void tearDown() {
        timers.close();
    }

    @Test
    void shouldRunTheActionOnTheTimerThreadWhenArmed() throws Exception {
        CompletableFuture<Thread> ran = new CompletableFuture<>();
        RvtTimer t = timers.newTimer("t", () -> ran.complete(Thread.currentThread()));
        assertThat(t.isPending()).isFalse();
        t.arm(TimeUnit.MILLISECONDS.toNanos(1));
        Thread thread = ran.get(10, TimeUnit.SECONDS);
        assertThat(thread.getName()).isEqualTo("rvt-test-timer");
        assertThat(thread.isDaemon()).isTrue();
        TestUtil.await(() -> !t.isPending(), "the expiry to be consumed");
        assertThat(timers.hz()).isEqualTo(1000);
        assertThat(timers.nanoTime()).isPositive();
    }

    @Test
    void shouldReplaceThePendingExpiryWhenArmedAgain() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch ran = new CountDownLatch(1);
        RvtTimer t = timers.newTimer("t", () -> {
            runs.incrementAndGet();
            ran.countDown();
        });
        t.arm(HOUR);
        t.arm(0);
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
        TestUtil.await(() -> !t.isPending(), "no expiry left");
        // A second, later expiry would have to come from the hour-long arming, which was replaced.
        assertThat(runs).hasValue(1);
        assertThatThrownBy(() -> t.arm(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldReportWhetherAnExpiryWasPendingWhenCancelled() {
        RvtTimer t = timers.newTimer("t", () -> {
        });
        assertThat(t.cancel()).isFalse();
        t.arm(HOUR);
        assertThat(t.isPending()).isTrue();
        assertThat(t.cancel()).isTrue();
        assertThat(t.isPending()).isFalse();
        assertThat(t.cancel()).isFalse();
        t.arm(HOUR);
        t.cancelSync();
        assertThat(t.isPending()).isFalse();
    }

    @Test
    void shouldWaitForARunningActionWhenCancelledSynchronously() throws Exception {
        CountDownLatch inAction = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        RvtTimer t = timers.newTimer("t", () -> {
            inAction.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        t.arm(0);
        assertThat(inAction.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(t.cancel()).as("running, not pending").isFalse();

        CompletableFuture<Void> cancelled = new CompletableFuture<>();
        Thread canceller = new Thread(() -> {
            t.cancelSync();
            cancelled.complete(null);
        }, "canceller");
        canceller.start();
        TestUtil.awaitBlocked(canceller);
        assertThat(cancelled).isNotDone();
        release.countDown();
        cancelled.get(10, TimeUnit.SECONDS);
    }

    @Test
    void shouldNotWaitWhenTheActionCancelsItselfSynchronously() throws Exception {
        AtomicReference<RvtTimer> self = new AtomicReference<>();
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        RvtTimer t = timers.newTimer("t", () -> {
            self.get().arm(HOUR);
            self.get().cancelSync();
            done.complete(self.get().isPending());
        });
        self.set(t);
        t.arm(0);
        assertThat(done.get(10, TimeUnit.SECONDS)).isFalse();
    }

    @Test
    void shouldDropExpiriesAndIgnoreArmingWhenClosed() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        RvtTimer t = timers.newTimer("t", runs::incrementAndGet);
        t.arm(HOUR);
        timers.close();
        assertThat(timers.isClosed()).isTrue();
        t.arm(0);
        assertThat(t.isPending()).isFalse();
        assertThat(runs).hasValue(0);
    }

    @Test
    void shouldFireEveryTimerOnceInDeadlineOrderWhenManyAreArmedRearmedAndCancelledFromSeveralThreads()
            throws Exception {
        int n = 200;
        java.util.List<Integer> fired = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        RvtTimer[] ts = new RvtTimer[n];
        for (int i = 0; i < n; i++) {
            int id = i;
            ts[i] = timers.newTimer("t" + i, () -> fired.add(id));
        }
        Thread[] armers = new Thread[4];
        for (int k = 0; k < armers.length; k++) {
            int first = k;
            armers[k] = new Thread(() -> {
                for (int i = first; i < n; i += 4) {
                    ts[i].arm(HOUR); // far away first: the heap must move each one when re-armed earlier
                }
            });
            armers[k].start();
        }
        for (Thread t : armers) {
            t.join();
        }
        // re-armed in reverse order to absolute deadlines 1 ms apart in id order: the heap sorts them. arm takes a
        // delay, so a deadline is off by the time between our clock read and arm's own: an arm that took more than a
        // quarter of the spacing (the thread was preempted) is redone, so no two deadlines can swap
        long spacing = TimeUnit.MILLISECONDS.toNanos(1);
        long start = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        for (int i = n - 1; i >= 0; i--) {
            long before;
            long after;
            do {
                before = System.nanoTime();
                ts[i].arm(Math.max(0, start + i * spacing - before));
                after = System.nanoTime();
            } while (after - before > spacing / 4);
        }
        for (int i = 0; i < n; i += 10) {
            ts[i].cancel();
        }
        int expected = n - n / 10;
        TestUtil.await(() -> fired.size() >= expected, "every armed timer to fire");
        // the last deadline is after every cancelled one's: had a cancelled timer fired, it would be in the list
        assertThat(fired).hasSize(expected).doesNotHaveDuplicates().isSorted()
                .noneMatch(id -> id % 10 == 0);
    }
}
