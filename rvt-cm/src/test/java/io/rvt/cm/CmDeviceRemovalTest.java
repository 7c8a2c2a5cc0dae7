package io.rvt.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.AccessFlag;
import io.rvt.api.CompletionQueue;
import io.rvt.api.ProtectionDomain;
import io.rvt.core.RvtDevice;
import io.rvt.driver.sim.SimDriver;
import io.rvt.driver.sim.fabric.Fabric;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * On real time the CM learns by itself that its device is being unregistered (it is the device's client, called
 * before the QPs are flushed): an idle established connection (no send, poll or timer of its own to come) ends with
 * DEVICE_REMOVAL and the CM lets the device go, although the application holds its handle and its own event handler
 * (the device's one, the application's) takes its time.
 */
class CmDeviceRemovalTest {
    private static final AtomicInteger FABRICS = new AtomicInteger();

    @Test
    @Timeout(120)
    void shouldEndAnIdleConnectionWithDeviceRemovalWhenItsDeviceIsUnregistered() throws Exception {
        Fabric fabric = Fabric.builder("cm-removal-" + FABRICS.incrementAndGet()).realTime().seed(3).build();
        RvtDevice a = RvtDevice.register(SimDriver.builder(fabric).name("a").build());
        RvtDevice b = RvtDevice.register(SimDriver.builder(fabric).name("b").build());
        try (ConnectionManager cmA = ConnectionManager.of(a); ConnectionManager cmB = ConnectionManager.of(b)) {
            ConnectedPair pair = ConnectedPair.connect(cmA, qp(a.allocPd(), a.createCq(16, 0, null, null)), cmB,
                    qp(b.allocPd(), b.createCq(16, 0, null, null)), 7000, Duration.ofSeconds(60));
            Connection onB = pair.passive();
            assertThat(onB.state()).isEqualTo(CmState.ESTABLISHED);
            // an application whose device handler takes its time: rvt-core calls it after flushing the QPs and
            // before it marks the device dead; the CM, a client of the device, has ended before either (it once
            // learned of the removal from its flushed GSI receives and a timer, and before that from a verb failing)
            b.setAsyncEventHandler(e -> {
                if (e.type() == io.rvt.api.AsyncEventType.DEVICE_REMOVAL) {
                    java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300));
                }
            });
            b.unregister();
            CmEvent ev = onB.disconnected().get(30, TimeUnit.SECONDS);
            assertThat(ev.type()).isEqualTo(CmEventType.DEVICE_REMOVAL);
            assertThat(onB.state()).isEqualTo(CmState.CLOSED);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (cmB.isOpen() && System.nanoTime() - deadline < 0) {
                Thread.onSpinWait();
            }
            assertThat(cmB.isOpen()).as("the CM of the removed device closed itself").isFalse();
            assertThat(cmB.idCount()).isZero();
            onB.close();
            pair.active().close();
        } finally {
            a.unregister();
            b.unregister();
            fabric.close();
        }
    }

    private static QpOptions qp(ProtectionDomain pd, CompletionQueue cq) {
        pd.regMr(ByteBuffer.allocateDirect(4096), AccessFlag.LOCAL_WRITE.bit());
        return new QpOptions().pd(pd).cq(cq);
    }
}
