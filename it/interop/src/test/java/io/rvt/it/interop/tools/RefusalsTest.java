package io.rvt.it.interop.tools;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What the rdma_cm examples take and rvt-cm has not (AF_IB addresses, the IB and IPoIB port spaces) is refused with
 * one line naming the option, before an HCA is touched (no device is given here).
 */
class RefusalsTest {
    @ParameterizedTest
    @CsvSource({
        "ucmatose, -f gid, 'ucmatose: -f gid (AF_IB addresses) is not offered: rvt-cm has IP addresses only (AF_INET,"
            + " AF_INET6), as rdma_cm on RoCE'",
        "ucmatose, -P ib, 'ucmatose: -P ib is not offered: rvt-cm serves ucmatose in the TCP port space (RDMA_PS_TCP)"
            + " only (no RDMA_PS_IB, no RDMA_PS_IPOIB)'",
        "udaddy, -f GID, 'udaddy: -f GID (AF_IB addresses) is not offered: rvt-cm has IP addresses only (AF_INET,"
            + " AF_INET6), as rdma_cm on RoCE'",
        "udaddy, -P ipoib, 'udaddy: -P ipoib is not offered: rvt-cm serves udaddy in the UDP port space (RDMA_PS_UDP)"
            + " only (no RDMA_PS_IB, no RDMA_PS_IPOIB)'"})
    void shouldRefuseAfIbAndOtherPortSpacesWithOneLine(String tool, String option, String message) {
        Tool t = tool.equals("ucmatose") ? new Ucmatose() : new Udaddy();
        String[] args = (option + " -s 192.0.2.2").split(" ");
        assertThatThrownBy(() -> ToolRunner.run(t, null, null, System.out, args))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }
}
