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

/** perftest's and ibv_rc_pingpong's flags on {@code rvt perf} and {@code rvt pingpong}, their help and refusals. */
class PerftestFlagsTest {
    private static final List<String> BW_FIELDS = List.of("MsgSize", "n_iterations", "BW_peak", "BW_average",
            "MsgRate");

    private final CommandLine cli = new CommandLine();

    @TempDir
    Path dir;

    @Test
    void shouldReadEveryPerftestFlagInShortAndLongForm() {
        Options s = Options.parse("perf", "-d", "sim1", "-i", "1", "-s", "64", "-n", "16", "-q", "2", "-c", "UC",
                "-t", "64", "-Q", "8", "-l", "16", "-m", "1024", "-x", "0", "-p", "20000", "-b", "--report_gbits",
                "-F", "-R", "--out_json", "--test", "write");
        Options l = Options.parse("perf", "--ib-dev=sim1", "--ib-port=1", "--size=64", "--iters=16", "--qp=2",
                "--connection=UC", "--tx-depth=64", "--cq-mod=8", "--post_list=16", "--mtu=1024", "--gid-index=0",
                "--port=20000", "--bidirectional", "--report_gbits", "--CPU-freq", "--rdma_cm",
                "--out_json_file=x.json", "--test=write");
        for (Options o : List.of(s, l)) {
            assertThat(o.ibDev).isEqualTo("sim1");
            assertThat(o.link()).isEqualTo(new LinkOptions(1, 1024, 0));
            assertThat(o.size).isEqualTo(64);
            assertThat(o.iters).isEqualTo(16);
            assertThat(o.qps).isEqualTo(2);
            assertThat(o.transport).isEqualTo(Transport.UC);
            assertThat(o.txDepth).isEqualTo(64);
            assertThat(o.cqMod).isEqualTo(8);
            assertThat(o.postList).isEqualTo(16);
            assertThat(o.cmPort).isEqualTo(20000);
            assertThat(o.bidirectional).isTrue();
            assertThat(o.reportGbits).isTrue();
            assertThat(o.outJson).isTrue();
            assertThat(o.test).isEqualTo(PerfTest.WRITE);
        }
        assertThat(s.outJsonFile).isEqualTo(Options.DEFAULT_JSON_FILE);
        assertThat(l.outJsonFile).isEqualTo("x.json");
        assertThat(Options.parse("perf", "-bF").bidirectional).isTrue(); // clustered flags, as getopt takes them
        assertThat(Options.parse("perf", "-s64").size).isEqualTo(64);
        assertThat(Options.parse("pingpong").cmPort).isEqualTo(Options.DEFAULT_CM_PORT);
        // the old names still work
        assertThat(Options.parse("perf", "--qps", "3", "--transport", "ud").qps).isEqualTo(3);
        assertThat(Options.parse("perf", "--transport", "ud").transport).isEqualTo(Transport.UD);
    }

    @Test
    void shouldReadPerftestsOtherFlagsWithTheirMeaningsInShortAndLongForm() {
        String[] jni = {"--driver", "jni", "--address", "127.0.0.2", "perf", "127.0.0.3", "--test", "ib_read_bw"};
        Options s = Options.parse(concat(jni, "-N", "-w", "10.5", "-y", "0.25", "-S", "3", "-L", "7", "--tclass",
                "32", "--flow_label", "0x12345", "-o", "4", "--wait_destroy", "1", "--use_old_post_send",
                "--pkey_index", "0", "--force-link", "Ethernet", "-r", "1"));
        Options l = Options.parse(concat(jni, "--noPeak", "--limit_bw=10.5", "--limit_msgrate=0.25", "--sl=3",
                "--hop_limit=7", "--tclass=32", "--flow_label=0x12345", "--outs=4", "--wait_destroy=1",
                "--rx-depth=1"));
        for (Options o : List.of(s, l)) {
            assertThat(o.perftestFlags()).isEqualTo(new PerftestFlags(true, 10.5, 0.25, 3, 7, 32, 0x12345, 4, 1, 1, 0, null));
        }
        assertThat(Options.parse("perf", "--test", "send").perftestFlags()).isEqualTo(PerftestFlags.DEFAULT);
        assertThat(Options.parse(concat(jni, "--test", "send", "-r", "64")).perftestFlags().rxDepth())
                .isEqualTo(64);
        assertThat(Options.parse("perf", "--test", "ib_atomic_bw", "-A", "FETCH_AND_ADD").test)
                .isEqualTo(PerfTest.ATOMIC);
        assertThat(Options.parse("perf", "--force-link", "IB").given).contains("--force-link");
        // --ipv6: the HCA's GID is an IPv6 address, ::1 unless --address says which
        assertThat(Options.parse("--driver", "jni", "perf", "--ipv6").addresses).containsExactly("::1", "::1");
        assertThat(Options.parse("--driver", "jni", "--address", "::2", "perf", "--server", "--ipv6").addresses)
                .containsExactly("::2", "::2");
        assertThat(cli.run("perf", "-V")).isZero();
        assertThat(cli.out()).startsWith("rvt ");
    }

    @Test
    void shouldRefusePerftestsOtherFlagsWherePerftestOrRvtDoes() {
        String[] jni = {"--driver", "jni", "--address", "127.0.0.2", "perf", "127.0.0.3"};
        cli.assertUsage("option --outs: outstanding reads apply to READ and atomic tests, not write", concat(jni,
                "--test", "write", "-o", "2"));
        cli.assertUsage("option --rx-depth: on RDMA write tests the RX depth can only be 1", concat(jni, "--test",
                "write", "-r", "8"));
        cli.assertUsage("option --atomic_type applies to atomic tests, not send", "perf", "-A", "FETCH_AND_ADD");
        cli.assertUsage("option --atomic_type: 'ADD' is not CMP_AND_SWAP or FETCH_AND_ADD", "perf", "--test",
                "atomic", "-A", "ADD");
        for (String f : List.of("-S", "-L", "--tclass", "--flow_label")) {
            cli.assertUsage(" applies between two processes over perftest's exchange", "perf", f, "1");
        }
        cli.assertUsage("option --hop_limit: 256 is not a hop limit (0 to 255)", concat(jni, "-L", "256"));
        cli.assertUsage("option --sl: 16 is not a service level (0 to 15)", concat(jni, "-S", "16"));
        cli.assertUsage("option --flow_label: 1048576 is not a flow label", concat(jni, "--flow_label", "1048576"));
        cli.assertUsage("option --limit_bw: -1 is not a bandwidth (0 or more)", "perf", "-w", "-1");
        cli.assertUsage("option --pkey_index: 1 is not a P_Key index of rvt's ports", "perf", "--pkey_index", "1");
        cli.assertUsage("option --force-link: 'IB' is not the link of --driver jni (Ethernet)", "--driver", "jni",
                "perf", "--force-link", "IB");
        cli.assertUsage("option --ipv6 applies to --driver jni", "perf", "--ipv6");
        cli.assertUsage("option --ipv6: --address 127.0.0.2 is IPv4", concat(jni, "--ipv6"));
        cli.assertUsage("option --noPeak applies to bandwidth tests, not to --lat", "perf", "--no-osgi", "--lat",
                "-N");
        cli.assertUsage("option --limit_bw applies to bandwidth tests, not to --lat", "perf", "--no-osgi", "--lat",
                "-w", "1");
    }

    /** Every flag the table refuses says so in one line naming it and why, as its help line does. */
    @Test
    void shouldRefuseEveryRefusedPerftestFlagWithItsHelpLine() {
        int refused = 0;
        for (OptionDef d : OptionDef.ALL) {
            if (!d.appliesTo("perf") || !d.help().startsWith("refused: ")) {
                continue;
            }
            String why = d.help().substring("refused: ".length());
            for (String name : d.names("perf")) {
                String[] args = d.flag() ? new String[] {"perf", name} : new String[] {"perf", name, "1"};
                cli.assertUsage("option " + d.name() + " is refused: " + why, args);
                assertThat(cli.err().lines().count()).as(String.join(" ", args)).isOne();
            }
            refused++;
        }
        assertThat(refused).isGreaterThanOrEqualTo(40); // 50 after -C, -H, -U, the rate limiter and --retry_count were taken
    }

    @Test
    @Timeout(120)
    void shouldFailARowBelowPerftestsLimitsAndPrintNoPeakWhenAsked() {
        assertThat(cli.run("perf", "--no-osgi", "--test", "ib_write_bw", "-s", "4096", "-n", "200", "-N", "-w",
                "0.001", "-y", "0.000001")).as(cli.err()).isZero();
        assertThat(cli.out().lines().filter(l -> l.startsWith(" 4096 ")).toList()).singleElement()
                .satisfies(l -> assertThat(l.trim().split("\\s+")[2]).isEqualTo("0.00"));
        cli.reset();
        assertThat(cli.run("perf", "--no-osgi", "--test", "ib_write_bw", "-s", "4096", "-n", "200", "-w",
                "100000000")).isEqualTo(1);
        assertThat(cli.err()).contains("BW result is below bw limit").contains("-w 100000000");
        assertThat(cli.out().lines().filter(l -> l.startsWith(" 4096 ")).toList()).singleElement()
                .satisfies(l -> assertThat(Double.parseDouble(l.trim().split("\\s+")[2])).isPositive());
        cli.reset();
        assertThat(cli.run("perf", "--no-osgi", "--test", "ib_send_bw", "-s", "64", "-n", "200", "--report_gbits",
                "-y", "1000000")).isEqualTo(1);
        assertThat(cli.err()).contains("Msg rate is below msg_rate limit");
    }

    @Test
    @Timeout(120)
    void shouldWaitPerftestsLatencyGapBeforeEachPostInsideTheSamples() {
        assertThat(Options.parse("perf", "--test", "ib_read_lat", "--latency_gap", "250").perftestFlags()
                .latencyGapMicros()).isEqualTo(250);
        cli.assertUsage("option --latency_gap applies to latency tests, not to --bw", "perf", "--no-osgi",
                "--test", "ib_read_bw", "--latency_gap", "10");
        cli.assertUsage("option --latency_gap: -1 is not microseconds", "perf", "--lat", "--latency_gap", "-1");
        // READ latency: one post per sample, each after a 20 ms gap, so no sample is shorter (a bound that load
        // cannot break: a busy machine only makes samples longer)
        assertThat(cli.run("perf", "--no-osgi", "--test", "ib_read_lat", "-s", "64", "-n", "10", "--latency_gap",
                "20000")).as(cli.err()).isZero();
        String row = cli.out().lines().filter(l -> l.startsWith(" 64 ")).findFirst().orElseThrow();
        assertThat(Double.parseDouble(row.trim().split("\\s+")[2])).as(row).isGreaterThanOrEqualTo(20000);
    }

    /** perftest's -A CMP_AND_SWAP: the atomic rows post compare-and-swap, and the title names it. */
    @Test
    @Timeout(120)
    void shouldRunCompareAndSwapAtomicRowsWhenAsked() {
        Options o = Options.parse("perf", "--test", "ib_atomic_lat", "-A", "CMP_AND_SWAP");
        PerfSpec s = new PerfSpec(o.test, o.transport, o.latency, new int[] {8}, 1, 10, 0, 1, 1, 1, false,
                o.cmpAndSwap);
        assertThat(s.opcode()).isEqualTo(io.rvt.api.WrOpcode.ATOMIC_CMP_AND_SWP);
        assertThat(s.title()).isEqualTo("Atomic CMP_AND_SWAP Latency Test");
        assertThat(Options.parse("perf", "--test", "ib_atomic_bw").cmpAndSwap).isFalse();
        for (String test : List.of("ib_atomic_bw", "ib_atomic_lat")) {
            cli.reset();
            assertThat(cli.run("perf", "--no-osgi", "--test", test, "-A", "CMP_AND_SWAP", "-n", "200"))
                    .as(cli.err()).isZero();
            assertThat(cli.out()).contains("Atomic CMP_AND_SWAP " + (test.endsWith("bw") ? "BW" : "Latency")
                    + " Test").doesNotContain("FETCH_AND_ADD");
            assertThat(cli.out().lines().filter(l -> l.startsWith(" 8 ")).toList()).singleElement()
                    .satisfies(l -> assertThat(Double.parseDouble(l.trim().split("\\s+")[3])).isPositive());
        }
    }

    /** perftest's --output: each row is that one figure ("%lf"), with no test-info block, header or footer. */
    @Test
    @Timeout(120)
    void shouldPrintOnlyTheFigureOutputNames() {
        String figure = "\\d+\\.\\d{6}";
        assertThat(cli.run("perf", "--no-osgi", "--test", "ib_write_bw", "-s", "4096", "-n", "200", "--output",
                "bandwidth")).as(cli.err()).isZero();
        assertThat(cli.out().lines().toList()).singleElement().asString().matches(figure)
                .satisfies(l -> assertThat(Double.parseDouble(l)).isPositive());
        cli.reset();
        assertThat(cli.run("perf", "--no-osgi", "--test", "ib_send_bw", "-s", "64", "-n", "200", "--output",
                "message_rate")).as(cli.err()).isZero();
        assertThat(cli.out().lines().toList()).singleElement().asString().matches(figure);
        cli.reset();
        assertThat(cli.run("perf", "--no-osgi", "--test", "ib_read_lat", "-s", "64", "-n", "20", "--output",
                "latency")).as(cli.err()).isZero();
        assertThat(cli.out().lines().toList()).singleElement().asString().matches(figure)
                .satisfies(l -> assertThat(Double.parseDouble(l)).isPositive());
        cli.assertUsage("option --output: 'bw' is not bandwidth, message_rate or latency", "perf", "--test",
                "write", "--output", "bw");
        cli.assertUsage("option --output latency: a bandwidth test prints bandwidth or message_rate", "perf",
                "--test", "ib_write_bw", "--output", "latency");
        cli.assertUsage("option --output bandwidth: a latency test prints latency", "perf", "--test",
                "ib_send_lat", "--output", "bandwidth");
        cli.assertUsage("option --output latency: prints one figure of one table, not of the sweep", "perf",
                "--output", "latency");
    }

    @Test
    @Timeout(180)
    void shouldWriteOnlyTheFigureOutputNamesInPerftestJson() throws IOException {
        String[][] runs = {
            {"ib_write_bw", "bandwidth", "bw_avg"},
            {"ib_send_bw", "message_rate", "msgRate_avg"},
            {"ib_read_lat", "latency", "avg_lat"},
        };
        for (String[] run : runs) {
            Path json = dir.resolve(run[0] + ".json");
            cli.reset();
            assertThat(cli.run("perf", "--no-osgi", "--test", run[0], "-s", "64", "-n", "50", "--output", run[1],
                    "--out_json", "--out_json_file", json.toString())).as(cli.err()).isZero();
            Map<String, Object> doc = parseFile(json);
            assertThat(doc).as(run[0]).containsOnlyKeys("test_info", "results");
            assertThat(map(doc.get("test_info"))).as(run[0]).containsKeys("test", "Connection_type", "Mtu");
            Map<String, Object> results = map(doc.get("results"));
            assertThat(results).as(run[0]).containsOnlyKeys(run[2]);
            // the file's figure is the one printed, both "%lf"
            double printed = Double.parseDouble(cli.out().strip());
            assertThat((Double) results.get(run[2])).as(run[0]).isPositive().isEqualTo(printed);
        }
    }

    private static String[] concat(String[] a, String... b) {
        String[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    @Test
    void shouldRefusePerftestsFlagsThatRvtPerfHasNotWithOneLineEach() {
        cli.assertUsage("option --mmap is refused: rvt perf's region is a direct Java buffer", "perf", "--mmap",
                "/tmp/f");
    }

    @Test
    void shouldTakePerftestProgramNamesAsTests() {
        Options o = Options.parse("perf", "--test", "ib_write_lat");
        assertThat(o.test).isEqualTo(PerfTest.WRITE);
        assertThat(o.latency).isTrue();
        assertThat(Options.parse("perf", "--test", "send_bw").latency).isFalse();
        assertThat(Options.parse("perf", "--test", "IB_ATOMIC_BW", "--bw").test).isEqualTo(PerfTest.ATOMIC);
        assertThat(Options.parse("perf", "--test", "read", "--lat").latency).isTrue();
        cli.assertUsage("option --test: write latency is what the perftest name says, not --bw", "perf", "--test",
                "ib_write_lat", "--bw");
        cli.assertUsage("unknown test 'ib_flush_bw'", "perf", "--test", "ib_flush_bw");
    }

    @Test
    void shouldRefuseBadPerftestValuesWithOneLineNamingOptionAndValue() {
        cli.assertUsage("option --mtu: 1000 is not an MTU (256, 512, 1024, 2048 or 4096)", "perf", "-m", "1000");
        cli.assertUsage("option --mtu: 8192 is not an MTU", "pingpong", "--mtu", "8192");
        cli.assertUsage("option --ib-port: 0 is not a port number", "perf", "-i", "0");
        cli.assertUsage("option --port: 70000 is not a port (1 to 65535)", "pingpong", "-p", "70000");
        cli.assertUsage("option --gid-index needs a whole number, got 'x'", "perf", "-x", "x");
        cli.assertUsage("option --cq-mod must be a positive number, got 0", "perf", "-Q", "0");
        cli.assertUsage("option --bidirectional applies to bandwidth tests, not to --lat", "perf", "--no-osgi", "-b",
                "--lat");
        cli.assertUsage("option --post_list applies to bandwidth tests, not to --lat", "perf", "--no-osgi",
                "--test", "send_lat", "-l", "2");
        cli.assertUsage("option --report_gbits applies to bandwidth tests", "perf", "--no-osgi", "--lat",
                "--report_gbits");
        cli.assertUsage("option --post_list: 10 iterations are not a multiple of the post list, 3", "perf",
                "--no-osgi", "-l", "3", "-n", "10");
        cli.assertUsage("option --cq-mod: the post list, 8, is not a multiple of 3", "perf", "--no-osgi", "-l", "8",
                "-Q", "3", "-n", "16");
        cli.assertUsage("option --post_list: 256 requests do not fit the TX depth (-t 128)", "perf", "--no-osgi",
                "-l", "256");
        cli.assertUsage("option --debug takes no value, got 'x'", "--debug=x");
        cli.assertUsage("option --bidirectional does not apply to 'pingpong'", "pingpong", "-b");
        cli.assertUsage("option --out_json does not apply to 'stat'", "stat", "--out_json");
        cli.assertUsage("option --verbose does not apply to 'pingpong'", "-v", "pingpong");
        cli.assertUsage("option --out_json_file needs a value", "perf", "--out_json_file");
        cli.assertUsage("unknown option '-Z' (rvt perf --help lists them)", "perf", "-Z");
        cli.assertUsage("option --out_json_file: cannot write", "perf", "--no-osgi", "--out_json_file",
                dir.resolve("missing/x.json").toString());
    }

    @Test
    @Timeout(60)
    void shouldRefuseDevicesPortsAndGidsTheHostDoesNotHave() {
        try (PlainHost host = host()) {
            String a = host.devices().get(0).name();
            String b = host.devices().get(1).name();
            assertThat(cli.runOn(host, "perf", "-d", "mlx5_0")).isEqualTo(Main.EXIT_USAGE);
            assertThat(cli.err()).isEqualTo("rvt: option --ib-dev: no device 'mlx5_0' (devices: " + a + ", " + b
                    + ")" + System.lineSeparator());
        }
        try (PlainHost host = host()) {
            String a = host.devices().get(0).name();
            cli.reset();
            assertThat(cli.runOn(host, "pingpong", "-i", "2")).isEqualTo(Main.EXIT_USAGE);
            assertThat(cli.err()).startsWith("rvt: option --ib-port: " + a + " has no port 2 (it has 1)");
        }
        cli.assertUsage("port 1 has no GID 200", "perf", "--no-osgi", "-x", "200", "-n", "10");
    }

    private static PlainHost host() {
        return PlainHost.start(Options.parse().fabric());
    }

    @Test
    void shouldPrintEachCommandsOwnOptionsWhenAskedForItsHelp() {
        assertThat(cli.run("perf", "--help")).isZero();
        assertThat(cli.out()).contains("usage: rvt perf", "-l, --post_list=N", "-q, --qp, --qps=N",
                "-c, --transport, --connection=RC|UC|UD", "--out_json_file=FILE", "-F, --CPU-freq", "-R, --rdma_cm",
                "--report_gbits", "--test ib_write_bw is --test write --bw", "Exit codes: 0 success",
                "rvt perf --server [OPTIONS]", "rvt perf HOST [OPTIONS]", "rvt perf --server [--test ...] listens");
        assertThat(cli.out()).doesNotContain("--no-traffic", "--verbose");
        cli.reset();
        assertThat(cli.run("pingpong", "-h")).isZero();
        assertThat(cli.out()).contains("usage: rvt pingpong", "ibv_rc_pingpong", "-x, --gid-index=INDEX",
                "-p, --port=PORT", "--loss=P");
        assertThat(cli.out()).doesNotContain("--post_list", "--out_json");
        assertThat(cli.err()).isEmpty();
    }

    @Test
    @Timeout(120)
    void shouldWritePerftestsOwnJsonLayoutAndGbitsWhenPostingLists() throws IOException {
        Path json = dir.resolve("perftest.json");
        assertThat(cli.run("perf", "--no-osgi", "--test", "ib_write_bw", "-c", "UC", "-s", "1024", "-n", "200",
                "-l", "4", "-t", "64", "--report_gbits", "-F", "-R", "--out_json", "--out_json_file=" + json))
                .as(cli.err()).isZero();
        assertThat(cli.out()).contains("RDMA_Write Post List BW Test", " Post List       : 4",
                " CQ Moderation   : 4", " TX depth        : 64", "BW peak[Gb/sec]    BW average[Gb/sec]");
        Map<String, Object> doc = parseFile(json);
        assertThat(doc).containsOnlyKeys("test_info", "results");
        Map<String, Object> info = map(doc.get("test_info"));
        assertThat(info).containsEntry("test", "RDMA_Write_Post_List_BW_Test").containsEntry("Connection_type", "UC")
                .containsEntry("Post_List", 4.0).containsEntry("CQ_Moderation", 4.0).containsEntry("TX_depth", 64.0)
                .containsEntry("Link_type", "IB")
                .containsKeys("Dual_port", "Number_of_qps", "Transport_type", "Using_SRQ", "Mtu", "Max_inline_data",
                        "rdma_cm_QPs", "Data_ex_method");
        Map<String, Object> results = map(doc.get("results"));
        assertThat(results).containsOnlyKeys(BW_FIELDS).containsEntry("MsgSize", 1024.0)
                .containsEntry("n_iterations", 200.0);
        double gbits = (Double) results.get("BW_average");
        double mpps = (Double) results.get("MsgRate");
        // Gb/s is 10^9 bits: 1024-byte messages at MsgRate million a second
        assertThat(gbits).isCloseTo(mpps * 1e6 * 1024 * 8 / 1e9, org.assertj.core.data.Percentage.withPercentage(2));
    }

    @Test
    @Timeout(120)
    void shouldKeepTheLastRowInPerftestJsonAsPerftestDoesWhenRunningAllSizes() throws IOException {
        Path json = dir.resolve("all.json");
        assertThat(cli.run("perf", "--no-osgi", "--test", "send", "-c", "UD", "-a", "-n", "20", "--out_json_file",
                json.toString())).as(cli.err()).isZero();
        Map<String, Object> results = map(parseFile(json).get("results"));
        assertThat(results).containsEntry("MsgSize", 4096.0).containsEntry("n_iterations", 20.0);
        assertThat(map(parseFile(json).get("test_info"))).containsEntry("RX_depth", 512.0);
    }

    @Test
    @Timeout(180)
    void shouldAddBothDirectionsWhenBidirectional() throws IOException {
        Path json = dir.resolve("bidir.json");
        for (String test : List.of("send", "write", "read", "atomic")) {
            cli.reset();
            assertThat(cli.run("perf", "--no-osgi", "--test", test, "-b", "-q", "2", "-s", "8", "-n", "300",
                    "--json", json.toString())).as(test + ": " + cli.err()).isZero();
            assertThat(cli.out()).as(test).contains("Bidirectional BW Test");
            // 2 directions x 2 QPs x 300 iterations
            assertThat(cli.out()).as(test).containsPattern("(?m)^ 8\\s+1200\\s");
            Map<String, Object> info = map(tests(parseFile(json)).get(0).get("test_info"));
            assertThat((String) info.get("test")).endsWith("_Bidirectional_BW_Test");
        }
    }

    @Test
    @Timeout(120)
    void shouldRunFromTheNamedDeviceOnTheNamedMtuAndGid() {
        try (PlainHost host = host()) {
            String a = host.devices().get(0).name();
            String b = host.devices().get(1).name();
            assertThat(cli.runOn(host, "perf", "-d", b, "-m", "1024", "-x", "0", "--test", "send", "-s", "3000", "-n",
                    "100")).as(cli.err()).isZero();
            assertThat(cli.out()).contains(" Device          : " + b + " -> " + a, " Mtu             : 1024[B]",
                    " GID index       : 0");
        }
        cli.assertUsage("2048 bytes do not fit one UD datagram (at most the MTU, 1024 bytes", "perf", "--no-osgi",
                "-c", "UD", "-m", "1024", "-s", "2048");
        cli.reset();
        try (PlainHost host = host()) {
            String b = host.devices().get(1).name();
            assertThat(cli.runOn(host, "pingpong", "-d", b, "-x", "0", "-m", "512", "-n", "20", "-s", "2000"))
                    .as(cli.err()).isZero();
            assertThat(cli.out()).contains("local address:  LID 0x0002", "(" + b + ")", ", GID fe80:", "20 iters in");
        }
    }
}
