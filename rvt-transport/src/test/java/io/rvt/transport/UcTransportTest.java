package io.rvt.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.MemoryRegion;
import io.rvt.api.PortCounter;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcFlag;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.transport.header.BthDescriptor;
import io.rvt.transport.header.LrhDescriptor;
import io.rvt.transport.header.Opcode;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** UC between two devices: every operation, no ACKs, and what a lost packet does to a message. */
class UcTransportTest {
    static final int MTU = 256;

    Fabric fabric;
    Node a;
    Node b;
    QueuePair qa;
    QueuePair qb;
    MemoryRegion srcA;
    MemoryRegion dstB;

    @BeforeEach
    void setUp() {
        fabric = new Fabric();
        a = fabric.node("a", 1, 4096);
        b = fabric.node("b", 2, 4096);
        QueuePair[] p = Node.pair(QpType.UC, a, b, 64, 2);
        qa = p[0];
        qb = p[1];
        srcA = a.reg(1 << 16);
        dstB = b.reg(1 << 16);
        RcOperationsTest.fill(srcA, 2);
        a.driver.logSent = true;
    }

    @AfterEach
    void noReferenceLeft() {
        assertThat(Node.sgeRefs(srcA)).isZero();
        assertThat(Node.sgeRefs(dstB)).isZero();
    }

    static int psnOf(byte[] packet) {
        return BthDescriptor.psn(ByteBuffer.wrap(packet), LrhDescriptor.LENGTH);
    }

    static int opcodeOf(byte[] packet) {
        return packet[LrhDescriptor.LENGTH] & 0xFF;
    }

    @ParameterizedTest(name = "length {0}")
    @ValueSource(ints = {0, 1, MTU - 1, MTU, MTU + 1, 5 * MTU + 3})
    void shouldDeliverSendWithImmediateWhenLengthIsAroundTheMtu(int len) {
        b.postRecv(qb, 3, dstB, 8, 8 * MTU);
        qa.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.SEND_WITH_IMM).immData(77)
                .sendFlags(SendFlag.SIGNALED.bit()).sge(srcA, 1, len));
        fabric.settle();

        assertThat(Node.poll(a.scq)).singleElement().satisfies(wc -> {
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.opcode()).isEqualTo(WcOpcode.SEND);
        });
        assertThat(Node.poll(b.rcq)).singleElement().satisfies(wc -> {
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.opcode()).isEqualTo(WcOpcode.RECV);
            assertThat(wc.byteLen()).isEqualTo(len);
            assertThat(wc.wcFlags()).isEqualTo(WcFlag.WITH_IMM.bit());
            assertThat(wc.immData()).isEqualTo(77);
            assertThat(wc.srcQp()).isEqualTo(qa.qpNum());
        });
        assertThat(RcOperationsTest.bytes(dstB, 8, len)).isEqualTo(RcOperationsTest.bytes(srcA, 1, len));
        // No ACK ever comes back on UC.
        assertThat(b.counter(PortCounter.TX_PACKETS)).isZero();
    }

    @ParameterizedTest(name = "length {0}")
    @ValueSource(ints = {0, 1, MTU, 5 * MTU + 3})
    void shouldPlaceRdmaWritesWhenWritingWithAndWithoutImmediate(int len) {
        b.postRecv(qb, 4, dstB, 0, 8);
        qa.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlag.SIGNALED.bit())
                .sge(srcA, 0, len).remoteAddr(dstB.addr() + 1024).rkey(dstB.rkey()));
        qa.postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(5)
                .sendFlags(SendFlag.mask(SendFlag.SIGNALED, SendFlag.SOLICITED)).sge(srcA, 100, len)
                .remoteAddr(dstB.addr() + 8192).rkey(dstB.rkey()));
        fabric.settle();

        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::opcode)
                .containsExactly(WcOpcode.RDMA_WRITE, WcOpcode.RDMA_WRITE);
        assertThat(Node.poll(b.rcq)).singleElement().satisfies(wc -> {
            assertThat(wc.opcode()).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
            assertThat(wc.wrId()).isEqualTo(4);
            assertThat(wc.byteLen()).isEqualTo(len);
            assertThat(wc.immData()).isEqualTo(5);
        });
        assertThat(RcOperationsTest.bytes(dstB, 1024, len)).isEqualTo(RcOperationsTest.bytes(srcA, 0, len));
        assertThat(RcOperationsTest.bytes(dstB, 8192, len)).isEqualTo(RcOperationsTest.bytes(srcA, 100, len));
    }

    @Test
    void shouldCompleteTheSendAndDropTheMessageWhenNoReceiveIsPosted() {
        qa.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlag.SIGNALED.bit())
                .sge(srcA, 0, 100));
        fabric.settle();
        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(Node.poll(b.rcq)).isEmpty();
        assertThat(b.counter(PortCounter.PKT_DROPS)).isEqualTo(1);

        b.postRecv(qb, 9, dstB, 0, 1024); // the receive queue was left alone: the next message uses this WQE
        qa.postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlag.SIGNALED.bit())
                .sge(srcA, 0, 50));
        fabric.settle();
        assertThat(Node.poll(b.rcq)).singleElement().extracting(WorkCompletion::wrId).isEqualTo(9L);
    }

    @Test
    void shouldDropTheRestOfTheMessageAndReuseTheReceiveWhenAPacketIsLost() {
        b.postRecv(qb, 100, dstB, 0, 8 * MTU);
        b.postRecv(qb, 101, dstB, 8 * MTU, 8 * MTU);
        AtomicInteger middles = new AtomicInteger();
        fabric.dropIf(p -> opcodeOf(p) == Opcode.UC_SEND_MIDDLE && middles.getAndIncrement() == 1);
        qa.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlag.SIGNALED.bit())
                .sge(srcA, 0, 5 * MTU));
        qa.postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlag.SIGNALED.bit())
                .sge(srcA, 1000, 3 * MTU + 9));
        fabric.settle();

        // Both sends complete (UC cannot know); only the second message arrives, in the first receive WQE.
        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status)
                .containsExactly(WcStatus.SUCCESS, WcStatus.SUCCESS);
        List<WorkCompletion> recv = Node.poll(b.rcq);
        assertThat(recv).singleElement().satisfies(wc -> {
            assertThat(wc.wrId()).isEqualTo(100);
            assertThat(wc.byteLen()).isEqualTo(3 * MTU + 9);
        });
        assertThat(RcOperationsTest.bytes(dstB, 0, 3 * MTU + 9))
                .isEqualTo(RcOperationsTest.bytes(srcA, 1000, 3 * MTU + 9));
        assertThat(b.counter(PortCounter.PKT_DROPS)).isEqualTo(2); // the MIDDLE and LAST after the gap
    }

    @Test
    void shouldDeliverOnlyWholeMessagesWhenTheWireIsLossy() {
        long seed = 4242;
        System.out.println("UcTransportTest seed=" + seed);
        SplittableRandom r = new SplittableRandom(seed);
        fabric.faults(seed, 0.05, 0.0, 0.0);
        int n = 40;
        int[] lens = new int[n];
        for (int i = 0; i < n; i++) {
            b.postRecv(qb, 1000 + i, dstB, i * 1024, 1024);
        }
        for (int i = 0; i < n; i++) {
            lens[i] = r.nextInt(4 * MTU);
            qa.postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.SEND_WITH_IMM).immData(i)
                    .sendFlags(SendFlag.SIGNALED.bit()).sge(srcA, i * 1024, lens[i]));
        }
        fabric.settle();

        assertThat(Node.poll(a.scq)).hasSize(n).extracting(WorkCompletion::status).containsOnly(WcStatus.SUCCESS);
        List<WorkCompletion> recv = Node.poll(b.rcq);
        assertThat(recv.size()).isLessThan(n);
        int previous = -1;
        for (int k = 0; k < recv.size(); k++) {
            WorkCompletion wc = recv.get(k);
            int i = wc.immData();
            assertThat(i).isGreaterThan(previous); // in order, never twice
            previous = i;
            assertThat(wc.wrId()).isEqualTo(1000 + k); // receive WQEs are used in order, none skipped
            assertThat(wc.byteLen()).isEqualTo(lens[i]);
            assertThat(RcOperationsTest.bytes(dstB, k * 1024, lens[i]))
                    .isEqualTo(RcOperationsTest.bytes(srcA, i * 1024, lens[i]));
        }
    }

    @Test
    void shouldDropWritesWithoutErrorWhenTheRkeyIsBad() {
        qa.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlag.SIGNALED.bit())
                .sge(srcA, 0, 10).remoteAddr(dstB.addr()).rkey(dstB.rkey() + 1));
        fabric.settle();
        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(qb.state()).isEqualTo(QpState.RTS);
        assertThat(b.counter(PortCounter.PKT_DROPS)).isEqualTo(1);
    }

    @Test
    void shouldFlushWhenTheQpIsInError() {
        qa.modifyQp(new io.rvt.api.QpAttr().qpState(QpState.ERR), io.rvt.api.QpAttrMask.STATE.bit());
        qa.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlag.SIGNALED.bit())
                .sge(srcA, 0, 10));
        fabric.settle();
        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.WR_FLUSH_ERR);
        assertThat(a.counter(PortCounter.TX_PACKETS)).isZero();
    }
}
