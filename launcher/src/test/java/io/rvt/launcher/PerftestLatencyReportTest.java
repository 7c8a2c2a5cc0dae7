package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** perftest's latency reporting variants on {@code rvt perf}: {@code -C}, {@code -H}, {@code -U}. */
class PerftestLatencyReportTest {
    private final CommandLine cli = new CommandLine();

    /** -U lists the samples as taken, -H the same sorted, then the dashed line and header again, then the row. */
    @Test
    @Timeout(120)
    void shouldListEverySampleUnsortedThenSortedBeforeTheRow() {
        assertThat(cli.run("perf", "--no-osgi", "--test", "ib_send_lat", "-s", "64", "-n", "30", "-U", "-H"))
                .as(cli.err()).isZero();
        List<String> lines = cli.out().lines().toList();
        int first = lines.indexOf("#, usec");
        int second = lines.lastIndexOf("#, usec");
        assertThat(first).as(cli.out()).isPositive().isLessThan(second);
        List<Double> unsorted = values(lines.subList(first + 1, second));
        int end = second + 1;
        while (lines.get(end).matches("\\d+, .*")) {
            end++;
        }
        List<Double> sorted = values(lines.subList(second + 1, end));
        assertThat(unsorted).hasSize(30).containsExactlyInAnyOrderElementsOf(sorted);
        assertThat(sorted).isSorted();
        assertThat(lines.get(end)).isEqualTo(PerfTable.LINE);
        assertThat(lines.get(end + 1)).startsWith(" #bytes").contains("t_min[usec]");
        String[] row = lines.get(end + 2).trim().split("\\s+");
        assertThat(row[0]).isEqualTo("64");
        assertThat(Double.parseDouble(row[2])).isCloseTo(sorted.get(0), org.assertj.core.data.Offset.offset(0.006));
        assertThat(Double.parseDouble(row[3])).isCloseTo(sorted.get(29), org.assertj.core.data.Offset.offset(0.006));
    }

    /** -C: every figure in ticks of rvt's clock (System.nanoTime, 1 ns), said in the test-info block. */
    @Test
    @Timeout(120)
    void shouldReportCyclesAsNanosecondTicksOfRvtsClock() {
        assertThat(cli.run("perf", "--no-osgi", "--test", "ib_read_lat", "-s", "64", "-n", "20", "-C", "-H"))
                .as(cli.err()).isZero();
        List<String> lines = cli.out().lines().toList();
        assertThat(lines).contains(LatencyReport.CYCLES_LINE, "#, cycles");
        int at = lines.indexOf("#, cycles");
        List<Double> ticks = values(lines.subList(at + 1, at + 21));
        String[] row = lines.stream().filter(l -> l.startsWith(" 64 ")).findFirst().orElseThrow().trim()
                .split("\\s+");
        // whole ns ticks: the row's t_min is the first sorted sample, a whole number of ns
        assertThat(Double.parseDouble(row[2])).isEqualTo(ticks.get(0)).isEqualTo(Math.rint(ticks.get(0)));
        // a READ over the simulated fabric takes more than 100 ns: in usec the figure would be below 1
        assertThat(ticks.get(0)).isGreaterThan(100);
    }

    @Test
    void shouldTakeTheFlagsOnLatencyTestsOnlyAsPerftestDoes() {
        assertThat(Options.parse("perf", "--lat", "-C", "-H", "-U").latencyReport())
                .isEqualTo(new LatencyReport(true, true, true));
        assertThat(Options.parse("perf", "--lat", "--report-cycles", "--report-histogram", "--report-unsorted")
                .latencyReport()).isEqualTo(new LatencyReport(true, true, true));
        assertThat(Options.parse("perf").latencyReport()).isEqualTo(LatencyReport.DEFAULT);
        for (String f : List.of("-C", "-H", "-U")) {
            cli.assertUsage(" applies to latency tests, not to --bw", "perf", "--no-osgi", "--test", "ib_write_bw",
                    f);
        }
    }

    /** -I: asked of the QPs; rvt's have no inline data (rdmavt's max_inline_data 0), said in perftest's line. */
    @Test
    @Timeout(120)
    void shouldAskTheQpsForInlineDataAndSayWhatTheyHaveAsPerftestDoes() {
        assertThat(cli.run("perf", "--no-osgi", "--test", "ib_send_bw", "-s", "64", "-n", "100", "-I", "128"))
                .as(cli.err()).isZero();
        assertThat(cli.out()).contains("  Actual inline-size(0) < requested inline-size(128)" + System.lineSeparator());
        assertThat(cli.out().lines().filter(l -> l.startsWith(" 64 ")).count()).isOne();
        cli.reset();
        assertThat(cli.run("perf", "--no-osgi", "--test", "ib_read_lat", "-s", "64", "-n", "10", "--inline_size=64"))
                .as(cli.err()).isZero();
        assertThat(cli.out()).doesNotContain("inline-size"); // READ posts no data: perftest asks none
        assertThat(Options.parse("perf", "--test", "write", "-I", "1024").inlineSize()).isEqualTo(1024);
        assertThat(Options.parse("perf", "--test", "atomic", "-I", "64").inlineSize()).isZero();
        assertThat(Options.parse("perf").inlineSize()).isZero();
        cli.assertUsage("option --inline_size: 1025 is not an inline size (0 to 1024, perftest's MAX_INLINE)",
                "perf", "-I", "1025");
    }

    @Test
    void shouldFormatSamplesAsCsPercentG() {
        assertThat(LatencyReport.g(1.5)).isEqualTo("1.5");
        assertThat(LatencyReport.g(12.3456789)).isEqualTo("12.3457");
        assertThat(LatencyReport.g(1234567)).isEqualTo("1.23457e+06");
        assertThat(LatencyReport.g(123456)).isEqualTo("123456");
        assertThat(LatencyReport.g(0.00001234)).isEqualTo("1.234e-05");
        assertThat(LatencyReport.g(0.0001)).isEqualTo("0.0001");
        assertThat(LatencyReport.g(2000)).isEqualTo("2000");
        assertThat(LatencyReport.g(0)).isEqualTo("0");
    }

    private static List<Double> values(List<String> lines) {
        List<Double> v = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String[] p = lines.get(i).split(", ");
            assertThat(p[0]).isEqualTo(Integer.toString(i + 1));
            v.add(Double.parseDouble(p[1]));
        }
        return v;
    }
}
