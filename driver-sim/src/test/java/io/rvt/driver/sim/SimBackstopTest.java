package io.rvt.driver.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.PortCounter;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.DriverCq;
import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.core.RvtDevice;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.driver.sim.fabric.FaultConfig;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The progress hook's backstop: on a real-time fabric with {@link ThreadingMode#PROGRESS} (the default), an
 * application that posts and then does not poll (it waits on something else, e.g. completion events) still sees its
 * lost frames retransmitted (the RC retry timer fires, the backstop sends and delivers) and its work completed.
 */
class SimBackstopTest {
    private static final AtomicInteger FABRICS = new AtomicInteger();

    private static void awaitWithoutPolling(BooleanSupplier c, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!c.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting for " + what);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    @Test
    @Timeout(120)
    void shouldRetransmitAndCompleteOnTheBackstopWhenTheApplicationDoesNotPoll() {
        Fabric fabric = Fabric.builder("backstop-" + FABRICS.incrementAndGet()).realTime().seed(17).build();
        SimDriver sa = SimDriver.builder(fabric).name("a").build();
        RvtDevice a = RvtDevice.register(sa);
        RvtDevice b = RvtDevice.register(SimDriver.builder(fabric).name("b").build());
        try {
            assertThat(fabric.threading()).isEqualTo(ThreadingMode.PROGRESS);
            Verbs verbs = new Verbs(new RealTimeTraffic());
            Endpoint[] p = verbs.connected(a, b, QpType.RC, 4096, 7, 1);
            int n = 40;
            for (int i = 0; i < n; i++) {
                p[1].qp.postRecv(new RecvWorkRequest(1).wrId(i).sge(p[1].mr, 0, 4096));
            }
            // from now on every frame of a's link may be lost: only retransmissions get the messages through
            sa.fabricPort(1).link().faults(FaultConfig.builder().loss(0.3).build());
            long workBefore = fabric.progressEngine().backstopWork();
            for (int i = 0; i < n; i++) {
                p[0].qp.postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.SEND)
                        .sendFlags(SendFlag.SIGNALED.bit()).sge(p[0].mr, 0, 64));
            }
            DriverCq sendCq = (DriverCq) p[0].sendCq;
            DriverCq recvCq = (DriverCq) p[1].recvCq;
            awaitWithoutPolling(() -> sendCq.head() >= n && recvCq.head() >= n,
                    "every SEND completed on both sides without a poll");
            assertThat(a.portCounter(1, PortCounter.RC_RESENDS)).as("lost frames were sent again").isPositive();
            assertThat(fabric.progressEngine().backstopWork()).isGreaterThan(workBefore);
            for (var wc : verbs.await(p[0].sendCq, n)) {
                Verbs.assertSuccess(wc, wc.wrId());
            }
            for (var wc : verbs.await(p[1].recvCq, n)) {
                Verbs.assertSuccess(wc, wc.wrId());
            }
        } finally {
            a.unregister();
            b.unregister();
            fabric.close();
        }
    }
}
