package io.rvt.core.cq;

import static io.rvt.core.TestUtil.assertErrno;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.CompletionChannel;
import io.rvt.api.CompletionQueue;
import io.rvt.api.CqNotify;
import io.rvt.api.DeviceCounter;
import io.rvt.api.Errno;
import io.rvt.api.VerbsException;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.core.RvtDevice;
import io.rvt.core.TestDriver;
import io.rvt.core.TestUtil;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Proxy;
import java.nio.channels.Selector;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Completion channels: {@code ibv_create_comp_channel}, {@code ibv_get_cq_event}, {@code ibv_ack_cq_events}. */
@Timeout(60)
class RvtCompChannelTest {
    private static final int SOL = CqNotify.SOLICITED.bit();
    private static final int NEXT = CqNotify.NEXT_COMP.bit();
    private static final int MISSED = CqNotify.REPORT_MISSED_EVENTS.bit();
    /** A waiter's own timeout, far beyond what any test here waits for: a wake-up must come from the event. */
    private static final long LONG_WAIT_SECONDS = 600;

    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    private final Executor manual = tasks::add;
    private final List<RvtDevice> devices = new CopyOnWriteArrayList<>();
    private RvtDevice dev;

    @AfterEach
    void tearDown() {
        for (RvtDevice d : devices) {
            d.unregister();
        }
    }

    private RvtDevice register(TestDriver driver) {
        RvtDevice d = driver.completionExecutor(cpu -> manual).register();
        devices.add(d);
        return d;
    }

    private RvtDevice device() {
        dev = register(new TestDriver());
        return dev;
    }

    private static WorkCompletion ok(long wrId) {
        return new WorkCompletion().wrId(wrId).opcode(WcOpcode.RECV).status(WcStatus.SUCCESS);
    }

    /**
     * Starts {@code body} on a thread of its own and returns once that thread is blocked (in the channel's wait).
     *
     * @param body what the thread runs
     * @param <T> its result
     * @return the thread's result to come, and the thread
     */
    private static <T> Waiter<T> blockedWaiter(Supplier<T> body) {
        AtomicReference<Thread> thread = new AtomicReference<>();
        CompletableFuture<T> result = CompletableFuture.supplyAsync(() -> {
            thread.set(Thread.currentThread());
            return body.get();
        });
        TestUtil.await(() -> thread.get() != null, "the waiter to start");
        TestUtil.awaitBlocked(thread.get());
        return new Waiter<>(result, thread.get());
    }

    private record Waiter<T>(CompletableFuture<T> result, Thread thread) {
        T get() throws Exception {
            return result.get(TestUtil.TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    private static CompletionQueue now(CompletionChannel ch) {
        return ch.getCqEvent(0, TimeUnit.NANOSECONDS);
    }

    // ------------------------------------------------------------------ arming

    @Test
    void shouldQueueOneEventPerArmingWhenNextComp() {
        device();
        CompletionChannel ch = dev.createCompChannel();
        RvtCq cq = (RvtCq) dev.createCq(8, 0, ch, null, null);
        assertThat(cq.channel()).isSameAs(ch);
        cq.enter(ok(1), false);
        assertThat(ch.pendingEvents()).as("not armed: no event").isZero();
        assertThat(cq.reqNotifyCq(NEXT)).isZero();
        cq.enter(ok(2), false);
        cq.enter(ok(3), false);
        assertThat(ch.pendingEvents()).as("one-shot: two completions, one event").isEqualTo(1);
        assertThat(now(ch)).isSameAs(cq);
        assertThat(now(ch)).isNull();
        cq.enter(ok(4), false);
        assertThat(ch.pendingEvents()).as("disarmed by the first event").isZero();
        assertThat(cq.reqNotifyCq(NEXT | MISSED)).as("REPORT_MISSED_EVENTS: the CQ holds 4").isEqualTo(1);
        cq.enter(ok(5), false);
        assertThat(now(ch)).isSameAs(cq);
        assertThat(cq.unackedCqEvents()).isEqualTo(2);
        cq.ackCqEvents(2);
        assertThat(cq.unackedCqEvents()).isZero();
        cq.destroyCq();
        ch.destroyCompChannel();
    }

    @Test
    void shouldFireOnlyOnSolicitedOrErrorCompletionsWhenSolicitedOnly() {
        device();
        CompletionChannel ch = dev.createCompChannel();
        RvtCq cq = (RvtCq) dev.createCq(8, 0, ch, null, null);
        cq.reqNotifyCq(SOL);
        cq.enter(ok(1), false);
        assertThat(ch.pendingEvents()).as("unsolicited success").isZero();
        cq.enter(ok(2), true);
        assertThat(ch.pendingEvents()).as("solicited").isEqualTo(1);
        cq.reqNotifyCq(SOL);
        cq.enter(ok(3).status(WcStatus.WR_FLUSH_ERR), false);
        assertThat(ch.pendingEvents()).as("an error completion fires SOLICITED too").isEqualTo(2);
        cq.reqNotifyCq(NEXT);
        cq.reqNotifyCq(SOL);
        cq.enter(ok(4), false);
        assertThat(ch.pendingEvents()).as("NEXT_COMP is not downgraded to SOLICITED").isEqualTo(3);
    }

    @Test
    void shouldNameEachCqInOrderWhenSeveralShareAChannel() {
        device();
        CompletionChannel ch = dev.createCompChannel();
        RvtCq a = (RvtCq) dev.createCq(8, 0, ch, null, null);
        RvtCq b = (RvtCq) dev.createCq(8, 1, ch, null, null);
        RvtCq c = (RvtCq) dev.createCq(8, 0, ch, null, null);
        for (RvtCq cq : List.of(a, b, c)) {
            cq.reqNotifyCq(NEXT);
        }
        c.enter(ok(1), false);
        a.enter(ok(2), false);
        b.enter(ok(3), false);
        c.reqNotifyCq(NEXT);
        c.enter(ok(4), false);
        assertThat(ch.pendingEvents()).isEqualTo(4);
        assertThat(List.of(now(ch), now(ch), now(ch), now(ch))).containsExactly(c, a, b, c);
        assertThat(List.of(a.unackedCqEvents(), b.unackedCqEvents(), c.unackedCqEvents())).containsExactly(1L, 1L, 2L);
        c.ackCqEvents(1);
        assertErrno(c::destroyCq, Errno.EBUSY, "1 completion event");
        c.ackCqEvents(1);
        c.destroyCq();
        assertErrno(ch::destroyCompChannel, Errno.EBUSY, "2 completion queues");
    }

    @Test
    void shouldAlsoCallTheHandlerWhenACqHasBoth() {
        device();
        CompletionChannel ch = dev.createCompChannel();
        AtomicInteger handled = new AtomicInteger();
        RvtCq cq = (RvtCq) dev.createCq(8, 0, ch, q -> handled.incrementAndGet(), null);
        cq.reqNotifyCq(NEXT);
        cq.enter(ok(1), false);
        tasks.poll().run();
        assertThat(handled).hasValue(1);
        assertThat(now(ch)).isSameAs(cq);
    }

    // ------------------------------------------------------------------ acknowledgements and destroy

    @Test
    void shouldRefuseBadAcknowledgementsAndKeepTheCount() {
        device();
        CompletionChannel ch = dev.createCompChannel();
        RvtCq cq = (RvtCq) dev.createCq(8, 0, ch, null, null);
        assertErrno(() -> cq.ackCqEvents(1), Errno.EINVAL, "nevents 1", "0..0");
        cq.reqNotifyCq(NEXT);
        cq.enter(ok(1), false);
        assertErrno(() -> cq.ackCqEvents(1), Errno.EINVAL, "nevents 1", "0..0"); // queued, not taken
        now(ch);
        assertErrno(() -> cq.ackCqEvents(2), Errno.EINVAL, "nevents 2", "0..1");
        assertErrno(() -> cq.ackCqEvents(-1), Errno.EINVAL, "nevents -1");
        assertThat(cq.unackedCqEvents()).as("unchanged by refusals").isEqualTo(1);
        cq.ackCqEvents(0);
        cq.ackCqEvents(1);
        assertThat(cq.unackedCqEvents()).isZero();
        RvtCq plain = (RvtCq) dev.createCq(8, 0, null, null);
        assertThat(plain.channel()).isNull();
        assertThat(plain.unackedCqEvents()).isZero();
        assertErrno(() -> plain.ackCqEvents(1), Errno.EINVAL, "no completion channel");
    }

    @Test
    void shouldRefuseToDestroyACqWithUnacknowledgedEventsAndLeaveItWorking() {
        device();
        CompletionChannel ch = dev.createCompChannel();
        RvtCq cq = (RvtCq) dev.createCq(8, 0, ch, null, null);
        cq.reqNotifyCq(NEXT);
        cq.enter(ok(1), false);
        now(ch);
        assertErrno(cq::destroyCq, Errno.EBUSY, "1 completion event", "ackCqEvents");
        assertThat(cq.isDestroyed()).isFalse();
        assertThat(dev.deviceCounter(DeviceCounter.CQS_ALLOCATED)).isEqualTo(1);
        WorkCompletion wc = new WorkCompletion();
        assertThat(cq.pollCq(wc)).isTrue();
        assertThat(wc.wrId()).isEqualTo(1);
        cq.reqNotifyCq(NEXT);
        cq.enter(ok(2), false);
        assertThat(now(ch)).as("still delivers events").isSameAs(cq);
        cq.ackCqEvents(2);
        cq.destroyCq();
        assertThat(dev.deviceCounter(DeviceCounter.CQS_ALLOCATED)).isZero();
        assertErrno(() -> cq.ackCqEvents(0), Errno.EINVAL, "destroyed");
        assertErrno(cq::destroyCq, Errno.EINVAL, "destroyed");
        ch.destroyCompChannel();
    }

    @Test
    void shouldDropQueuedEventsOfADestroyedCq() {
        device();
        CompletionChannel ch = dev.createCompChannel();
        RvtCq a = (RvtCq) dev.createCq(8, 0, ch, null, null);
        RvtCq b = (RvtCq) dev.createCq(8, 0, ch, null, null);
        a.reqNotifyCq(NEXT);
        b.reqNotifyCq(NEXT);
        a.enter(ok(1), false);
        b.enter(ok(2), false);
        a.destroyCq(); // its event was queued, never taken: nothing to acknowledge (ib_uverbs_release_ucq)
        assertThat(ch.pendingEvents()).isEqualTo(1);
        assertThat(now(ch)).isSameAs(b);
        b.ackCqEvents(1);
        b.destroyCq();
        ch.destroyCompChannel();
    }

    @Test
    void shouldRefuseToDestroyAChannelWithCqsAndUseOfADestroyedOne() {
        device();
        RvtCompChannel ch = (RvtCompChannel) dev.createCompChannel();
        CompletionQueue cq = dev.createCq(8, 0, ch, null, null);
        assertErrno(ch::destroyCompChannel, Errno.EBUSY, "1 completion queue is associated");
        assertThat(ch.isDestroyed()).isFalse();
        cq.destroyCq();
        assertThat(ch.cqCount()).isZero();
        ch.destroyCompChannel();
        assertErrno(ch::destroyCompChannel, Errno.EBADF, "destroyed");
        assertErrno(() -> ch.getCqEvent(1, TimeUnit.MILLISECONDS), Errno.EBADF, "getCqEvent", dev.name());
        assertErrno(ch::tryGetCqEvent, Errno.EBADF, "tryGetCqEvent");
        assertErrno(() -> dev.createCq(8, 0, ch, null, null), Errno.EBADF, "createCq");
        assertThat(dev.deviceCounter(DeviceCounter.CQS_ALLOCATED)).isZero();
        assertThat(ch.pendingEvents()).isZero();
    }

    @Test
    void shouldRefuseAChannelOfAnotherDeviceOrNotRvts() {
        device();
        RvtDevice other = register(new TestDriver());
        RvtCompChannel foreign = (RvtCompChannel) other.createCompChannel();
        assertErrno(() -> dev.createCq(8, 0, foreign, null, null), Errno.EBADF, "belongs to " + other.name(),
                dev.name());
        assertThat(foreign.cqCount()).isZero();
        CompletionChannel fake = (CompletionChannel) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {CompletionChannel.class}, (p, m, a) -> null);
        assertErrno(() -> dev.createCq(8, 0, fake, null, null), Errno.EBADF, "is not a completion channel");
        assertThat(dev.deviceCounter(DeviceCounter.CQS_ALLOCATED)).isZero();
        foreign.destroyCompChannel();
    }

    @Test
    void shouldLeaveTheChannelUncountedWhenTheCqCannotBeCreated() {
        dev = register(new TestDriver().props(TestDriver.defaultProps().maxCq(1).maxCqe(10).build()));
        RvtCompChannel ch = (RvtCompChannel) dev.createCompChannel();
        assertErrno(() -> dev.createCq(11, 0, ch, null, null), Errno.EINVAL, "cqe 11");
        dev.createCq(1, 0, null, null);
        assertErrno(() -> dev.createCq(1, 0, ch, null, null), Errno.ENOMEM, "max_cq 1");
        assertThat(ch.cqCount()).isZero();
        ch.destroyCompChannel();
    }

    @Test
    void shouldRefuseBadTimeouts() {
        device();
        CompletionChannel ch = dev.createCompChannel();
        assertErrno(() -> ch.getCqEvent(-1, TimeUnit.SECONDS), Errno.EINVAL, "timeout -1");
        assertErrno(() -> ch.getCqEvent(1, null), Errno.EINVAL, "unit is null");
        assertThat(ch.getCqEvent(2, TimeUnit.MILLISECONDS)).as("nothing came").isNull();
        assertThat(ch.tryGetCqEvent()).isNull();
    }

    // ------------------------------------------------------------------ waiting

    @Test
    void shouldWakeABlockedWaiterWhenAnotherThreadEntersACompletion() throws Exception {
        device();
        CompletionChannel ch = dev.createCompChannel();
        RvtCq cq = (RvtCq) dev.createCq(8, 0, ch, null, null);
        cq.reqNotifyCq(NEXT);
        Waiter<CompletionQueue> waiter = blockedWaiter(() -> ch.getCqEvent(LONG_WAIT_SECONDS, TimeUnit.SECONDS));
        assertThat(waiter.result()).isNotDone();
        cq.enter(ok(1), false);
        // woken by the event: far sooner than its own 600 s timeout (the test's deadline is TestUtil.TIMEOUT)
        assertThat(waiter.get()).isSameAs(cq);
        cq.ackCqEvents(1);
    }

    @Test
    void shouldWakeAWaiterWithEbadfWhenTheChannelIsDestroyed() throws Exception {
        device();
        CompletionChannel ch = dev.createCompChannel();
        Waiter<CompletionQueue> waiter = blockedWaiter(() -> ch.getCqEvent(LONG_WAIT_SECONDS, TimeUnit.SECONDS));
        ch.destroyCompChannel();
        assertThatThrownBy(waiter::get)
                .hasCauseInstanceOf(VerbsException.class)
                .satisfies(e -> assertThat(((VerbsException) e.getCause()).errno()).isEqualTo(Errno.EBADF));
    }

    @Test
    void shouldFailWithEintrAndKeepTheInterruptWhenTheWaiterIsInterrupted() throws Exception {
        device();
        CompletionChannel ch = dev.createCompChannel();
        Waiter<Boolean> waiter = blockedWaiter(() -> {
            try {
                ch.getCqEvent(LONG_WAIT_SECONDS, TimeUnit.SECONDS);
                return false;
            } catch (VerbsException e) {
                assertThat(e.errno()).isEqualTo(Errno.EINTR);
                return Thread.interrupted();
            }
        });
        waiter.thread().interrupt();
        assertThat(waiter.get()).as("EINTR with the interrupt status kept").isTrue();
    }

    /**
     * The progress hook: a driver whose engine only its callers run (as INVOKER, a deterministic fabric) delivers the
     * completion only when progressed; the one thread, blocked in getCqEvent, runs it.
     */
    @Test
    void shouldRunTheProgressHookFromTheWaitingThreadWhenNoOtherThreadDoes() {
        AtomicReference<RvtCq> target = new AtomicReference<>();
        AtomicInteger calls = new AtomicInteger();
        List<Thread> progressors = new CopyOnWriteArrayList<>();
        TestDriver engineOnlyWhenCalled = new TestDriver() {
            @Override
            public int progress(int budget) {
                progressors.add(Thread.currentThread());
                // the "packet" arrives on the tenth turn of the engine
                if (calls.incrementAndGet() == 10) {
                    target.get().enter(ok(42), false);
                    return 1;
                }
                return 0;
            }
        };
        dev = register(engineOnlyWhenCalled);
        CompletionChannel ch = dev.createCompChannel();
        RvtCq cq = (RvtCq) dev.createCq(8, 0, ch, null, null);
        target.set(cq);
        cq.reqNotifyCq(NEXT);
        assertThat(ch.getCqEvent(LONG_WAIT_SECONDS, TimeUnit.SECONDS)).isSameAs(cq);
        assertThat(calls).hasValue(10);
        assertThat(progressors).containsOnly(Thread.currentThread());
        cq.ackCqEvents(1);
        WorkCompletion wc = new WorkCompletion();
        assertThat(cq.pollCq(wc)).isTrue();
        assertThat(wc.wrId()).isEqualTo(42);
    }

    @Test
    void shouldRunTheProgressHookOnceWhenTryGetFindsNothing() {
        AtomicReference<RvtCq> target = new AtomicReference<>();
        TestDriver driver = new TestDriver() {
            @Override
            public int progress(int budget) {
                target.get().enter(ok(7), true);
                return 1;
            }
        };
        dev = register(driver);
        CompletionChannel ch = dev.createCompChannel();
        RvtCq cq = (RvtCq) dev.createCq(8, 0, ch, null, null);
        target.set(cq);
        cq.reqNotifyCq(SOL);
        assertThat(ch.tryGetCqEvent()).isSameAs(cq);
    }

    /**
     * The selector-style loop the listener serves: a thread blocked in {@code Selector.select()} (its sockets' loop)
     * is woken by the listener's {@code wakeup()} and takes the event with {@code tryGetCqEvent}.
     */
    @Test
    void shouldWakeASelectorLoopThroughTheListener() throws Exception {
        device();
        CompletionChannel ch = dev.createCompChannel();
        RvtCq cq = (RvtCq) dev.createCq(8, 0, ch, null, null);
        try (Selector selector = Selector.open()) {
            ch.setEventListener(c -> selector.wakeup());
            AtomicInteger selects = new AtomicInteger();
            // a thread in select() is RUNNABLE (in epoll_wait), so the test waits for its first select to begin; a
            // wakeup() that comes before a select() makes that select() return at once, so either order works
            CompletableFuture<CompletionQueue> loop = CompletableFuture.supplyAsync(() -> {
                try {
                    while (true) {
                        CompletionQueue ready = ch.tryGetCqEvent();
                        if (ready != null) {
                            return ready;
                        }
                        selects.incrementAndGet();
                        selector.select(TimeUnit.SECONDS.toMillis(LONG_WAIT_SECONDS));
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            TestUtil.await(() -> selects.get() > 0, "the loop's first select");
            cq.reqNotifyCq(NEXT);
            cq.enter(ok(1), false);
            assertThat(loop.get(TestUtil.TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isSameAs(cq);
            cq.ackCqEvents(1);
        }
    }

    @Test
    void shouldTellTheListenerAfterEachEvent() {
        device();
        CompletionChannel ch = dev.createCompChannel();
        RvtCq cq = (RvtCq) dev.createCq(8, 0, ch, null, null);
        List<Integer> pendingSeen = new CopyOnWriteArrayList<>();
        ch.setEventListener(c -> pendingSeen.add(c.pendingEvents()));
        cq.reqNotifyCq(NEXT);
        cq.enter(ok(1), false);
        cq.reqNotifyCq(NEXT);
        cq.enter(ok(2), false);
        cq.enter(ok(3), false);
        assertThat(pendingSeen).as("told once per event, after it was queued").containsExactly(1, 2);
        ch.setEventListener(c -> {
            throw new IllegalStateException("listener fails");
        });
        cq.reqNotifyCq(NEXT);
        cq.enter(ok(4), false);
        assertThat(ch.pendingEvents()).as("a failing listener loses no event").isEqualTo(3);
        ch.setEventListener(null);
    }
}
