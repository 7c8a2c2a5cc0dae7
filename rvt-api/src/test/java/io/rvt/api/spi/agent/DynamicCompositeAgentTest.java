package io.rvt.api.spi.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class DynamicCompositeAgentTest {
    /** Counts its duty cycles; while {@code slow} is set, each cycle lasts until it is cleared. */
    static class Counting implements Agent {
        final AtomicLong calls = new AtomicLong();
        final AtomicBoolean inside = new AtomicBoolean();
        /** True while a cycle is held by {@link #slow}. */
        final AtomicBoolean held = new AtomicBoolean();
        volatile boolean slow;

        @Override
        public int doWork() {
            inside.set(true);
            calls.incrementAndGet();
            if (slow) {
                held.set(true);
                while (slow) {
                    Thread.onSpinWait();
                }
                held.set(false);
            }
            inside.set(false);
            return 1;
        }

        @Override
        public String roleName() {
            return "counting";
        }
    }

    private static void await(java.util.function.BooleanSupplier c, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!c.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            LockSupport.parkNanos(100_000);
        }
    }

    @Test
    void shouldRunMembersInOrderWhenInvokedDirectly() throws Exception {
        DynamicCompositeAgent c = new DynamicCompositeAgent("direct");
        Counting a = new Counting();
        Counting b = new Counting();
        c.add(a);
        c.add(b);
        assertThat(c.doWork()).isEqualTo(2);
        assertThat(c.remove(a)).isTrue();
        assertThat(c.remove(a)).as("not a member any more").isFalse();
        assertThat(c.doWork()).isEqualTo(1);
        assertThat(a.calls.get()).isEqualTo(1);
        assertThat(b.calls.get()).isEqualTo(2);
        assertThat(c.size()).isEqualTo(1);
    }

    @Test
    @Timeout(30)
    void shouldReturnFromRemoveOnlyOnceTheRemovedAgentIsNoLongerRunning() throws Exception {
        DynamicCompositeAgent c = new DynamicCompositeAgent("rt-dynamic");
        try (AgentRunner runner = AgentRunner.start(c, new BusySpinIdleStrategy(), Throwable::printStackTrace)) {
            Counting a = new Counting();
            c.add(a);
            await(() -> a.calls.get() > 10, "the runner to pick up the new member");

            a.slow = true;
            try {
                await(a.held::get, "a cycle held inside a");
                AtomicBoolean removed = new AtomicBoolean();
                Thread remover = new Thread(() -> removed.set(c.remove(a)));
                remover.start();
                // remove() must wait while the cycle that runs a is in it: the remover parks in its wait loop.
                await(() -> remover.getState() == Thread.State.TIMED_WAITING, "remove() waiting for the cycle");
                assertThat(removed.get()).as("remove returned while a was still running").isFalse();
                a.slow = false;
                remover.join(TimeUnit.SECONDS.toMillis(10));
                assertThat(removed.get()).isTrue();
                assertThat(a.inside.get()).isFalse();
            } finally {
                a.slow = false; // never leave the runner's thread held: close() would wait for it
            }
            long calls = a.calls.get();
            Counting b = new Counting();
            c.add(b);
            await(() -> b.calls.get() > 100, "more cycles");
            assertThat(a.calls.get()).isEqualTo(calls);
        }
    }

    @Test
    @Timeout(30)
    void shouldStartAndCloseMembersOnTheAgentsThreadWhenAddedAndRemovedFromAnother() throws Exception {
        DynamicCompositeAgent c = new DynamicCompositeAgent("rt-lifecycle");
        java.util.concurrent.atomic.AtomicReference<Thread> started = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicReference<Thread> closed = new java.util.concurrent.atomic.AtomicReference<>();
        Counting a = new Counting() {
            @Override
            public void onStart() {
                started.set(Thread.currentThread());
            }

            @Override
            public void onClose() {
                closed.set(Thread.currentThread());
            }
        };
        try (AgentRunner runner = AgentRunner.start(c, new BusySpinIdleStrategy(), Throwable::printStackTrace)) {
            await(() -> runner.thread().isAlive(), "the runner");
            c.add(a);
            await(() -> a.calls.get() > 0, "the member to run");
            assertThat(started.get()).isSameAs(runner.thread());
            assertThat(c.remove(a)).isTrue();
            assertThat(closed.get()).as("removed on the agent's thread").isSameAs(runner.thread());
            assertThat(c.size()).isZero();
        }
    }

    @Test
    void shouldMakeTheChangeOnTheCallersThreadWhenNoCycleRuns() {
        DynamicCompositeAgent c = new DynamicCompositeAgent("idle");
        Counting a = new Counting();
        c.add(a);
        assertThat(c.size()).as("no runner: the caller made the change").isEqualTo(1);
        assertThat(c.remove(a)).isTrue();
        assertThat(c.size()).isZero();
    }
}
