package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class MainTest {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    private int run(String... args) {
        return new Main(new PrintStream(bytes, true, StandardCharsets.UTF_8)).run(args);
    }

    private String out() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(60)
    void shouldListBothSimulatedHcasWhenAskedForDevices() {
        assertThat(run("devices", "-v")).isZero();
        assertThat(out().split("hca_id:", -1)).hasSize(3);
        assertThat(out()).contains("PORT_ACTIVE (4)", "active_mtu:\t\t4096 (5)", "max_qp:");
    }

    @Test
    @Timeout(60)
    void shouldExchangeCheckedMessagesWhenPingPonging() {
        assertThat(run("pingpong", "-n", "50", "-s", "128")).isZero();
        assertThat(out()).contains("50 iters in", "12800 bytes in", "simulated device");
    }

    @Test
    void shouldExitWithUsageErrorWhenCommandIsUnknownOrValueIsBad() {
        assertThat(run("bogus")).isEqualTo(2);
        assertThat(run("pingpong", "-n", "x")).isEqualTo(2);
        assertThat(run("pingpong", "-n", "0")).isEqualTo(2);
        assertThat(run("pingpong", "-s")).isEqualTo(2);
        assertThat(out()).doesNotContain("hca_id");
    }
}
