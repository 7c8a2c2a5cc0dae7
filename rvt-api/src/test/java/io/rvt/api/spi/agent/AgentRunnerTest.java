package io.rvt.api.spi.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class AgentRunnerTest {
    @Test
    @Timeout(10)
    void shouldCallStartWorkAndCloseOnTheAgentThreadWhenRunAndClosed() {
        List<String> calls = new CopyOnWriteArrayList<>();
        AtomicInteger work = new AtomicInteger();
        Agent agent = new Agent() {
            @Override
            public void onStart() {
                calls.add("start:" + Thread.currentThread().getName());
            }

            @Override
            public int doWork() {
                work.incrementAndGet();
                return 0;
            }

            @Override
            public void onClose() {
                calls.add("close:" + Thread.currentThread().getName());
            }

            @Override
            public String roleName() {
                return "test-agent";
            }
        };

        AgentRunner runner = AgentRunner.start(agent, new BackoffIdleStrategy(), Throwable::printStackTrace);
        awaitTrue(() -> work.get() > 100);
        runner.close();

        assertThat(runner.thread().isAlive()).isFalse();
        assertThat(runner.isClosed()).isTrue();
        assertThat(calls).containsExactly("start:test-agent", "close:test-agent");
    }

    @Test
    @Timeout(10)
    void shouldPassErrorsToTheHandlerAndKeepRunningWhenDoWorkThrows() {
        AtomicInteger calls = new AtomicInteger();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        Agent agent = new Agent() {
            @Override
            public int doWork() {
                if (calls.incrementAndGet() % 2 == 1) {
                    throw new IllegalStateException("odd call");
                }
                return 1;
            }

            @Override
            public String roleName() {
                return "flaky";
            }
        };

        try (AgentRunner runner = AgentRunner.start(agent, new YieldingIdleStrategy(), errors::add)) {
            awaitTrue(() -> calls.get() >= 10);
            runner.close();
            assertThat(runner.errorCount()).isEqualTo(errors.size()).isGreaterThanOrEqualTo(5);
        }
        assertThat(errors).allSatisfy(e -> assertThat(e).hasMessage("odd call"));
    }

    @Test
    void shouldRejectInconsistentBackoffSettings() {
        assertThatThrownBy(() -> new BackoffIdleStrategy(1, 1, 100, 10)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("minParkNanos=100").hasMessageContaining("maxParkNanos=10");
        assertThatThrownBy(() -> new SleepingIdleStrategy(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldResetTheBackoffWhenWorkIsDone() {
        BackoffIdleStrategy idle = new BackoffIdleStrategy(2, 1, 1, 4);
        for (int i = 0; i < 10; i++) {
            idle.idle(0); // spins, yields, then parks of 1, 2, 4, 4 ... ns
        }
        idle.idle(1); // resets
        assertThat(idle.alias()).isEqualTo("backoff");
        assertThat(new BusySpinIdleStrategy().alias()).isEqualTo("spin");
        assertThat(new YieldingIdleStrategy().alias()).isEqualTo("yield");
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out");
            }
            Thread.yield();
        }
    }
}
