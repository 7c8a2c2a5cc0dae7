package io.rvt.driver.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.PortCounter;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.agent.Agent;
import io.rvt.api.spi.agent.CompositeAgent;
import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.core.RvtDevice;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The doorbell on a real-time fabric run by its caller or by progress: a QP's second and later posts between two
 * cycles only queue the QP, and the fabric's next cycle drains it (all WRs posted meanwhile in one drain, one train)
 * just before it takes that port's frames, so they are delivered in that same cycle; the first post of a turn is
 * drained on the posting thread, as every post is with a send thread of the HCA's own.
 */
class SimDoorbellTest {
    private static final AtomicInteger FABRICS = new AtomicInteger();
    private Fabric fabric;
    private RvtDevice a;
    private RvtDevice b;
    private Agent network;
    private Verbs verbs;
    private Endpoint[] pair;
    private long txBefore;
    private long framesBefore;
    private long trainsBefore;
    private long rxBefore;

    private void open(ThreadingMode hcaThreading) {
        open(hcaThreading, true);
    }

    private void open(ThreadingMode hcaThreading, boolean bursts) {
        fabric = Fabric.builder("doorbell-" + FABRICS.incrementAndGet()).realTime().threading(ThreadingMode.INVOKER)
                .bursts(bursts).build();
        SimDriver hcaA = SimDriver.builder(fabric).name("a").threading(hcaThreading).build();
        SimDriver hcaB = SimDriver.builder(fabric).name("b").threading(hcaThreading).build();
        List<Agent> agents = hcaThreading == ThreadingMode.INVOKER
                ? List.of(fabric.agent(), hcaA.sendAgent(), hcaB.sendAgent()) : List.of(fabric.agent());
        network = new CompositeAgent("doorbell-net", agents);
        a = RvtDevice.register(hcaA);
        b = RvtDevice.register(hcaB);
        verbs = new Verbs(new InvokedFixture(this::cycle));
        pair = verbs.connected(a, b, QpType.RC, 4096, 7, 1);
        while (cycle() > 0) {
            // whatever the connection left in flight
        }
        credits();
        framesBefore = fabric.counters().txFrames();
        trainsBefore = fabric.counters().trains();
        txBefore = a.portCounter(1, PortCounter.TX_PACKETS);
        rxBefore = b.portCounter(1, PortCounter.RX_PACKETS);
    }

    /** @return request packets the sender's port sent since {@link #open} */
    private long sent() {
        return a.portCounter(1, PortCounter.TX_PACKETS) - txBefore;
    }

    /** @return packets the receiver's port got since {@link #open} */
    private long delivered() {
        return b.portCounter(1, PortCounter.RX_PACKETS) - rxBefore;
    }

    private int cycle() {
        try {
            return network.doWork();
        } catch (Exception e) {
            throw new AssertionError("a duty cycle failed", e);
        }
    }

    @AfterEach
    void tearDown() {
        InvokedFixture.tearDown(verbs, a, b, fabric);
    }

    /**
     * Posts receives, then one message whose ACK tells the requester about them (RC's end-to-end credits: without any
     * it sends one packet at a time), and runs the fabric until idle.
     */
    private void credits() {
        for (int i = 0; i < 8; i++) {
            pair[1].qp.postRecv(new RecvWorkRequest(1).wrId(i).sge(pair[1].mr, 64 * i, 64));
        }
        post(1);
        verbs.await(pair[1].recvCq, 1);
        verbs.await(pair[0].sendCq, 1);
        while (cycle() > 0) {
            // the ACK's frame
        }
    }

    private void post(int messages) {
        for (int i = 0; i < messages; i++) {
            pair[0].qp.postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.SEND).sge(pair[0].mr, 64 * i, 64));
        }
    }

    private int received() {
        return InvokedFixture.pollSuccesses(pair[1].recvCq);
    }

    @Test
    void shouldQueuePostsBehindWaitingFramesAndSendThemInTheFabricsNextCycle() {
        open(ThreadingMode.INVOKER);
        post(1); // the QP's first post since the last cycle: drained here
        assertThat(sent()).isEqualTo(1);
        post(3); // no cycle since: only queued
        assertThat(sent()).as("packets sent before the cycle").isEqualTo(1);
        cycle(); // one cycle: the port's sender drains the three, then all four are delivered
        assertThat(sent()).isEqualTo(4);
        assertThat(delivered()).as("packets delivered in that cycle").isEqualTo(4);
        assertThat(received()).isEqualTo(4);
        assertThat(verbs.await(pair[0].sendCq, 4)).hasSize(4);
        // the three queued ones left as one train (Frame.then), each counted as a frame
        assertThat(fabric.counters().trains() - trainsBefore).as("trains").isEqualTo(1);
        assertThat(fabric.counters().txFrames() - framesBefore).as("frames: 4 requests, 1 ACK").isEqualTo(5);
    }

    @Test
    void shouldSendEveryQueuedPostInAFrameOfItsOwnWhenBurstsAreOff() {
        open(ThreadingMode.INVOKER, false);
        post(1);
        post(3);
        cycle();
        assertThat(delivered()).isEqualTo(4);
        assertThat(fabric.counters().trains() - trainsBefore).as("trains").isZero();
        assertThat(received()).isEqualTo(4);
    }

    @Test
    void shouldDrainEveryPostOnThePostingThreadWhenTheHcaHasASendThreadOfItsOwn() {
        open(ThreadingMode.DEDICATED);
        post(4);
        assertThat(sent()).isEqualTo(4);
        verbs.awaitTrue("four messages received", () -> {
            cycle();
            return delivered() >= 4;
        });
        assertThat(verbs.await(pair[1].recvCq, 4)).hasSize(4);
    }
}
