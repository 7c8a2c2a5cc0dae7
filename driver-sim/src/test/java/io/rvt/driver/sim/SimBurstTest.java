package io.rvt.driver.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.PortCounter;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WrOpcode;
import io.rvt.core.RvtDevice;
import io.rvt.driver.sim.fabric.Counters;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.driver.sim.fabric.FabricBuilder;
import io.rvt.driver.sim.fabric.FaultConfig;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Bursts ({@code Frame.burst}): on a real-time fabric without trace or faults an HCA hands the fabric a message's
 * consecutive packets as one frame, and everything counted per packet stays per packet (the ports' TX/RX packets,
 * the fabric's frames); with a fault configured on a link every packet gets a frame of its own, and bursts come back
 * once the fault is gone.
 */
class SimBurstTest {
    private static final AtomicInteger FABRICS = new AtomicInteger();
    private static final int WRITE = 64 * 1024; // 16 packets of MTU 4096
    private static final int SEND = 5 * 4096 + 100; // 6 packets
    /** Request packets of one round: four WRITEs, two SENDs. */
    private static final int PACKETS = 4 * 16 + 2 * 6;
    private final RealTimeTraffic traffic = new RealTimeTraffic();
    private final Verbs verbs = new Verbs(traffic);
    private Fabric fabric;
    private RvtDevice a;
    private RvtDevice b;
    private SimDriver hcaA;
    private SimDriver hcaB;
    private Endpoint[] pair;

    private void open(UnaryOperator<FabricBuilder> setup) {
        fabric = setup.apply(Fabric.builder("burst-" + FABRICS.incrementAndGet()).realTime()).build();
        hcaA = SimDriver.builder(fabric).name("a").build();
        hcaB = SimDriver.builder(fabric).name("b").build();
        a = RvtDevice.register(hcaA);
        b = RvtDevice.register(hcaB);
        pair = verbs.connected(a, b, QpType.RC, 4 * WRITE, 7, 1);
    }

    @AfterEach
    void tearDown() {
        verbs.close();
        if (a != null) {
            a.unregister();
            b.unregister();
            fabric.close();
        }
    }

    /** One round of WRITEs and SENDs, data checked; returns once every request packet is counted on both ports. */
    private void round(long seed) {
        Endpoint s = pair[0];
        Endpoint r = pair[1];
        // Everything a sends goes to b (two ports, no faults), but a drain adds its TX count when it ends and a delivery
        // batch its RX count when it ends: the snapshot below could otherwise fall between the two for a packet still
        // on its way, e.g. the connection's RTU, whose arrival establishes the pair before b's batch ends (once seen
        // as rx=77 against tx=76 with no resend).
        verbs.awaitTrue("every packet a sent counted as received by b", () -> a.portCounter(1,
                PortCounter.TX_PACKETS) == b.portCounter(1, PortCounter.RX_PACKETS));
        long txBefore = a.portCounter(1, PortCounter.TX_PACKETS);
        long rxBefore = b.portCounter(1, PortCounter.RX_PACKETS);
        long framesBefore = hcaA.fabricPort(1).counters().txFrames();
        long resendsBefore = a.portCounter(1, PortCounter.RC_RESENDS);
        Verbs.fill(s.buffer, 0, 4 * WRITE, seed);
        r.qp.postRecv(new RecvWorkRequest(1).wrId(1).sge(r.mr, 0, SEND));
        r.qp.postRecv(new RecvWorkRequest(1).wrId(2).sge(r.mr, SEND, SEND));
        for (int i = 0; i < 4; i++) {
            s.qp.postSend(new SendWorkRequest(1).wrId(10 + i).opcode(WrOpcode.RDMA_WRITE).sge(s.mr, i * WRITE, WRITE)
                    .remoteAddr(r.mr.addr() + i * WRITE).rkey(r.mr.rkey()).sendFlags(SendFlag.SIGNALED.bit()));
        }
        verbs.await(s.sendCq, 4).forEach(wc -> Verbs.assertSuccess(wc, wc.wrId()));
        Verbs.assertPattern(r.buffer, 0, 4 * WRITE, seed);
        for (int i = 0; i < 2; i++) {
            s.qp.postSend(new SendWorkRequest(1).wrId(20 + i).opcode(WrOpcode.SEND).sge(s.mr, i * SEND, SEND)
                    .sendFlags(SendFlag.SIGNALED.bit()));
        }
        verbs.await(s.sendCq, 2).forEach(wc -> Verbs.assertSuccess(wc, wc.wrId()));
        verbs.await(r.recvCq, 2).forEach(wc -> {
            Verbs.assertSuccess(wc, wc.wrId());
            assertThat(wc.byteLen()).isEqualTo(SEND);
        });
        Verbs.assertPattern(r.buffer, 0, 2 * SEND, seed); // the SENDs carried the start of what the WRITEs wrote
        // Only the requester sends requests and only the responder sends ACKs: each request packet once, plus the
        // go-back-N resends a retry timeout made (a descheduled test thread lets the 67 ms timer fire; each is
        // counted once on both sides as well)
        verbs.awaitTrue("every request packet counted", () -> {
            long resent = a.portCounter(1, PortCounter.RC_RESENDS) - resendsBefore;
            return a.portCounter(1, PortCounter.TX_PACKETS) - txBefore == PACKETS + resent
                    && b.portCounter(1, PortCounter.RX_PACKETS) - rxBefore == PACKETS + resent;
        });
        long resent = a.portCounter(1, PortCounter.RC_RESENDS) - resendsBefore;
        assertThat(hcaA.fabricPort(1).counters().txFrames() - framesBefore).isEqualTo(PACKETS + resent);
    }

    private Counters senderCounters() {
        return hcaA.fabricPort(1).counters();
    }

    @Test
    void shouldCarryAMessagesPacketsInBurstsAndCountEachPacket() {
        open(f -> f);
        round(1);
        round(2);
        assertThat(senderCounters().bursts()).as("bursts").isGreaterThan(0);
        assertThat(a.portCounter(1, PortCounter.RC_RESENDS)).isZero();
    }

    @Test
    void shouldSendOnePacketPerFrameWhenBurstsAreOff() {
        open(f -> f.bursts(false));
        round(3);
        assertThat(senderCounters().bursts()).isZero();
    }

    @Test
    void shouldSendOnePacketPerFrameWhileALinkHasFaultsAndBurstAgainOnceTheyAreGone() {
        open(f -> f);
        // A fault that never strikes still has to see every packet: no bursts while it is configured.
        hcaB.fabricPort(1).link().faults(FaultConfig.builder().reorder(1e-12, 1000).build());
        round(4);
        assertThat(senderCounters().bursts()).isZero();
        hcaB.fabricPort(1).link().faults(null); // the fabric's default again: none
        round(5);
        assertThat(senderCounters().bursts()).isGreaterThan(0);
    }
}
