package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.AsyncEvent;
import io.rvt.api.AsyncEventType;
import io.rvt.api.Errno;
import io.rvt.api.PortAttr;
import io.rvt.api.QpAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.VerbsException;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WorkRequestException;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.DriverDevice;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.engine.CallSend;
import io.rvt.api.spi.engine.SendWqe;
import io.rvt.core.LoopbackTestDriver;
import io.rvt.core.SetupWqeTestDriver;
import io.rvt.core.TestDriver;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Device removal ({@code RvtDevice.unregister()}, rdmavt {@code rvt_unregister_device}): every QP moves to ERR, its
 * posted send and receive work completes with WR_FLUSH_ERR, applications get DEVICE_REMOVAL, and later verbs fail
 * with ENODEV while completions already queued can still be polled.
 */
class DeviceRemovalTest {
    private static String wcs(List<WorkCompletion> list) {
        StringBuilder b = new StringBuilder();
        for (WorkCompletion wc : list) {
            b.append(wc.wrId()).append(':').append(wc.status()).append(' ');
        }
        return b.toString().trim();
    }

    @Test
    void shouldFlushEveryQpAndAnnounceRemovalWhenTheDeviceIsUnregistered() {
        List<String> order = new CopyOnWriteArrayList<>();
        TestDriver driver = new TestDriver() {
            @Override
            public void unregistering(DriverDevice device) {
                order.add("unregistering");
            }
        };
        driver.params(LoopbackTestDriver.loopbackParams(1).build()).postParms(LoopbackTestDriver.operationTable());
        QpEnv env = new QpEnv(driver);
        List<AsyncEvent> events = new CopyOnWriteArrayList<>();
        env.dev.setAsyncEventHandler(e -> {
            events.add(e);
            order.add(e.type().name());
        });
        RvtQp a = env.rc();
        RvtQp b = env.create(QpType.UC, 4, 4, 1);
        RvtQp reset = env.rc();
        env.up(a, a.qpNum());
        env.up(b, b.qpNum());
        a.postRecv(new RecvWorkRequest(0).wrId(11).next(new RecvWorkRequest(0).wrId(12)));
        b.postRecv(new RecvWorkRequest(0).wrId(21));
        a.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(1)
                .next(new SendWorkRequest(0).opcode(LoopbackTestDriver.OPFN).wrId(2)
                        .next(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(3))));
        b.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(4));

        env.dev.unregister();

        assertThat(a.state()).isEqualTo(QpState.ERR);
        assertThat(b.state()).isEqualTo(QpState.ERR);
        assertThat(reset.state()).as("not in the table: untouched").isEqualTo(QpState.RESET);
        List<WorkCompletion> sends = QpEnv.poll(env.scq);
        List<WorkCompletion> recvs = QpEnv.poll(env.rcq);
        List<String> sendIds = new ArrayList<>();
        sends.forEach(wc -> sendIds.add(wc.wrId() + ":" + wc.status()));
        assertThat(sendIds).as("reserved op 2 completes silently").containsExactlyInAnyOrder("1:WR_FLUSH_ERR",
                "3:WR_FLUSH_ERR", "4:WR_FLUSH_ERR");
        assertThat(wcs(sends.stream().filter(wc -> wc.qpNum() == a.qpNum()).toList()))
                .as("in order per QP").isEqualTo("1:WR_FLUSH_ERR 3:WR_FLUSH_ERR");
        List<String> recvIds = new ArrayList<>();
        recvs.forEach(wc -> recvIds.add(wc.wrId() + ":" + wc.status()));
        assertThat(recvIds).containsExactlyInAnyOrder("11:WR_FLUSH_ERR", "12:WR_FLUSH_ERR", "21:WR_FLUSH_ERR");
        assertThat(a.sendQueue().head()).isEqualTo(a.sendQueue().last());
        assertThat(a.sendQueue().reservedUsed()).isZero();
        assertThat(events).extracting(AsyncEvent::type).containsExactly(AsyncEventType.DEVICE_REMOVAL);
        assertThat(events.get(0).device()).isSameAs(env.dev);
        assertThat(order).containsExactly("DEVICE_REMOVAL", "unregistering");
        assertThat(env.dev.isAlive()).isFalse();
    }

    /**
     * The driver's side of removal (the driver guide's "unregistering" rules): after {@code unregistering} rvt-core
     * never asks it to send again (no scheduleSend, no doSend: posts fail with ENODEV and the core flushes what was
     * queued), but an application that destroys its QPs later still reaches the per-QP teardown callbacks, which a
     * stopped driver must answer.
     */
    @Test
    void shouldNeverAskTheDriverToSendAfterUnregisteringButStillTearDownQpsDestroyedLater() {
        List<String> after = new CopyOnWriteArrayList<>();
        AtomicBoolean gone = new AtomicBoolean();
        TestDriver driver = new TestDriver() {
            @Override
            public void unregistering(DriverDevice device) {
                gone.set(true);
            }

            @Override
            public boolean scheduleSend(DriverQp qp) {
                if (gone.get()) {
                    after.add("scheduleSend");
                }
                return super.scheduleSend(qp);
            }

            @Override
            public void doSend(DriverQp qp) {
                if (gone.get()) {
                    after.add("doSend");
                }
                super.doSend(qp);
            }

            @Override
            public void stopSendQueue(DriverQp qp) {
                if (gone.get()) {
                    after.add("stopSendQueue");
                }
                super.stopSendQueue(qp);
            }

            @Override
            public void qpPrivFree(DriverDevice rdi, DriverQp qp) {
                if (gone.get()) {
                    after.add("qpPrivFree");
                }
                super.qpPrivFree(rdi, qp);
            }
        };
        driver.params(LoopbackTestDriver.loopbackParams(1).build());
        QpEnv env = new QpEnv(driver);
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        qp.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(1));

        env.dev.unregister();
        assertThatThrownBy(() -> qp.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(2)))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ENODEV));
        assertThatThrownBy(() -> qp.modifyQp(new QpAttr().qpState(QpState.ERR), QpEnv.STATE))
                .isInstanceOf(VerbsException.class);
        assertThat(wcs(QpEnv.poll(env.scq))).as("the core flushed the queued send").isEqualTo("1:WR_FLUSH_ERR");
        assertThat(after).as("nothing to send once the driver stopped").isEmpty();

        qp.destroyQp();
        assertThat(after).as("teardown still reaches the driver").contains("stopSendQueue", "qpPrivFree")
                .doesNotContain("scheduleSend", "doSend");
    }

    @Test
    void shouldFailLaterVerbsWithEnodevWhenTheDeviceIsGone() {
        TestDriver driver = new TestDriver().params(LoopbackTestDriver.loopbackParams(1).build());
        QpEnv env = new QpEnv(driver);
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        qp.postRecv(new RecvWorkRequest(0).wrId(5));
        var mr = env.reg(64);
        env.dev.unregister();

        List<Consumer<QpEnv>> verbs = List.of(
                e -> e.dev.queryDevice(),
                e -> e.dev.allocPd(),
                e -> e.dev.createCq(4, 0, null, null),
                e -> e.dev.queryPort(1, new PortAttr()),
                e -> e.pd.createQp(e.init(QpType.RC, 4, 4, 1)),
                e -> e.pd.regMr(ByteBuffer.allocate(64), 0),
                e -> qp.modifyQp(new QpAttr().qpState(QpState.RESET), QpEnv.STATE),
                e -> qp.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND)),
                e -> qp.postRecv(new RecvWorkRequest(0)));
        for (int i = 0; i < verbs.size(); i++) {
            Consumer<QpEnv> v = verbs.get(i);
            assertThatThrownBy(() -> v.accept(env)).as("verb %d", i).isInstanceOfSatisfying(VerbsException.class,
                    e -> assertThat(e.errno()).as(e.getMessage()).isEqualTo(Errno.ENODEV));
        }
        assertThatThrownBy(() -> qp.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND)))
                .isInstanceOfSatisfying(WorkRequestException.class,
                        e -> assertThat(e.badIndex()).isEqualTo(WorkRequestException.NO_INDEX));
        assertThat(wcs(QpEnv.poll(env.rcq))).as("flushed completions can still be polled")
                .isEqualTo("5:WR_FLUSH_ERR");
        assertThat(mr.lkey()).isNotZero();
        env.dev.unregister(); // idempotent
        assertThat(env.dev.isAlive()).isFalse();
    }

    @Test
    void shouldNotCompleteTwiceWhenTheDriverEngineRunsAfterRemoval() {
        LoopbackTestDriver driver = new LoopbackTestDriver();
        QpEnv env = new QpEnv(driver);
        RvtQp a = env.rc();
        RvtQp b = env.rc();
        env.connect(a, b);
        a.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(1)
                .next(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(2)));

        env.dev.unregister();
        driver.drain();

        List<WorkCompletion> sends = QpEnv.poll(env.scq);
        assertThat(wcs(sends)).isEqualTo("1:WR_FLUSH_ERR 2:WR_FLUSH_ERR");
        assertThat(sends).extracting(WorkCompletion::status).containsOnly(WcStatus.WR_FLUSH_ERR);
    }

    /**
     * A receive posted by one thread while another moves the QP to ERR (here: the device goes away) either goes into
     * the queue before the flush, which completes it, or sees ERR and is completed at once: none is left behind.
     */
    @Test
    void shouldCompleteEveryReceivePostedWhileTheDeviceIsRemoved() throws Exception {
        for (int round = 0; round < 1000; round++) { // the race is narrow: many rounds
            QpEnv env = new QpEnv(new TestDriver().params(LoopbackTestDriver.loopbackParams(1).build()));
            RvtQp qp = env.create(QpType.RC, 16, 256, 1); // flushed receives fit the 1024-entry CQ
            env.up(qp, qp.qpNum());
            AtomicLong posted = new AtomicLong();
            Thread poster = new Thread(() -> {
                RecvWorkRequest wr = new RecvWorkRequest(0);
                while (qp.state() != QpState.ERR) { // past ERR each post completes at once: the CQ would overflow
                    try {
                        qp.postRecv(wr.wrId(posted.get()));
                        posted.incrementAndGet();
                    } catch (WorkRequestException e) {
                        if (e.errno() == Errno.ENODEV) {
                            return;
                        } // ENOMEM: the queue is full, try again
                    }
                }
            }, "poster");
            poster.start();
            while (posted.get() == 0) {
                Thread.onSpinWait();
            }
            env.dev.unregister();
            poster.join();

            assertThat(QpEnv.poll(env.rcq)).as("round %d: completions of the %d receives posted", round, posted.get())
                    .hasSize((int) posted.get()).extracting(WorkCompletion::status)
                    .containsOnly(WcStatus.WR_FLUSH_ERR);
        }
    }

    /**
     * A post held inside the driver's {@code setup_wqe} while the device is removed: the removal's flush waits for
     * the post (it takes {@code postLock}), so the two accepted WRs complete with WR_FLUSH_ERR although the driver's
     * engine has stopped. Before, the flush ran past the post and its WRs never completed.
     */
    @Test
    void shouldCompleteAPostThatRacesDeviceRemovalWhenTheDriverEngineHasStopped() throws Exception {
        CountDownLatch inSetup = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean hold = new AtomicBoolean(true);
        TestDriver driver = new SetupWqeTestDriver() {
            @Override
            public int setupWqe(DriverQp qp, SendWqe wqe, CallSend callSend) {
                if (hold.getAndSet(false)) {
                    inSetup.countDown();
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return 0;
            }
        };
        driver.params(LoopbackTestDriver.loopbackParams(1).build());
        QpEnv env = new QpEnv(driver);
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        AtomicReference<Throwable> postResult = new AtomicReference<>();
        Thread poster = new Thread(() -> {
            try {
                qp.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(1)
                        .next(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(2)));
            } catch (Throwable t) {
                postResult.set(t);
            }
        }, "poster");
        poster.start();
        assertThat(inSetup.await(10, TimeUnit.SECONDS)).isTrue();
        Thread remover = new Thread(env.dev::unregister, "remover");
        remover.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (env.dev.isAlive() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(env.dev.isAlive()).isFalse();
        release.countDown();
        poster.join(10_000);
        remover.join(10_000);
        assertThat(poster.isAlive() || remover.isAlive()).isFalse();

        assertThat(postResult.get()).as("the post was accepted before the removal").isNull();
        assertThat(wcs(QpEnv.poll(env.scq))).isEqualTo("1:WR_FLUSH_ERR 2:WR_FLUSH_ERR");
    }
}
