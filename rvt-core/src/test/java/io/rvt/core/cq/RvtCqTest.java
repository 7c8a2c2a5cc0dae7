package io.rvt.core.cq;

import static io.rvt.core.TestUtil.assertErrno;
import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.AsyncEvent;
import io.rvt.api.AsyncEventType;
import io.rvt.api.CompletionHandler;
import io.rvt.api.CompletionQueue;
import io.rvt.api.CqNotify;
import io.rvt.api.DeviceCounter;
import io.rvt.api.Errno;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.spi.Callback;
import io.rvt.core.RvtDevice;
import io.rvt.core.TestDriver;
import io.rvt.core.TestUtil;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class RvtCqTest {
    private static final int SOL = CqNotify.SOLICITED.bit();
    private static final int NEXT = CqNotify.NEXT_COMP.bit();
    private static final int MISSED = CqNotify.REPORT_MISSED_EVENTS.bit();

    private RvtDevice dev;
    /** Tasks the test driver's completion executor queued, run by the test. */
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    private final Executor manual = tasks::add;
    private final List<AsyncEvent> events = new CopyOnWriteArrayList<>();
    private final AtomicInteger handled = new AtomicInteger();

    @AfterEach
    void tearDown() {
        if (dev != null) {
            dev.unregister();
        }
    }

    private RvtDevice manualDevice() {
        dev = new TestDriver().completionExecutor(cpu -> manual).register();
        return dev;
    }

    private RvtCq cq(int cqe) {
        return RvtCq.create(dev, cqe, 0, cq -> handled.incrementAndGet(), events::add);
    }

    private static WorkCompletion wc(long wrId) {
        return new WorkCompletion().wrId(wrId).opcode(WcOpcode.RECV).byteLen((int) wrId);
    }

    private static WorkCompletion[] outs(int n) {
        WorkCompletion[] out = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            out[i] = new WorkCompletion();
        }
        return out;
    }

    private int runTasks() {
        int n = 0;
        Runnable r;
        while ((r = tasks.poll()) != null) {
            r.run();
            n++;
        }
        return n;
    }

    // ------------------------------------------------------------------ create

    @Test
    void shouldRejectBadSizesAndLimitsAndLeaveTheCounterWhenCreating() {
        dev = new TestDriver().props(TestDriver.defaultProps().maxCq(2).maxCqe(100).build()).register();
        assertErrno(() -> cq(0), Errno.EINVAL, "cqe 0", "max_cqe 100");
        assertErrno(() -> cq(101), Errno.EINVAL, "cqe 101");
        assertThat(dev.deviceCounter(DeviceCounter.CQS_ALLOCATED)).isZero();
        RvtCq a = cq(100);
        dev.createCq(1, 0, null, null);
        assertErrno(() -> cq(1), Errno.ENOMEM, "max_cq 2");
        assertThat(dev.deviceCounter(DeviceCounter.CQS_ALLOCATED)).isEqualTo(2);
        assertThat(a.capacity()).isEqualTo(100);
        a.destroyCq();
        assertThat(dev.deviceCounter(DeviceCounter.CQS_ALLOCATED)).isEqualTo(1);
    }

    @Test
    void shouldMapTheVectorThroughTheDriverWhenCreating() {
        List<Integer> looked = new ArrayList<>();
        List<Integer> executors = new ArrayList<>();
        TestDriver driver = new TestDriver()
                .params(TestDriver.defaultParams().numCompVectors(4).build())
                .compVectCpuLookup(v -> {
                    looked.add(v);
                    return v + 10;
                })
                .completionExecutor(cpu -> {
                    executors.add(cpu);
                    return manual;
                });
        dev = driver.register();
        RvtCq a = RvtCq.create(dev, 4, -3, null, null);
        RvtCq b = RvtCq.create(dev, 4, 6, null, null);
        assertThat(a.compVector()).isZero();
        assertThat(b.compVector()).isEqualTo(2);
        assertThat(looked).containsExactly(0, 2);
        assertThat(b.compVectorCpu()).isEqualTo(12);
        assertThat(executors).containsExactly(10, 12);
        dev.unregister();

        TestDriver plain = new TestDriver().without(Callback.COMP_VECT_CPU_LOOKUP).compVectCpuLookup(v -> 99);
        dev = plain.register();
        assertThat(RvtCq.create(dev, 4, 0, null, null).compVectorCpu()).isZero();
        assertThat(plain.calls(Callback.COMP_VECT_CPU_LOOKUP)).isZero();
    }

    // ------------------------------------------------------------------ invariants 35, 40: ring

    @Test
    void shouldStoreCqeEntriesAndStayFullForeverWhenOverflowing() {
        manualDevice();
        RvtCq cq = cq(3);
        for (int i = 0; i < 3; i++) {
            assertThat(cq.enter(wc(i), false)).isTrue();
        }
        assertThat(events).isEmpty();
        assertThat(cq.enter(wc(3), false)).isFalse();
        assertThat(events).hasSize(1);
        assertThat(events.get(0).type()).isEqualTo(AsyncEventType.CQ_ERR);
        assertThat(events.get(0).cq()).isSameAs(cq);
        assertThat(cq.isFull()).isTrue();

        WorkCompletion[] out = outs(8);
        assertThat(cq.pollCq(out, 8)).isEqualTo(3);
        assertThat(cq.enter(wc(4), false)).as("sticky after polling").isFalse();
        assertThat(events).hasSize(2);
        cq.resizeCq(10);
        assertThat(cq.enter(wc(5), false)).as("sticky after resizing").isFalse();
        assertThat(events).hasSize(3);
        assertThat(cq.pollCq(out, 8)).isZero();
    }

    @Test
    void shouldPollInInsertionOrderAndReturnMinOfMaxAndQueuedWhenDrivenRandomly() {
        long seed = 0x5EED_0040L;
        SplittableRandom rnd = new SplittableRandom(seed);
        manualDevice();
        for (int round = 0; round < 20; round++) {
            int cqe = 1 + rnd.nextInt(16);
            RvtCq cq = cq(cqe);
            ArrayDeque<Long> model = new ArrayDeque<>();
            WorkCompletion[] out = outs(20);
            long next = 0;
            for (int step = 0; step < 300; step++) {
                String ctx = "seed=" + seed + " round=" + round + " step=" + step + " cqe=" + cqe;
                int op = rnd.nextInt(4);
                if (op < 2) {
                    boolean fits = model.size() < cqe;
                    assertThat(cq.enter(wc(next), false)).as(ctx).isEqualTo(fits);
                    assertThat(fits).as(ctx + ": never overflow in this test").isTrue();
                    model.add(next++);
                    if (model.size() == cqe) {
                        // drain one so that the next insert fits
                        assertThat(cq.pollCq(out[0])).as(ctx).isTrue();
                        assertThat(out[0].wrId()).as(ctx).isEqualTo(model.poll());
                    }
                } else if (op == 2) {
                    int max = rnd.nextInt(out.length + 1);
                    int n = cq.pollCq(out, max);
                    assertThat(n).as(ctx).isEqualTo(Math.min(max, model.size()));
                    for (int i = 0; i < n; i++) {
                        long id = model.poll();
                        assertThat(out[i].wrId()).as(ctx).isEqualTo(id);
                        assertThat(out[i].byteLen()).as(ctx).isEqualTo((int) id);
                    }
                } else {
                    int newCqe = model.size() + rnd.nextInt(8);
                    if (newCqe >= 1) {
                        cq.resizeCq(newCqe);
                        cqe = newCqe;
                        assertThat(cq.head()).as(ctx).isEqualTo(model.size());
                        assertThat(cq.tail()).as(ctx).isZero();
                        if (model.size() == cqe) {
                            assertThat(cq.pollCq(out[0])).as(ctx).isTrue();
                            assertThat(out[0].wrId()).as(ctx).isEqualTo(model.poll());
                        }
                    }
                }
                assertThat(cq.capacity()).as(ctx).isEqualTo(cqe);
            }
            assertThat(events).as("seed=" + seed).isEmpty();
            cq.destroyCq();
        }
    }

    // ------------------------------------------------------------------ invariants 37, 38: notification

    @Test
    void shouldFireNextCompOnAnyCompletionAndSolicitedOnlyOnSolicitedOrErrorOnce() {
        manualDevice();
        RvtCq cq = cq(16);
        cq.enter(wc(0), true);
        assertThat(tasks).as("not armed").isEmpty();

        assertThat(cq.reqNotifyCq(NEXT)).isZero();
        cq.enter(wc(1), false);
        assertThat(runTasks()).isEqualTo(1);
        assertThat(handled).hasValue(1);
        cq.enter(wc(2), true);
        assertThat(runTasks()).as("one-shot").isZero();

        cq.reqNotifyCq(SOL);
        cq.enter(wc(3), false);
        assertThat(runTasks()).as("unsolicited success does not fire SOLICITED").isZero();
        cq.enter(wc(4), true);
        assertThat(runTasks()).isEqualTo(1);
        assertThat(handled).hasValue(2);

        cq.reqNotifyCq(SOL);
        cq.enter(wc(5).status(WcStatus.REM_ACCESS_ERR), false);
        assertThat(runTasks()).as("error completions fire SOLICITED").isEqualTo(1);
        assertThat(handled).hasValue(3);

        cq.reqNotifyCq(NEXT);
        cq.reqNotifyCq(SOL);
        cq.enter(wc(6), false);
        assertThat(runTasks()).as("NEXT_COMP is not downgraded").isEqualTo(1);
        assertThat(handled).hasValue(4);
    }

    @Test
    void shouldReportMissedEventsOnlyWhenNotEmptyAndRefuseBadFlags() {
        manualDevice();
        RvtCq cq = cq(4);
        assertThat(cq.reqNotifyCq(NEXT | MISSED)).isZero();
        cq.enter(wc(0), false);
        runTasks();
        assertThat(cq.reqNotifyCq(SOL | MISSED)).isEqualTo(1);
        assertThat(cq.reqNotifyCq(SOL)).isZero();
        cq.pollCq(new WorkCompletion());
        assertThat(cq.reqNotifyCq(NEXT | MISSED)).isZero();

        assertErrno(() -> cq.reqNotifyCq(SOL | NEXT), Errno.EINVAL, "exactly one");
        assertErrno(() -> cq.reqNotifyCq(MISSED), Errno.EINVAL, "exactly one");
        assertErrno(() -> cq.reqNotifyCq(NEXT | 8), Errno.EINVAL);
    }

    // ------------------------------------------------------------------ completion work

    @Test
    void shouldCallTheHandlerOnceForSeveralNotificationsQueuedBeforeItRuns() {
        manualDevice();
        RvtCq cq = cq(8);
        cq.reqNotifyCq(NEXT);
        cq.enter(wc(0), false);
        cq.reqNotifyCq(NEXT);
        cq.enter(wc(1), false);
        assertThat(tasks).as("one task while one is queued").hasSize(1);
        runTasks();
        assertThat(handled).hasValue(1);
    }

    @Test
    void shouldCallTheHandlerAgainWhenANotificationFiresDuringTheCall() {
        manualDevice();
        AtomicReference<RvtCq> self = new AtomicReference<>();
        List<Integer> polled = new ArrayList<>();
        CompletionHandler handler = c -> {
            WorkCompletion w = new WorkCompletion();
            while (c.pollCq(w)) {
                polled.add((int) w.wrId());
            }
            if (handled.incrementAndGet() == 1) {
                c.reqNotifyCq(NEXT);
                self.get().enter(wc(1), false);
            }
        };
        RvtCq cq = RvtCq.create(dev, 8, 0, handler, null);
        self.set(cq);
        cq.reqNotifyCq(NEXT);
        cq.enter(wc(0), false);
        assertThat(runTasks()).as("the running task loops instead of queueing another").isEqualTo(1);
        assertThat(handled).hasValue(2);
        assertThat(polled).containsExactly(0, 1);
    }

    @Test
    void shouldRunTheHandlerOnACompletionThreadWhenTheDriverHasNoExecutor() throws Exception {
        dev = new TestDriver().register();
        CompletableFuture<Thread> ran = new CompletableFuture<>();
        CompletionQueue cq = dev.createCq(4, 0, c -> ran.complete(Thread.currentThread()), null);
        cq.reqNotifyCq(NEXT);
        ((RvtCq) cq).enter(wc(0), false);
        Thread t = ran.get(10, TimeUnit.SECONDS);
        assertThat(t).isNotSameAs(Thread.currentThread());
        assertThat(t.getName()).contains("-comp-");
    }

    // ------------------------------------------------------------------ invariant 39: resize

    @Test
    void shouldRefuseToShrinkBelowTheQueuedEntriesAndKeepOrderWhenResizing() {
        manualDevice();
        RvtCq cq = cq(4);
        WorkCompletion[] out = outs(4);
        // Move head and tail off zero so the queued entries wrap.
        for (int i = 0; i < 3; i++) {
            cq.enter(wc(100 + i), false);
        }
        assertThat(cq.pollCq(out, 3)).isEqualTo(3);
        for (int i = 0; i < 4; i++) {
            cq.enter(wc(i), false);
        }
        int head = cq.head();
        int tail = cq.tail();
        assertErrno(() -> cq.resizeCq(3), Errno.EINVAL, "cqe 3", "4 completions queued");
        assertErrno(() -> cq.resizeCq(0), Errno.EINVAL);
        assertErrno(() -> cq.resizeCq(2000), Errno.EINVAL, "max_cqe");
        assertThat(cq.head()).isEqualTo(head);
        assertThat(cq.tail()).isEqualTo(tail);
        assertThat(cq.capacity()).isEqualTo(4);

        cq.reqNotifyCq(NEXT);
        cq.resizeCq(4);
        assertThat(cq.head()).isEqualTo(4);
        assertThat(cq.tail()).isZero();
        assertThat(cq.enter(wc(9), false)).as("still exactly full").isFalse();
        assertThat(cq.pollCq(out, 4)).isEqualTo(4);
        for (int i = 0; i < 4; i++) {
            assertThat(out[i].wrId()).isEqualTo(i);
        }
        assertThat(tasks).isEmpty();
    }

    @Test
    void shouldKeepTheArmedNotificationWhenResizing() {
        manualDevice();
        RvtCq cq = cq(2);
        cq.reqNotifyCq(SOL);
        cq.resizeCq(8);
        cq.enter(wc(0), false);
        assertThat(tasks).isEmpty();
        cq.enter(wc(1), true);
        assertThat(runTasks()).isEqualTo(1);
    }

    // ------------------------------------------------------------------ destroy

    @Test
    void shouldRefuseDestroyWhileUsedAndFailLaterVerbsWhenDestroyed() {
        manualDevice();
        RvtCq cq = cq(4);
        cq.addUser();
        cq.addUser();
        assertErrno(cq::destroyCq, Errno.EBUSY, "2 QPs");
        cq.removeUser();
        assertErrno(cq::destroyCq, Errno.EBUSY, "1 QP uses");
        cq.removeUser();
        cq.destroyCq();
        assertThat(dev.deviceCounter(DeviceCounter.CQS_ALLOCATED)).isZero();
        assertErrno(cq::destroyCq, Errno.EINVAL, "CQ destroyed");
        assertErrno(() -> cq.pollCq(new WorkCompletion()), Errno.EINVAL, "CQ destroyed");
        assertErrno(() -> cq.reqNotifyCq(NEXT), Errno.EINVAL, "CQ destroyed");
        assertErrno(() -> cq.resizeCq(8), Errno.EINVAL, "CQ destroyed");
        assertErrno(cq::addUser, Errno.EINVAL, "CQ destroyed");
        assertThat(cq.enter(wc(0), false)).isFalse();
    }

    @Test
    void shouldDropAQueuedHandlerCallWhenDestroyed() {
        manualDevice();
        RvtCq cq = cq(4);
        cq.reqNotifyCq(NEXT);
        cq.enter(wc(0), false);
        cq.destroyCq();
        runTasks();
        assertThat(handled).hasValue(0);
    }

    @Test
    void shouldWaitForARunningHandlerWhenDestroying() throws Exception {
        dev = new TestDriver().register();
        CountDownLatch inHandler = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        RvtCq cq = RvtCq.create(dev, 4, 0, c -> {
            inHandler.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, null);
        cq.reqNotifyCq(NEXT);
        cq.enter(wc(0), false);
        assertThat(inHandler.await(10, TimeUnit.SECONDS)).isTrue();

        CompletableFuture<Void> destroyed = new CompletableFuture<>();
        Thread destroyer = new Thread(() -> {
            try {
                cq.destroyCq();
                destroyed.complete(null);
            } catch (Throwable t) {
                destroyed.completeExceptionally(t);
            }
        }, "destroyer");
        destroyer.start();
        TestUtil.awaitBlocked(destroyer);
        assertThat(destroyed).isNotDone();
        release.countDown();
        destroyed.get(10, TimeUnit.SECONDS);
        assertThat(dev.deviceCounter(DeviceCounter.CQS_ALLOCATED)).isZero();
    }

    @Test
    void shouldNotDeadlockWhenTheHandlerDestroysItsOwnCq() throws Exception {
        dev = new TestDriver().register();
        CompletableFuture<Void> done = new CompletableFuture<>();
        CompletionQueue cq = dev.createCq(4, 0, c -> {
            try {
                c.destroyCq();
                done.complete(null);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        }, null);
        cq.reqNotifyCq(NEXT);
        ((RvtCq) cq).enter(wc(0), false);
        done.get(10, TimeUnit.SECONDS);
        assertThat(((RvtCq) cq).isDestroyed()).isTrue();
        assertThat(dev.deviceCounter(DeviceCounter.CQS_ALLOCATED)).isZero();
    }

    @Test
    void shouldStillPollAndDestroyButRefuseOtherVerbsWhenTheDeviceWasRemoved() {
        manualDevice();
        RvtCq cq = cq(4);
        cq.enter(wc(7).status(WcStatus.WR_FLUSH_ERR), false);
        dev.unregister();
        WorkCompletion w = new WorkCompletion();
        assertThat(cq.pollCq(w)).isTrue();
        assertThat(w.status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertErrno(() -> cq.reqNotifyCq(NEXT), Errno.ENODEV);
        assertErrno(() -> cq.resizeCq(8), Errno.ENODEV);
        assertErrno(() -> RvtCq.create(dev, 4, 0, null, null), Errno.ENODEV);
        cq.destroyCq(); // teardown still works after removal
        assertErrno(cq::destroyCq, Errno.EINVAL);
    }

    @Test
    void shouldRejectAPollMaxLargerThanTheArray() {
        manualDevice();
        RvtCq cq = cq(4);
        assertErrno(() -> cq.pollCq(outs(2), 3), Errno.EINVAL, "max 3");
        assertErrno(() -> cq.pollCq(outs(2), -1), Errno.EINVAL);
        assertThat(cq.device()).isSameAs(dev);
    }
}
