package io.rvt.driver.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.CompletionQueue;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.core.RvtDevice;
import io.rvt.driver.sim.fabric.Fabric;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The heap an idle RC QP costs (issue 16, item 7): a QP with 1-entry queues, created and left in RESET, as an
 * application holding many connections that are not up yet (or a server with a pool of spare QPs) has them. Measured
 * as the used heap after a full collection, before and after creating {@link #QPS} QPs on one simulated HCA.
 */
class SimIdleQpMemoryTest {
    static final int QPS = 20_000;
    /**
     * Issue 16's target. About 4,900 B before the protocol state (ack queue, WQE slots, receive queue, timers,
     * parking slots) was allocated on the QP's first way out of RESET; about 1,450 B after; about 1,310 B once the
     * loopback's scratch moved there too and the send ring's counters became plain volatile ints (1,580-1,640 B
     * when regions in pieces had widened every {@code Sge}).
     */
    static final long MAX_BYTES_PER_QP = 1_500;

    private static long usedAfterGc() {
        Runtime rt = Runtime.getRuntime();
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            best = Math.min(best, rt.totalMemory() - rt.freeMemory());
        }
        return best;
    }

    @Test
    void shouldKeepAnIdleRcQpWithOneEntryQueuesSmall() {
        try (Fabric fabric = Fabric.builder("idle-qps").deterministic(7).build()) {
            SimDriver driver = SimDriver.builder(fabric).name("idle").maxQp(QPS + 16).build();
            RvtDevice dev = RvtDevice.register(driver);
            try {
                ProtectionDomain pd = dev.allocPd();
                CompletionQueue cq = dev.createCq(64, 0, null, null);
                List<QueuePair> qps = new ArrayList<>(QPS);
                qps.add(pd.createQp(init(cq))); // warm: class loading and first-use allocations
                long before = usedAfterGc();
                for (int i = 1; i < QPS; i++) {
                    qps.add(pd.createQp(init(cq)));
                }
                long after = usedAfterGc();
                long perQp = (after - before) / (QPS - 1);
                System.out.println("SimIdleQpMemoryTest: " + perQp + " B per idle RC QP (1-entry queues, RESET), "
                        + QPS + " QPs");
                assertThat(qps).hasSize(QPS);
                assertThat(perQp).as("bytes per idle RC QP").isLessThanOrEqualTo(MAX_BYTES_PER_QP);
                for (QueuePair qp : qps) {
                    qp.destroyQp();
                }
            } finally {
                dev.unregister();
            }
        }
    }

    private static QpInitAttr init(CompletionQueue cq) {
        QpInitAttr init = new QpInitAttr().qpType(QpType.RC).sendCq(cq).recvCq(cq);
        init.cap().maxSendWr(1).maxRecvWr(1).maxSendSge(1).maxRecvSge(1);
        return init;
    }
}
