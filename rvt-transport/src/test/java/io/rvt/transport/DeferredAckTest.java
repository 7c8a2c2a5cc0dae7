package io.rvt.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.MemoryRegion;
import io.rvt.api.PortCounter;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.transport.engine.RxInfo;
import io.rvt.transport.engine.TxInfo;
import io.rvt.transport.header.Framing;
import io.rvt.transport.header.Opcode;
import io.rvt.transport.header.PacketHeaders;
import io.rvt.transport.header.PacketParser;
import io.rvt.transport.header.RejectReason;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * The RC engine's two hints to a packet driver's loops: a responder inside a receive batch owes its ACK to the batch's
 * end ({@link RxInfo#deferAck}) instead of taking the send lock for each packet, with the same ACK on the wire; and a
 * requester marks the packet after which it has nothing to send ({@link TxInfo#isDrained()}), so the drain does not
 * ask again.
 */
class DeferredAckTest {
    private static final int MTU = 256;

    private static PacketHeaders parse(byte[] packet) {
        PacketHeaders h = new PacketHeaders();
        assertThat(new PacketParser(true).parse(ByteBuffer.wrap(packet), 0, packet.length, Framing.IB_LRH, h))
                .isEqualTo(RejectReason.OK);
        return h;
    }


    /** Two nodes with an RC pair, after one SEND there and its ACK back. */
    private record Pair(Fabric fabric, Node a, Node b, QueuePair[] rc, MemoryRegion src, MemoryRegion dst) {
        /**
         * The warm-up teaches the requester the responder's credits (it may start one message without); three receive
         * WQEs of {@code recvLength} bytes are posted before it. The next message's PSN is {@code a.sqPsn + 1}.
         */
        static Pair warm(boolean batches, int recvLength) {
            Fabric fabric = new Fabric();
            if (batches) {
                fabric.batches();
            }
            Node a = fabric.node("a", 1, MTU);
            Node b = fabric.node("b", 2, MTU);
            QueuePair[] rc = Node.pair(QpType.RC, a, b, 16, 1);
            Pair p = new Pair(fabric, a, b, rc, a.reg(4096), b.reg(8192));
            b.postRecv(rc[1], 99, p.dst, 4000, 64);
            for (int i = 0; i < 3; i++) {
                b.postRecv(rc[1], i, p.dst, 4096 + i * recvLength, recvLength); // before the ACK with the credits
            }
            p.sends(1, 64);
            fabric.settle();
            assertThat(Node.poll(b.rcq)).singleElement().extracting(WorkCompletion::wrId).isEqualTo(99L);
            return p;
        }

        void sends(int count, int length) {
            for (int i = 0; i < count; i++) {
                rc[0].postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.SEND).sge(src, 0, length));
            }
        }

        /** Runs b's send engine: the one packet it sends now, parsed. */
        PacketHeaders onlyPacketOfB() {
            b.driver.logSent = true;
            b.driver.runEngines();
            assertThat(b.driver.sentLog).hasSize(1);
            return parse(b.driver.sentLog.peek());
        }
    }

    @Test
    void shouldQueueOneAckForTheNewestPsnWhenABatchEndsAfterSeveralAckRequests() {
        Pair p = Pair.warm(true, 64);
        Fabric fabric = p.fabric();
        Node a = p.a();
        Node b = p.b();
        long qacks = b.counter(PortCounter.RC_QACKS);
        p.sends(3, 64);
        fabric.runEngines();
        assertThat(fabric.inFlight()).isEqualTo(3); // each SEND_ONLY asks for an ACK
        fabric.deliverAll();
        assertThat(Node.poll(b.rcq)).hasSize(3).extracting(WorkCompletion::status).containsOnly(WcStatus.SUCCESS);
        assertThat(b.driver.hasScheduled()).as("no ACK queued inside the batch").isFalse();

        fabric.endBatches();
        PacketHeaders ack = p.onlyPacketOfB(); // one ACK for the batch
        assertThat(ack.opcode()).isEqualTo(Opcode.RC_ACKNOWLEDGE);
        assertThat(ack.aethSyndrome() >>> 5).as("an ACK, not a NAK").isZero();
        assertThat(ack.psn()).as("the newest PSN").isEqualTo((a.sqPsn + 3) & 0xFF_FFFF);
        assertThat(b.counter(PortCounter.RC_QACKS) - qacks).as("the two ACK requests it covers beyond the first")
                .isEqualTo(2);
        fabric.settle();
        assertThat(Node.poll(a.scq)).as("the warm-up's and the three").hasSize(4).extracting(WorkCompletion::status)
                .containsOnly(WcStatus.SUCCESS);
    }

    @Test
    void shouldSendTheSequenceNakNotTheOwedAckWhenALaterPacketOfTheBatchIsOutOfSequence() {
        Pair p = Pair.warm(true, 64);
        Fabric fabric = p.fabric();
        Node a = p.a();
        Node b = p.b();
        int[] seen = {0};
        fabric.dropIf(packet -> ++seen[0] == 2); // the second SEND is lost
        p.sends(3, 64);
        fabric.runEngines();
        fabric.deliverAll(); // the first (an ACK owed), then the third: out of sequence, NAKed at once
        fabric.dropIf(packet -> false);
        fabric.endBatches();
        PacketHeaders nak = p.onlyPacketOfB();
        assertThat(nak.aethSyndrome()).as("PSN sequence error NAK").isEqualTo(0x60);
        assertThat(nak.psn()).as("the PSN expected next").isEqualTo((a.sqPsn + 2) & 0xFF_FFFF);
        fabric.settle();
        assertThat(Node.poll(b.rcq)).hasSize(3).extracting(WorkCompletion::wrId).containsExactly(0L, 1L, 2L);
        assertThat(b.counter(PortCounter.RC_DUPREQ)).as("go-back-N from the NAK resent only what was lost")
                .isZero();
    }

    @Test
    void shouldMarkThePacketAfterWhichTheRequesterHasNothingToSend() {
        Pair p = Pair.warm(false, 1024);
        Fabric fabric = p.fabric();
        Node a = p.a();
        Node b = p.b();
        a.driver.logSent = true;
        p.sends(2, 64);
        fabric.runEngines();
        assertThat(a.driver.drainedLog).as("two single-packet SENDs").containsExactly(false, true);
        a.driver.drainedLog.clear();
        p.sends(1, 3 * MTU);
        fabric.runEngines();
        assertThat(a.driver.drainedLog).as("FIRST, MIDDLE, LAST").containsExactly(false, false, true);
        fabric.settle();
        assertThat(Node.poll(b.rcq)).hasSize(3).extracting(WorkCompletion::status).containsOnly(WcStatus.SUCCESS);
    }
}
