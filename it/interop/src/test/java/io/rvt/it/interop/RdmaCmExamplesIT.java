package io.rvt.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.it.interop.tools.RdmaClient;
import io.rvt.it.interop.tools.RdmaServer;
import java.util.List;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * librdmacm's {@code rdma_server} and {@code rdma_client} against rvt's counterparts ({@link RdmaServer},
 * {@link RdmaClient}), either side the server, over IPv4 and IPv6: a connection through rdma_cm (REQ, REP, RTU), a
 * 16-byte SEND each way (both zero, as the examples' static buffers are), the disconnect (DREQ, DREP). The guest's
 * server is bound to its address ({@code -s}): without it, it listens on IPv4's wildcard alone and rejects an IPv6
 * REQ (consumer reason 28).
 */
@ExtendWith(LinuxPeerExtension.class)
class RdmaCmExamplesIT {
    @ParameterizedTest
    @ValueSource(strings = {"IPv4", "IPv6"})
    void shouldServeRdmaClient(String family, LinuxPeer peer) throws Exception {
        InteropCase c = new InteropCase(peer, "rdma_server/rdma_client", family, InteropCase.budget(2, 32));
        InteropCase.Outcome o = c.rvtServes(RdmaServer.class, List.of(), "rdma_client", "-s",
                c.host().getHostAddress());
        c.check(o, null, "RC (rdma_cm)", "1 SEND of 16 B each way", "RdmaCmExamplesIT");
        assertThat(o.rvt().number("received")).isEqualTo(1);
        assertThat(o.guest().output()).contains("rdma_client: end 0");
    }

    @ParameterizedTest
    @ValueSource(strings = {"IPv4", "IPv6"})
    void shouldConnectToRdmaServer(String family, LinuxPeer peer) throws Exception {
        InteropCase c = new InteropCase(peer, "rdma_server/rdma_client", family, InteropCase.budget(2, 32));
        InteropCase.Outcome o = c.rvtConnects(7471, RdmaClient.class, List.of("-s", c.guest().getHostAddress()),
                "rdma_server", "-s", c.guest().getHostAddress());
        c.check(o, null, "RC (rdma_cm)", "1 SEND of 16 B each way", "RdmaCmExamplesIT");
        assertThat(o.rvt().number("received")).isEqualTo(1);
        assertThat(o.guest().output()).contains("rdma_server: end 0");
    }
}
