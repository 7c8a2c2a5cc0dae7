package io.rvt.driver.sim.clock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class EventLoopTest {
    private final EventLoop loop = new EventLoop();
    private final List<String> log = new ArrayList<>();

    @Test
    void shouldRunEventsByTimeThenBySchedulingOrderWhenTimesTie() {
        loop.schedule(30, () -> log.add("c@" + loop.nanoTime()));
        loop.schedule(10, () -> log.add("a@" + loop.nanoTime()));
        loop.schedule(30, () -> log.add("d@" + loop.nanoTime()));
        loop.schedule(10, () -> log.add("b@" + loop.nanoTime()));

        assertThat(loop.runUntilIdle()).isEqualTo(4);

        assertThat(log).containsExactly("a@10", "b@10", "c@30", "d@30");
        assertThat(loop.nanoTime()).isEqualTo(30);
    }

    @Test
    void shouldRunExecutorTasksFifoAtTheCurrentTimeWhenExecutedFromAnEvent() {
        loop.schedule(5, () -> {
            loop.executor().execute(() -> log.add("task1@" + loop.nanoTime()));
            loop.executor().execute(() -> log.add("task2@" + loop.nanoTime()));
            log.add("event@" + loop.nanoTime());
        });
        loop.schedule(5, () -> log.add("queued-before@" + loop.nanoTime()));

        loop.runUntilIdle();

        assertThat(log).containsExactly("event@5", "queued-before@5", "task1@5", "task2@5");
    }

    @Test
    void shouldStepOneEventAndMoveTheClockWhenStepping() {
        loop.schedule(100, () -> log.add("x"));

        assertThat(loop.nanoTime()).isZero();
        assertThat(loop.step()).isTrue();
        assertThat(loop.nanoTime()).isEqualTo(100);
        assertThat(loop.step()).isFalse();
        assertThat(log).containsExactly("x");
    }

    @Test
    void shouldRunOneEventWhenTryStepFindsTheLoopFreeAndNoneWhenItIsDriven() {
        boolean[] inner = new boolean[1];
        loop.schedule(10, () -> {
            log.add("outer");
            inner[0] = loop.tryStep(); // inside an event: the loop is being driven, so it runs nothing
        });
        loop.schedule(20, () -> log.add("second"));

        assertThat(loop.tryStep()).isTrue();
        assertThat(inner[0]).isFalse();
        assertThat(log).containsExactly("outer");
        assertThat(loop.tryStep()).isTrue();
        assertThat(log).containsExactly("outer", "second");
        assertThat(loop.nanoTime()).isEqualTo(20);
        assertThat(loop.tryStep()).as("empty queue").isFalse();
    }

    @Test
    void shouldRunOnlyDueEventsAndEndAtTheTargetWhenRunFor() {
        loop.schedule(50, () -> log.add("50"));
        loop.schedule(100, () -> log.add("100"));
        loop.schedule(101, () -> log.add("101"));

        assertThat(loop.runFor(100)).isEqualTo(2);

        assertThat(log).containsExactly("50", "100");
        assertThat(loop.nanoTime()).isEqualTo(100);
        assertThat(loop.pending()).isEqualTo(1);
        assertThat(loop.nextEventTime()).isEqualTo(101);
    }

    @Test
    void shouldStopAsSoonAsTheConditionHoldsWhenRunUntil() {
        int[] count = new int[1];
        for (int i = 1; i <= 10; i++) {
            loop.schedule(i * 10L, () -> count[0]++);
        }

        assertThat(loop.runUntil(() -> count[0] == 3, 1_000)).isTrue();

        assertThat(loop.nanoTime()).isEqualTo(30);
        assertThat(loop.pending()).isEqualTo(7);
    }

    @Test
    void shouldMoveToTheDeadlineAndReportFalseWhenRunUntilFindsNothingDue() {
        loop.schedule(5_000, () -> log.add("late"));

        assertThat(loop.runUntil(() -> !log.isEmpty(), 1_000)).isFalse();

        assertThat(loop.nanoTime()).isEqualTo(1_000);
        assertThat(log).isEmpty();
    }

    @Test
    void shouldThrowWhenDrivenFromInsideAnEvent() {
        loop.execute(loop::runUntilIdle);

        assertThatThrownBy(loop::runUntilIdle).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("re-entrantly");
    }

    @Test
    void shouldPropagateTheExceptionAndKeepTheRestQueuedWhenAnEventThrows() {
        loop.schedule(1, () -> {
            throw new IllegalArgumentException("boom");
        });
        loop.schedule(2, () -> log.add("after"));

        assertThatThrownBy(loop::runUntilIdle).hasMessage("boom");
        assertThat(loop.pending()).isEqualTo(1);
        loop.runUntilIdle();
        assertThat(log).containsExactly("after");
    }

    @Test
    void shouldRunCustomEventsAgainWhenRescheduledAndNotWhenCancelled() {
        LoopEvent event = new LoopEvent() {
            @Override
            protected void onEvent() {
                log.add("e@" + loop.nanoTime());
            }
        };
        loop.schedule(event, 10);
        loop.schedule(event, 20); // moves it
        assertThat(event.isScheduled()).isTrue();
        assertThat(event.time()).isEqualTo(20);
        loop.runUntilIdle();
        loop.schedule(event, 40);
        assertThat(loop.cancel(event)).isTrue();
        assertThat(loop.cancel(event)).isFalse();
        loop.runUntilIdle();

        assertThat(log).containsExactly("e@20");
        assertThat(event.isScheduled()).isFalse();
    }

    @Test
    void shouldGiveTheSameEventHashWhenTheSameProgramRunsTwiceAndAnotherWhenItDiffers() {
        assertThat(program(7)).isEqualTo(program(7));
        assertThat(program(7)).isNotEqualTo(program(8));
    }

    private static long program(long seed) {
        EventLoop l = new EventLoop();
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < 200; i++) {
            long delay = r.nextLong(1_000);
            l.schedule(delay, () -> l.schedule(r.nextLong(100), () -> { }));
        }
        l.runUntilIdle();
        return l.eventHash();
    }

    @Test
    void shouldRunInTheSameOrderAsASortedModelWhenScheduleAndCancelAreRandom() {
        for (int round = 0; round < 20; round++) {
            long seed = new SplittableRandom().nextLong();
            SplittableRandom r = new SplittableRandom(seed);
            EventLoop l = new EventLoop();
            List<long[]> model = new ArrayList<>(); // {time, id}
            List<Long> ran = new ArrayList<>();
            List<LoopEvent> events = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                long id = i;
                LoopEvent e = new LoopEvent() {
                    @Override
                    protected void onEvent() {
                        ran.add(id);
                    }
                };
                events.add(e);
                long t = r.nextLong(50);
                l.schedule(e, t);
                model.add(new long[] {t, id});
                if (r.nextInt(4) == 0) {
                    int victim = r.nextInt(events.size());
                    if (l.cancel(events.get(victim))) {
                        model.removeIf(m -> m[1] == victim);
                    }
                }
            }
            l.runUntilIdle();
            // ids were scheduled in increasing order, so (time, id) is (time, scheduling sequence)
            model.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
            List<Long> expected = new ArrayList<>();
            model.forEach(m -> expected.add(m[1]));
            assertThat(ran).as("seed=0x%x", seed).isEqualTo(expected);
        }
    }

    @Test
    void shouldAllocateNothingWhenExecutingTasksInASteadyState() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        int[] count = new int[1];
        Runnable task = () -> count[0]++;
        for (int i = 0; i < 20_000; i++) { // warm-up: fills the node pool and compiles the path
            loop.execute(task);
            loop.schedule(3, task);
            loop.runUntilIdle();
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 100_000; i++) {
            loop.execute(task);
            loop.schedule(3, task);
            loop.runUntilIdle();
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertThat(count[0]).isEqualTo(240_000);
        // Per-task allocation would be megabytes; a few hundred bytes of JVM noise (JIT, safepoints) are tolerated.
        assertThat(allocated).as("bytes allocated by 200k tasks").isLessThan(1024);
    }
}
