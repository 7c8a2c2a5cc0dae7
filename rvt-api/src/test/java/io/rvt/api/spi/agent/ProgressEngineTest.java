package io.rvt.api.spi.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class ProgressEngineTest {
    private static final long LONG_QUIET = TimeUnit.SECONDS.toNanos(30);

    /** Records who runs it and how many run it at once; does {@code work} units per cycle while it has any. */
    static class Recording implements Agent {
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger maxInside = new AtomicInteger();
        final AtomicInteger cycles = new AtomicInteger();
        final AtomicReference<Thread> lastThread = new AtomicReference<>();
        final AtomicInteger work = new AtomicInteger();
        volatile CountDownLatch hold;
        volatile CountDownLatch entered;
        /** When set, only this thread counts {@link #entered} down and waits on {@link #hold}. */
        volatile Thread holdOnly;
        volatile ProgressEngine engine;
        volatile int reentered = -1;
        volatile boolean terminate;

        @Override
        public int doWork() throws Exception {
            int in = inside.incrementAndGet();
            maxInside.accumulateAndGet(in, Math::max);
            try {
                cycles.incrementAndGet();
                lastThread.set(Thread.currentThread());
                if (terminate) {
                    throw new AgentTerminationException("told to");
                }
                Thread only = holdOnly;
                boolean holds = only == null || only == Thread.currentThread();
                CountDownLatch e = entered;
                if (e != null && holds) {
                    e.countDown();
                }
                CountDownLatch h = hold;
                if (h != null && holds) {
                    h.await(30, TimeUnit.SECONDS);
                }
                ProgressEngine pe = engine;
                if (pe != null) {
                    reentered = pe.progress(10);
                }
                int w = work.get();
                if (w > 0) {
                    work.decrementAndGet();
                    return 1;
                }
                return 0;
            } finally {
                inside.decrementAndGet();
            }
        }

        @Override
        public String roleName() {
            return "recording";
        }
    }

    private static void await(BooleanSupplier c, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!c.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting for " + what);
            }
            LockSupport.parkNanos(200_000);
        }
    }

    private static ProgressEngine start(Agent a, ThreadingMode mode, long quiet) {
        return ProgressEngine.start(a, mode, new BackoffIdleStrategy(), quiet, Throwable::printStackTrace);
    }

    @Test
    void shouldRunTheAgentOnTheCallersThreadUntilIdleOrBudgetWhenProgressed() {
        Recording a = new Recording();
        try (ProgressEngine e = start(a, ThreadingMode.INVOKER, LONG_QUIET)) {
            a.work.set(100);
            assertThat(e.progress(10)).as("stops at the budget").isEqualTo(10);
            assertThat(a.lastThread.get()).isSameAs(Thread.currentThread());
            a.work.set(3);
            assertThat(e.progress(10)).as("stops when a cycle does nothing").isEqualTo(3);
            assertThat(e.progress(10)).isZero();
            assertThat(e.callerCycles()).isEqualTo(3);
            assertThat(e.thread()).as("INVOKER starts no thread").isNull();
        }
    }

    @Test
    @Timeout(60)
    void shouldLetOnlyOneThreadInTheEngineAndReturnAtOnceForTheOthers() throws Exception {
        Recording a = new Recording();
        try (ProgressEngine e = start(a, ThreadingMode.PROGRESS, LONG_QUIET)) {
            a.hold = new CountDownLatch(1);
            a.entered = new CountDownLatch(1);
            Thread holder = new Thread(() -> e.progress(1), "holder");
            holder.start();
            assertThat(a.entered.await(20, TimeUnit.SECONDS)).isTrue();
            // while the holder is inside, every other caller returns 0 without entering
            for (int i = 0; i < 1000; i++) {
                assertThat(e.progress(1)).isZero();
            }
            assertThat(a.cycles.get()).isEqualTo(1);
            a.entered = null;
            a.hold.countDown();
            a.hold = null;
            holder.join();

            // many threads hammering: never two inside at once
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> pollers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Thread p = new Thread(() -> {
                    while (!stop.get()) {
                        a.work.set(2);
                        e.progress(4);
                    }
                }, "poller-" + t);
                pollers.add(p);
                p.start();
            }
            await(() -> a.cycles.get() > 20_000, "the pollers to run many cycles");
            stop.set(true);
            for (Thread p : pollers) {
                p.join();
            }
            assertThat(a.maxInside.get()).as("threads in the engine at once").isEqualTo(1);
        }
    }

    @Test
    void shouldReturnAtOnceWhenCalledFromInsideTheEngine() {
        Recording a = new Recording();
        try (ProgressEngine e = start(a, ThreadingMode.INVOKER, LONG_QUIET)) {
            a.engine = e;
            e.progress(1);
            assertThat(a.reentered).isZero();
            assertThat(a.maxInside.get()).isEqualTo(1);
        }
    }

    @Test
    @Timeout(60)
    void shouldRunTheEngineOnTheBackstopWhenNoOneProgressesIt() {
        Recording a = new Recording();
        try (ProgressEngine e = start(a, ThreadingMode.PROGRESS, TimeUnit.MILLISECONDS.toNanos(1))) {
            a.work.set(50);
            await(() -> a.work.get() == 0, "the backstop to do the work nobody polled for");
            assertThat(a.lastThread.get()).isSameAs(e.thread());
            assertThat(e.backstopWork()).isEqualTo(50);
            assertThat(e.callerCycles()).isZero();
        }
    }

    @Test
    @Timeout(60)
    void shouldKeepTheBackstopOutWhileCallersProgress() {
        Recording a = new Recording();
        try (ProgressEngine e = start(a, ThreadingMode.PROGRESS, LONG_QUIET)) {
            for (int i = 0; i < 10_000; i++) {
                a.work.set(1);
                assertThat(e.progress(1)).isEqualTo(1);
            }
            assertThat(e.backstopWork()).isZero();
            assertThat(a.cycles.get()).as("every cycle was a caller's").isEqualTo(10_000);
            await(() -> e.thread().getState() == Thread.State.TIMED_WAITING, "the backstop to park");
        }
    }

    /** Counts how the backstop idles: alone (the engine's strategy: driver-jni's wait on the socket) or parked. */
    static final class CountingIdle implements IdleStrategy {
        final AtomicInteger alone = new AtomicInteger();
        final AtomicInteger resets = new AtomicInteger();

        @Override
        public void idle() {
            alone.incrementAndGet();
            LockSupport.parkNanos(100_000);
        }

        @Override
        public void reset() {
            resets.incrementAndGet();
        }

        @Override
        public String alias() {
            return "counting";
        }
    }

    @Test
    @Timeout(60)
    void shouldParkTheBackstopWhileACallerIsInTheEngineLongerThanTheQuietPeriod() throws Exception {
        // A caller preempted in the engine (or in a long cycle) finishes its call: the backstop must not idle as
        // the engine meanwhile (driver-jni's backstop spun in poll on the datagram the caller was about to receive)
        Recording a = new Recording();
        CountingIdle idle = new CountingIdle();
        try (ProgressEngine e = ProgressEngine.start(a, ThreadingMode.PROGRESS, idle,
                TimeUnit.MILLISECONDS.toNanos(1), Throwable::printStackTrace)) {
            // only the holder waits in the engine: a backstop cycle that came first (no caller for a quiet period
            // since the start) must not be the one held, or the backstop never looks again
            CountDownLatch entered = new CountDownLatch(1);
            Thread holder = new Thread(() -> {
                while (entered.getCount() > 0) {
                    e.progress(1); // returns at once while the backstop is in the engine: try again
                }
            }, "holder");
            a.holdOnly = holder;
            a.hold = new CountDownLatch(1);
            a.entered = entered;
            holder.start();
            assertThat(entered.await(20, TimeUnit.SECONDS)).isTrue();
            int cyclesAtEntry = a.cycles.get();
            int resetsBefore = idle.resets.get();
            int aloneBefore = idle.alone.get();
            // many quiet periods of the backstop's while the holder stays in, counted by its parks (each resets)
            await(() -> idle.resets.get() - resetsBefore >= 20 || idle.alone.get() - aloneBefore >= 20,
                    "the backstop to look at the held engine 20 times");
            int aloneWhileHeld = idle.alone.get() - aloneBefore;
            int cyclesWhileHeld = a.cycles.get() - cyclesAtEntry;
            a.entered = null;
            a.hold.countDown();
            a.hold = null;
            holder.join();
            assertThat(aloneWhileHeld).as("the backstop's idles as the engine while a caller was in it").isZero();
            assertThat(cyclesWhileHeld).as("cycles besides the holder's while it was in the engine").isZero();
            // and once no one calls, it takes over as before
            a.work.set(5);
            await(() -> a.work.get() == 0, "the backstop to do the work nobody polled for");
            assertThat(e.backstopWork()).isEqualTo(5);
        }
    }

    @Test
    void shouldStopRunningTheAgentWhenItSignalsTermination() {
        Recording a = new Recording();
        try (ProgressEngine e = start(a, ThreadingMode.INVOKER, LONG_QUIET)) {
            a.terminate = true;
            assertThat(e.progress(1)).isZero();
            assertThat(e.isClosed()).isTrue();
            a.terminate = false;
            a.work.set(5);
            assertThat(e.progress(5)).isZero();
            assertThat(a.cycles.get()).isEqualTo(1);
            assertThat(e.errorCount()).as("termination is not an error").isZero();
        }
    }

    @Test
    void shouldCountAndHandOnFailuresAndKeepGoing() {
        List<Throwable> seen = new ArrayList<>();
        Agent failing = new Agent() {
            int n;

            @Override
            public int doWork() {
                if (n++ == 0) {
                    throw new IllegalStateException("first cycle fails");
                }
                return 0;
            }

            @Override
            public String roleName() {
                return "failing";
            }
        };
        try (ProgressEngine e = ProgressEngine.start(failing, ThreadingMode.INVOKER, new BackoffIdleStrategy(),
                LONG_QUIET, seen::add)) {
            assertThat(e.progress(1)).isZero();
            assertThat(e.progress(1)).isZero();
            assertThat(e.errorCount()).isEqualTo(1);
            assertThat(seen).singleElement().extracting(Throwable::getMessage).isEqualTo("first cycle fails");
        }
    }

    @Test
    @Timeout(60)
    void shouldRunOnlyOnItsOwnThreadWhenDedicated() {
        Recording a = new Recording();
        try (ProgressEngine e = start(a, ThreadingMode.DEDICATED, LONG_QUIET)) {
            a.work.set(10);
            assertThat(e.progress(10)).as("the hook does nothing").isZero();
            await(() -> a.work.get() == 0, "the dedicated thread to do the work");
            assertThat(a.lastThread.get()).isSameAs(e.thread());
        }
    }

    @Test
    void shouldCloseTheAgentOnceAndRefuseProgressAfterwards() {
        AtomicInteger closes = new AtomicInteger();
        Recording a = new Recording() {
            @Override
            public void onClose() {
                closes.incrementAndGet();
            }
        };
        ProgressEngine e = start(a, ThreadingMode.PROGRESS, LONG_QUIET);
        e.close();
        e.close();
        a.work.set(1);
        assertThat(e.progress(1)).isZero();
        assertThat(closes.get()).isEqualTo(1);
        assertThat(e.thread().isAlive()).isFalse();
    }

    @Test
    @Timeout(60)
    void shouldRunTheStandInBesideACallerStalledInsideACycleUntilItLeaves() throws Exception {
        Recording a = new Recording();
        Recording standIn = new Recording();
        long quiet = TimeUnit.MILLISECONDS.toNanos(1);
        try (ProgressEngine e = ProgressEngine.start(a, standIn, ThreadingMode.PROGRESS, new BackoffIdleStrategy(),
                quiet, Throwable::printStackTrace)) {
            // a caller taken off its core inside the engine (held on purpose): the backstop cannot run the agent
            Thread holder = stallInside(e, a);
            int cycles = a.cycles.get();
            // ... but it runs the stand-in once the caller has begun no cycle for the quiet period
            standIn.work.set(5);
            await(() -> standIn.work.get() == 0, "the stand-in to do its work beside the stalled caller");
            assertThat(standIn.lastThread.get()).isSameAs(e.thread());
            assertThat(e.standInWork()).isEqualTo(5);
            assertThat(a.cycles.get()).as("no cycle of the agent beside the stalled caller's").isEqualTo(cycles);
            a.hold.countDown();
            holder.join();
        }
    }

    @Test
    @Timeout(60)
    void shouldLeaveAStalledCallerAloneWithoutAStandIn() throws Exception {
        Recording a = new Recording();
        try (ProgressEngine e = start(a, ThreadingMode.PROGRESS, TimeUnit.MILLISECONDS.toNanos(1))) {
            Thread holder = stallInside(e, a);
            int cycles = a.cycles.get();
            a.work.set(1);
            // the backstop checks once a quiet period: give it many, measured, then see it did not enter
            long start = System.nanoTime();
            await(() -> System.nanoTime() - start > TimeUnit.MILLISECONDS.toNanos(200), "200 quiet periods");
            assertThat(a.cycles.get()).as("no second thread in the agent").isEqualTo(cycles);
            assertThat(e.standInWork()).isZero();
            a.hold.countDown();
            holder.join();
        }
    }

    /** Starts a caller that enters {@code e} and stays inside {@code a}'s cycle until {@code a.hold} is counted down. */
    private static Thread stallInside(ProgressEngine e, Recording a) throws InterruptedException {
        a.hold = new CountDownLatch(1);
        CountDownLatch entered = new CountDownLatch(1);
        a.entered = entered;
        Thread holder = new Thread(() -> {
            while (entered.getCount() > 0) {
                e.progress(1); // 0 while the backstop is in the engine (no caller yet): try again
            }
        }, "stalled-caller");
        a.holdOnly = holder;
        holder.start();
        assertThat(entered.await(20, TimeUnit.SECONDS)).as("the caller is inside the engine").isTrue();
        return holder;
    }
}
