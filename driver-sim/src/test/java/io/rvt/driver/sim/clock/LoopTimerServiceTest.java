package io.rvt.driver.sim.clock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.spi.RvtTimer;
import io.rvt.api.spi.TimerService;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class LoopTimerServiceTest {
    private final EventLoop loop = new EventLoop();
    private final TimerService timers = loop.timerService();
    private final List<String> log = new ArrayList<>();

    private RvtTimer timer(String name) {
        return timers.newTimer(name, () -> log.add(name + "@" + timers.nanoTime()));
    }

    @Test
    void shouldFireInDeadlineOrderWhenArmedOutOfOrder() {
        timer("c").arm(300);
        timer("a").arm(100);
        timer("b").arm(200);

        loop.runUntilIdle();

        assertThat(log).containsExactly("a@100", "b@200", "c@300");
        assertThat(timers.hz()).isEqualTo(1000);
    }

    @Test
    void shouldBreakTiesInArmingOrderWhenDeadlinesAreEqual() {
        timer("first").arm(50);
        timer("second").arm(50);
        timer("third").arm(50);

        loop.runUntilIdle();

        assertThat(log).containsExactly("first@50", "second@50", "third@50");
    }

    @Test
    void shouldNotFireWhenCancelled() {
        RvtTimer t = timer("t");
        t.arm(10);
        assertThat(t.isPending()).isTrue();

        assertThat(t.cancel()).isTrue();
        assertThat(t.cancel()).isFalse();
        assertThat(t.isPending()).isFalse();
        loop.runFor(1_000);

        assertThat(log).isEmpty();
    }

    @Test
    void shouldReplaceThePendingExpiryWhenRearmed() {
        RvtTimer t = timer("t");
        t.arm(10);
        loop.runFor(5);
        t.arm(100); // mod_timer: from now (5), not from the first arming

        loop.runUntilIdle();

        assertThat(log).containsExactly("t@105");
    }

    @Test
    void shouldRearmFromItsOwnActionWhenPeriodic() {
        RvtTimer[] holder = new RvtTimer[1];
        holder[0] = timers.newTimer("tick", () -> {
            log.add("tick@" + timers.nanoTime());
            if (log.size() < 3) {
                holder[0].arm(1_000);
            }
        });
        holder[0].arm(1_000);

        loop.runUntilIdle();

        assertThat(log).containsExactly("tick@1000", "tick@2000", "tick@3000");
    }

    @Test
    void shouldOnlyCancelWhenCancelSyncIsCalledFromTheAction() {
        RvtTimer[] holder = new RvtTimer[1];
        holder[0] = timers.newTimer("self", () -> {
            holder[0].arm(10);
            holder[0].cancelSync();
            log.add("ran");
        });
        holder[0].arm(1);

        loop.runUntilIdle();

        assertThat(log).containsExactly("ran");
        assertThat(holder[0].isPending()).isFalse();
    }

    @Test
    void shouldRejectANegativeDelay() {
        assertThatThrownBy(() -> timer("t").arm(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timer 't'").hasMessageContaining("-1");
    }

    @Test
    @Timeout(10)
    void shouldWaitForTheRunningActionWhenCancelSyncIsCalledFromAnotherThread() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean actionDone = new AtomicBoolean();
        RvtTimer t = timers.newTimer("slow", () -> {
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            actionDone.set(true);
        });
        t.arm(1);
        Thread driver = new Thread(loop::runUntilIdle, "loop-driver");
        driver.start();
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

        AtomicBoolean cancelReturned = new AtomicBoolean();
        Thread canceller = new Thread(() -> {
            t.cancelSync();
            cancelReturned.set(actionDone.get());
        }, "canceller");
        canceller.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (canceller.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
            Thread.yield();
        }
        assertThat(canceller.getState()).isEqualTo(Thread.State.WAITING);
        release.countDown();
        canceller.join();
        driver.join();

        assertThat(cancelReturned.get()).as("cancelSync returned after the action finished").isTrue();
    }
}
