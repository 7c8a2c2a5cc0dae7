package io.rvt.driver.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WrOpcode;
import io.rvt.core.RvtDevice;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import java.lang.ref.WeakReference;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A thread that posted (here the test's own, which lives on, as an application's thread under OSGi does) keeps no
 * send scratch of an HCA once the HCA is unregistered: a {@code ThreadLocal<SimScratch>} kept it, and with its class
 * driver-sim's class loader, for the thread's life (found in a heap dump after a bundle update).
 */
class SimScratchReleaseTest {
    private static final AtomicInteger FABRICS = new AtomicInteger();

    @Test
    @Timeout(120)
    void shouldKeepNoSendScratchInAPostingThreadWhenTheHcaIsUnregistered() throws Exception {
        Fabric fabric = Fabric.builder("scratch-" + FABRICS.incrementAndGet()).realTime().seed(5).build();
        SimDriver sa = SimDriver.builder(fabric).name("a").build();
        RvtDevice a = RvtDevice.register(sa);
        RvtDevice b = RvtDevice.register(SimDriver.builder(fabric).name("b").build());
        WeakReference<SimScratch> mine;
        try {
            Verbs verbs = new Verbs(new RealTimeTraffic());
            Endpoint[] p = verbs.connected(a, b, QpType.RC, 4096, 7, 1);
            p[1].qp.postRecv(new RecvWorkRequest(1).wrId(1).sge(p[1].mr, 0, 4096));
            p[0].qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.SEND)
                    .sendFlags(SendFlag.SIGNALED.bit()).sge(p[0].mr, 0, 64));
            Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 1);
            Verbs.assertSuccess(verbs.await(p[1].recvCq, 1).get(0), 1);
            mine = new WeakReference<>(sa.sendScratch()); // this thread's, which its posts and polls used
            assertThat(sa.scratchThreads()).as("the posting thread has a scratch").isPositive();
            assertThat(sa.sendScratch()).as("the same one on every call").isSameAs(mine.get());
        } finally {
            a.unregister();
            b.unregister();
            fabric.close();
        }
        assertThat(sa.scratchThreads()).as("unregistering lets every thread's scratch go").isZero();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (mine.get() != null && System.nanoTime() - deadline < 0) {
            System.gc();
            Thread.sleep(10); // lets the collector run; the loop waits on the reference, not on the sleep
        }
        assertThat(mine.get()).as("this live thread no longer keeps the HCA's scratch").isNull();
    }
}
