package io.rvt.it.interop.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** rvt's rdma_server and rdma_client against each other, on two driver-jni HCAs of this JVM. */
class RdmaExampleLoopbackTest {
    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void shouldExchangeOneMessageEachWay(String address) throws Exception {
        try (LoopbackPair pair = new LoopbackPair(address)) {
            ToolResult[] r = pair.run(new RdmaServer(), new String[] {"-p", "17471", "--timeout", "60"},
                    new RdmaClient(), new String[] {"-s", address, "-p", "17471", "--timeout", "60"},
                    Duration.ofSeconds(90));
            assertThat(r[0].ok()).as(r[0].format()).isTrue();
            assertThat(r[1].ok()).as(r[1].format()).isTrue();
            assertThat(r[0].number("received")).isEqualTo(1);
            assertThat(r[1].number("received")).isEqualTo(1);
            assertThat(r[0].number("icrc_errors") + r[1].number("icrc_errors")).isZero();
        }
    }
}
