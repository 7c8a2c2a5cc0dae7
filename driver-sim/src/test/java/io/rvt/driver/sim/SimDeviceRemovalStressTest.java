package io.rvt.driver.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.QpType;
import io.rvt.core.RvtDevice;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.RemovalStress;
import io.rvt.testkit.Verbs;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Two simulated HCAs on a real-time fabric removed 100 times in the middle of RC traffic ({@link RemovalStress}: a
 * thread posting SENDs and WRITEs, a thread polling): the sender's device first, while packets and ACKs are in
 * flight, then the receiver's. Every accepted work request completes exactly once (by the driver's engine, an ACK,
 * or the removal's flush), nothing completes that was not outstanding, a refused post completes nothing.
 */
class SimDeviceRemovalStressTest {
    private static final int ROUNDS = 100;
    private static final AtomicInteger FABRICS = new AtomicInteger();
    private final Verbs verbs = new Verbs(new RealTimeTraffic());

    @Test
    void shouldCompleteEveryWorkRequestExactlyOnceWhenSimDevicesAreRemovedMidTraffic() throws Exception {
        SplittableRandom rnd = new SplittableRandom(12);
        List<String> failures = new ArrayList<>();
        long start = System.nanoTime();
        for (int round = 0; round < ROUNDS && failures.isEmpty(); round++) {
            Fabric fabric = Fabric.builder("removal-" + FABRICS.incrementAndGet()).realTime().build();
            RvtDevice a = RvtDevice.register(SimDriver.builder(fabric).name("a").build());
            RvtDevice b = RvtDevice.register(SimDriver.builder(fabric).name("b").build());
            try {
                Endpoint[] p = verbs.connected(a, b, QpType.RC, 4096, 7, 1);
                RemovalStress.Pair pair = new RemovalStress.Pair(p[0].qp, p[1].qp, p[0].sendCq, p[1].recvCq,
                        p[0].mr, p[1].mr);
                String f = RemovalStress.round(pair, () -> { }, rnd.nextInt(1, 60), () -> {
                    a.unregister();
                    b.unregister();
                }, 30);
                if (f != null) {
                    failures.add("round " + round + ": " + f);
                }
            } finally {
                a.unregister();
                b.unregister();
                fabric.close();
            }
        }
        assertThat(failures).isEmpty();
        System.out.printf("SimDeviceRemovalStressTest: %d rounds in %d ms%n", ROUNDS,
                (System.nanoTime() - start) / 1_000_000);
    }
}
