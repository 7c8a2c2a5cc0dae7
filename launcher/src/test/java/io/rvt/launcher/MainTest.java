package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Device;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The rvt command run in process: output, exit codes and error lines. */
class MainTest {
    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);

    private int run(String... args) {
        return new Main(out, err).run(args);
    }

    private String out() {
        return outBytes.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(60)
    void shouldListBothSimulatedHcasWhenAskedForDevices() {
        assertThat(run("devices", "-v", "--no-osgi")).isZero();
        assertThat(out().split("hca_id:", -1)).hasSize(3);
        assertThat(out()).contains("PORT_ACTIVE (4)", "active_mtu:\t\t4096 (5)", "max_qp:");
        assertThat(err()).isEmpty();
    }

    @Test
    @Timeout(60)
    void shouldListDevicesThenPingPongWhenRunWithoutCommand() {
        assertThat(run("--no-osgi", "-n", "20")).isZero();
        assertThat(out()).contains("hca_id:", "20 iters in", "163840 bytes in", "simulated device");
    }

    @Test
    @Timeout(60)
    void shouldExchangeCheckedMessagesOverEveryTransportWhenPingPonging() {
        for (String t : List.of("rc", "uc", "ud")) {
            assertThat(run("pingpong", "--no-osgi", "--transport", t, "-n", "50", "-s", "128")).as(t).isZero();
        }
        assertThat(out()).contains("50 iters in", "12800 bytes in", "RC; every message checked", "UC;", "UD;");
        assertThat(out()).containsPattern("12800 bytes in \\d+\\.\\d\\d seconds = \\d+\\.\\d\\d Mbit/sec");
        assertThat(out()).containsPattern("50 iters in \\d+\\.\\d\\d seconds = \\d+\\.\\d\\d usec/iter");
    }

    @Test
    @Timeout(60)
    void shouldCheckOddSizesAndSingleBytesWhenPingPonging() {
        assertThat(run("pingpong", "--no-osgi", "-n", "5", "-s", "1")).isZero();
        assertThat(run("pingpong", "--no-osgi", "-n", "5", "-s", "12345")).isZero();
        assertThat(out()).contains("10 bytes in", "123450 bytes in");
    }

    @Test
    @Timeout(60)
    void shouldFailWithCorruptionLineWhenReceivedByteIsFlipped() {
        try (Host host = PlainHost.start(Options.parse().fabric())) {
            PingPongCommand cmd = new PingPongCommand(out, Transport.RC, 64, 10).corruptReceivedByteAt(3);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> cmd.run(host))
                    .isInstanceOf(DataCorruptionException.class)
                    .hasMessageContaining("ping of iteration 3")
                    .hasMessageContaining("byte 32 of 64");
        }
    }

    @Test
    @Timeout(60)
    void shouldCompleteRcPingPongAndCountDropsWhenFabricLosesFrames() {
        assertThat(run("pingpong", "--no-osgi", "--loss", "0.05", "--seed", "11", "-n", "200", "-s", "2048"))
                .isZero();
        assertThat(out()).contains("200 iters in", "loss 0.05");
    }

    @Test
    void shouldExitWithUsageErrorWhenCommandIsUnknownOrValueIsBad() {
        assertUsage("unknown command 'bogus'", "bogus");
        assertUsage("option --iters needs a whole number, got 'x'", "pingpong", "-n", "x");
        assertUsage("option --iters must be a positive number, got 0", "pingpong", "-n", "0");
        assertUsage("option --size needs a value", "pingpong", "-s");
        assertUsage("option --size: 0 is not a message size", "pingpong", "-s", "0");
        assertUsage("option --size: -5 is not a message size", "pingpong", "-s", "-5");
        assertUsage("option --size: 8388609 is not a message size", "pingpong", "-s", "8388609");
        assertUsage("unknown option '--frobnicate'", "pingpong", "--frobnicate");
        assertUsage("option --loss: 1.5 is not a probability", "--loss", "1.5");
        assertUsage("unknown transport 'tcp'", "pingpong", "--transport", "tcp");
        assertUsage("option --verbose does not apply to 'pingpong'", "pingpong", "-v");
        assertUsage("the jni driver is not available yet", "--driver", "jni");
        assertThat(out()).doesNotContain("hca_id");
    }

    @Test
    @Timeout(60)
    void shouldRefuseUdMessageLargerThanMtu() {
        assertUsage("5000 bytes do not fit one UD datagram (at most the MTU, 4096 bytes",
                "pingpong", "--no-osgi", "--transport", "ud", "-s", "5000");
    }

    @Test
    void shouldFailWithOneLineWhenThereIsNoDevice() {
        Main main = new Main(out, err, o -> new EmptyHost());
        assertThat(main.run("pingpong")).isEqualTo(Main.EXIT_FAILURE);
        assertThat(err()).isEqualTo("rvt: no RDMA device found (no devices here)" + System.lineSeparator());
        assertThat(main.run("devices", "--debug")).isEqualTo(Main.EXIT_FAILURE);
        assertThat(err()).contains("at io.rvt.launcher.");
    }

    @Test
    void shouldPrintUsageWhenAskedForHelp() {
        assertThat(run("--help")).isZero();
        assertThat(out()).contains("usage: rvt", "pingpong", "perf", "stat", "exit codes");
    }

    private void assertUsage(String message, String... args) {
        errBytes.reset();
        assertThat(run(args)).as(String.join(" ", args)).isEqualTo(Main.EXIT_USAGE);
        assertThat(err()).as(String.join(" ", args)).startsWith("rvt: ").contains(message)
                .doesNotContain("Exception").hasLineCount(1);
    }

    /** A host without devices. */
    private static final class EmptyHost implements Host {
        @Override
        public List<Device> devices() {
            return List.of();
        }

        @Override
        public String description() {
            return "no devices here";
        }

        @Override
        public void close() {
        }
    }
}
