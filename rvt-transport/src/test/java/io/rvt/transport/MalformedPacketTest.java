package io.rvt.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.MemoryRegion;
import io.rvt.api.PortCounter;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.transport.header.BthDescriptor;
import io.rvt.transport.header.Icrc;
import io.rvt.transport.header.LrhDescriptor;
import io.rvt.transport.header.Opcode;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Bad packets are dropped and counted, never thrown, and leave the QPs working: truncated, bad ICRC, unknown opcode,
 * unknown QPN, wrong transport, wrong P_Key, PSN ahead (sequence NAK) and behind (duplicate).
 */
class MalformedPacketTest {
    static final int BTH = LrhDescriptor.LENGTH;

    Fabric fabric;
    Node a;
    Node b;
    QueuePair qa;
    QueuePair qb;
    MemoryRegion srcA;
    MemoryRegion dstB;
    byte[] sample;

    @BeforeEach
    void setUp() {
        fabric = new Fabric();
        a = fabric.node("a", 1, 4096);
        b = fabric.node("b", 2, 4096);
        QueuePair[] p = Node.pair(QpType.RC, a, b, 64, 1);
        qa = p[0];
        qb = p[1];
        srcA = a.reg(8192);
        dstB = b.reg(65536);
        RcOperationsTest.fill(srcA, 9);
        for (int i = 0; i < 16; i++) {
            b.postRecv(qb, i, dstB, i * 4096, 4096);
        }
        a.driver.logSent = true;
        qa.postSend(send(100, 64));
        fabric.settle();
        sample = a.driver.sentLog.getFirst(); // a valid RC SEND_ONLY, already delivered
        assertThat(BthDescriptor.opcode(ByteBuffer.wrap(sample), BTH)).isEqualTo(Opcode.RC_SEND_ONLY);
        Node.poll(a.scq);
        Node.poll(b.rcq);
    }

    SendWorkRequest send(long id, int len) {
        return new SendWorkRequest(1).wrId(id).opcode(WrOpcode.SEND).sendFlags(SendFlag.SIGNALED.bit())
                .sge(srcA, 0, len);
    }

    /** A copy of the sample, edited, with a fresh ICRC. */
    byte[] edited(Consumer<ByteBuffer> edit) {
        byte[] p = sample.clone();
        ByteBuffer bb = ByteBuffer.wrap(p);
        edit.accept(bb);
        new Icrc().writeIb(bb, 0, p.length);
        return p;
    }

    void inject(byte[] packet) {
        fabric.inject(b.driver, packet);
        fabric.settle();
    }

    /** The QPs still carry traffic after the bad packets. */
    void assertStillWorking() {
        qa.postSend(send(200, 300));
        fabric.settle();
        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(Node.poll(b.rcq)).extracting(WorkCompletion::byteLen).containsExactly(300);
        assertThat(qa.state()).isEqualTo(QpState.RTS);
        assertThat(qb.state()).isEqualTo(QpState.RTS);
    }

    @Test
    void shouldCountMalformedWhenThePacketIsTruncated() {
        inject(Arrays.copyOf(sample, sample.length - 9));
        inject(Arrays.copyOf(sample, 10));
        assertThat(b.counter(PortCounter.RX_MALFORMED)).isEqualTo(2);
        assertThat(Node.poll(b.rcq)).isEmpty();
        assertStillWorking();
    }

    @Test
    void shouldCountMalformedWhenTheIcrcIsWrong() {
        byte[] p = sample.clone();
        p[BTH + 20] ^= 1;
        inject(p);
        assertThat(b.counter(PortCounter.RX_MALFORMED)).isEqualTo(1);
        assertStillWorking();
    }

    @Test
    void shouldCountMalformedWhenTheOpcodeIsUnknown() {
        inject(edited(bb -> BthDescriptor.opcode(bb, BTH, 0x15))); // reserved RC opcode
        inject(edited(bb -> BthDescriptor.opcode(bb, BTH, 0x44))); // Reliable Datagram
        assertThat(b.counter(PortCounter.RX_MALFORMED)).isEqualTo(2);
        assertStillWorking();
    }

    @Test
    void shouldCountMalformedWhenTheQpnIsUnknown() {
        inject(edited(bb -> BthDescriptor.destQp(bb, BTH, 0x4321)));
        assertThat(b.counter(PortCounter.RX_MALFORMED)).isEqualTo(1);
        assertStillWorking();
    }

    @Test
    void shouldDropWhenTheOpcodeBelongsToAnotherTransport() {
        inject(edited(bb -> BthDescriptor.opcode(bb, BTH, Opcode.UC_SEND_ONLY)));
        assertThat(b.counter(PortCounter.PKT_DROPS)).isEqualTo(1);
        assertThat(Node.poll(b.rcq)).isEmpty();
        assertStillWorking();
    }

    @Test
    void shouldCountPkeyViolationWhenThePkeyDoesNotMatch() {
        inject(edited(bb -> BthDescriptor.pkey(bb, BTH, 0x7FF1)));
        assertThat(b.counter(PortCounter.PKEY_VIOLATIONS)).isEqualTo(1);
        assertStillWorking();
    }

    @Test
    void shouldNakOnceWhenThePsnIsAhead() {
        int psn = BthDescriptor.psn(ByteBuffer.wrap(sample), BTH);
        inject(edited(bb -> BthDescriptor.psn(bb, BTH, psn + 5)));
        inject(edited(bb -> BthDescriptor.psn(bb, BTH, psn + 6)));
        assertThat(b.counter(PortCounter.SEQ_NAKS)).isEqualTo(1); // one NAK until the expected PSN arrives
        assertThat(Node.poll(b.rcq)).isEmpty();
        assertStillWorking();
    }

    @Test
    void shouldCountEveryDroppedPacketWhenThePsnIsAhead() {
        int psn = BthDescriptor.psn(ByteBuffer.wrap(sample), BTH);
        for (int k = 1; k <= 20; k++) {
            int ahead = psn + 1 + k; // psn + 1 is the expected PSN
            inject(edited(bb -> BthDescriptor.psn(bb, BTH, ahead)));
        }
        assertThat(b.counter(PortCounter.RC_OUT_OF_SEQ)).isEqualTo(20);
        assertThat(b.counter(PortCounter.SEQ_NAKS)).isEqualTo(1);
        assertThat(Node.poll(b.rcq)).isEmpty();
        assertStillWorking();
    }

    @Test
    void shouldReAckAndNotReExecuteWhenThePacketIsADuplicate() {
        inject(sample.clone());
        assertThat(b.counter(PortCounter.RC_DUPREQ)).isEqualTo(1);
        assertThat(Node.poll(b.rcq)).isEmpty(); // the SEND is not delivered twice
        assertStillWorking();
    }
}
