package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.CqNotify;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SigType;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.core.TestDriver;
import io.rvt.core.cq.RvtCq;
import io.rvt.core.timer.AgentExecutor;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * rvt-core's own threads are the agent runtime's: a device's completion handlers run on its {@link AgentExecutor}s
 * (one per completion vector, named {@code <device>-comp-<n>}), a QP error transition that cannot run where it was
 * raised runs on its send CQ's executor (before: a {@code new Thread("rvt-qp-error")} each time), and the device's
 * removal stops them all, so a device stopped and started again leaves no thread behind.
 */
class AgentThreadsTest {
    private static final int NEXT = CqNotify.NEXT_COMP.bit();
    /** Generous for a machine at load 20: each wait returns as soon as its condition holds. */
    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final AtomicInteger SEQ = new AtomicInteger();

    private static List<Thread> threadsOf(String deviceName) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith(deviceName + "-")).toList();
    }

    private static void await(String what, BooleanSupplier condition) {
        long end = System.nanoTime() + DEADLINE_NANOS;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - end).as("waiting for " + what).isNegative();
            Thread.onSpinWait();
        }
    }

    @Test
    void shouldRunCompletionHandlersOnTheAgentRuntimeAndLeaveNoThreadAcrossStopAndStart() throws Exception {
        String name = "agentthreads" + SEQ.incrementAndGet();
        assertThat(threadsOf(name)).isEmpty();
        for (int round = 0; round < 3; round++) {
            var dev = new TestDriver().name(name).register();
            CompletableFuture<Thread> ran = new CompletableFuture<>();
            RvtCq cq = (RvtCq) dev.createCq(4, 0, c -> ran.complete(Thread.currentThread()), null);
            assertThat(cq.completionExecutor()).isInstanceOf(AgentExecutor.class);
            cq.reqNotifyCq(NEXT);
            cq.enter(new WorkCompletion().wrId(round).opcode(WcOpcode.RECV), false);
            Thread t = ran.get(30, TimeUnit.SECONDS);
            assertThat(t.getName()).as("round " + round).isEqualTo(name + "-comp-0");
            assertThat(t).isSameAs(((AgentExecutor) cq.completionExecutor()).thread());
            assertThat(threadsOf(name)).containsExactly(t);
            dev.unregister();
            assertThat(t.isAlive()).as("the completion thread stops with the device (round %d)", round).isFalse();
            assertThat(threadsOf(name)).as("threads of %s after round %d", name, round).isEmpty();
        }
    }

    @Test
    void shouldRunQueuedHandlersBeforeTheDeviceGoesAndRefuseAfter() throws Exception {
        String name = "agentthreads" + SEQ.incrementAndGet();
        var dev = new TestDriver().name(name).register();
        CountDownLatch inHandler = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger handled = new AtomicInteger();
        RvtCq blocking = (RvtCq) dev.createCq(4, 0, c -> {
            inHandler.countDown();
            await(release);
            handled.incrementAndGet();
        }, null);
        RvtCq queued = (RvtCq) dev.createCq(4, 0, c -> handled.incrementAndGet(), null);
        assertThat(queued.completionExecutor()).isSameAs(blocking.completionExecutor()); // one vector: one thread
        blocking.reqNotifyCq(NEXT);
        queued.reqNotifyCq(NEXT);
        blocking.enter(new WorkCompletion().wrId(1).opcode(WcOpcode.RECV), false);
        assertThat(inHandler.await(30, TimeUnit.SECONDS)).isTrue();
        queued.enter(new WorkCompletion().wrId(2).opcode(WcOpcode.RECV), false); // queued behind the first
        Thread remover = new Thread(dev::unregister, name + "-remover-test");
        remover.start();
        release.countDown();
        remover.join(TimeUnit.NANOSECONDS.toMillis(DEADLINE_NANOS));
        assertThat(remover.isAlive()).isFalse();
        assertThat(handled).as("the handler queued before the removal still ran").hasValue(2);
        assertThat(threadsOf(name)).isEmpty();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void shouldFlushAnOverflowErrorOnTheSendCqsExecutorWhenTheReceiveLockIsBusy() throws Exception {
        String name = "agentthreads" + SEQ.incrementAndGet();
        QpEnv env = new QpEnv(new TestDriver().name(name));
        try {
            RvtQp qp = env.createOwnCqs(QpType.RC, 4, 4, 1, SigType.SIGNAL_ALL_WR);
            env.modify(qp, QpState.INIT, QpEnv.INIT_MASK_RC, env.validAttr(0));
            qp.postRecv(new RecvWorkRequest(1).wrId(77));
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Thread holder = new Thread(() -> {
                qp.recvLock.lock();
                try {
                    held.countDown();
                    await(release);
                } finally {
                    qp.recvLock.unlock();
                }
            }, name + "-recvlock-test");
            holder.start();
            assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();
            qp.sendLock.lock();
            try {
                QpErrors.errorOnOverflow(qp); // holds sendLock only, recvLock busy: deferred
            } finally {
                qp.sendLock.unlock();
            }
            assertThat(qp.state()).as("deferred while the receive lock is held elsewhere").isNotEqualTo(QpState.ERR);
            assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals("rvt-qp-error"));
            release.countDown();
            holder.join(TimeUnit.NANOSECONDS.toMillis(DEADLINE_NANOS));
            await("the QP in ERR", () -> qp.state() == QpState.ERR);
            List<WorkCompletion> wcs = QpEnv.poll(qp.recvCompletionQueue());
            assertThat(wcs).singleElement().satisfies(wc -> {
                assertThat(wc.wrId()).isEqualTo(77);
                assertThat(wc.status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
            });
            assertThat(threadsOf(name)).extracting(Thread::getName).containsExactly(name + "-comp-0");
        } finally {
            env.dev.unregister();
        }
        assertThat(threadsOf(name)).isEmpty();
    }
}
