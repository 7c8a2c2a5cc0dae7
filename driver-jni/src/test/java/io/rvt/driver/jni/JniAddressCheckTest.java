package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Device;
import io.rvt.api.Gid;
import io.rvt.api.PathMtu;
import io.rvt.api.PortCounter;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WrOpcode;
import io.rvt.core.RvtDevice;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import java.net.InetAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * rxe's {@code check_addr}: an RC or UC packet whose source address is not the QP's remote GID is dropped and counted
 * ({@code RX_ADDR_MISMATCH}), even when an intruder knows the QPN and sends at the expected PSN. The intruder is a
 * real HCA of its own on another loopback address: its packets are well formed and carry a good ICRC, so only the
 * address check stops them. UD stays open to anyone with the Q_Key.
 */
class JniAddressCheckTest {
    private static final long SEED = 0xADD2L;
    private final JniFixture fixture = new JniFixture(SEED, "127.0.0.1");
    private final Verbs verbs = new Verbs(fixture);
    private JniDriver intruderDriver;
    private RvtDevice intruder;

    @AfterEach
    void tearDown() {
        if (intruder != null) {
            intruder.unregister();
        }
        if (intruderDriver != null) {
            intruderDriver.close();
        }
        fixture.close();
    }

    /** An HCA on {@code address} whose peer table sends the victim's GID to the victim's port. */
    private Device intruder(String address, JniDriver victim) {
        intruderDriver = JniDriver.builder().name("intruder").address(address).udpPort(0).build();
        intruderDriver.addPeer(victim.gid(1), victim.localPort(1));
        intruder = RvtDevice.register(intruderDriver);
        return intruder;
    }

    /**
     * Connects {@code self} to QP {@code destQpn} at {@code dgid}, sending from {@code sqPsn}; RC: no retries. By hand,
     * not through rvt-cm: the test aims QPs at addresses and PSNs of its choosing, as an attacker would.
     */
    private static void connect(Endpoint self, int destQpn, Gid dgid, int rqPsn, int sqPsn) {
        boolean rc = self.qp.type() == QpType.RC;
        self.qp.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(Endpoint.ALL_ACCESS),
                QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        QpAttr a = new QpAttr().qpState(QpState.RTR).pathMtu(PathMtu.MTU_1024).destQpNum(destQpn).rqPsn(rqPsn);
        a.ahAttr().clear().portNum(1).dgid(dgid).sgidIndex(0).hopLimit(64);
        int mask = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                QpAttrMask.RQ_PSN);
        if (rc) {
            a.maxDestRdAtomic(4).minRnrTimer(1);
            mask |= QpAttrMask.mask(QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER);
        }
        self.qp.modifyQp(a, mask);
        QpAttr rts = new QpAttr().qpState(QpState.RTS).sqPsn(sqPsn);
        mask = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.SQ_PSN);
        if (rc) {
            rts.timeout(14).retryCnt(0).rnrRetry(0).maxRdAtomic(4);
            mask |= QpAttrMask.mask(QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY,
                    QpAttrMask.MAX_QP_RD_ATOMIC);
        }
        self.qp.modifyQp(rts, mask);
    }

    private static int expectedPsn(Endpoint victim) {
        QpAttr a = new QpAttr();
        victim.qp.queryQp(a);
        return a.rqPsn();
    }

    private void awaitMismatches(Device victim, long n) {
        verbs.awaitTrue(n + " packets counted as rx_addr_mismatch",
                () -> victim.portCounter(1, PortCounter.RX_ADDR_MISMATCH) >= n);
        assertThat(victim.portCounter(1, PortCounter.RX_ADDR_MISMATCH)).isEqualTo(n);
    }

    /**
     * The attack: a SEND at the expected PSN and a READ from 127.0.0.2. Both are dropped and counted; the
     * victim's receive is not consumed and its memory is not read; the genuine peer's next message then arrives.
     */
    @ParameterizedTest
    @EnumSource(value = QpType.class, names = {"RC", "UC"})
    void shouldDropAndCountInWindowPacketsFromAnotherAddressOverIpv4(QpType type) {
        Device[] dev = fixture.open(2);
        Endpoint[] p = verbs.connected(dev[0], dev[1], type, 1 << 14, 7, 1);
        Endpoint victim = p[1];
        Endpoint evil = verbs.endpoint(intruder("127.0.0.2", fixture.drivers().get(1)), type, 1 << 14);
        connect(evil, victim.qp.qpNum(), victim.device.queryGid(1, 0), 0, expectedPsn(victim));
        victim.qp.postRecv(new RecvWorkRequest(1).wrId(1).sge(victim.mr, 0, 1 << 14));

        Verbs.fill(evil.buffer, 0, 512, 666);
        evil.qp.postSend(new SendWorkRequest(1).wrId(66).opcode(WrOpcode.SEND).sge(evil.mr, 0, 512));
        long expected = 1;
        if (type == QpType.RC) {
            evil.qp.postSend(new SendWorkRequest(1).wrId(67).opcode(WrOpcode.RDMA_READ).sge(evil.mr, 0, 256)
                    .remoteAddr(victim.mr.addr()).rkey(victim.mr.rkey()));
            expected++;
        }
        awaitMismatches(victim.device, expected);
        verbs.assertQuiet(victim.recvCq, 1000);

        // The genuine peer's message is the one the posted receive gets.
        Verbs.fill(p[0].buffer, 0, 700, SEED);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.SEND).sge(p[0].mr, 0, 700));
        Verbs.assertSuccess(verbs.await(victim.recvCq, 1).get(0), 1);
        Verbs.assertPattern(victim.buffer, 0, 700, SEED);
        if (type == QpType.RC) {
            Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 2);
        }
        assertThat(victim.device.portCounter(1, PortCounter.RX_ADDR_MISMATCH)).isEqualTo(expected);
        assertThat(victim.device.portCounter(1, PortCounter.RX_MALFORMED)).isZero();
    }

    /**
     * IPv6: the victim's QP talks to a peer at {@code fd00::a} (elsewhere); an in-window SEND from {@code ::1} is not
     * from that peer, so it is dropped and counted.
     */
    @Test
    void shouldDropAndCountInWindowPacketsFromAnotherAddressOverIpv6() throws Exception {
        JniFixture v6 = new JniFixture(SEED, "::1");
        try {
            Verbs verbs6 = new Verbs(v6);
            Device dev = v6.open(1)[0];
            Endpoint victim = verbs6.endpoint(dev, QpType.RC, 1 << 14);
            Gid elsewhere = Peer.gidOf(InetAddress.getByName("fd00::a"));
            connect(victim, 0x42, elsewhere, victim.initialPsn, 0);
            victim.qp.postRecv(new RecvWorkRequest(1).wrId(1).sge(victim.mr, 0, 1 << 14));
            Endpoint evil = verbs6.endpoint(intruder("::1", v6.drivers().get(0)), QpType.RC, 1 << 14);
            connect(evil, victim.qp.qpNum(), dev.queryGid(1, 0), 0, victim.initialPsn);
            evil.qp.postSend(new SendWorkRequest(1).wrId(66).opcode(WrOpcode.SEND).sge(evil.mr, 0, 100));
            verbs6.awaitTrue("the forged SEND counted",
                    () -> dev.portCounter(1, PortCounter.RX_ADDR_MISMATCH) >= 1);
            assertThat(dev.portCounter(1, PortCounter.RX_ADDR_MISMATCH)).isEqualTo(1);
            verbs6.assertQuiet(victim.recvCq, 1000);
            QpAttr a = new QpAttr();
            victim.qp.queryQp(a);
            assertThat(a.rqPsn()).as("the expected PSN did not move").isEqualTo(victim.initialPsn);
        } finally {
            if (intruder != null) {
                intruder.unregister();
                intruder = null;
            }
            v6.close();
        }
    }

    /** UD is connectionless: a datagram from any address with the right Q_Key is delivered. */
    @Test
    void shouldDeliverUdFromAnyAddress() {
        Device dev = fixture.open(1)[0];
        Endpoint ud = verbs.endpoint(dev, QpType.UD, 1 << 14);
        verbs.activateUd(ud, 0x99);
        ud.qp.postRecv(new RecvWorkRequest(1).wrId(5).sge(ud.mr, 0, 1 << 14));
        Endpoint other = verbs.endpoint(intruder("127.0.0.2", fixture.drivers().get(0)), QpType.UD, 1 << 14);
        verbs.activateUd(other, 0x99);
        Verbs.fill(other.buffer, 0, 300, 9);
        other.qp.postSend(new SendWorkRequest(1).wrId(6).opcode(WrOpcode.SEND).sge(other.mr, 0, 300)
                .ah(Verbs.ah(other, ud)).remoteQpn(ud.qp.qpNum()).remoteQkey(0x99));
        Verbs.assertSuccess(verbs.await(ud.recvCq, 1).get(0), 5);
        Verbs.assertPattern(ud.buffer, 40, 300, 9);
        assertThat(dev.portCounter(1, PortCounter.RX_ADDR_MISMATCH)).isZero();
    }
}
