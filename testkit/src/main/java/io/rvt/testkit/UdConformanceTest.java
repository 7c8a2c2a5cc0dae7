package io.rvt.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.AddressHandle;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcFlag;
import io.rvt.api.WcOpcode;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Unreliable datagram service: address handles, Q_Keys, the 40-byte GRH area. */
public abstract class UdConformanceTest extends ConformanceTest {
    private static final int QKEY = 0x11110000;
    private Endpoint a;
    private Endpoint b;

    /** Two UD QPs in RTS. */
    @BeforeEach
    void activate() {
        require(Feature.UD);
        a = verbs.endpoint(dev[0], QpType.UD, 1 << 14);
        b = verbs.endpoint(dev[1], QpType.UD, 1 << 14);
        verbs.activateUd(a, QKEY);
        verbs.activateUd(b, QKEY);
    }

    /** A datagram arrives after a 40-byte GRH area; the completion names the sender. */
    @Test
    void shouldDeliverDatagramAfterGrhAreaWhenQkeyMatches() {
        AddressHandle ah = Verbs.ah(a, b);
        Verbs.fill(a.buffer, 0, 200, seed);
        b.qp.postRecv(new RecvWorkRequest(1).wrId(3).sge(b.mr, 0, 40 + 256));
        a.qp.postSend(new SendWorkRequest(1).wrId(4).opcode(WrOpcode.SEND_WITH_IMM).immData(99).sge(a.mr, 0, 200)
                .ah(ah).remoteQpn(b.qp.qpNum()).remoteQkey(QKEY));
        Verbs.assertSuccess(verbs.await(a.sendCq, 1).get(0), 4);
        WorkCompletion r = verbs.await(b.recvCq, 1).get(0);
        Verbs.assertSuccess(r, 3);
        assertThat(r.opcode()).isEqualTo(WcOpcode.RECV);
        assertThat(r.byteLen()).isEqualTo(240);
        assertThat(r.srcQp()).isEqualTo(a.qp.qpNum());
        assertThat(r.wcFlags() & WcFlag.WITH_IMM.bit()).isNotZero();
        assertThat(r.immData()).isEqualTo(99);
        Verbs.assertPattern(b.buffer, 40, 200, seed);
    }

    /** A datagram sent to a multicast group reaches every attached QP, and stops after they detach. */
    @Test
    @Tag("MULTICAST")
    void shouldDeliverToEveryAttachedQpWhenSentToMulticastGroup() {
        require(Feature.MULTICAST);
        Endpoint c = verbs.endpoint(dev[1], QpType.UD, 1 << 14);
        verbs.activateUd(c, QKEY);
        io.rvt.api.Gid mgid = io.rvt.api.Gid.of(0xFF12_401B_0000_0000L, 0x1234);
        int mlid = 0xC017;
        b.qp.attachMcast(mgid, mlid);
        c.qp.attachMcast(mgid, mlid);
        io.rvt.api.AhAttr to = new io.rvt.api.AhAttr().dlid(mlid).portNum(1).dgid(mgid).hopLimit(64);
        AddressHandle ah = a.pd.createAh(to);
        Verbs.fill(a.buffer, 0, 64, seed);
        b.qp.postRecv(new RecvWorkRequest(1).wrId(1).sge(b.mr, 0, 1024));
        c.qp.postRecv(new RecvWorkRequest(1).wrId(2).sge(c.mr, 0, 1024));
        a.qp.postSend(new SendWorkRequest(1).wrId(3).opcode(WrOpcode.SEND).sge(a.mr, 0, 64).ah(ah)
                .remoteQpn(0xFFFFFF).remoteQkey(QKEY));
        Verbs.assertSuccess(verbs.await(a.sendCq, 1).get(0), 3);
        Verbs.assertSuccess(verbs.await(b.recvCq, 1).get(0), 1);
        Verbs.assertSuccess(verbs.await(c.recvCq, 1).get(0), 2);
        Verbs.assertPattern(b.buffer, 40, 64, seed);
        Verbs.assertPattern(c.buffer, 40, 64, seed);
        b.qp.detachMcast(mgid, mlid);
        c.qp.detachMcast(mgid, mlid);
        b.qp.postRecv(new RecvWorkRequest(1).wrId(4).sge(b.mr, 0, 1024));
        a.qp.postSend(new SendWorkRequest(1).wrId(5).opcode(WrOpcode.SEND).sge(a.mr, 0, 64).ah(ah)
                .remoteQpn(0xFFFFFF).remoteQkey(QKEY));
        Verbs.assertSuccess(verbs.await(a.sendCq, 1).get(0), 5);
        verbs.assertQuiet(b.recvCq, 50);
    }

    /** A datagram with the wrong Q_Key is dropped; the sender still completes. */
    @Test
    void shouldDropDatagramWhenQkeyDiffers() {
        AddressHandle ah = Verbs.ah(a, b);
        b.qp.postRecv(new RecvWorkRequest(1).wrId(3).sge(b.mr, 0, 1024));
        a.qp.postSend(new SendWorkRequest(1).wrId(4).opcode(WrOpcode.SEND).sge(a.mr, 0, 10).ah(ah)
                .remoteQpn(b.qp.qpNum()).remoteQkey(QKEY + 1));
        Verbs.assertSuccess(verbs.await(a.sendCq, 1).get(0), 4);
        verbs.assertQuiet(b.recvCq, 50);
    }
}
