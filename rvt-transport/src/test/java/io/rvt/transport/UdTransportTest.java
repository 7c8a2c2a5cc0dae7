package io.rvt.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.AddressHandle;
import io.rvt.api.AhAttr;
import io.rvt.api.Errno;
import io.rvt.api.Gid;
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
import io.rvt.api.WorkRequestException;
import io.rvt.api.WrOpcode;
import io.rvt.transport.header.GrhDescriptor;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** UD between two devices: DETH, Q_Key and P_Key checks, the GRH area, multicast, sizes up to the path MTU. */
class UdTransportTest {
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
        a = fabric.node("a", 1, MTU);
        b = fabric.node("b", 2, MTU);
        qa = a.createQp(QpType.UD, 64, 2);
        qb = b.createQp(QpType.UD, 64, 2);
        a.udUp(qa);
        b.udUp(qb);
        srcA = a.reg(1 << 16);
        dstB = b.reg(1 << 16);
        RcOperationsTest.fill(srcA, 3);
    }

    @AfterEach
    void noReferenceLeft() {
        assertThat(Node.sgeRefs(srcA)).isZero();
        assertThat(Node.sgeRefs(dstB)).isZero();
    }

    SendWorkRequest send(long id, AddressHandle ah, int len) {
        return new SendWorkRequest(1).wrId(id).opcode(WrOpcode.SEND).sendFlags(SendFlag.SIGNALED.bit())
                .sge(srcA, 0, len).ah(ah).remoteQpn(qb.qpNum()).remoteQkey(Node.QKEY);
    }

    @ParameterizedTest(name = "length {0}")
    @ValueSource(ints = {0, 1, MTU - 1, MTU})
    void shouldSkipTheGrhAreaAndReportByteLenPlus40WhenNoGrh(int len) {
        b.postRecv(qb, 5, dstB, 0, 40 + MTU);
        qa.postSend(send(1, a.ah(b, false), len).sendFlags(SendFlag.mask(SendFlag.SIGNALED, SendFlag.SOLICITED)));
        fabric.settle();

        assertThat(Node.poll(a.scq)).singleElement().satisfies(wc -> {
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.opcode()).isEqualTo(WcOpcode.SEND);
        });
        assertThat(Node.poll(b.rcq)).singleElement().satisfies(wc -> {
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.opcode()).isEqualTo(WcOpcode.RECV);
            assertThat(wc.byteLen()).isEqualTo(len + 40);
            assertThat(wc.wcFlags()).isZero();
            assertThat(wc.srcQp()).isEqualTo(qa.qpNum());
            assertThat(wc.slid()).isEqualTo(a.lid());
            assertThat(wc.qpNum()).isEqualTo(qb.qpNum());
            assertThat(wc.pkeyIndex()).isZero();
        });
        assertThat(RcOperationsTest.bytes(dstB, 0, 40)).isEqualTo(new byte[40]);
        assertThat(RcOperationsTest.bytes(dstB, 40, len)).isEqualTo(RcOperationsTest.bytes(srcA, 0, len));
    }

    @Test
    void shouldWriteTheGrhAndFlagItWhenTheAddressIsGlobal() {
        b.postRecv(qb, 5, dstB, 0, 40 + MTU);
        qa.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.SEND_WITH_IMM).immData(0x55)
                .sendFlags(SendFlag.SIGNALED.bit()).sge(srcA, 0, 100).ah(a.ah(b, true)).remoteQpn(qb.qpNum())
                .remoteQkey(Node.QKEY));
        fabric.settle();

        WorkCompletion wc = Node.poll(b.rcq).get(0);
        assertThat(wc.wcFlags()).isEqualTo(WcFlag.GRH.bit() | WcFlag.WITH_IMM.bit());
        assertThat(wc.immData()).isEqualTo(0x55);
        assertThat(wc.byteLen()).isEqualTo(140);
        ByteBuffer grh = ByteBuffer.wrap(RcOperationsTest.bytes(dstB, 0, 40));
        assertThat(GrhDescriptor.ipVersion(grh, 0)).isEqualTo(6);
        assertThat(GrhDescriptor.sgid(grh, 0)).isEqualTo(a.driver.gid());
        assertThat(GrhDescriptor.dgid(grh, 0)).isEqualTo(b.driver.gid());
        assertThat(RcOperationsTest.bytes(dstB, 40, 100)).isEqualTo(RcOperationsTest.bytes(srcA, 0, 100));
    }

    @Test
    void shouldRejectAMessageLongerThanThePathMtuWhenPosting() {
        assertThatThrownBy(() -> qa.postSend(send(1, a.ah(b, false), MTU + 1)))
                .isInstanceOfSatisfying(WorkRequestException.class,
                        e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
    }

    @Test
    void shouldUseTheQpQkeyWhenTheWorkRequestQkeyHasTheTopBit() {
        b.postRecv(qb, 5, dstB, 0, 40 + MTU);
        qa.postSend(send(1, a.ah(b, false), 10).remoteQkey(0x8000_0000));
        fabric.settle();
        assertThat(Node.poll(b.rcq)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
    }

    @Test
    void shouldDropAndCountWhenTheQkeyIsWrong() {
        b.postRecv(qb, 5, dstB, 0, 40 + MTU);
        qa.postSend(send(1, a.ah(b, false), 10).remoteQkey(0x1234));
        fabric.settle();
        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(Node.poll(b.rcq)).isEmpty();
        assertThat(b.counter(PortCounter.QKEY_VIOLATIONS)).isEqualTo(1);
    }

    @Test
    void shouldDropAndCountWhenThePkeyDoesNotMatch() {
        b.postRecv(qb, 5, dstB, 0, 40 + MTU);
        b.driver.port().pkey(0, 0x8123);
        qa.postSend(send(1, a.ah(b, false), 10));
        fabric.settle();
        assertThat(Node.poll(b.rcq)).isEmpty();
        assertThat(b.counter(PortCounter.PKEY_VIOLATIONS)).isEqualTo(1);
    }

    @Test
    void shouldKeepTheReceiveWqeWhenAPacketIsTooBigForIt() {
        b.postRecv(qb, 5, dstB, 0, 40 + 50);
        b.postRecv(qb, 6, dstB, 1024, 40 + MTU);
        AddressHandle ah = a.ah(b, false);
        qa.postSend(send(1, ah, 100));
        qa.postSend(send(2, ah, 20));
        fabric.settle();

        List<WorkCompletion> recv = Node.poll(b.rcq);
        assertThat(recv).singleElement().satisfies(wc -> {
            assertThat(wc.wrId()).isEqualTo(5);
            assertThat(wc.byteLen()).isEqualTo(60);
        });
        assertThat(b.counter(PortCounter.PKT_DROPS)).isEqualTo(1);
        assertThat(Node.poll(a.scq)).hasSize(2);
    }

    @Test
    void shouldCompleteTheSendWhenNobodyReceives() {
        qa.postSend(send(1, a.ah(b, false), 10).remoteQpn(0x777));
        qa.postSend(send(2, a.ah(b, false), 10));
        fabric.settle();
        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status)
                .containsExactly(WcStatus.SUCCESS, WcStatus.SUCCESS);
        assertThat(b.counter(PortCounter.RX_MALFORMED)).isEqualTo(1); // unknown QPN
        assertThat(b.counter(PortCounter.PKT_DROPS)).isEqualTo(1); // no receive WQE
    }

    @Test
    void shouldDeliverToEveryAttachedQpWhenMulticast() {
        Gid mgid = Gid.of(0xFF12_601B_FFFF_0000L, 0x0000_0000_0000_0001L);
        int mlid = 0xC001;
        QueuePair qb2 = b.createQp(QpType.UD, 8, 1);
        b.udUp(qb2);
        qb.attachMcast(mgid, mlid);
        qb2.attachMcast(mgid, mlid);
        b.postRecv(qb, 1, dstB, 0, 40 + MTU);
        b.postRecv(qb2, 2, dstB, 1024, 40 + MTU);
        AddressHandle ah = a.pd.createAh(new AhAttr().dlid(mlid).portNum(1).dgid(mgid).hopLimit(1));
        qa.postSend(send(1, ah, 33).remoteQpn(0xFFFFFF));
        fabric.settle();

        List<WorkCompletion> recv = Node.poll(b.rcq);
        assertThat(recv).extracting(WorkCompletion::wrId).containsExactlyInAnyOrder(1L, 2L);
        assertThat(recv).allSatisfy(wc -> {
            assertThat(wc.byteLen()).isEqualTo(73);
            assertThat(wc.wcFlags()).isEqualTo(WcFlag.GRH.bit());
            assertThat(wc.srcQp()).isEqualTo(qa.qpNum());
            assertThat(wc.dlidPathBits()).isZero();
        });
        assertThat(RcOperationsTest.bytes(dstB, 1024 + 40, 33)).isEqualTo(RcOperationsTest.bytes(srcA, 0, 33));
        qb.detachMcast(mgid, mlid);
        qb2.detachMcast(mgid, mlid);
    }
}
