package io.rvt.launcher;

import static io.rvt.launcher.MiniJson.map;
import static io.rvt.launcher.MiniJson.parseFile;
import static io.rvt.launcher.MiniJson.tests;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code rvt perf} run in process: perftest's tables and JSON fields, every test and transport, the errors. */
class PerfCommandTest {
    private static final List<String> BW_FIELDS = List.of("MsgSize", "n_iterations", "BW_peak", "BW_average",
            "MsgRate");
    private static final List<String> LAT_FIELDS = List.of("MsgSize", "n_iterations", "t_min", "t_max",
            "t_typical", "t_avg", "t_stdev", "percentile_99", "percentile_99.9");

    private final CommandLine cli = new CommandLine();

    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void shouldPrintBandwidthTableAndWritePerftestJsonWhenMeasuringSendBandwidth() throws IOException {
        Path json = dir.resolve("send.json");
        assertThat(cli.run("perf", "--no-osgi", "--test", "send", "-s", "64", "-n", "300", "--json", json.toString()))
                .isZero();
        assertThat(cli.out()).contains("Send BW Test", " #bytes    #iterations    BW peak[MiB/sec]    "
                + "BW average[MiB/sec]    MsgRate[Mpps]", "TX depth        : 128", "a simulated device: driver-sim");
        assertThat(rows()).hasSize(1);
        assertThat(rows().get(0)).startsWith(" 64        300 ");
        Map<String, Object> doc = parseFile(json);
        assertThat(doc).containsEntry("simulated", true).containsKey("measured_on");
        Map<String, Object> test = tests(doc).get(0);
        Map<String, Object> info = map(test.get("test_info"));
        assertThat(info).containsEntry("test", "Send_BW_Test").containsEntry("Connection_type", "RC")
                .containsEntry("Number_of_qps", 1.0).containsEntry("TX_depth", 128.0).containsEntry("Mtu", 4096.0);
        Map<String, Object> result = map(((List<?>) test.get("results")).get(0));
        assertThat(result).containsOnlyKeys(BW_FIELDS).containsEntry("MsgSize", 64.0)
                .containsEntry("n_iterations", 300.0);
        assertThat((Double) result.get("BW_average")).isPositive();
        assertThat((Double) result.get("BW_peak")).isGreaterThanOrEqualTo((Double) result.get("BW_average"));
    }

    @Test
    @Timeout(120)
    void shouldPrintLatencyTableWithPerftestColumnsWhenMeasuringWriteLatency() throws IOException {
        Path json = dir.resolve("lat.json");
        assertThat(cli.run("perf", "--no-osgi", "--test", "write", "--lat", "-s", "8", "-n", "200",
                "--json", json.toString())).isZero();
        assertThat(cli.out()).contains("RDMA_Write Latency Test", " #bytes    #iterations    t_min[usec]    "
                + "t_max[usec]    t_typical[usec]    t_avg[usec]    t_stdev[usec]    99% percentile[usec]    "
                + "99.9% percentile[usec]");
        Map<String, Object> result = map(((List<?>) tests(parseFile(json)).get(0).get("results")).get(0));
        assertThat(result).containsOnlyKeys(LAT_FIELDS).containsEntry("n_iterations", 200.0);
        double min = (Double) result.get("t_min");
        assertThat(min).isPositive();
        assertThat((Double) result.get("t_typical")).isBetween(min, (Double) result.get("t_max"));
        assertThat((Double) result.get("percentile_99.9")).isGreaterThanOrEqualTo((Double) result.get(
                "percentile_99"));
    }

    @Test
    @Timeout(180)
    void shouldRunEveryTestOverEveryTransportItAllows() {
        String[][] lines = {
            {"--test", "send", "--transport", "uc", "-n", "100"},
            {"--test", "send", "--transport", "ud", "-s", "2048", "-n", "100"},
            {"--test", "write", "--transport", "uc", "-n", "100"},
            {"--test", "read", "-n", "100"},
            {"--test", "atomic", "-n", "100"},
            {"--test", "send", "--lat", "--transport", "ud", "-s", "512", "-n", "50"},
            {"--test", "send", "--lat", "--transport", "uc", "-n", "50"},
            {"--test", "write", "--lat", "--transport", "uc", "-s", "100", "-n", "50"},
            {"--test", "read", "--lat", "-s", "4096", "-n", "50"},
            {"--test", "atomic", "--lat", "-n", "50"},
        };
        for (String[] line : lines) {
            cli.reset();
            String[] args = new String[line.length + 2];
            args[0] = "perf";
            args[1] = "--no-osgi";
            System.arraycopy(line, 0, args, 2, line.length);
            assertThat(cli.run(args)).as(String.join(" ", line) + "\n" + cli.err()).isZero();
            assertThat(rows()).as(String.join(" ", line)).hasSize(1);
        }
    }

    @Test
    @Timeout(180)
    void shouldMeasureEveryPowerOfTwoUpTo8MiBWhenAskedForAll() {
        assertThat(cli.run("perf", "--no-osgi", "--test", "write", "--all", "-n", "2")).isZero();
        List<String> rows = rows();
        assertThat(rows).hasSize(23);
        assertThat(rows.get(0)).startsWith(" 2 ");
        assertThat(rows.get(22)).startsWith(" 8388608 ");
    }

    @Test
    @Timeout(120)
    void shouldCountEveryQpsIterationsAndStopTimedRows() {
        assertThat(cli.run("perf", "--no-osgi", "--test", "write", "-s", "1024", "-q", "4", "-n", "150")).isZero();
        assertThat(cli.out()).contains("Number of qps   : 4");
        assertThat(rows().get(0)).startsWith(" 1024      600 ");
        cli.reset();
        assertThat(cli.run("perf", "--no-osgi", "--test", "send", "-D", "0.2")).isZero();
        assertThat(iterations(rows().get(0))).isPositive();
    }

    @Test
    @Timeout(120)
    void shouldMeasureATimedRowBetweenPerftestsMarginsAndCountWhatItDidNotMeasure() {
        // -D 4: perftest's margin is 1 s at each end, so 2 s of the 4 are measured
        assertThat(cli.run("perf", "--no-osgi", "--threading", "invoker", "--test", "write", "-s", "4096", "-D", "4"))
                .isZero();
        Matcher m = Pattern.compile("Not measured    : (\\d+) warm-up messages; (\\d+) in the margins \\(the first "
                + "and last 1 s of each row, perftest's --margin\\)").matcher(cli.out());
        assertThat(m.find()).as(cli.out()).isTrue();
        long warmUp = Long.parseLong(m.group(1));
        long margins = Long.parseLong(m.group(2));
        long measured = iterations(rows().get(0));
        assertThat(warmUp).isPositive();
        assertThat(measured).isPositive();
        // two of the four seconds in the margins: the margins hold about as many messages as the measured part
        // (generous bounds: the JIT and a loaded machine change the pace within a run)
        assertThat(margins).as(cli.out()).isBetween(measured / 4, measured * 4);
    }

    @Test
    @Timeout(120)
    void shouldRunEachTestOfTheDefaultSweepWhenGivenNoOptions() throws IOException {
        Path json = dir.resolve("sweep.json");
        assertThat(cli.run("perf", "--no-osgi", "--json", json.toString())).isZero();
        assertThat(cli.out()).contains("a short sweep", "Send BW Test", "RDMA_Write BW Test", "RDMA_Read BW Test",
                "Atomic FETCH_AND_ADD BW Test", "Send Latency Test", "RDMA_Write Latency Test",
                "RDMA_Read Latency Test", "Atomic FETCH_AND_ADD Latency Test");
        assertThat(tests(parseFile(json))).hasSize(PerfCommand.defaultSweep().size());
        for (String row : rows()) {
            assertThat(iterations(row)).as(row).isPositive();
        }
    }

    @Test
    void shouldRefuseImpossiblePerfCommandLines() {
        cli.assertUsage("the read test does not run over ud (it runs over rc)", "perf", "--no-osgi", "--test",
                "read", "--transport", "ud");
        cli.assertUsage("option --qps applies to bandwidth tests", "perf", "--no-osgi", "--lat", "-q", "2");
        cli.assertUsage("atomic operations are 8 bytes, not 16", "perf", "--no-osgi", "--test", "atomic", "-s", "16");
        cli.assertUsage("options --bw and --lat exclude each other", "perf", "--bw", "--lat");
        cli.assertUsage("options --iters and --duration exclude each other", "perf", "-n", "5", "-D", "1");
        cli.assertUsage("options --all and --size exclude each other", "perf", "-a", "-s", "64");
        cli.assertUsage("8192 bytes do not fit one UD datagram", "perf", "--no-osgi", "--transport", "ud", "-s",
                "8192");
        cli.assertUsage("option --size: 0 is not a message size", "perf", "-s", "0");
        cli.assertUsage("option --duration: 0 is not a duration", "perf", "-D", "0");
        cli.assertUsage("unknown test 'flush'", "perf", "--test", "flush");
        cli.assertUsage("option --json: cannot write", "perf", "--no-osgi", "--json",
                dir.resolve("missing/dir/x.json").toString());
    }

    /** @return the table rows of the output: lines that start with a space and a number */
    private List<String> rows() {
        return cli.out().lines().filter(l -> l.matches(" \\d+ .*")).toList();
    }

    private static long iterations(String row) {
        Matcher m = Pattern.compile(" \\d+\\s+(\\d+) ").matcher(row);
        assertThat(m.find()).as(row).isTrue();
        return Long.parseLong(m.group(1));
    }
}
