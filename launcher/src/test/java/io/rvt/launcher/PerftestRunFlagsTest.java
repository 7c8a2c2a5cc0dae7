package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * perftest's flags of how a test runs, taken with perftest's meaning (issue 26, item 3): {@code --retry_count} and the
 * software rate limiter ({@code --rate_limit}, {@code --rate_units}, {@code --burst_size}, {@code --rate_limit_type}).
 */
class PerftestRunFlagsTest {
    private final CommandLine cli = new CommandLine();

    @Test
    void shouldTakeTheRetryCountIntoTheLinkOptions() {
        assertThat(Options.parse("perf", "--retry_count", "3").link().retryCount()).isEqualTo(3);
        assertThat(Options.parse("perf", "--retry_count=0").link().retryCount()).isZero();
        assertThat(Options.parse("perf").link().retryCount()).isEqualTo(LinkOptions.DEFAULT_RETRY_COUNT);
        cli.assertUsage("option --retry_count: 8 is not a retry count (0 to 7", "perf", "--retry_count", "8");
        cli.assertUsage("option --retry_count: -1 is not a retry count", "perf", "--retry_count", "-1");
        cli.assertUsage("option --retry_count does not apply to 'pingpong'", "pingpong", "--retry_count", "3");
    }

    @Test
    @Timeout(120)
    void shouldRunRcRowsWithTheRetryCountGiven() {
        assertThat(cli.run("perf", "--no-osgi", "--test", "ib_write_bw", "-s", "4096", "-n", "200",
                "--retry_count", "2")).as(cli.err()).isZero();
        assertThat(cli.out().lines().filter(l -> l.startsWith(" 4096 ")).toList()).singleElement();
    }

    @Test
    void shouldReadTheRateLimiterAsPerftestDoes() {
        RateLimit g = Options.parse("perf", "--rate_limit", "2.5").rateLimit();
        assertThat(g).isEqualTo(new RateLimit(2.5, 'g', 128)); // Gb/sec, bursts of the TX depth
        assertThat(g.packetsPerSecond(1000)).isEqualTo(312_500); // 2.5e9 / 8000
        assertThat(Options.parse("perf", "--rate_limit=100", "--rate_units=M", "--burst_size=10", "-t", "64",
                "--rate_limit_type", "SW").rateLimit()).isEqualTo(new RateLimit(100, 'M', 10));
        RateLimit p = Options.parse("perf", "--rate_limit", "2000", "--rate_units", "p", "--burst_size", "10")
                .rateLimit();
        assertThat(p.packetsPerSecond(65536)).isEqualTo(2000);
        assertThat(p.gapNanos(65536)).isEqualTo(5_000_000); // 10 per burst, 200 bursts a second
        assertThat(new RateLimit(100, 'M', 10).packetsPerSecond(65536)).isEqualTo(1600); // 100 MiB / 64 KiB
        assertThat(Options.parse("perf").rateLimit()).isNull();
    }

    @Test
    void shouldRefuseWhatPerftestsRateLimiterRefusesAndTheHardwareOnes() {
        cli.assertUsage("option --rate_limit_type HW is refused: a NIC's rate limiter", "perf", "--rate_limit", "1",
                "--rate_limit_type", "HW");
        assertThat(cli.err().lines().count()).isOne();
        cli.assertUsage("option --rate_limit_type PP is refused: a NIC's rate limiter", "perf", "--rate_limit", "1",
                "--rate_limit_type", "PP");
        cli.assertUsage("option --rate_limit_type: 'XX' is not HW, SW or PP", "perf", "--rate_limit", "1",
                "--rate_limit_type", "XX");
        cli.assertUsage("option --rate_units: 'G' is not M (MB/sec), g (Gb/sec) or p", "perf", "--rate_limit", "1",
                "--rate_units", "G");
        cli.assertUsage("option --rate_limit: 0 is not a rate (above 0)", "perf", "--rate_limit", "0");
        for (String f : List.of("--burst_size", "--rate_units", "--rate_limit_type")) {
            cli.assertUsage("option " + f + " applies to the rate limiter: give --rate_limit", "perf", f,
                    f.equals("--burst_size") ? "4" : f.equals("--rate_units") ? "M" : "SW");
        }
        cli.assertUsage("not latency ones (perftest's rule)", "perf", "--test", "ib_write_lat", "--rate_limit", "1");
        cli.assertUsage("not atomic ones", "perf", "--test", "ib_atomic_bw", "--rate_limit", "1");
        cli.assertUsage("not bidirectional SEND ones", "perf", "--test", "ib_send_bw", "-b", "--rate_limit", "1");
    }

    /**
     * 200 WRITEs of 64 KiB limited to 1600 a second (100 MB/sec) in bursts of 10: the bursts start 6.25 ms apart, so
     * the 20th starts 118.75 ms after the first and the row cannot beat 200 / 118.75 ms (105 MB/sec, 1684 a second);
     * unlimited the same row runs far faster. A bound load cannot break: a busy machine only makes the row slower.
     */
    @Test
    @Timeout(120)
    void shouldKeepABandwidthRowUnderTheSoftwareRateLimit() {
        assertThat(cli.run("perf", "--no-osgi", "--test", "ib_write_bw", "-s", "65536", "-n", "200", "--rate_limit",
                "100", "--rate_units", "M", "--burst_size", "10")).as(cli.err()).isZero();
        String row = cli.out().lines().filter(l -> l.startsWith(" 65536 ")).findFirst().orElseThrow();
        String[] f = row.trim().split("\\s+");
        assertThat(Double.parseDouble(f[3])).as(row).isPositive().isLessThanOrEqualTo(100.0 * 20 / 19);
        assertThat(Double.parseDouble(f[4])).as(row).isLessThanOrEqualTo(1600.0 * 20 / 19 / 1e6);
    }

    /**
     * perftest's -e in one process: the requester's send CQ is on a completion channel, and a row that finds nothing
     * to poll waits for its event; a SEND row of 2000 completes every message, and the CQ gave events (a row that
     * never waited would give none: at least one wait is certain, the first completion is never there at once).
     */
    @Test
    @Timeout(120)
    void shouldWaitOnTheSendCqsCompletionChannelWithEvents() throws Exception {
        assertThat(Options.parse("perf", "-e", "--test", "ib_send_bw").events).isTrue();
        try (PlainHost host = PlainHost.start(Options.parse().fabric(), Threading.PROGRESS)) {
            PerfSpec spec = new PerfSpec(PerfTest.SEND, Transport.RC, false, new int[] {4096}, 1, 2000, 0, 128);
            try (Progress progress = new Progress(System.err, false);
                    PerfRunner runner = new PerfRunner(host, host.devices().get(0), host.devices().get(1), spec,
                            4096, progress, LinkOptions.DEFAULT, Options.DEFAULT_CM_PORT, true)) {
                assertThat(runner.bandwidth(4096).iterations()).isEqualTo(2000);
                assertThat(runner.sendEvents()).isPositive();
            }
            try (Progress progress = new Progress(System.err, false);
                    PerfRunner runner = new PerfRunner(host, host.devices().get(0), host.devices().get(1), spec,
                            4096, progress)) {
                assertThat(runner.sendEvents()).isEqualTo(-1);
            }
        }
        assertThat(cli.run("perf", "--no-osgi", "--test", "ib_read_bw", "-s", "4096", "-n", "300", "-e"))
                .as(cli.err()).isZero();
        assertThat(cli.out().lines().filter(l -> l.startsWith(" 4096 ")).toList()).singleElement();
    }

    /**
     * perftest's -e on latency rows in one process: the ping-pong waits for its CQ's completion event where it would
     * spin (run_iter_lat_send's receive CQs, run_iter_lat's send CQ), so a SEND row's receive CQ and a READ row's send
     * CQ give events (a busy-polling row gives none: the reply is never there at the first poll); and from the command
     * line, a SEND and an atomic latency row.
     */
    @Test
    @Timeout(120)
    void shouldWaitOnCompletionEventsInLatencyRows() throws Exception {
        assertThat(Options.parse("perf", "-e", "--test", "ib_send_lat").events).isTrue();
        // the network on threads of its own: a poll does not move it, so a reply is never there at the first poll
        try (PlainHost host = PlainHost.start(Options.parse().fabric(), Threading.DEDICATED)) {
            for (PerfTest test : List.of(PerfTest.SEND, PerfTest.READ)) {
                PerfSpec spec = new PerfSpec(test, Transport.RC, true, new int[] {64}, 1, 200, 0, 1);
                try (Progress progress = new Progress(System.err, false);
                        PerfRunner runner = new PerfRunner(host, host.devices().get(0), host.devices().get(1), spec,
                                64, progress, LinkOptions.DEFAULT, Options.DEFAULT_CM_PORT, true)) {
                    assertThat(runner.latency(64).iterations()).isEqualTo(200);
                    assertThat(test == PerfTest.SEND ? runner.recvEvents() : runner.sendEvents()).as("%s", test)
                            .isPositive();
                }
            }
        }
        for (String test : List.of("ib_send_lat", "ib_atomic_lat")) {
            CommandLine one = new CommandLine();
            assertThat(one.run("perf", "--no-osgi", "--test", test, "-n", "100", "-e")).as(one.err()).isZero();
            assertThat(one.out().lines().filter(l -> l.matches(" \\d+ +100 .*")).toList()).as(one.out())
                    .singleElement();
        }
    }

    @Test
    void shouldRefuseEventsWherePerftestOrRvtHasNone() {
        cli.assertUsage("option --events: perftest's events are not available on WRITE tests", "perf",
                "--test", "ib_write_bw", "-e");
        cli.assertUsage("option --events: perftest's events are not available on WRITE tests", "perf",
                "--test", "ib_write_lat", "-e");
        cli.assertUsage("option --vector is refused: rvt's completion queues have one completion vector", "perf",
                "-X", "1");
    }

    @Test
    void shouldRefuseRunningInfinitelyWherePerftestOrRvtDoes() {
        Options o = Options.parse("perf", "--test", "ib_write_bw", "--run_infinitely");
        assertThat(o.runInfinitely).isTrue();
        assertThat(o.durationSeconds).isEqualTo(5); // perftest's DEF_DURATION
        assertThat(o.perftestFlags().noPeak()).isTrue();
        assertThat(Options.parse("perf", "--run_infinitely", "-D", "2").durationSeconds).isEqualTo(2);
        cli.assertUsage("option --run_infinitely runs only in bandwidth tests", "perf", "--test", "ib_send_lat",
                "--run_infinitely");
        cli.assertUsage("option --run_infinitely does not support events", "perf", "--test", "ib_send_bw", "-e",
                "--run_infinitely");
        cli.assertUsage("option --run_infinitely does not support the rate limiter", "perf", "--rate_limit", "1",
                "--run_infinitely");
        cli.assertUsage("option --run_infinitely is not supported in bidirectional SEND", "perf", "-b",
                "--run_infinitely");
        cli.assertUsage("option --run_infinitely prints a row every -D SECONDS: -n does not apply", "perf", "-n",
                "10", "--run_infinitely");
        cli.assertUsage("option --run_infinitely with -b between two processes is not built", "--driver", "jni",
                "perf", "--server", "--test", "ib_write_bw", "-b", "--run_infinitely");
        cli.assertUsage("option --run_infinitely with -g (multicast) between two processes is not built", "--driver",
                "jni", "perf", "--server", "-g", "--run_infinitely");
        assertThat(Options.parse("--driver", "jni", "perf", "--server", "--test", "ib_read_bw", "--run_infinitely")
                .runInfinitely).isTrue();
    }

    /**
     * --run_infinitely -D 1 in a process of its own: it prints a row every second; the test waits (a condition with a
     * deadline) until three rows are out, kills the process and checks the rows: each of the one size, with messages,
     * its peak 0.00 (perftest's run has none), and the process ended by the kill, not by itself.
     */
    @Test
    @Timeout(180)
    void shouldPrintARowEveryDurationUntilKilled() throws Exception {
        try (RvtProcess p = RvtProcess.start("infinite", null, "--no-osgi", "perf", "--test", "ib_write_bw", "-s",
                "4096", "-D", "1", "--run_infinitely")) {
            java.util.regex.Pattern row = java.util.regex.Pattern.compile("(?m)^ 4096 +(\\d+) +([0-9.]+) +([0-9.]+) "
                    + "+([0-9.]+)$");
            long deadline = System.nanoTime() + 150_000_000_000L;
            List<String[]> rows = List.of();
            while (rows.size() < 3) {
                assertThat(System.nanoTime() - deadline).as("three rows within 150 s: " + p.out()).isNegative();
                assertThat(p.isAlive()).as("still running: " + p.out() + p.stderr()).isTrue();
                p.awaitOutput(1_000);
                java.util.regex.Matcher m = row.matcher(p.out());
                List<String[]> found = new java.util.ArrayList<>();
                while (m.find()) {
                    found.add(new String[] {m.group(1), m.group(2), m.group(3)});
                }
                rows = found;
            }
            assertThat(p.isAlive()).isTrue();
            p.kill();
            assertThat(p.exitCode()).as("killed, not ended by itself").isNotZero();
            for (String[] r : rows) {
                assertThat(Long.parseLong(r[0])).isPositive();
                assertThat(r[1]).isEqualTo("0.00");
                assertThat(Double.parseDouble(r[2])).isPositive();
            }
        }
    }

    /**
     * --run_infinitely -D 1 between two rvt processes (driver-jni on loopback addresses of this test's own, perftest's
     * TCP exchange on a free port), ib_write_bw: the client prints a row every second; at its signal (SIGTERM here,
     * Ctrl-C's SIGINT alike: the JVM's shutdown) it stops at the end of the row, prints " User stopped traffic" and
     * makes the closing exchanges, and the server, which printed no row, prints " Client closed connection" and exits
     * 0, as perftest's write_bw server does.
     */
    @Test
    @Timeout(240)
    void shouldStopAWriteSenderAtItsSignalAndEndThePassiveSide() throws Exception {
        String net = "127.18." + ProcessHandle.current().pid() % 250 + ".";
        String port = Integer.toString(RemotePerfProtocolTest.freePort());
        String[] test = {"--test", "ib_write_bw", "-s", "4096", "-D", "1", "--run_infinitely", "-p", port};
        try (RvtProcess server = RvtProcess.start("server", null, concat(new String[] {"--driver", "jni", "--no-osgi",
                "--address", net + "1", "perf", "--server"}, test))) {
            server.awaitLine("waiting for a client");
            try (RvtProcess client = RvtProcess.start("client", null, concat(new String[] {"--driver", "jni",
                    "--no-osgi", "--address", net + "2", "perf", net + "1"}, test))) {
                java.util.regex.Pattern row = java.util.regex.Pattern.compile("(?m)^ 4096 +(\\d+) +0\\.00 ");
                long deadline = System.nanoTime() + 150_000_000_000L;
                while (row.matcher(client.out()).results().count() < 2) {
                    assertThat(System.nanoTime() - deadline).as("two rows within 150 s: " + client.out()).isNegative();
                    assertThat(client.isAlive()).as("the client runs: " + client.out() + client.stderr()).isTrue();
                    client.awaitOutput(1_000);
                }
                client.terminate();
                client.exitCode();
                assertThat(client.out()).as(client.out() + client.stderr()).contains(" User stopped traffic");
                assertThat(row.matcher(client.out()).results().map(m -> Long.parseLong(m.group(1))))
                        .allMatch(n -> n > 0);
            }
            assertThat(server.exitCode()).as(server.out() + server.stderr()).isZero();
            assertThat(server.out()).contains(" Client closed connection").doesNotContainPattern("(?m)^ 4096 ");
        }
    }

    @Test
    void shouldTakeASharedReceiveQueueWherePerftestAndRvtHaveOne() {
        assertThat(Options.parse("--driver", "jni", "perf", "--server", "--test", "ib_send_bw", "--use-srq").useSrq)
                .isTrue();
        String[] jni = {"--driver", "jni", "--address", "127.0.0.2", "perf", "127.0.0.3", "--use-srq"};
        cli.assertUsage("option --use-srq applies to SEND tests, not write (perftest's rule)", concat(jni, "--test",
                "ib_write_bw"));
        cli.assertUsage("option --use-srq on latency tests is not built", concat(jni, "--test", "ib_send_lat"));
        cli.assertUsage("option --use-srq with -b is not built", concat(jni, "--test", "ib_send_bw", "-b"));
        cli.assertUsage("option --use-srq over UD is not built", concat(jni, "--test", "ib_send_bw", "-c", "UD"));
        cli.assertUsage("option --use-srq applies to the receiving side between two processes", "perf", "--test",
                "ib_send_bw", "--use-srq");
    }

    private static String[] concat(String[] a, String... b) {
        String[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
