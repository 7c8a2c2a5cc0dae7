package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.AddressHandle;
import io.rvt.api.AhAttr;
import io.rvt.api.QpType;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WrOpcode;
import io.rvt.core.RvtDevice;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import io.rvt.transport.header.Icrc;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * UDP source ports: with {@code sourcePorts(n)} the flows of different QP pairs leave from up to n ports, each datagram
 * with the ICRC of its real source port; with 1 every datagram leaves from the port's own socket. A plain socket
 * plays the peer and looks at what arrives.
 */
class JniSourcePortTest {
    private static final int FLOWS = 16;

    @ParameterizedTest
    @ValueSource(ints = {1, 4})
    void shouldSendFlowsFromSourcePortsWithMatchingIcrc(int sourcePorts) throws Exception {
        InetAddress local = InetAddress.getByName("127.0.0.1");
        int ip = 0x7F00_0001;
        JniDriver d = JniDriver.builder().name("flows").address("127.0.0.1").udpPort(0).sourcePorts(sourcePorts)
                .build();
        try (DatagramSocket peer = new DatagramSocket(0, local)) {
            d.addPeer(d.gid(1), peer.getLocalPort()); // the peer shares the address; the table names its port
            RvtDevice dev = RvtDevice.register(d);
            try {
                Verbs verbs = new Verbs(new JniFixture(0, "127.0.0.1"));
                Endpoint ud = verbs.endpoint(dev, QpType.UD, 4096);
                verbs.activateUd(ud, 0x55);
                AddressHandle ah = ud.pd.createAh(new AhAttr().portNum(1).dgid(d.gid(1)).hopLimit(64));
                for (int i = 0; i < FLOWS; i++) {
                    ud.qp.postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.SEND).sge(ud.mr, 0, 32).ah(ah)
                            .remoteQpn(0x100 + i).remoteQkey(0x55));
                }
                verbs.await(ud.sendCq, FLOWS);
                Set<Integer> ports = new TreeSet<>();
                byte[] buf = new byte[2048];
                peer.setSoTimeout(20_000);
                for (int i = 0; i < FLOWS; i++) {
                    DatagramPacket p = new DatagramPacket(buf, buf.length);
                    peer.receive(p);
                    ByteBuffer b = ByteBuffer.wrap(buf, 0, p.getLength());
                    assertThat(new Icrc().checkRoceV4(ip, ip, 0, true, p.getPort(), peer.getLocalPort(), b, 0,
                            p.getLength())).as("ICRC over source port %d", p.getPort()).isTrue();
                    ports.add(p.getPort());
                }
                if (sourcePorts == 1) {
                    assertThat(ports).containsExactly(d.localPort(1));
                } else {
                    assertThat(ports.size()).as("flows spread over source ports %s", ports).isEqualTo(sourcePorts);
                }
            } finally {
                dev.unregister();
            }
        }
    }

    /**
     * By default four QPs use four source ports: each its flow's {@link JniDriver#flowSourcePort} in 0xC000-0xFFFF
     * (from the QP numbers, or from the flow label when the path has one), every datagram with the ICRC of its real
     * source port.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 0x5A5A5})
    void shouldGiveEachFlowItsOwnSourcePortByDefault(int flowLabel) throws Exception {
        InetAddress local = InetAddress.getByName("::1");
        JniDriver d = JniDriver.builder().name("entropy").address("::1").udpPort(0).build();
        try (DatagramSocket peer = new DatagramSocket(0, local)) {
            d.addPeer(d.gid(1), peer.getLocalPort());
            RvtDevice dev = RvtDevice.register(d);
            try {
                Verbs verbs = new Verbs(new JniFixture(0, "::1"));
                Set<Integer> expected = new TreeSet<>();
                for (int q = 0; q < 4; q++) {
                    Endpoint ud = verbs.endpoint(dev, QpType.UD, 4096);
                    verbs.activateUd(ud, 0x55);
                    AddressHandle ah = ud.pd.createAh(new AhAttr().portNum(1).dgid(d.gid(1)).hopLimit(64)
                            .flowLabel(flowLabel == 0 ? 0 : flowLabel + q));
                    ud.qp.postSend(new SendWorkRequest(1).wrId(q).opcode(WrOpcode.SEND).sge(ud.mr, 0, 32).ah(ah)
                            .remoteQpn(0x100).remoteQkey(0x55));
                    verbs.await(ud.sendCq, 1);
                    expected.add(JniDriver.flowSourcePort(ud.qp.qpNum(), 0x100, flowLabel == 0 ? 0 : flowLabel + q));
                }
                Set<Integer> ports = new TreeSet<>();
                byte[] buf = new byte[2048];
                peer.setSoTimeout(20_000);
                for (int i = 0; i < 4; i++) {
                    DatagramPacket p = new DatagramPacket(buf, buf.length);
                    peer.receive(p);
                    assertThat(new Icrc().checkRoceV6(d.gid(1), d.gid(1), p.getPort(), peer.getLocalPort(),
                            ByteBuffer.wrap(buf, 0, p.getLength()), 0, p.getLength())).isTrue();
                    ports.add(p.getPort());
                }
                assertThat(ports).as("four flows, four source ports").hasSize(4).isEqualTo(expected)
                        .allSatisfy(port -> assertThat(port).isBetween(0xC000, 0xFFFF));
            } finally {
                dev.unregister();
            }
        }
    }
}
