package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The rvt command run in process: devices, pingpong, stat, the default run, and the error lines. */
class MainTest {
    private final CommandLine cli = new CommandLine();

    @Test
    @Timeout(60)
    void shouldListBothSimulatedHcasWhenAskedForDevices() {
        assertThat(cli.run("devices", "-v", "--no-osgi")).isZero();
        assertThat(cli.out().split("hca_id:", -1)).hasSize(3);
        assertThat(cli.out()).contains("PORT_ACTIVE (4)", "active_mtu:\t\t4096 (5)", "max_qp:");
        assertThat(cli.err()).isEmpty();
    }

    @Test
    @Timeout(60)
    void shouldListDevicesThenPingPongWhenRunWithoutCommand() {
        assertThat(cli.run("--no-osgi", "-n", "20")).isZero();
        assertThat(cli.out()).contains("hca_id:", "20 iters in", "163840 bytes in", "simulated device");
    }

    @Test
    @Timeout(60)
    void shouldExchangeCheckedMessagesOverEveryTransportWhenPingPonging() {
        for (String t : List.of("rc", "uc", "ud")) {
            assertThat(cli.run("pingpong", "--no-osgi", "--transport", t, "-n", "50", "-s", "128")).as(t).isZero();
        }
        assertThat(cli.out()).contains("50 iters in", "12800 bytes in", "RC; every message checked", "UC;", "UD;");
        assertThat(cli.out()).containsPattern("12800 bytes in \\d+\\.\\d\\d seconds = \\d+\\.\\d\\d Mbit/sec");
        assertThat(cli.out()).containsPattern("50 iters in \\d+\\.\\d\\d seconds = \\d+\\.\\d\\d usec/iter");
    }

    @Test
    @Timeout(60)
    void shouldCheckOddSizesAndSingleBytesWhenPingPonging() {
        assertThat(cli.run("pingpong", "--no-osgi", "-n", "5", "-s", "1")).isZero();
        assertThat(cli.run("pingpong", "--no-osgi", "-n", "5", "-s", "12345")).isZero();
        assertThat(cli.out()).contains("10 bytes in", "123450 bytes in");
    }

    @Test
    @Timeout(60)
    void shouldFailWithCorruptionLineWhenReceivedByteIsFlipped() {
        try (Host host = PlainHost.start(Options.parse().fabric())) {
            PingPongCommand cmd = new PingPongCommand(cli.out, Transport.RC, 64, 10).corruptReceivedByteAt(3);
            assertThatThrownBy(() -> cmd.run(host)).isInstanceOf(DataCorruptionException.class)
                    .hasMessageContaining("ping of iteration 3").hasMessageContaining("byte 32 of 64");
        }
    }

    /**
     * Everything RC that sim1 sends is lost once the QPs are connected (a driver-sim drop rule): sim0's ping is never
     * acknowledged and its pong never comes, so sim0's send ends in RETRY_EXC_ERR and its receive is flushed; the
     * error names the send's failure, the cause, not only the flush.
     */
    @Test
    @Timeout(60)
    void shouldNameTheFailedSendWhenAReceiveIsFlushedByIt() {
        try (PlainHost host = PlainHost.start(Options.parse().fabric())) {
            io.rvt.driver.sim.fabric.FabricPort sim1 = host.fabric().ports().stream()
                    .filter(p -> p.name().equals("sim1:1")).findFirst().orElseThrow();
            // BTH opcodes below 0x20 are RC's; the CM's MADs (UD) still pass, so the QPs connect and disconnect
            host.fabric().dropRule((from, to, frame) -> from == sim1 && (frame.get(48) & 0xFF) < 0x20);
            PingPongCommand cmd = new PingPongCommand(cli.out, Transport.RC, 64, 10);
            assertThatThrownBy(() -> cmd.run(host)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("the receive on sim0 failed: WR_FLUSH_ERR")
                    .hasMessageContaining("this side's send failed: RETRY_EXC_ERR");
        }
    }

    @Test
    void shouldFindTheOneFlippedByteWhenCheckingPattern() {
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(37);
        DataPattern.fill(buf, 0, 37, 99);
        assertThat(DataPattern.firstMismatch(buf, 0, 37, 99)).isEqualTo(-1);
        assertThat(DataPattern.firstMismatch(buf, 0, 37, 98)).isZero();
        for (int b : new int[] {0, 7, 8, 35, 36}) {
            buf.put(b, (byte) (buf.get(b) ^ 0x10));
            assertThat(DataPattern.firstMismatch(buf, 0, 37, 99)).as("byte %d", b).isEqualTo(b);
            buf.put(b, (byte) (buf.get(b) ^ 0x10));
        }
    }

    @Test
    @Timeout(120)
    void shouldCompleteRcPingPongWhenFabricLosesDuplicatesAndReorders() {
        assertThat(cli.run("pingpong", "--no-osgi", "--loss", "0.05", "--dup", "0.02", "--reorder", "0.02",
                "--seed", "11", "-n", "100", "-s", "2048")).isZero();
        assertThat(cli.out()).contains("100 iters in", "loss 0.05, dup 0.02, reorder 0.02");
        assertThat(cli.run("pingpong", "--no-osgi", "--deterministic", "--loss", "0.05", "-n", "100")).isZero();
        assertThat(cli.out()).contains("deterministic (virtual time, seed ");
    }

    @Test
    @Timeout(120)
    void shouldShowLossDropsAndRetransmissionsWhenStatRunsOnLossyFabric() {
        assertThat(cli.run("stat", "--no-osgi", "--loss", "0.05", "--seed", "3", "-n", "100")).isZero();
        assertThat(cli.counter("drop.loss")).isPositive();
        assertThat(cli.counter("rc_resends")).isPositive();
        assertThat(cli.out()).contains("no UD: the fabric loses frames", "RC   RTS");
    }

    @Test
    @Timeout(60)
    void shouldShowCountersAndQueuePairsAfterTrafficWhenStatRuns() {
        assertThat(cli.run("stat", "--no-osgi", "-n", "20")).isZero();
        assertThat(cli.counter("rc_acks")).isBetween(1L, 20L); // ACKs may be coalesced
        assertThat(cli.counter("drop.loss")).isZero();
        assertThat(cli.counter("tx_frames")).isGreaterThanOrEqualTo(2 * 20 + 2 * 20); // RC and UD messages
        assertThat(cli.out()).contains("queue pairs", "RC   RTS", "UD   RTS", "20 RC round trips");
        // What driver-sim cannot see is shown as "-", and the note says why.
        assertThat(cli.out()).containsPattern("(?m)^\\s+rx_kernel_drops\\s+-\\s+-$")
                .containsPattern("(?m)^\\s+rc_out_of_seq\\s+\\d+\\s+\\d+$")
                .contains("- = not visible to this host (driver-sim has no IP addresses, no RoCE receive checks and no "
                        + "kernel sockets): rx_addr_mismatch, rx_mcast_no_group, rx_ud_oversize, rx_kernel_drops, "
                        + "rx_ipv4_id_solved");
        cli.reset();
        assertThat(cli.run("stat", "--no-osgi", "--no-traffic")).isZero();
        assertThat(cli.counter("tx_packets")).isZero();
        assertThat(cli.out()).doesNotContain("queue pairs");
    }

    @Test
    void shouldExitWithUsageErrorWhenCommandIsUnknownOrValueIsBad() {
        cli.assertUsage("unknown command 'bogus'", "bogus");
        cli.assertUsage("option --iters needs a whole number, got 'x'", "pingpong", "-n", "x");
        cli.assertUsage("option --iters must be a positive number, got 0", "pingpong", "-n", "0");
        cli.assertUsage("option --size needs a value", "pingpong", "-s");
        cli.assertUsage("option --size: 0 is not a message size", "pingpong", "-s", "0");
        cli.assertUsage("option --size: -5 is not a message size", "pingpong", "-s", "-5");
        cli.assertUsage("option --size: 8388609 is not a message size", "pingpong", "-s", "8388609");
        cli.assertUsage("unknown option '--frobnicate'", "pingpong", "--frobnicate");
        cli.assertUsage("option --loss: 1.5 is not a probability", "--loss", "1.5");
        cli.assertUsage("unknown transport 'tcp'", "pingpong", "--transport", "tcp");
        cli.assertUsage("option --verbose does not apply to 'pingpong'", "pingpong", "-v");
        cli.assertUsage("option --json does not apply to 'stat'", "stat", "--json", "x.json");
        cli.assertUsage("option --driver: unknown driver 'rxe' (sim or jni)", "--driver", "rxe");
        cli.assertUsage("unexpected argument 'perf' after command 'stat'", "stat", "perf");
        assertThat(cli.out()).doesNotContain("hca_id");
    }

    @Test
    @Timeout(60)
    void shouldRefuseUdMessageLargerThanMtu() {
        cli.assertUsage("5000 bytes do not fit one UD datagram (at most the MTU, 4096 bytes",
                "pingpong", "--no-osgi", "--transport", "ud", "-s", "5000");
    }

    @Test
    void shouldFailWithOneLineWhenThereIsNoDevice() {
        Main main = new Main(cli.out, cli.err, o -> new EmptyHost());
        assertThat(main.run("pingpong")).isEqualTo(Main.EXIT_FAILURE);
        assertThat(cli.err()).isEqualTo("rvt: no RDMA device found (no devices here)" + System.lineSeparator());
        assertThat(main.run("devices", "--debug")).isEqualTo(Main.EXIT_FAILURE);
        assertThat(cli.err()).contains("at io.rvt.launcher.");
    }

    @Test
    void shouldPrintUsageWhenAskedForHelp() {
        assertThat(cli.run("--help")).isZero();
        assertThat(cli.out()).contains("usage: rvt", "pingpong", "perf", "stat", "exit codes");
    }
}
