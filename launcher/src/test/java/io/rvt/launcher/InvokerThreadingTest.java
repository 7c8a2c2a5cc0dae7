package io.rvt.launcher;

import static io.rvt.launcher.MiniJson.map;
import static io.rvt.launcher.MiniJson.parseFile;
import static io.rvt.launcher.MiniJson.tests;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --threading invoker}: the command's thread runs the simulated network while it polls. The option, its
 * refusals, commands that run and report in that mode, and the absence of a network thread.
 */
class InvokerThreadingTest {
    private final CommandLine cli = new CommandLine();

    @TempDir
    Path dir;

    @Test
    void shouldRunTheNetworkThroughTheProgressHookUnlessAskedForAnotherThreading() {
        assertThat(Options.parse().threading).isEqualTo(Threading.PROGRESS);
        assertThat(Options.parse("pingpong", "--no-osgi").threading).isEqualTo(Threading.PROGRESS);
        assertThat(Options.parse("pingpong", "--threading", "progress").threading).isEqualTo(Threading.PROGRESS);
        assertThat(Options.parse("pingpong", "--no-osgi", "--threading", "shared").threading)
                .isEqualTo(Threading.SHARED);
        assertThat(Options.parse("pingpong", "--no-osgi", "--threading", "invoker").threading)
                .isEqualTo(Threading.INVOKER);
        assertThat(Options.parse("perf", "--no-osgi", "--threading=invoker", "--seed", "7").threading)
                .isEqualTo(Threading.INVOKER);
        assertThat(Options.parse("--threading", "shared").threading).isEqualTo(Threading.SHARED); // OSGi: fine
        // --deterministic: the command's polls drive virtual time through the progress hook, with or without OSGi
        assertThat(Options.parse("stat", "--no-osgi", "--deterministic").threading).isEqualTo(Threading.PROGRESS);
        assertThat(Options.parse("stat", "--no-osgi", "--deterministic", "--threading", "invoker").threading)
                .isEqualTo(Threading.INVOKER);
        assertThat(Options.parse("stat", "--no-osgi", "--deterministic", "--threading", "dedicated").threading)
                .isEqualTo(Threading.DEDICATED);
        assertThat(Options.parse("stat", "--deterministic").threading).isEqualTo(Threading.PROGRESS);
    }

    @Test
    void shouldRefuseInvokerWithOneUsageLineWhenTheLauncherDoesNotHoldTheNetwork() {
        cli.assertUsage("option --threading: unknown threading 'inline' (progress, dedicated, shared or invoker)",
                "pingpong", "--no-osgi", "--threading", "inline");
        cli.assertUsage("option --threading needs a value", "pingpong", "--threading");
        cli.assertUsage("option --threading invoker needs --no-osgi", "pingpong", "--threading", "invoker");
        cli.assertUsage("option --threading invoker applies to the simulated fabric, not to --driver jni",
                "pingpong", "--no-osgi", "--driver", "jni", "--threading", "invoker");
        cli.assertUsage("option --threading does not apply to 'shell'", "shell", "--threading", "shared");
        assertThat(cli.out()).isEmpty();
    }

    @Test
    void shouldListThreadingWithTheFabricOptionsInHelp() {
        assertThat(cli.run("--help")).isZero();
        assertThat(cli.out()).contains("--threading progress", "| dedicated (threads of their own)", "| shared (one thread",
                "| invoker (only");
    }

    @Test
    @Timeout(60)
    void shouldExchangeCheckedMessagesOverEveryTransportWhenTheCommandThreadRunsTheNetwork() {
        for (String t : List.of("rc", "uc", "ud")) {
            assertThat(cli.run("pingpong", "--no-osgi", "--threading", "invoker", "--transport", t, "-n", "200",
                    "-s", "1024")).as(t + "\n" + cli.err()).isZero();
        }
        assertThat(cli.out()).contains("200 iters in", "409600 bytes in", "RC; every message checked", "UC;", "UD;",
                "(real-time, no faults; --threading invoker)");
        assertThat(cli.err()).isEmpty();
    }

    @Test
    @Timeout(120)
    void shouldRetransmitLostFramesWhenTheCommandThreadRunsTheNetwork() {
        assertThat(cli.run("stat", "--no-osgi", "--threading", "invoker", "--loss", "0.05", "--seed", "3", "-n",
                "100")).as(cli.err()).isZero();
        assertThat(cli.counter("drop.loss")).isPositive();
        assertThat(cli.counter("rc_resends")).isPositive();
        assertThat(cli.out()).contains("100 RC round trips", "RC   RTS",
                "(real-time (seed 3), loss 0.05; --threading invoker)");
    }

    @Test
    @Timeout(120)
    void shouldReportInvokerInTestInfoAndJsonWhenMeasuringSendBandwidth() throws IOException {
        Path json = dir.resolve("send.json");
        assertThat(cli.run("perf", "--no-osgi", "--threading", "invoker", "--test", "send", "-s", "64", "-n", "2000",
                "--json", json.toString())).as(cli.err()).isZero();
        assertThat(cli.out()).contains("Send BW Test", " Threading       : invoker (the command's thread)",
                "(real-time, no faults; --threading invoker)");
        assertThat(rows()).hasSize(1);
        assertThat(rows().get(0)).startsWith(" 64        2000 ");
        Map<String, Object> doc = parseFile(json);
        Map<String, Object> test = tests(doc).get(0);
        assertThat(map(test.get("test_info"))).containsEntry("Threading", "invoker")
                .containsEntry("test", "Send_BW_Test").containsEntry("TX_depth", 128.0);
        Map<String, Object> result = map(((List<?>) test.get("results")).get(0));
        assertThat(result).containsEntry("n_iterations", 2000.0);
        assertThat((Double) result.get("BW_average")).isPositive();
    }

    @Test
    @Timeout(120)
    void shouldReportProgressInTestInfoAndJsonByDefault() throws IOException {
        Path json = dir.resolve("lat.json");
        assertThat(cli.run("perf", "--no-osgi", "--test", "read", "--lat", "-n", "100", "--json", json.toString()))
                .as(cli.err()).isZero();
        assertThat(cli.out()).contains(" Threading       : progress (the command's polls, a backstop thread when")
                .doesNotContain("--threading");
        assertThat(map(tests(parseFile(json)).get(0).get("test_info"))).containsEntry("Threading", "progress");
        cli.reset();
        assertThat(cli.run("perf", "--no-osgi", "--threading", "shared", "--test", "read", "--lat", "-n", "100"))
                .as(cli.err()).isZero();
        assertThat(cli.out()).contains(" Threading       : shared (one network thread)", "; --threading shared)");
    }

    @Test
    @Timeout(120)
    void shouldRunEveryLoopOfPerfWhenTheCommandThreadRunsTheNetwork() {
        String[][] lines = {
            {"--test", "send", "--transport", "ud", "-s", "2048", "-n", "500"},
            {"--test", "write", "-s", "65536", "-q", "2", "-n", "200"},
            {"--test", "read", "-n", "500"},
            {"--test", "atomic", "-n", "500"},
            {"--test", "send", "--lat", "-s", "8", "-n", "500"},
            {"--test", "write", "--lat", "-s", "8", "-n", "500"},
            {"--test", "read", "--lat", "-n", "500"},
            {"--test", "atomic", "--lat", "-n", "500"},
            {"--test", "send", "-D", "0.2"},
        };
        for (String[] line : lines) {
            cli.reset();
            String[] args = new String[line.length + 4];
            args[0] = "perf";
            args[1] = "--no-osgi";
            args[2] = "--threading";
            args[3] = "invoker";
            System.arraycopy(line, 0, args, 4, line.length);
            assertThat(cli.run(args)).as(String.join(" ", line) + "\n" + cli.err()).isZero();
            assertThat(rows()).as(String.join(" ", line)).hasSize(1);
            assertThat(cli.out()).as(String.join(" ", line)).contains(" Threading       : invoker");
        }
    }

    @Test
    @Timeout(60)
    void shouldStartNoNetworkThreadWhenTheCommandThreadRunsTheNetwork() {
        try (PlainHost host = PlainHost.start(Options.parse().fabric(), Threading.INVOKER)) {
            assertThat(host.threading()).isEqualTo(Threading.INVOKER);
            assertThat(networkThreads()).isEmpty();
            new PingPongCommand(cli.out, Transport.RC, 64, 100).run(host);
            assertThat(networkThreads()).isEmpty();
        }
        // the same check finds the thread that shared threading starts
        try (PlainHost host = PlainHost.start(Options.parse().fabric(), Threading.SHARED)) {
            new PingPongCommand(cli.out, Transport.RC, 64, 100).run(host);
            assertThat(networkThreads()).contains(PlainHost.NETWORK_THREAD + host.fabric().name());
        }
        assertThat(cli.out()).contains("100 iters in");
    }

    /** @return the names of the live threads that are a simulated network's */
    private static List<String> networkThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.startsWith(PlainHost.NETWORK_THREAD)).toList();
    }

    /** @return the table rows of the output: lines that start with a space and a number */
    private List<String> rows() {
        return cli.out().lines().filter(l -> l.matches(" \\d+ .*")).toList();
    }

    /** @return the {@code trace_hash} line of a {@code stat} run */
    private String traceHash(String... args) {
        cli.reset();
        assertThat(cli.run(args)).as(cli.err()).isZero();
        return cli.out().lines().filter(l -> l.trim().startsWith("trace_hash")).findFirst()
                .orElseThrow(() -> new AssertionError("no trace_hash in " + cli.out()));
    }

    /**
     * Runs {@code run} (whose last argument is the seed, 11) {@code times} times in this JVM, then once with seed 12:
     * every run of seed 11 gives the first one's trace, seed 12 another.
     */
    private void assertReplays(int times, String... run) {
        String first = traceHash(run);
        for (int i = 2; i <= times; i++) {
            assertThat(traceHash(run)).as("run %d of seed 11", i).isEqualTo(first);
        }
        String[] other = run.clone();
        other[other.length - 1] = "12";
        assertThat(traceHash(other)).as("seed 12").isNotEqualTo(first);
    }

    @Test
    @Timeout(120)
    void shouldGiveTheSameTraceForTheSameSeedWhenTheCommandThreadDrivesVirtualTime() {
        assertReplays(2, "stat", "--no-osgi", "--deterministic", "--threading", "invoker", "--loss", "0.05", "--dup",
                "0.02", "--reorder", "0.02", "-n", "60", "--seed", "11");
    }

    // --no-osgi's default (the progress hook): the command's polls drive virtual time, each at most 32 units of work
    // (Fabric.DETERMINISTIC_POLL_BUDGET); with the hook's 256 a poll ran virtual time past the CM's response timeout
    // before the command took its own request in, so that --no-osgi kept invoker as its deterministic default.
    // Three times in one JVM: nothing of a run changes the next one's trace (the HCAs' GUIDs come from the fabric's
    // seed and their names, not from a JVM-wide count).
    @Test
    @Timeout(120)
    void shouldGiveTheSameTraceForTheSameSeedInOneJvmWhenThePollsDriveVirtualTimeWithoutOsgi() {
        assertReplays(3, "stat", "--no-osgi", "--deterministic", "--loss", "0.05", "--dup", "0.02", "--reorder",
                "0.02", "-n", "60", "--seed", "11");
        assertThat(cli.out()).contains("driver-sim on fabric").doesNotContain("--threading");
    }

    // Under Felix (the default host) the application's polls drive virtual time through the progress hook, and the
    // host runs rvt-cm on the fabric's virtual time: the same seed gives the same trace, connection included.
    @Test
    @Timeout(180)
    void shouldGiveTheSameTraceForTheSameSeedUnderFelixWhenThePollsDriveVirtualTime() {
        assertReplays(2, "stat", "--deterministic", "--loss", "0.05", "-n", "60", "--seed", "11");
    }
}
