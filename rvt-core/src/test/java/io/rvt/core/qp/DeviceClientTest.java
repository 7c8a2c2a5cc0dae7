package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.AsyncEventType;
import io.rvt.api.DeviceClient;
import io.rvt.api.Errno;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.VerbsException;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.spi.DriverDevice;
import io.rvt.core.LoopbackTestDriver;
import io.rvt.core.TestDriver;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A device's clients ({@code Device.registerClient}, the kernel's {@code ib_register_client} and its {@code remove}
 * callback, which {@code ib_unregister_device} calls before rdmavt tears the device's QPs down): told once, newest
 * first, on the removing thread, before the QPs go to ERR and flush and before the DEVICE_REMOVAL event.
 */
class DeviceClientTest {
    private static QpEnv env(List<String> order) {
        TestDriver driver = new TestDriver() {
            @Override
            public void unregistering(DriverDevice device) {
                order.add("driver unregistering");
            }
        };
        driver.params(LoopbackTestDriver.loopbackParams(1).build()).postParms(LoopbackTestDriver.operationTable());
        return new QpEnv(driver);
    }

    /** @return completions waiting in the receive CQ (the flushed receive, once flushed) */
    private static int queued(QpEnv env) {
        return Math.floorMod(env.rcq.head() - env.rcq.tail(), env.rcq.capacity() + 1);
    }

    /** A QP in RTS with one receive posted, whose flush the order below looks for. */
    private static RvtQp qpWithReceive(QpEnv env) {
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        qp.postRecv(new RecvWorkRequest(0).wrId(7));
        return qp;
    }

    @Test
    void shouldCallEveryClientOnceNewestFirstBeforeTheFlushAndTheRemovalEventWhenTheDeviceIsRemoved() {
        List<String> order = new CopyOnWriteArrayList<>();
        QpEnv env = env(order);
        RvtQp qp = qpWithReceive(env);
        Thread remover = Thread.currentThread();
        AtomicReference<Thread> calledOn = new AtomicReference<>();
        env.dev.setAsyncEventHandler(e -> order.add(e.type() + " qp " + qp.state() + " flushed "
                + queued(env)));
        env.dev.registerClient(d -> order.add("first client qp " + qp.state() + " alive " + d.isAlive()
                + " flushed " + queued(env)));
        env.dev.registerClient(d -> {
            calledOn.set(Thread.currentThread());
            assertThat(d).isSameAs(env.dev);
            order.add("second client qp " + qp.state() + " alive " + d.isAlive() + " flushed " + queued(env));
        });

        env.dev.unregister();
        env.dev.unregister();

        assertThat(order).as("clients newest first, while the QP is still in RTS and nothing is flushed; then the "
                + "flush, the event, the driver").containsExactly(
                "second client qp RTS alive true flushed 0",
                "first client qp RTS alive true flushed 0",
                AsyncEventType.DEVICE_REMOVAL + " qp ERR flushed 1",
                "driver unregistering");
        assertThat(calledOn.get()).as("synchronous, on the removing thread").isSameAs(remover);
        List<WorkCompletion> flushed = QpEnv.poll(env.rcq);
        assertThat(flushed).singleElement().satisfies(wc -> assertThat(wc.status()).isEqualTo(WcStatus.WR_FLUSH_ERR));
        assertThat(env.dev.clientCount()).isZero();
        assertThat(env.dev.clientFailures()).isZero();
    }

    @Test
    void shouldGoOnWithTheRemovalAndTheOtherClientsWhenAClientThrows() {
        List<String> order = new CopyOnWriteArrayList<>();
        QpEnv env = env(order);
        RvtQp qp = qpWithReceive(env);
        env.dev.registerClient(d -> order.add("first client"));
        env.dev.registerClient(d -> {
            throw new IllegalStateException("a client that fails");
        });
        env.dev.registerClient(d -> {
            throw new AssertionError("a client that fails with an Error");
        });

        env.dev.unregister();

        assertThat(order).containsExactly("first client", "driver unregistering");
        assertThat(env.dev.clientFailures()).as("each failure counted (and logged)").isEqualTo(2);
        assertThat(env.dev.isAlive()).isFalse();
        assertThat(qp.state().name()).isEqualTo("ERR");
        assertThat(QpEnv.poll(env.rcq)).as("the flush went on").hasSize(1);
    }

    @Test
    void shouldNotCallAClientThatWasDeregisteredBeforeTheRemovalReachedIt() {
        List<String> order = new CopyOnWriteArrayList<>();
        QpEnv env = env(order);
        DeviceClient.Registration closed = env.dev.registerClient(d -> order.add("closed before the removal"));
        AtomicReference<DeviceClient.Registration> older = new AtomicReference<>();
        older.set(env.dev.registerClient(d -> order.add("closed by a newer client")));
        DeviceClient.Registration[] self = new DeviceClient.Registration[1];
        self[0] = env.dev.registerClient(d -> {
            order.add("newest client");
            self[0].close(); // from inside its own remove: allowed
            older.get().close();
        });
        closed.close();
        closed.close();
        assertThat(env.dev.clientCount()).isEqualTo(2);

        env.dev.unregister();

        assertThat(order).containsExactly("newest client", "driver unregistering");
        assertThat(env.dev.clientFailures()).isZero();
    }

    @Test
    void shouldRefuseAClientOnARemovedDeviceWithEnodevNamingTheDevice() {
        QpEnv env = env(new CopyOnWriteArrayList<>());
        env.dev.unregister();

        assertThatThrownBy(() -> env.dev.registerClient(d -> { }))
                .isInstanceOfSatisfying(VerbsException.class, e -> {
                    assertThat(e.errno()).isEqualTo(Errno.ENODEV);
                    assertThat(e.getMessage()).contains(env.dev.name());
                });
        assertThat(env.dev.clientCount()).isZero();
    }

    @Test
    void shouldRefuseANullClientWithEinval() {
        QpEnv env = env(new CopyOnWriteArrayList<>());
        assertThatThrownBy(() -> env.dev.registerClient(null)).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        env.dev.unregister();
    }

    @Test
    void shouldRefuseAClientRegisteredFromAnotherClientsRemoveWithEnodev() {
        QpEnv env = env(new CopyOnWriteArrayList<>());
        AtomicReference<Throwable> refused = new AtomicReference<>();
        env.dev.registerClient(d -> {
            try {
                d.registerClient(x -> { });
            } catch (VerbsException e) {
                refused.set(e);
            }
        });

        env.dev.unregister();

        assertThat(refused.get()).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.ENODEV));
    }

}
