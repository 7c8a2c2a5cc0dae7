package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Device;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WrOpcode;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import java.lang.ref.WeakReference;
import org.junit.jupiter.api.Test;

/**
 * A closed driver is garbage, even for the threads that posted to it and live on (an application's threads under
 * OSGi, where a driver bundle is updated or refreshed under them and its old class loader must go).
 */
class JniDriverLifetimeTest {
    @Test
    void shouldBeCollectableAfterCloseWhenALiveThreadPostedToIt() {
        WeakReference<JniDriver> sender = trafficFromThisThreadThenClose();

        long deadline = System.nanoTime() + Verbs.DEADLINE_NANOS;
        while (sender.get() != null && System.nanoTime() - deadline < 0) {
            System.gc();
            Thread.onSpinWait();
        }
        assertThat(sender.get()).as("the closed driver this thread posted to, after GC").isNull();
    }

    /** Posts a SEND on this thread (the driver drains it here: do_send), then unregisters and closes both HCAs. */
    private static WeakReference<JniDriver> trafficFromThisThreadThenClose() {
        try (JniFixture f = new JniFixture(1, "127.0.0.1"); Verbs verbs = new Verbs(f)) {
            Device[] dev = f.open(2); // the CMs (verbs) close before the devices go, as an application closes them
            Endpoint[] p = verbs.connected(dev[0], dev[1], QpType.RC, 4096, 7, 1);
            p[1].qp.postRecv(new RecvWorkRequest(1).wrId(1).sge(p[1].mr, 0, 64));
            p[0].qp.postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.SEND).sge(p[0].mr, 0, 64));
            Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 2);
            Verbs.assertSuccess(verbs.await(p[1].recvCq, 1).get(0), 1);
            return new WeakReference<>(f.drivers().get(0));
        }
    }
}
