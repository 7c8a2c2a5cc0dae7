package io.rvt.launcher;

import io.rvt.api.Device;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * {@code rvt perf}: perftest's bandwidth and latency tests between the host's first two devices (or {@code -d}'s and
 * the other), with perftest's tables, its {@code --out_json} report ({@link PerftestJson}) and rvt's whole-run
 * {@code --json} document ({@link JsonReport}). Without test options it runs {@link #defaultSweep a short sweep}
 * that shows what rvt does.
 */
final class PerfCommand {
    /**
     * The options that make a perftest command line: one test. Without any, the default sweep runs (on {@code -d}'s
     * device and {@code -i}'s port, in {@code --report_gbits}' unit, into {@code --json}'s file if given).
     */
    private static final Set<String> TEST_OPTIONS = Set.of("--test", "--bw", "--lat", "--size", "--all", "--qps",
            "--iters", "--duration", "--transport", "--tx-depth", "--cq-mod", "--post_list", "--bidirectional",
            "--out_json", "--out_json_file", "--CPU-freq", "--rdma_cm", "--plot", "--noPeak", "--limit_bw",
            "--limit_msgrate", "--wait_destroy", "--atomic_type", "--use_old_post_send", "--pkey_index",
            "--force-link", "--latency_gap", "--mcg", "--MGID", "--dualport");
    /** perftest's {@code Data_ex_method}: the QPs learnt each other through the CM (rvt-cm), as perftest's -R. */
    static final String DATA_EXCHANGE = "rdma_cm";
    /** perftest's {@code Data_ex_method} without {@code -R}: the QPs' data went over TCP. */
    static final String TCP_EXCHANGE = "Ethernet";
    /** How long each row of the default sweep runs. */
    static final long SWEEP_ROW_NANOS = 400_000_000L;
    /** perftest's default size of a bandwidth test. */
    static final int DEFAULT_BW_SIZE = 65536;
    /** perftest's default size of a latency test. */
    static final int DEFAULT_LAT_SIZE = 2;

    private final PrintStream out;
    private final PrintStream err;
    private final Options options;
    private final PerftestFlags flags;
    /** {@code -w}, {@code -y}: whether a row met the limits (perftest's {@code is_bw_limit_passed}), and the last miss. */
    private boolean limitMet;
    private String limitMissed;

    /**
     * @param out where the tables go
     * @param err where the progress line goes
     * @param options the command line
     */
    PerfCommand(PrintStream out, PrintStream err, Options options) {
        this.out = out;
        this.err = err;
        this.options = options;
        this.flags = options.perftestFlags();
    }

    /** perftest's verifier: a row that meets {@code -w} and {@code -y} passes the test, as any of its rows does. */
    private void verify(BandwidthResult r) {
        String miss = flags.missed(r, options.reportGbits);
        if (miss == null) {
            limitMet = true;
        } else {
            limitMissed = miss;
        }
    }

    /** @throws IllegalStateException (exit 1) if the limits were given and no row met them */
    private void checkLimits() {
        if (!limitMet && limitMissed != null) {
            throw new IllegalStateException(limitMissed);
        }
    }

    /**
     * Runs the tables and writes the JSON file if asked.
     *
     * @param host the devices' host (at least two devices)
     * @throws UsageException if a test cannot run as asked on these devices
     */
    void run(Host host) {
        if (options.twoProcesses()) {
            runRemote(host);
            return;
        }
        List<Device> devs = Main.requirePair(host, options.ibDev, "perf");
        Device a = devs.get(0);
        Device b = devs.get(1);
        LinkOptions link = options.link();
        link.check(a);
        link.check(b);
        int mtu = Math.min(link.pathMtu(a).bytes(), link.pathMtu(b).bytes());
        boolean sweep = options.given.stream().noneMatch(TEST_OPTIONS::contains);
        List<PerfSpec> specs = sweep ? defaultSweep() : List.of(fromOptions(mtu));
        for (PerfSpec s : specs) {
            check(s, a, mtu);
        }
        Path json = options.json != null ? writablePath("--json", options.json) : null;
        Path perftestJson = options.outJson ? writablePath("--out_json_file", options.outJsonFile) : null;
        PerfPlot plot = options.plot != null ? new PerfPlot(writablePath("--plot", options.plot)) : null;
        JsonReport report = new JsonReport(host, options.reportGbits);
        if (sweep) {
            out.printf("rvt perf: a short sweep of what rvt does, %d ms a row (rvt perf --help: its options)%n",
                    SWEEP_ROW_NANOS / 1_000_000);
        }
        // a terminal only: System.console() is null when output goes to a file or a pipe
        try (Progress progress = new Progress(err, err == System.err && System.console() != null)) {
            for (PerfSpec s : specs) {
                PerftestJson.TestInfo info = new PerftestJson.TestInfo(s, a, mtu, host.driver().perftestLinkType(),
                        link, PerfSizing.rxDepth(s), DATA_EXCHANGE, options.mcg, options.dualPort);
                runTable(s, a, b, host, link, progress, report, info, perftestJson, plot);
                if (plot != null) {
                    plot.write(s, options.reportGbits, host.description());
                }
            }
        }
        if (json != null) {
            write(json, report.finish());
        }
        checkLimits();
    }

    /**
     * One end of the table in this process, the other in another ({@link RemotePerf}): every row of the table
     * ({@code -a}: each size), over RC, UC or UD, {@code -q} QPs.
     */
    private void runRemote(Host host) {
        Options o = options;
        Device dev = Main.requireDevices(host, 1, "perf").get(0);
        LinkOptions link = o.link();
        link.check(dev);
        PerfSpec own = fromOptions(link.pathMtu(dev).bytes());
        check(own, dev, link.pathMtu(dev).bytes());
        Path json = o.json != null ? writablePath("--json", o.json) : null;
        Path perftestJson = o.outJson ? writablePath("--out_json_file", o.outJsonFile) : null;
        PerfPlot plot = o.plot != null ? new PerfPlot(writablePath("--plot", o.plot)) : null;
        JsonReport report = new JsonReport(host, o.reportGbits);
        boolean[] begun = new boolean[1];
        PerfSpec[] table = new PerfSpec[1];
        RemotePerf remote = new RemotePerf(out, err, link, o.cmPort, o.reportGbits, (s, d, mtu, bw, lat) -> {
            PerftestJson.TestInfo info = new PerftestJson.TestInfo(s, d, mtu, host.driver().perftestLinkType(), link,
                    PerfSizing.rxDepth(s), o.rdmaCm ? DATA_EXCHANGE : TCP_EXCHANGE, o.mcg, false);
            if (perftestJson != null) {
                // as perftest: the file is rewritten for every row, and holds the last
                write(perftestJson, PerftestJson.report(info, bw, lat, o.reportGbits, flags.output()));
            }
            if (!begun[0]) {
                report.beginTest(info);
                begun[0] = true;
            }
            if (bw != null) {
                verify(bw);
                report.result(bw);
            } else {
                report.result(lat);
            }
            if (plot != null) {
                table[0] = s;
                if (bw != null) {
                    plot.add(bw, o.reportGbits);
                } else {
                    plot.add(lat);
                }
            }
        }, o.rdmaCm).flags(flags).rateLimit(o.rateLimit()).latencyReport(o.latencyReport())
                .inlineSize(o.inlineSize()).events(o.events).useSrq(o.useSrq).tos(o.tos).reversed(o.reversed)
                .multicast(o.multicast());
        java.util.concurrent.atomic.AtomicBoolean interrupted = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.CountDownLatch finished = new java.util.concurrent.CountDownLatch(1);
        Thread sigint = null;
        if (o.runInfinitely) {
            remote.runInfinitely(interrupted::get);
            if (o.server == o.reversed && o.test != PerfTest.SEND) {
                // perftest's WRITE, READ and atomic senders catch SIGINT: they stop their rows and close the exchange
                sigint = new Thread(() -> {
                    interrupted.set(true);
                    try {
                        finished.await((long) o.durationSeconds + 30, java.util.concurrent.TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "rvt perf SIGINT");
                Runtime.getRuntime().addShutdownHook(sigint);
            }
        }
        try {
            if (o.server) {
                remote.server(host, own);
            } else {
                remote.client(host, JniSetup.resolve(o.peer), own);
            }
        } catch (RuntimeException e) {
            if (interrupted.get()) {
                // the JVM halts once the hook returns: Main would not get to say why
                err.println("rvt: " + e.getMessage());
                err.flush();
            }
            throw e;
        } finally {
            finished.countDown();
            if (sigint != null) {
                try {
                    Runtime.getRuntime().removeShutdownHook(sigint);
                } catch (IllegalStateException shuttingDown) {
                    // the hook has run: the rows stopped for it
                }
            }
        }
        if (begun[0]) {
            report.endTest();
        }
        if (plot != null && table[0] != null) {
            plot.write(table[0], o.reportGbits, host.description());
        }
        if (json != null) {
            write(json, report.finish());
        }
        checkLimits();
    }

    private void runTable(PerfSpec s, Device a, Device b, Host host, LinkOptions link, Progress progress,
            JsonReport report, PerftestJson.TestInfo info, Path perftestJson, PerfPlot plot) {
        LatencyReport latencyReport = options.latencyReport();
        PerfTable table = new PerfTable(out, s.latency(), options.reportGbits, flags.output())
                .cycles(latencyReport.cycles()).multicast(options.mcg).dualPort(options.dualPort);
        progress.printQuietly(() -> table.header(s, a, b, host, link));
        report.beginTest(info);
        PortTraffic traffic = s.latency() ? null : new PortTraffic(a, b, link.port(), host);
        // -O: the second port's traffic, its own line
        PortTraffic traffic2 = s.latency() || !options.dualPort ? null
                : new PortTraffic(a, b, PerfRunner.DUAL_PORT, host);
        int largest = 0;
        for (int size : s.sizes()) {
            largest = Math.max(largest, size);
        }
        String unmeasured = null;
        try (PerfRunner runner = new PerfRunner(host, a, b, s, largest, progress, link, options.cmPort,
                options.events, options.multicast(), options.dualPort)
                .latencyGap(flags.latencyGapMicros() * 1000L).rateLimit(options.rateLimit())
                .latencyReport(latencyReport)) {
            String inline = runner.inlineReport(options.inlineSize());
            progress.printQuietly(() -> out.print(inline));
            for (int size : s.sizes()) {
                BandwidthResult bw = null;
                LatencyResult lat = null;
                if (s.latency()) {
                    LatencyResult r = runner.latency(size);
                    String listing = runner.takeListing();
                    progress.printQuietly(() -> {
                        table.samples(listing);
                        table.row(r);
                    });
                    report.result(r);
                    lat = r;
                    if (plot != null) {
                        plot.add(r);
                    }
                } else if (options.runInfinitely) {
                    // perftest's --run_infinitely: a row every -D, until the process is killed
                    runner.infinitely(size, row -> {
                        BandwidthResult r = flags.shown(row);
                        progress.printQuietly(() -> table.row(r));
                        out.flush();
                    });
                } else {
                    BandwidthResult r = flags.shown(runner.bandwidth(size));
                    verify(r);
                    progress.printQuietly(() -> table.row(r));
                    report.result(r);
                    bw = r;
                    if (plot != null) {
                        plot.add(r, options.reportGbits);
                    }
                }
                if (perftestJson != null) {
                    // as perftest: the file is rewritten for every row, and holds the last
                    write(perftestJson, PerftestJson.report(info, bw, lat, options.reportGbits, flags.output()));
                }
            }
            unmeasured = s.latency() ? null : runner.unmeasuredLine();
            flags.waitBeforeDestroy();
        }
        progress.printQuietly(table::footer);
        if (unmeasured != null && table.full()) {
            String line = unmeasured;
            progress.printQuietly(() -> out.println(line));
        }
        if (traffic != null && table.full()) {
            String line = traffic.since();
            progress.printQuietly(() -> out.println(line));
        }
        if (traffic2 != null && table.full()) {
            String line = traffic2.since().replaceFirst("^ Port counters   : ", " Port 2 counters : ");
            progress.printQuietly(() -> out.println(line));
        }
        report.endTest();
    }

    private static void write(Path file, String json) {
        try {
            Files.writeString(file, json, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * The sweep {@code rvt perf} runs without test options: SEND, RDMA WRITE, RDMA READ and atomic bandwidth at a
     * few sizes, then their latencies, all over RC, {@link #SWEEP_ROW_NANOS} a row (about ten seconds in all).
     *
     * @return the tables
     */
    static List<PerfSpec> defaultSweep() {
        long d = SWEEP_ROW_NANOS;
        int depth = 128;
        return List.of(
                new PerfSpec(PerfTest.SEND, Transport.RC, false, new int[] {64, 4096, 65536}, 1, 0, d, depth),
                new PerfSpec(PerfTest.WRITE, Transport.RC, false, new int[] {65536, 1 << 20}, 1, 0, d, depth),
                new PerfSpec(PerfTest.READ, Transport.RC, false, new int[] {65536}, 1, 0, d, depth),
                new PerfSpec(PerfTest.ATOMIC, Transport.RC, false, new int[] {8}, 1, 0, d, depth),
                new PerfSpec(PerfTest.SEND, Transport.RC, true, new int[] {8, 4096}, 1, 0, d, depth),
                new PerfSpec(PerfTest.WRITE, Transport.RC, true, new int[] {8}, 1, 0, d, depth),
                new PerfSpec(PerfTest.READ, Transport.RC, true, new int[] {8}, 1, 0, d, depth),
                new PerfSpec(PerfTest.ATOMIC, Transport.RC, true, new int[] {8}, 1, 0, d, depth));
    }

    private PerfSpec fromOptions(int mtu) {
        Options o = options;
        if (!o.test.allows(o.transport)) {
            throw new UsageException("option --transport: the " + o.test.option() + " test does not run over "
                    + o.transport.option() + " (" + allowed(o.test) + ")");
        }
        if (o.latency && o.has("--qps")) {
            throw new UsageException("option --qps applies to bandwidth tests; latency tests use one QP");
        }
        for (String latOnly : List.of("--latency_gap", "--report-cycles", "--report-histogram",
                "--report-unsorted")) {
            if (!o.latency && o.has(latOnly)) {
                throw new UsageException("option " + latOnly + " applies to latency tests, not to --bw");
            }
        }
        for (String bwOnly : List.of("--bidirectional", "--post_list", "--cq-mod", "--report_gbits", "--noPeak",
                "--limit_bw", "--limit_msgrate", "--wait_destroy")) {
            if (o.latency && o.has(bwOnly)) {
                throw new UsageException("option " + bwOnly + " applies to bandwidth tests, not to --lat");
            }
        }
        if (o.test == PerfTest.ATOMIC && o.has("--size") && o.size != PerfTest.ATOMIC_SIZE) {
            throw new UsageException("option --size: atomic operations are " + PerfTest.ATOMIC_SIZE
                    + " bytes, not " + o.size);
        }
        int[] sizes;
        if (o.test == PerfTest.ATOMIC) {
            sizes = new int[] {PerfTest.ATOMIC_SIZE};
        } else if (o.all) {
            int max = o.transport == Transport.UD ? mtu : Options.MAX_SIZE;
            List<Integer> list = new ArrayList<>();
            for (int s = 2; s <= max; s <<= 1) {
                list.add(s);
            }
            sizes = list.stream().mapToInt(Integer::intValue).toArray();
        } else if (o.size > 0) {
            sizes = new int[] {o.size};
        } else {
            int size = o.latency ? DEFAULT_LAT_SIZE : DEFAULT_BW_SIZE;
            if (o.transport == Transport.UD && size > mtu) {
                // perftest's rule: a UD message is at most one MTU; its default size shrinks to it, a given -s fails
                err.printf(" Max msg size in UD is MTU %d%n Changing to this MTU%n", mtu);
                size = mtu;
            }
            sizes = new int[] {size};
        }
        int iters = o.durationSeconds > 0 ? 0
                : o.iters > 0 ? o.iters : o.latency ? PerfSpec.DEFAULT_LAT_ITERS : PerfSpec.DEFAULT_BW_ITERS;
        long duration = (long) (o.durationSeconds * 1e9);
        // perftest's -O doubles the QPs: the first half on port 1, the second on port 2
        return new PerfSpec(o.test, o.transport, o.latency, sizes, o.dualPort ? 2 * o.qps : o.qps, iters, duration,
                o.txDepth, cqModeration(iters), o.postList, o.bidirectional, o.cmpAndSwap);
    }

    /** perftest's rules for {@code -l} and {@code -Q}: {@code -Q} is the post list unless given, and divides it. */
    private int cqModeration(int iters) {
        Options o = options;
        int list = o.postList;
        if (list > o.txDepth) {
            throw new UsageException("option --post_list: " + list + " requests do not fit the TX depth (-t "
                    + o.txDepth + ")");
        }
        if (list > 1 && iters > 0 && iters % list != 0) {
            throw new UsageException("option --post_list: " + iters + " iterations are not a multiple of the post "
                    + "list, " + list);
        }
        if (o.cqMod == 0) {
            return list > 1 ? list : PerfSpec.CQ_MODERATION;
        }
        if (list > 1 && list % o.cqMod != 0) {
            throw new UsageException("option --cq-mod: the post list, " + list + ", is not a multiple of " + o.cqMod);
        }
        return o.cqMod;
    }

    private static String allowed(PerfTest t) {
        List<String> names = new ArrayList<>();
        for (Transport tr : Transport.values()) {
            if (t.allows(tr)) {
                names.add(tr.option());
            }
        }
        return "it runs over " + String.join(", ", names);
    }

    /** Checks the sizes against what the devices carry. */
    private static void check(PerfSpec s, Device a, int mtu) {
        long maxMr = a.queryDevice().maxMrSize();
        for (int size : s.sizes()) {
            if (s.transport() == Transport.UD && size > mtu) {
                throw new UsageException("option --size: " + size + " bytes do not fit one UD datagram (at most the "
                        + "MTU, " + mtu + " bytes, on " + a.name() + ")");
            }
            if (2L * size > maxMr) {
                throw new UsageException("option --size: " + size + " bytes are above the largest memory region of "
                        + a.name() + " (" + maxMr + " bytes)");
            }
        }
    }

    private static Path writablePath(String option, String file) {
        Path p = Path.of(file).toAbsolutePath();
        Path dir = p.getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            throw new UsageException("option " + option + ": cannot write '" + file + "': no directory " + dir);
        }
        if (Files.isDirectory(p)) {
            throw new UsageException("option " + option + ": '" + file + "' is a directory");
        }
        return p;
    }
}
