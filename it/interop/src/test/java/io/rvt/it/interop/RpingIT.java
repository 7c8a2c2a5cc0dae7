package io.rvt.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.it.interop.tools.Rping;
import java.util.List;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * librdmacm's {@code rping} against rvt's ({@link Rping}), either side the server, over IPv4 and IPv6, {@value #COUNT}
 * pings of 64 B (one packet) and of 65535 B (rping's largest: 64 packets at rxe's 1024-byte MTU): per ping the client
 * SENDs its source buffer's address, the server RDMA READs it and SENDs a go-ahead, the client SENDs its sink
 * buffer's address, the server RDMA WRITEs the data back and SENDs another go-ahead; the client compares every byte
 * ({@code -V}: rping fails on a mismatch; rvt always checks). rvt's side is event-driven as rping is: it waits on a
 * completion channel ({@code cq_events}, the events it took and acknowledged, is positive).
 */
@ExtendWith(LinuxPeerExtension.class)
class RpingIT {
    static final int COUNT = 10;

    @ParameterizedTest
    @CsvSource({"IPv4, 64", "IPv6, 64", "IPv4, 65535", "IPv6, 65535"})
    void shouldServeRpingsClient(String family, int size, LinuxPeer peer) throws Exception {
        InteropCase c = new InteropCase(peer, "rping", family, budget(size));
        InteropCase.Outcome o = c.rvtServes(Rping.class, List.of("-s", "-a", c.host().getHostAddress(), "-C",
                Integer.toString(COUNT), "-S", Integer.toString(size)), "rping", "-c", "-a",
                c.host().getHostAddress(), "-C", Integer.toString(COUNT), "-S", Integer.toString(size), "-V");
        c.check(o, null, "RC (rdma_cm): SEND, READ, WRITE", what(size), "RpingIT");
        assertThat(o.rvt().number("pings")).isEqualTo(COUNT);
        // without loss the client's one DREQ arrives: the server did not end by giving up on it
        assertThat(o.rvt().facts().get("disconnect")).as("how rvt's server saw the end; %s", o.describe())
                .isEqualTo("dreq");
        assertThat(o.rvt().number("cq_events")).as("rvt waited on its completion channel; %s", o.describe())
                .isPositive();
        assertThat(o.guest().output()).doesNotContain("mismatch").doesNotContain("error");
    }

    @ParameterizedTest
    @CsvSource({"IPv4, 64", "IPv6, 64", "IPv4, 65535", "IPv6, 65535"})
    void shouldPingRpingsServer(String family, int size, LinuxPeer peer) throws Exception {
        InteropCase c = new InteropCase(peer, "rping", family, budget(size));
        InteropCase.Outcome o = c.rvtConnects(7174 /* rping's port */, Rping.class, List.of("-c", "-a",
                c.guest().getHostAddress(), "-C", Integer.toString(COUNT), "-S", Integer.toString(size), "-V"),
                "rping", "-s", "-a", c.guest().getHostAddress(), "-C", Integer.toString(COUNT), "-S",
                Integer.toString(size), "-V");
        c.check(o, null, "RC (rdma_cm): SEND, READ, WRITE", what(size), "RpingIT");
        assertThat(o.rvt().number("bytes_checked")).isEqualTo((long) COUNT * size);
        assertThat(o.rvt().number("cq_events")).as("rvt waited on its completion channel; %s", o.describe())
                .isPositive();
    }

    /** Per ping 4 SENDs of 16 bytes, a READ and a WRITE of {@code size}: 6 messages. */
    static java.time.Duration budget(int size) {
        return InteropCase.budget(6 * COUNT, 2L * COUNT * size);
    }

    static String what(int size) {
        return COUNT + " pings of " + size + " B, -V";
    }
}
