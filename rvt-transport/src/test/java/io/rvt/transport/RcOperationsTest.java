package io.rvt.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.MemoryRegion;
import io.rvt.api.PortCounter;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcFlag;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every RC operation between two devices over the in-test wire, at sizes around the path MTU. */
class RcOperationsTest {
    static final int MTU = 256;
    static final int BUF = 64 * 1024;

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
        QueuePair[] p = Node.pair(QpType.RC, a, b, 256, 4);
        qa = p[0];
        qb = p[1];
        srcA = a.reg(BUF);
        dstB = b.reg(BUF);
        fill(srcA, 7);
    }

    @org.junit.jupiter.api.AfterEach
    void noReferenceLeft() {
        assertThat(Node.sgeRefs(srcA)).isZero();
        assertThat(Node.sgeRefs(dstB)).isZero();
    }

    static void fill(MemoryRegion mr, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        ByteBuffer bb = mr.buffer();
        byte[] data = new byte[bb.capacity()];
        for (int i = 0; i < data.length; i += 8) {
            long v = r.nextLong();
            for (int j = 0; j < 8 && i + j < data.length; j++) {
                data[i + j] = (byte) (v >>> (8 * j));
            }
        }
        bb.put(0, data);
    }

    static byte[] bytes(MemoryRegion mr, int offset, int len) {
        byte[] out = new byte[len];
        mr.buffer().get(offset, out);
        return out;
    }

    static List<WorkCompletion> poll(io.rvt.api.CompletionQueue cq) {
        return Node.poll(cq);
    }

    @ParameterizedTest(name = "length {0}")
    @ValueSource(ints = {0, 1, MTU - 1, MTU, MTU + 1, 5 * MTU + 3})
    void shouldDeliverSendByteExactWhenLengthIsAroundTheMtu(int len) {
        b.postRecv(qb, 77, dstB, 100, 8 * MTU);
        qa.postSend(new SendWorkRequest(1).wrId(5).opcode(WrOpcode.SEND).sendFlags(SendFlag.SIGNALED.bit())
                .sge(srcA, 10, len));
        fabric.settle();

        List<WorkCompletion> send = poll(a.scq);
        List<WorkCompletion> recv = poll(b.rcq);
        assertThat(send).hasSize(1);
        assertThat(send.get(0).status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(send.get(0).opcode()).isEqualTo(WcOpcode.SEND);
        assertThat(send.get(0).wrId()).isEqualTo(5);
        assertThat(recv).hasSize(1);
        WorkCompletion wc = recv.get(0);
        assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.opcode()).isEqualTo(WcOpcode.RECV);
        assertThat(wc.wrId()).isEqualTo(77);
        assertThat(wc.byteLen()).isEqualTo(len);
        assertThat(wc.srcQp()).isEqualTo(qa.qpNum());
        assertThat(wc.slid()).isEqualTo(a.lid());
        assertThat(wc.wcFlags()).isZero();
        assertThat(bytes(dstB, 100, len)).isEqualTo(bytes(srcA, 10, len));
    }

    @Test
    void shouldReportImmediateAndSolicitedWhenSendWithImm() {
        b.postRecv(qb, 1, dstB, 0, 4 * MTU);
        qa.postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.SEND_WITH_IMM).immData(0xCAFEBABE)
                .sendFlags(SendFlag.mask(SendFlag.SIGNALED, SendFlag.SOLICITED)).sge(srcA, 0, 3 * MTU + 5));
        fabric.settle();

        WorkCompletion wc = poll(b.rcq).get(0);
        assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.wcFlags()).isEqualTo(WcFlag.WITH_IMM.bit());
        assertThat(wc.immData()).isEqualTo(0xCAFEBABE);
        assertThat(wc.byteLen()).isEqualTo(3 * MTU + 5);
        assertThat(bytes(dstB, 0, 3 * MTU + 5)).isEqualTo(bytes(srcA, 0, 3 * MTU + 5));
        assertThat(poll(a.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
    }

    @ParameterizedTest(name = "length {0}")
    @ValueSource(ints = {0, 5, 2 * MTU + 1})
    void shouldInvalidateTheRkeyWhenSendWithInvalidate(int len) {
        MemoryRegion victim = b.pd.allocMr(4);
        b.postRecv(qb, 1, dstB, 0, 4 * MTU);
        qa.postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(victim.rkey())
                .sendFlags(SendFlag.SIGNALED.bit()).sge(srcA, 0, len));
        fabric.settle();

        WorkCompletion wc = poll(b.rcq).get(0);
        assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.wcFlags()).isEqualTo(WcFlag.WITH_INVALIDATE.bit());
        assertThat(wc.invalidateRkey()).isEqualTo(victim.rkey());
        assertThat(wc.byteLen()).isEqualTo(len);
        assertThat(poll(a.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
    }

    @ParameterizedTest(name = "length {0}")
    @ValueSource(ints = {0, 1, MTU - 1, MTU, MTU + 1, 5 * MTU + 3})
    void shouldPlaceRdmaWriteWithoutReceiveCompletionWhenWriting(int len) {
        qa.postSend(new SendWorkRequest(1).wrId(9).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlag.SIGNALED.bit())
                .sge(srcA, 3, len).remoteAddr(dstB.addr() + 1000).rkey(dstB.rkey()));
        fabric.settle();

        assertThat(poll(a.scq)).singleElement().satisfies(wc -> {
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.opcode()).isEqualTo(WcOpcode.RDMA_WRITE);
            assertThat(wc.byteLen()).isEqualTo(len);
        });
        assertThat(poll(b.rcq)).isEmpty();
        assertThat(bytes(dstB, 1000, len)).isEqualTo(bytes(srcA, 3, len));
    }

    @ParameterizedTest(name = "length {0}")
    @ValueSource(ints = {0, 1, MTU, 5 * MTU + 3})
    void shouldConsumeReceiveWqeWithImmediateWhenRdmaWriteWithImm(int len) {
        b.postRecv(qb, 42, dstB, 0, 16);
        qa.postSend(new SendWorkRequest(1).wrId(9).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(0x1234)
                .sendFlags(SendFlag.SIGNALED.bit()).sge(srcA, 0, len).remoteAddr(dstB.addr() + 4096)
                .rkey(dstB.rkey()));
        fabric.settle();

        assertThat(poll(a.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        WorkCompletion wc = poll(b.rcq).get(0);
        assertThat(wc.opcode()).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
        assertThat(wc.wrId()).isEqualTo(42);
        assertThat(wc.immData()).isEqualTo(0x1234);
        assertThat(wc.byteLen()).isEqualTo(len);
        assertThat(bytes(dstB, 4096, len)).isEqualTo(bytes(srcA, 0, len));
        assertThat(bytes(dstB, 0, 16)).isEqualTo(new byte[16]); // the receive buffer is untouched
    }

    @ParameterizedTest(name = "length {0}")
    @ValueSource(ints = {0, 1, MTU - 1, MTU, MTU + 1, 5 * MTU + 3})
    void shouldFillLocalBufferWhenRdmaRead(int len) {
        MemoryRegion remote = b.reg(BUF);
        fill(remote, 99);
        MemoryRegion local = a.reg(BUF);
        qa.postSend(new SendWorkRequest(1).wrId(11).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlag.SIGNALED.bit())
                .sge(local, 17, len).remoteAddr(remote.addr() + 300).rkey(remote.rkey()));
        fabric.settle();

        assertThat(poll(a.scq)).singleElement().satisfies(wc -> {
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.opcode()).isEqualTo(WcOpcode.RDMA_READ);
            assertThat(wc.byteLen()).isEqualTo(len);
        });
        assertThat(bytes(local, 17, len)).isEqualTo(bytes(remote, 300, len));
        assertThat(poll(b.rcq)).isEmpty();
    }

    @Test
    void shouldScatterReadResponseWhenTheWqeHasSeveralSges() {
        MemoryRegion remote = b.reg(BUF);
        fill(remote, 5);
        MemoryRegion local = a.reg(BUF);
        SendWorkRequest wr = new SendWorkRequest(3).wrId(1).opcode(WrOpcode.RDMA_READ)
                .sendFlags(SendFlag.SIGNALED.bit()).remoteAddr(remote.addr()).rkey(remote.rkey());
        wr.sge(0).set(local, 0, 100);
        wr.sge(1).set(local, 1000, 300);
        wr.sge(2).set(local, 5000, 333);
        wr.numSge(3);
        qa.postSend(wr);
        fabric.settle();

        assertThat(poll(a.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(bytes(local, 0, 100)).isEqualTo(bytes(remote, 0, 100));
        assertThat(bytes(local, 1000, 300)).isEqualTo(bytes(remote, 100, 300));
        assertThat(bytes(local, 5000, 333)).isEqualTo(bytes(remote, 400, 333));
    }

    @Test
    void shouldReturnOriginalValuesWhenAtomics() {
        MemoryRegion target = b.reg(64);
        target.buffer().putLong(8, 1000);
        MemoryRegion result = a.reg(64);
        qa.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                .sendFlags(SendFlag.SIGNALED.bit()).sge(result, 0, 8).remoteAddr(target.addr() + 8)
                .rkey(target.rkey()).compareAdd(5));
        qa.postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                .sendFlags(SendFlag.SIGNALED.bit()).sge(result, 8, 8).remoteAddr(target.addr() + 8)
                .rkey(target.rkey()).compareAdd(1005).swap(77));
        qa.postSend(new SendWorkRequest(1).wrId(3).opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                .sendFlags(SendFlag.SIGNALED.bit()).sge(result, 16, 8).remoteAddr(target.addr() + 8)
                .rkey(target.rkey()).compareAdd(1005).swap(88));
        fabric.settle();

        List<WorkCompletion> wcs = poll(a.scq);
        assertThat(wcs).extracting(WorkCompletion::status).containsOnly(WcStatus.SUCCESS);
        assertThat(wcs).extracting(WorkCompletion::opcode)
                .containsExactly(WcOpcode.FETCH_ADD, WcOpcode.COMP_SWAP, WcOpcode.COMP_SWAP);
        assertThat(result.buffer().getLong(0)).isEqualTo(1000);
        assertThat(result.buffer().getLong(8)).isEqualTo(1005);
        assertThat(result.buffer().getLong(16)).isEqualTo(77); // the compare failed: old value returned
        assertThat(target.buffer().getLong(8)).isEqualTo(77);
    }

    @Test
    void shouldCompleteEveryOperationInOrderWhenMixed() {
        MemoryRegion remote = b.reg(BUF);
        fill(remote, 3);
        MemoryRegion local = a.reg(BUF);
        for (int i = 0; i < 20; i++) {
            b.postRecv(qb, 100 + i, dstB, i * 2048, 2048);
        }
        for (int i = 0; i < 60; i++) {
            SendWorkRequest wr = new SendWorkRequest(1).wrId(i).sendFlags(SendFlag.SIGNALED.bit());
            switch (i % 3) {
                case 0:
                    wr.opcode(WrOpcode.SEND).sge(srcA, i, 700);
                    break;
                case 1:
                    wr.opcode(WrOpcode.RDMA_WRITE).sge(srcA, i, 600).remoteAddr(dstB.addr() + 40960 + i * 100)
                            .rkey(dstB.rkey());
                    break;
                default:
                    wr.opcode(WrOpcode.RDMA_READ).sge(local, i * 512, 500).remoteAddr(remote.addr() + i)
                            .rkey(remote.rkey());
                    break;
            }
            qa.postSend(wr);
        }
        fabric.settle();

        List<WorkCompletion> wcs = poll(a.scq);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactlyElementsOf(
                java.util.stream.LongStream.range(0, 60).boxed().toList());
        assertThat(wcs).extracting(WorkCompletion::status).containsOnly(WcStatus.SUCCESS);
        assertThat(poll(b.rcq)).extracting(WorkCompletion::wrId).containsExactlyElementsOf(
                java.util.stream.LongStream.range(100, 120).boxed().toList());
        for (int i = 2; i < 60; i += 3) {
            assertThat(bytes(local, i * 512, 500)).isEqualTo(bytes(remote, i, 500));
        }
        assertThat(a.counter(PortCounter.RC_ACKS)).isPositive();
    }

    @Test
    void shouldAckAndRaiseCommEstWhenTheResponderIsStillInRtr() {
        Fabric f = new Fabric();
        Node x = f.node("x", 1, 4096);
        Node y = f.node("y", 2, 4096);
        QueuePair qx = x.createQp(QpType.RC, 8, 1);
        QueuePair qy = y.createQp(QpType.RC, 8, 1);
        java.util.List<io.rvt.api.AsyncEventType> events = new java.util.ArrayList<>();
        y.dev.setAsyncEventHandler(e -> events.add(e.type()));
        x.connect(qx, y, qy, y.sqPsn);
        // y only to RTR: it receives and acknowledges, but cannot send requests
        io.rvt.api.QpAttr attr = new io.rvt.api.QpAttr().qpState(io.rvt.api.QpState.INIT).pkeyIndex(0).portNum(1)
                .qpAccessFlags(Node.ALL_ACCESS);
        qy.modifyQp(attr, io.rvt.api.QpAttrMask.mask(io.rvt.api.QpAttrMask.STATE, io.rvt.api.QpAttrMask.PKEY_INDEX,
                io.rvt.api.QpAttrMask.PORT, io.rvt.api.QpAttrMask.ACCESS_FLAGS));
        attr = new io.rvt.api.QpAttr().qpState(io.rvt.api.QpState.RTR).pathMtu(io.rvt.api.PathMtu.MTU_256)
                .destQpNum(qx.qpNum()).rqPsn(x.sqPsn).maxDestRdAtomic(4).minRnrTimer(1);
        attr.ahAttr().dlid(x.lid()).portNum(1);
        qy.modifyQp(attr, io.rvt.api.QpAttrMask.mask(io.rvt.api.QpAttrMask.STATE, io.rvt.api.QpAttrMask.AV,
                io.rvt.api.QpAttrMask.PATH_MTU, io.rvt.api.QpAttrMask.DEST_QPN, io.rvt.api.QpAttrMask.RQ_PSN,
                io.rvt.api.QpAttrMask.MAX_DEST_RD_ATOMIC, io.rvt.api.QpAttrMask.MIN_RNR_TIMER));
        MemoryRegion src = x.reg(4096);
        MemoryRegion dst = y.reg(4096);
        y.postRecv(qy, 1, dst, 0, 4096);
        qx.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlag.SIGNALED.bit())
                .sge(src, 0, 700));
        f.settle();

        assertThat(poll(x.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(poll(y.rcq)).extracting(WorkCompletion::byteLen).containsExactly(700);
        assertThat(qy.state()).isEqualTo(io.rvt.api.QpState.RTR);
        assertThat(events).contains(io.rvt.api.AsyncEventType.COMM_EST);
    }

    @Test
    void shouldDeliverWithoutInvalidateFlagWhenTheRkeyCannotBeInvalidated() {
        b.postRecv(qb, 1, dstB, 0, 1024);
        qa.postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(0x7777_7700)
                .sendFlags(SendFlag.SIGNALED.bit()).sge(srcA, 0, 10));
        fabric.settle();
        WorkCompletion wc = poll(b.rcq).get(0);
        assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.wcFlags()).isZero();
        assertThat(poll(a.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
    }

    @Test
    void shouldRunADeferredLocalInvalidateInOrderWhenItIsFenced() {
        MemoryRegion victim = a.pd.allocMr(4);
        b.postRecv(qb, 1, dstB, 0, 1024);
        qa.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlag.SIGNALED.bit())
                .sge(srcA, 0, 600));
        qa.postSend(new SendWorkRequest(0).wrId(2).opcode(WrOpcode.LOCAL_INV).invalidateRkey(victim.rkey())
                .sendFlags(SendFlag.mask(SendFlag.SIGNALED, SendFlag.FENCE)));
        fabric.settle();
        assertThat(poll(a.scq)).extracting(WorkCompletion::opcode).containsExactly(WcOpcode.SEND, WcOpcode.LOCAL_INV);
    }

    @Test
    void shouldIgnoreCreditsWhenTheResponderUsesAnSrq() {
        Fabric f = new Fabric();
        Node x = f.node("x", 1, 4096);
        Node y = f.node("y", 2, 4096);
        io.rvt.api.SharedReceiveQueue srq = y.pd.createSrq(new io.rvt.api.SrqInitAttr().maxWr(64).maxSge(1));
        QueuePair qx = x.createQp(QpType.RC, 64, 1);
        io.rvt.api.QpInitAttr init = new io.rvt.api.QpInitAttr().qpType(QpType.RC).sendCq(y.scq).recvCq(y.rcq)
                .srq(srq);
        init.cap().maxSendWr(8).maxSendSge(1);
        QueuePair qy = y.pd.createQp(init);
        x.connect(qx, y, qy, y.sqPsn);
        y.connect(qy, x, qx, x.sqPsn);
        MemoryRegion src = x.reg(65536);
        MemoryRegion dst = y.reg(65536);
        for (int i = 0; i < 40; i++) {
            srq.postSrqRecv(new io.rvt.api.RecvWorkRequest(1).wrId(i).sge(dst, i * 1024, 1024));
        }
        for (int i = 0; i < 40; i++) {
            qx.postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlag.SIGNALED.bit())
                    .sge(src, i * 1024, 1000));
        }
        f.settle();
        assertThat(poll(x.scq)).hasSize(40).extracting(WorkCompletion::status).containsOnly(WcStatus.SUCCESS);
        assertThat(poll(y.rcq)).hasSize(40);
        assertThat(x.counter(PortCounter.RC_CRWAITS)).isLessThanOrEqualTo(1); // only before the first ACK
    }
}
