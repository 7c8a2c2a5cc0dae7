package io.rvt.it.interop.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** rvt's ibv_{rc,uc,ud}_pingpong servers and clients against each other, on two driver-jni HCAs of this JVM. */
class PingpongLoopbackTest {
    @ParameterizedTest
    @CsvSource({"rc, 127.0.0.1, 4096, 100, ''", "rc, ::1, 4096, 100, -c", "rc, 127.0.0.1, 65536, 20, -c",
        "uc, 127.0.0.1, 4096, 100, ''", "uc, ::1, 65536, 20, -c", "ud, 127.0.0.1, 1024, 100, -c",
        "ud, ::1, 2048, 100, ''"})
    void shouldPlayEveryRoundWithTheRightBytes(String transport, String address, int size, int iters, String chk)
            throws Exception {
        String port = Integer.toString(freeTcpPort());
        String[] common = chk.isEmpty()
                ? new String[] {"-p", port, "-g", "0", "-s", Integer.toString(size), "-n", Integer.toString(iters),
                    "--timeout", "60"}
                : new String[] {"-p", port, "-g", "0", "-s", Integer.toString(size), "-n", Integer.toString(iters),
                    "--timeout", "60", chk};
        String[] client = java.util.Arrays.copyOf(common, common.length + 1);
        client[common.length] = address;
        try (LoopbackPair pair = new LoopbackPair(address)) {
            ToolResult[] r = pair.run(tool(transport), common, tool(transport), client, Duration.ofSeconds(90));
            assertThat(r[0].ok()).as(r[0].format()).isTrue();
            assertThat(r[1].ok()).as(r[1].format()).isTrue();
            assertThat(r[0].number("iters")).isEqualTo(iters);
            assertThat(r[0].number("bytes_checked")).isEqualTo((long) size * iters);
            assertThat(r[1].number("bytes_checked")).isEqualTo((long) size * iters);
            assertThat(r[0].number("icrc_errors") + r[1].number("icrc_errors")).isZero();
        }
    }

    private static Tool tool(String transport) {
        return switch (transport) {
            case "rc" -> new RcPingpong();
            case "uc" -> new UcPingpong();
            default -> new UdPingpong();
        };
    }

    private static int freeTcpPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
