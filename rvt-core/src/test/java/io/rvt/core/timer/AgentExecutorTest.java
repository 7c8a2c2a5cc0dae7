package io.rvt.core.timer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link AgentExecutor}: rvt-core's tasks on the agent runtime, in order, on one thread started by the first. */
class AgentExecutorTest {
    @Test
    void shouldStartItsThreadWithTheFirstTaskAndRunTasksInOrderOnIt() throws Exception {
        AgentExecutor e = new AgentExecutor("agentexec-order");
        try {
            assertThat(e.thread()).as("no thread before the first task").isNull();
            List<Integer> ran = new CopyOnWriteArrayList<>();
            List<Thread> on = new CopyOnWriteArrayList<>();
            CountDownLatch done = new CountDownLatch(1);
            for (int i = 0; i < 200; i++) { // more than one duty cycle's 64
                int n = i;
                e.execute(() -> {
                    ran.add(n);
                    on.add(Thread.currentThread());
                });
            }
            e.execute(done::countDown);
            assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(ran).hasSize(200).isSorted();
            assertThat(on).containsOnly(e.thread());
            assertThat(e.thread().getName()).isEqualTo("agentexec-order");
            assertThat(e.thread().isDaemon()).isTrue();
        } finally {
            e.close();
        }
    }

    @Test
    void shouldWakeFromParkingForATaskAndKeepGoingAfterOneThrows() throws Exception {
        AgentExecutor e = new AgentExecutor("agentexec-wake");
        try {
            for (int round = 0; round < 20; round++) {
                e.execute(() -> {
                    throw new IllegalStateException("a failing task (expected in this test)");
                });
                CountDownLatch ran = new CountDownLatch(1);
                e.execute(ran::countDown);
                assertThat(ran.await(30, TimeUnit.SECONDS)).as("round %d", round).isTrue();
                // let the agent park before the next round, so each one wakes it
                Thread t = e.thread();
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (t.getState() != Thread.State.WAITING && System.nanoTime() - end < 0) {
                    Thread.onSpinWait();
                }
                assertThat(t.getState()).as("parked while it has no task").isEqualTo(Thread.State.WAITING);
            }
        } finally {
            e.close();
        }
    }

    @Test
    void shouldRunWhatWasQueuedWhenClosedThenRefuseAndLeaveNoThread() throws Exception {
        AgentExecutor e = new AgentExecutor("agentexec-close");
        CountDownLatch inFirst = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<Integer> ran = new CopyOnWriteArrayList<>();
        e.execute(() -> {
            inFirst.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
            ran.add(1);
        });
        assertThat(inFirst.await(30, TimeUnit.SECONDS)).isTrue();
        e.execute(() -> ran.add(2));
        Thread t = e.thread();
        Thread closer = new Thread(e::close, "agentexec-closer");
        closer.start();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!e.isClosed() && System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
        assertThatThrownBy(() -> e.execute(() -> ran.add(3))).isInstanceOf(RejectedExecutionException.class)
                .hasMessageContaining("agentexec-close is closed");
        release.countDown();
        closer.join(30_000);
        assertThat(closer.isAlive()).isFalse();
        assertThat(ran).containsExactly(1, 2);
        assertThat(t.isAlive()).isFalse();
    }

    @Test
    void shouldRefuseWithoutStartingAThreadOnceClosed() {
        AgentExecutor e = new AgentExecutor("agentexec-never");
        e.close();
        assertThatThrownBy(() -> e.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
        assertThat(e.thread()).isNull();
    }
}
