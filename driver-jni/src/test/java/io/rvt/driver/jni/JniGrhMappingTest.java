package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.AddressHandle;
import io.rvt.api.AhAttr;
import io.rvt.api.Device;
import io.rvt.api.PathMtu;
import io.rvt.api.PortCounter;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import io.rvt.transport.header.GrhDescriptor;
import io.rvt.transport.header.Icrc;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RoCEv2 maps the GRH onto the IP header (IBTA Annex A17): an address handle's traffic class, hop limit and (IPv6)
 * flow label go out as the datagram's TOS/traffic class, TTL/hop limit and flow label, and the receiver's GRH is
 * made from the IP header the kernel received (its control messages), so what the receive buffer shows is what was
 * on the wire. The receiver checks every ICRC, which these fields do not change (they are masked in it).
 */
class JniGrhMappingTest {
    private static final int QKEY = 0x4242;

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void shouldCarryTheGrhInTheIpHeaderWithAGoodIcrc(String host) {
        boolean v6 = host.contains(":");
        try (JniFixture fixture = new JniFixture(7, host)) {
            Verbs verbs = new Verbs(fixture);
            Device[] dev = fixture.open(2);
            Endpoint a = verbs.endpoint(dev[0], QpType.UD, 1 << 14);
            Endpoint b = verbs.endpoint(dev[1], QpType.UD, 1 << 14);
            verbs.activateUd(a, QKEY);
            verbs.activateUd(b, QKEY);
            AhAttr marked = b.address(new AhAttr()).trafficClass(0x68).hopLimit(5).flowLabel(0xABCDE);
            AhAttr plain = b.address(new AhAttr()).hopLimit(64);
            int[][] expected = {{0x68, 5, v6 ? 0xABCDE : 0}, {0, 64, -1}};
            AhAttr[] ahs = {marked, plain};
            for (int k = 0; k < ahs.length; k++) {
                AddressHandle ah = a.pd.createAh(ahs[k]);
                b.qp.postRecv(new RecvWorkRequest(1).wrId(k).sge(b.mr, 0, 4096));
                Verbs.fill(a.buffer, 0, 100, k);
                a.qp.postSend(new SendWorkRequest(1).wrId(k).opcode(WrOpcode.SEND).sge(a.mr, 0, 100).ah(ah)
                        .remoteQpn(b.qp.qpNum()).remoteQkey(QKEY));
                WorkCompletion wc = verbs.await(b.recvCq, 1).get(0);
                Verbs.assertSuccess(wc, k);
                Verbs.assertPattern(b.buffer, GrhDescriptor.LENGTH, 100, k);
                assertThat(GrhDescriptor.trafficClass(b.buffer, 0)).as("traffic class / TOS").isEqualTo(expected[k][0]);
                assertThat(GrhDescriptor.hopLimit(b.buffer, 0)).as("hop limit / TTL").isEqualTo(expected[k][1]);
                if (expected[k][2] >= 0) {
                    assertThat(GrhDescriptor.flowLabel(b.buffer, 0)).as("flow label").isEqualTo(expected[k][2]);
                }
            }
            assertThat(dev[1].portCounter(1, PortCounter.RX_MALFORMED)).as("no ICRC error").isZero();
        }
    }

    /**
     * The kernel writes the received IP header's fields as control messages only while the HCA has a UD QP, whose
     * receives' GRH carries them: not for RC (nor the GSI's MADs), on again for a second UD QP after the first's end.
     */
    @Test
    void shouldAskForTheIpHeaderOnlyWhileAUdQpExists() {
        try (JniFixture fixture = new JniFixture(9, "127.0.0.1")) {
            Verbs verbs = new Verbs(fixture);
            Device dev = fixture.open(1)[0];
            JniDriver d = fixture.drivers().get(0);
            verbs.endpoint(dev, QpType.RC, 4096);
            assertThat(d.receivesIpInfo(1)).as("an RC QP only").isFalse();
            Endpoint ud = verbs.endpoint(dev, QpType.UD, 4096);
            assertThat(d.receivesIpInfo(1)).as("a UD QP").isTrue();
            Endpoint ud2 = verbs.endpoint(dev, QpType.UD, 4096);
            ud.qp.destroyQp();
            assertThat(d.receivesIpInfo(1)).as("one UD QP left").isTrue();
            ud2.qp.destroyQp();
            assertThat(d.receivesIpInfo(1)).as("no UD QP left").isFalse();
            verbs.endpoint(dev, QpType.UD, 4096);
            assertThat(d.receivesIpInfo(1)).as("a UD QP again").isTrue();
        }
    }

    /**
     * An RC QP's primary path: its packets arrive at a plain native socket (playing the peer) with the path's traffic
     * class, hop limit and flow label in the IP header as that socket's kernel received it, and an ICRC computed over
     * the real addresses and ports.
     */
    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void shouldPutTheRcPathInTheIpHeader(String host) throws Exception {
        boolean v6 = host.contains(":");
        InetAddress local = InetAddress.getByName(host);
        try (JniFixture fixture = new JniFixture(8, host); Datagrams peer = new NativeDatagrams(local, 0, 0)) {
            Verbs verbs = new Verbs(fixture);
            Device dev = fixture.open(1)[0];
            JniDriver d = fixture.drivers().get(0);
            peer.receiveIpInfo(true);
            d.addPeer(d.gid(1), peer.localPort());
            Endpoint rc = verbs.endpoint(dev, QpType.RC, 4096);
            // by hand, not through rvt-cm: the peer is a plain UDP socket with no CM behind it
            rc.qp.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(0),
                    QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT,
                            QpAttrMask.ACCESS_FLAGS));
            QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(PathMtu.MTU_1024).destQpNum(0x77).rqPsn(0)
                    .maxDestRdAtomic(1).minRnrTimer(1);
            rtr.ahAttr().clear().portNum(1).dgid(d.gid(1)).sgidIndex(0).trafficClass(0xB8).hopLimit(9)
                    .flowLabel(0x12345);
            rc.qp.modifyQp(rtr, QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU,
                    QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER));
            rc.qp.modifyQp(new QpAttr().qpState(QpState.RTS).sqPsn(rc.initialPsn).timeout(14).retryCnt(0)
                    .rnrRetry(0).maxRdAtomic(1), QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.SQ_PSN,
                            QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY,
                            QpAttrMask.MAX_QP_RD_ATOMIC));
            rc.qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.SEND).sge(rc.mr, 0, 64));

            RxBatch rx = new RxBatch(1, 8192);
            verbs.awaitTrue("the RC SEND at the peer's socket", () -> peer.receive(rx) == 1);
            assertThat(rx.hasIpInfo(0)).isTrue();
            assertThat(rx.trafficClass(0)).as("traffic class / TOS").isEqualTo(0xB8);
            assertThat(rx.hopLimit(0)).as("hop limit / TTL").isEqualTo(9);
            assertThat(rx.flowLabel(0)).as("flow label").isEqualTo(v6 ? 0x12345 : 0);
            assertThat(rx.sourcePort(0)).as("the flow's source port, from its flow label")
                    .isEqualTo(JniDriver.flowSourcePort(rc.qp.qpNum(), 0x77, 0x12345));
            Icrc icrc = new Icrc();
            boolean good = v6 ? icrc.checkRoceV6(d.gid(1), d.gid(1), rx.sourcePort(0), peer.localPort(), rx.data, 0,
                    rx.length(0))
                    : icrc.checkRoceV4(0x7F00_0001, 0x7F00_0001, 0, true, rx.sourcePort(0), peer.localPort(), rx.data,
                            0, rx.length(0));
            assertThat(good).as("ICRC over the real addresses and ports").isTrue();
        }
    }
}
