package io.rvt.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.MemoryRegion;
import io.rvt.api.PortCounter;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.transport.PayloadByReferenceTest.Run;
import io.rvt.transport.engine.TxInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Runs ({@link TxInfo#runLimit}, {@code PacketHeaders.run}): a requester that makes a message's consecutive packets in
 * one call puts exactly the packets on the wire that one call per packet would (bytes compared), and a responder that
 * takes them as one unit ends with the same memory, completions and counters as one that takes them one by one,
 * including when the run meets an error or a missing receive WQE mid-way.
 */
class RunTest {
    static final int MTU = PayloadByReferenceTest.MTU;

    @Test
    void shouldPutTheSamePacketsOnTheWireWhenTheRequesterMakesRuns() {
        Run single = PayloadByReferenceTest.run(4, 1, false);
        Run runs = PayloadByReferenceTest.run(4, 1, false, true, false);
        PayloadByReferenceTest.assertSameWire(single, runs);
        assertThat(runs.runs()).as("runs made").isGreaterThan(0);
        assertThat(single.runs()).isZero();
        assertThat(runs.received()).isEqualTo(single.received());
        assertThat(runs.counters()).isEqualTo(single.counters());
    }

    @Test
    void shouldEndTheSameWhenTheResponderTakesRunsAsOneUnit() {
        Run single = PayloadByReferenceTest.run(4, 1, false);
        Run units = PayloadByReferenceTest.run(4, 1, false, false, true);
        PayloadByReferenceTest.assertSameWire(single, units); // the ACKs and READ responses too
        assertThat(units.runs()).isGreaterThan(0);
        assertThat(units.received()).isEqualTo(single.received());
        assertThat(units.counters()).as("every port counter, RC_QACKS included").isEqualTo(single.counters());
    }

    /** Long messages (a 100-packet WRITE, a 70-packet SEND): AckReq every 16 packets; the two nodes' counters. */
    private static java.util.Map<PortCounter, Long> longMessages(boolean units, byte[] received) {
        Fabric fabric = new Fabric();
        Node a = fabric.node("a", 1, 4096);
        Node b = fabric.node("b", 2, 4096);
        for (Node n : List.of(a, b)) {
            n.driver.deliverRuns = units;
            n.driver.payloadByReference(4, 1);
        }
        MemoryRegion src = a.reg(1 << 16);
        MemoryRegion dst = b.reg(1 << 16);
        RcOperationsTest.fill(src, 9);
        QueuePair[] rc = Node.pair(QpType.RC, a, b, 16, 1);
        rc[1].postRecv(new RecvWorkRequest(1).wrId(1).sge(dst, 30_000, 70 * MTU));
        rc[0].postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.RDMA_WRITE).sge(src, 0, 100 * MTU)
                .remoteAddr(dst.addr()).rkey(dst.rkey()));
        rc[0].postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlag.SIGNALED.bit())
                .sge(src, 100, 70 * MTU));
        fabric.settle();
        assertThat(Node.poll(a.scq)).hasSize(2).extracting(WorkCompletion::status).containsOnly(WcStatus.SUCCESS);
        assertThat(Node.poll(b.rcq)).singleElement().extracting(WorkCompletion::status).isEqualTo(WcStatus.SUCCESS);
        assertThat(a.driver.runsMade > 0).isEqualTo(units);
        dst.buffer().get(0, received);
        java.util.Map<PortCounter, Long> counters = new java.util.EnumMap<>(PortCounter.class);
        for (PortCounter c : PortCounter.values()) {
            counters.put(c, a.counter(c) + b.counter(c));
        }
        return counters;
    }

    @Test
    void shouldAnswerEveryAckRequestOfLongMessagesWhenTheirPacketsArriveAsRuns() {
        byte[] single = new byte[1 << 16];
        byte[] units = new byte[1 << 16];
        java.util.Map<PortCounter, Long> expected = longMessages(false, single);
        java.util.Map<PortCounter, Long> actual = longMessages(true, units);
        assertThat(units).isEqualTo(single);
        assertThat(expected.get(PortCounter.RC_ACKS)).as("ACKs within the messages").isGreaterThan(2);
        // Every ACK the packets ask for is queued; those queued within one run go out as one for its newest PSN
        // and are counted as coalesced (as within one receive batch), so ACKs + coalesced ACKs add up the same.
        assertThat(actual.get(PortCounter.RC_ACKS) + actual.get(PortCounter.RC_QACKS))
                .isEqualTo(expected.get(PortCounter.RC_ACKS) + expected.get(PortCounter.RC_QACKS));
        assertThat(actual.get(PortCounter.TX_PACKETS) - actual.get(PortCounter.RC_ACKS))
                .as("request packets").isEqualTo(expected.get(PortCounter.TX_PACKETS)
                        - expected.get(PortCounter.RC_ACKS));
        for (PortCounter c : List.of(PortCounter.RC_ACKS, PortCounter.RC_QACKS, PortCounter.TX_PACKETS,
                PortCounter.RX_PACKETS)) {
            actual.remove(c);
            expected.remove(c);
        }
        assertThat(actual).isEqualTo(expected);
    }

    /** A node whose runs reach the receiver as one unit, payload by reference. */
    private static Node unitNode(Fabric fabric, String name, int lid) {
        Node n = fabric.node(name, lid, 4096);
        n.driver.deliverRuns = true;
        n.driver.payloadByReference(4, 1);
        return n;
    }

    /** One node pair with runs delivered as units; a 10-packet SEND meets no receive WQE, then one. */
    @Test
    void shouldRnrNakARunThatFindsNoReceiveWqeAndDeliverItOnceOneIsPosted() {
        Fabric fabric = new Fabric();
        Node a = unitNode(fabric, "a", 1);
        Node b = unitNode(fabric, "b", 2);
        MemoryRegion src = a.reg(1 << 16);
        MemoryRegion dst = b.reg(1 << 16);
        RcOperationsTest.fill(src, 7);
        QueuePair[] rc = Node.pair(QpType.RC, a, b, 16, 1);
        int len = 10 * 4096;
        rc[0].postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlag.SIGNALED.bit())
                .sge(src, 0, len));
        fabric.pump();
        assertThat(a.driver.runsMade).isGreaterThan(0);
        assertThat(a.counter(PortCounter.RNR_NAKS) + b.counter(PortCounter.RNR_NAKS)).as("RNR NAKs")
                .isGreaterThan(0);
        assertThat(Node.poll(b.rcq)).isEmpty();
        rc[1].postRecv(new RecvWorkRequest(1).wrId(2).sge(dst, 0, len));
        fabric.settle();
        List<WorkCompletion> sent = Node.poll(a.scq);
        List<WorkCompletion> got = Node.poll(b.rcq);
        assertThat(sent).singleElement().extracting(WorkCompletion::status).isEqualTo(WcStatus.SUCCESS);
        assertThat(got).singleElement().satisfies(wc -> {
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.byteLen()).isEqualTo(len);
        });
        byte[] want = new byte[len];
        byte[] have = new byte[len];
        src.buffer().get(0, want);
        dst.buffer().get(0, have);
        assertThat(have).isEqualTo(want);
    }

    /** A WRITE whose rkey the responder refuses: the first packet NAKs, the rest of the run is out of sequence. */
    @Test
    void shouldNakARunWithABadRkeyOnceAndFailTheWrite() {
        Fabric fabric = new Fabric();
        Node a = unitNode(fabric, "a", 1);
        Node b = unitNode(fabric, "b", 2);
        MemoryRegion src = a.reg(1 << 16);
        MemoryRegion dst = b.reg(1 << 16);
        QueuePair[] rc = Node.pair(QpType.RC, a, b, 16, 1);
        rc[0].postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlag.SIGNALED.bit())
                .sge(src, 0, 8 * 4096).remoteAddr(dst.addr()).rkey(dst.rkey() + 1));
        fabric.settle();
        assertThat(a.driver.runsMade).isGreaterThan(0);
        assertThat(Node.poll(a.scq)).singleElement().extracting(WorkCompletion::status)
                .isEqualTo(WcStatus.REM_ACCESS_ERR);
    }
}
