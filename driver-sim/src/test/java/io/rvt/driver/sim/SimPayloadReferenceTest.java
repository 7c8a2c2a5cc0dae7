package io.rvt.driver.sim;

import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WrOpcode;
import io.rvt.core.RvtDevice;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.driver.sim.fabric.LinkModel;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An RC request's frame points into the sender's region until delivery; a UC message completes when its last packet
 * leaves, so its frames carry copies: overwriting the source right after the send completion must not reach the
 * receiver. The links' latency keeps the frames in flight meanwhile.
 */
class SimPayloadReferenceTest {
    private static final AtomicInteger FABRICS = new AtomicInteger();
    private static final int LEN = 16 * 1024 + 100; // five packets of MTU 4096
    private Fabric fabric;
    private RvtDevice a;
    private RvtDevice b;
    private final RealTimeTraffic traffic = new RealTimeTraffic();
    private final Verbs verbs = new Verbs(traffic);

    @BeforeEach
    void setUp() {
        fabric = Fabric.builder("payload-ref-" + FABRICS.incrementAndGet()).realTime()
                .defaultLink(LinkModel.of(0, 300_000)).build(); // 300 µs on every link: frames stay in flight
        a = RvtDevice.register(SimDriver.builder(fabric).name("a").build());
        b = RvtDevice.register(SimDriver.builder(fabric).name("b").build());
    }

    @AfterEach
    void tearDown() {
        a.unregister();
        b.unregister();
        fabric.close();
    }

    private void sendThenOverwrite(QpType type, long seed) {
        Endpoint[] p = verbs.connected(a, b, type, 32 * 1024, 7, 1);
        for (int i = 0; i < 20; i++) {
            Verbs.fill(p[0].buffer, 0, LEN, seed + i);
            p[1].qp.postRecv(new RecvWorkRequest(1).wrId(i).sge(p[1].mr, 0, 32 * 1024));
            p[0].qp.postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.SEND).sge(p[0].mr, 0, LEN));
            Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), i);
            Verbs.fill(p[0].buffer, 0, LEN, ~(seed + i)); // the application reuses its buffer at once
            Verbs.assertSuccess(verbs.await(p[1].recvCq, 1).get(0), i);
            Verbs.assertPattern(p[1].buffer, 0, LEN, seed + i);
        }
    }

    @Test
    void shouldDeliverWhatUcSentWhenTheSenderOverwritesItsBufferRightAfterTheCompletion() {
        sendThenOverwrite(QpType.UC, 100);
    }

    @Test
    void shouldDeliverRcPayloadsReadFromTheSendersRegion() {
        sendThenOverwrite(QpType.RC, 200);
    }
}
