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
}
