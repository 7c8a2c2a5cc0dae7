package io.rvt.driver.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WrOpcode;
import io.rvt.core.RvtDevice;
import io.rvt.core.qp.RvtQp;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A receive batch keeps one reference on the QP its packets in a row go to ({@code PacketDriver.receive}) and drops it
 * when the batch ends: after a stream, each QP is back at the references it had before, and it can be destroyed.
 */
class SimBatchQpReferenceTest {
    private static final AtomicInteger FABRICS = new AtomicInteger();

    @Test
    @Timeout(120)
    void shouldHoldNoQpReferenceWhenTheBatchesOfAStreamHaveEnded() throws Exception {
        Fabric fabric = Fabric.builder("batch-ref-" + FABRICS.incrementAndGet()).realTime().seed(7).build();
        RvtDevice a = RvtDevice.register(SimDriver.builder(fabric).name("a").build());
        RvtDevice b = RvtDevice.register(SimDriver.builder(fabric).name("b").build());
        try {
            Verbs verbs = new Verbs(new RealTimeTraffic());
            Endpoint[] p = verbs.connected(a, b, QpType.RC, 4096, 7, 1);
            RvtQp sender = (RvtQp) p[0].qp;
            RvtQp receiver = (RvtQp) p[1].qp;
            int senderRefs = sender.refCount();
            int receiverRefs = receiver.refCount();
            int n = 48;
            for (int i = 0; i < n; i++) {
                p[1].qp.postRecv(new RecvWorkRequest(1).wrId(i).sge(p[1].mr, (i % 32) * 64, 64));
            }
            for (int i = 0; i < n; i++) {
                p[0].qp.postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.SEND)
                        .sendFlags(SendFlag.SIGNALED.bit()).sge(p[0].mr, 0, 64));
            }
            assertThat(verbs.await(p[1].recvCq, n)).hasSize(n).allSatisfy(wc -> Verbs.assertSuccess(wc, wc.wrId()));
            assertThat(verbs.await(p[0].sendCq, n)).hasSize(n).allSatisfy(wc -> Verbs.assertSuccess(wc, wc.wrId()));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while ((receiver.refCount() != receiverRefs || sender.refCount() != senderRefs)
                    && System.nanoTime() - deadline < 0) {
                Thread.sleep(1); // the last batch ends on the fabric's thread; the loop waits on the count
            }
            assertThat(receiver.refCount()).as("the receiver's references after its batches").isEqualTo(receiverRefs);
            assertThat(sender.refCount()).as("the sender's (its ACKs' batches)").isEqualTo(senderRefs);
            p[0].qp.destroyQp();
            p[1].qp.destroyQp(); // would wait for a reference a batch kept
        } finally {
            a.unregister();
            b.unregister();
            fabric.close();
        }
    }
}
