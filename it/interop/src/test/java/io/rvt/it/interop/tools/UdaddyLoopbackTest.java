package io.rvt.it.interop.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** rvt's udaddy server and client against each other, on two driver-jni HCAs of this JVM. */
class UdaddyLoopbackTest {
    @ParameterizedTest
    @CsvSource({"127.0.0.1, 1, 10, 100", "::1, 2, 5, 1024"})
    void shouldResolveAndExchangeEveryDatagram(String address, int connections, int count, int size)
            throws Exception {
        String[] common = {"-c", Integer.toString(connections), "-C", Integer.toString(count), "-S",
            Integer.toString(size), "--timeout", "60"};
        String[] client = java.util.Arrays.copyOf(common, common.length + 2);
        client[common.length] = "-s";
        client[common.length + 1] = address;
        try (LoopbackPair pair = new LoopbackPair(address)) {
            ToolResult[] r = pair.run(new Udaddy(), common, new Udaddy(), client, Duration.ofSeconds(90));
            assertThat(r[0].ok()).as(r[0].format()).isTrue();
            assertThat(r[1].ok()).as(r[1].format()).isTrue();
            assertThat(r[0].number("messages_each_way")).isEqualTo((long) connections * count);
            assertThat(r[0].number("icrc_errors") + r[1].number("icrc_errors")).isZero();
        }
    }
}
