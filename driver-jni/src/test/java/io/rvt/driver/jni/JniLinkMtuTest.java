package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.PathMtu;
import io.rvt.api.PortAttr;
import io.rvt.core.RvtDevice;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The active MTU a port derives from its interface's ({@code iboe_get_mtu}'s arithmetic), and the loopback ports of
 * this host: {@code lo}'s 65536 gives 4096, capped by the builder's MTU. {@link NetnsLinkMtuIT} checks veth links of
 * several MTUs and a change of one.
 */
class JniLinkMtuTest {
    @ParameterizedTest(name = "link MTU {0} -> {1}")
    @CsvSource({"1500, 1024", "9000, 4096", "1280, 1024", "65536, 4096", "4192, 4096", "4191, 2048", "2144, 2048",
        "2143, 1024", "1120, 1024", "1119, 512", "608, 512", "607, 256", "352, 256", "68, 256"})
    void shouldDeriveTheActiveMtuFromTheLinkMtuLessTheRoceHeaders(int linkMtu, int active) {
        assertThat(LinkMtu.ofLink(linkMtu).bytes()).isEqualTo(active);
    }

    @ParameterizedTest
    @CsvSource({"10.1.2.3, 10.1.0.1, 16, true", "10.2.2.3, 10.1.0.1, 16, false", "127.0.0.2, 127.0.0.1, 8, true",
        "10.1.2.3, 10.1.2.3, 32, true", "10.1.2.3, 10.1.2.4, 31, false", "fd00::5, fd00::1, 64, true",
        "fd01::5, fd00::1, 64, false", "10.1.2.3, fd00::1, 0, false"})
    void shouldTellWhetherAnAddressLiesInASubnet(String address, String net, int prefix, boolean in)
            throws Exception {
        assertThat(LinkMtu.inSubnet(InetAddress.getByName(address), InetAddress.getByName(net), prefix)).isEqualTo(in);
    }

    /** {@code 127.0.0.2} is held by no interface: {@code lo}'s {@code 127.0.0.1/8} covers it. */
    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "127.0.0.2", "::1"})
    void shouldReportLoopbacksActiveMtuAsFourKibiBytesUnderTheBuildersCap(String address) throws Exception {
        JniDriver full = JniDriver.builder().name("lo-full").address(address).udpPort(0).build();
        JniDriver capped = JniDriver.builder().name("lo-capped").address(address).udpPort(0).mtu(PathMtu.MTU_1024)
                .build();
        RvtDevice a = RvtDevice.register(full);
        RvtDevice b = RvtDevice.register(capped);
        try {
            // 65536 on Linux since 3.13 (and here); as the kernel says, whatever it is
            int lo = Integer.parseInt(Files.readString(Path.of("/sys/class/net/lo/mtu")).trim());
            assertThat(full.port(1).linkMtu.interfaceName()).isEqualTo("lo");
            assertThat(full.port(1).linkMtu.linkMtu()).isEqualTo(lo);
            PortAttr pa = a.queryPort(1, new PortAttr());
            assertThat(pa.activeMtu()).isEqualTo(lo >= 4096 + LinkMtu.ROCE_HEADROOM ? PathMtu.MTU_4096
                    : LinkMtu.ofLink(lo));
            assertThat(pa.maxMtu()).isEqualTo(PathMtu.MTU_4096);
            PortAttr pb = b.queryPort(1, new PortAttr());
            assertThat(pb.activeMtu()).isEqualTo(PathMtu.MTU_1024);
            assertThat(pb.maxMtu()).isEqualTo(PathMtu.MTU_1024);
        } finally {
            a.unregister();
            b.unregister();
        }
    }
}
