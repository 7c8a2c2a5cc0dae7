package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.AddressHandle;
import io.rvt.api.AhAttr;
import io.rvt.api.Gid;
import io.rvt.api.PortCounter;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcFlag;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.core.LoopbackTestDriver;
import io.rvt.core.mr.RvtMr;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The loopback of UD and GSI QPs (an rvt extension of {@code rvt_ruc_loopback}, as hfi1's {@code ud_loopback}):
 * what a driver with no wire relies on to carry rvt-cm's MADs between the GSI QPs of its device.
 */
class LoopbackDatagramTest {
    private static final int QKEY = 0x1234; // QpEnv's
    private static final Gid DGID = Gid.of(0xfe80_0000_0000_0000L, 0x0011_2233_4455_6677L);

    private final QpEnv env = new QpEnv(new LoopbackTestDriver());
    private final RvtMr src = env.reg(4096);
    private final RvtMr dst = env.reg(4096);

    private RvtQp ud() {
        RvtQp qp = env.create(QpType.UD, 8, 8, 2);
        env.up(qp, 0);
        return qp;
    }

    private AddressHandle ah(boolean global) {
        AhAttr a = new AhAttr().dlid(env.lid()).portNum(1).sl(3);
        if (global) {
            a.global(true).dgid(DGID).sgidIndex(0).hopLimit(64).trafficClass(5).flowLabel(0x12345);
        }
        return env.pd.createAh(a);
    }

    private SendWorkRequest send(long wrId, int len, AddressHandle ah, int qpn, int qkey) {
        return new SendWorkRequest(1).wrId(wrId).opcode(WrOpcode.SEND).sge(src, 0, len).ah(ah).remoteQpn(qpn)
                .remoteQkey(qkey);
    }

    private void fill(int len) {
        for (int i = 0; i < len; i++) {
            src.memory().put(i, (byte) (i * 7 + 1));
        }
    }

    @Test
    void shouldDeliverASendWithItsGrhToTheLocalQpItNames() {
        RvtQp a = ud();
        RvtQp b = ud();
        fill(64);
        b.postRecv(new RecvWorkRequest(1).wrId(9).sge(dst, 0, 40 + 64));
        a.postSend(send(1, 64, ah(true), b.qpNum(), QKEY).opcode(WrOpcode.SEND_WITH_IMM).immData(0x0BAD_F00D));

        List<WorkCompletion> sent = QpEnv.poll(env.scq);
        assertThat(sent).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        List<WorkCompletion> got = QpEnv.poll(env.rcq);
        assertThat(got).hasSize(1);
        WorkCompletion wc = got.get(0);
        assertThat(wc.wrId()).isEqualTo(9);
        assertThat(wc.opcode()).isEqualTo(WcOpcode.RECV);
        assertThat(wc.byteLen()).as("payload + 40").isEqualTo(104);
        assertThat(wc.srcQp()).isEqualTo(a.qpNum());
        assertThat(wc.qpNum()).isEqualTo(b.qpNum());
        assertThat(wc.slid()).isEqualTo(env.lid());
        assertThat(wc.sl()).isEqualTo(3);
        assertThat(wc.wcFlags() & WcFlag.GRH.bit()).isNotZero();
        assertThat(wc.wcFlags() & WcFlag.WITH_IMM.bit()).isNotZero();
        assertThat(wc.immData()).isEqualTo(0x0BAD_F00D);
        int word0 = dst.memory().duplicate().order(java.nio.ByteOrder.BIG_ENDIAN).getInt(0);
        assertThat(word0 >>> 28).as("IP version").isEqualTo(6);
        assertThat((word0 >>> 20) & 0xFF).as("traffic class").isEqualTo(5);
        assertThat(word0 & 0xF_FFFF).as("flow label").isEqualTo(0x12345);
        assertThat(dst.memory().get(6)).as("next header").isEqualTo((byte) 0x1B);
        assertThat(dst.memory().get(7)).as("hop limit").isEqualTo((byte) 64);
        assertThat(Gid.read(dst.memory(), 8)).as("SGID").isEqualTo(env.dev.queryGid(1, 0));
        assertThat(Gid.read(dst.memory(), 24)).as("DGID").isEqualTo(DGID);
        for (int i = 0; i < 64; i++) {
            assertThat(dst.memory().get(40 + i)).as("payload byte %d", i).isEqualTo((byte) (i * 7 + 1));
        }
    }

    @Test
    void shouldLeaveTheGrhAreaUnwrittenWithoutAGlobalRoute() {
        RvtQp a = ud();
        RvtQp b = ud();
        fill(8);
        dst.memory().put(0, (byte) 0x5A);
        b.postRecv(new RecvWorkRequest(1).wrId(9).sge(dst, 0, 48));
        a.postSend(send(1, 8, ah(false), b.qpNum(), QKEY));

        WorkCompletion wc = QpEnv.poll(env.rcq).get(0);
        assertThat(wc.byteLen()).isEqualTo(48);
        assertThat(wc.wcFlags() & WcFlag.GRH.bit()).isZero();
        assertThat(dst.memory().get(0)).isEqualTo((byte) 0x5A);
        assertThat(dst.memory().get(40)).isEqualTo((byte) 1);
    }

    @Test
    void shouldDropAndCountAWrongQkeyAndStillCompleteTheSend() {
        RvtQp a = ud();
        RvtQp b = ud();
        b.postRecv(new RecvWorkRequest(1).wrId(9).sge(dst, 0, 104));
        long before = env.dev.port(1).counter(PortCounter.QKEY_VIOLATIONS);
        a.postSend(send(1, 64, ah(true), b.qpNum(), 0x4321));

        assertThat(QpEnv.poll(env.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(QpEnv.poll(env.rcq)).isEmpty();
        assertThat(env.dev.port(1).counter(PortCounter.QKEY_VIOLATIONS)).isEqualTo(before + 1);
        a.postSend(send(2, 64, ah(true), b.qpNum(), QKEY));
        assertThat(QpEnv.poll(env.rcq)).as("the receive is still there").extracting(WorkCompletion::wrId)
                .containsExactly(9L);
    }

    @Test
    void shouldDropATooLargeDatagramAndKeepTheReceiveForTheNext() {
        RvtQp a = ud();
        RvtQp b = ud();
        b.postRecv(new RecvWorkRequest(1).wrId(9).sge(dst, 0, 40 + 16));
        long drops = env.dev.port(1).counter(PortCounter.PKT_DROPS);
        a.postSend(send(1, 64, ah(true), b.qpNum(), QKEY));
        assertThat(QpEnv.poll(env.rcq)).isEmpty();
        assertThat(env.dev.port(1).counter(PortCounter.PKT_DROPS)).isEqualTo(drops + 1);

        a.postSend(send(2, 16, ah(true), b.qpNum(), QKEY));
        assertThat(QpEnv.poll(env.rcq)).extracting(WorkCompletion::byteLen).containsExactly(56);
        assertThat(QpEnv.poll(env.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS,
                WcStatus.SUCCESS);
    }

    @Test
    void shouldDropADatagramWithoutAReceiveOrForAnUnknownQp() {
        RvtQp a = ud();
        RvtQp b = ud();
        long drops = env.dev.port(1).counter(PortCounter.PKT_DROPS);
        a.postSend(send(1, 8, ah(true), b.qpNum(), QKEY));
        a.postSend(send(2, 8, ah(true), 0x7777, QKEY));
        assertThat(env.dev.port(1).counter(PortCounter.PKT_DROPS)).isEqualTo(drops + 2);
        assertThat(QpEnv.poll(env.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS,
                WcStatus.SUCCESS);
    }

    @Test
    void shouldCarryAMadFromTheGsiQpToItselfWithThePkeyIndex() {
        RvtQp gsi = env.create(QpType.GSI, 8, 8, 1);
        env.up(gsi, 0);
        assertThat(gsi.qpNum()).isEqualTo(1);
        fill(256);
        gsi.postRecv(new RecvWorkRequest(1).wrId(5).sge(dst, 0, 40 + 256));
        gsi.postSend(send(1, 256, ah(true), 1, QKEY).pkeyIndex(0));

        WorkCompletion wc = QpEnv.poll(env.rcq).get(0);
        assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.byteLen()).isEqualTo(296);
        assertThat(wc.srcQp()).isEqualTo(1);
        assertThat(wc.pkeyIndex()).isEqualTo(0);
        assertThat(dst.memory().get(40 + 255)).isEqualTo((byte) (255 * 7 + 1));
        assertThat(QpEnv.poll(env.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
    }
}
