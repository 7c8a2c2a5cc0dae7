package io.rvt.launcher;

import io.rvt.api.Device;
import io.rvt.api.PortAttr;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * {@code rvt perf}: perftest's bandwidth and latency tests between the host's first two devices, with perftest's
 * tables and {@code --out_json} fields. Without test options it runs {@link #defaultSweep a short sweep} that shows
 * what rvt does.
 */
final class PerfCommand {
    /** The options that choose a test; without any, the default sweep runs. */
    private static final Set<String> TEST_OPTIONS = Set.of("--test", "--bw", "--lat", "--size", "--all", "--qps",
            "--iters", "--duration", "--transport", "--tx-depth");
    /** How long each row of the default sweep runs. */
    static final long SWEEP_ROW_NANOS = 400_000_000L;
    /** perftest's default size of a bandwidth test. */
    static final int DEFAULT_BW_SIZE = 65536;
    /** perftest's default size of a latency test. */
    static final int DEFAULT_LAT_SIZE = 2;

    private final PrintStream out;
    private final PrintStream err;
    private final Options options;

    /**
     * @param out where the tables go
     * @param err where the progress line goes
     * @param options the command line
     */
    PerfCommand(PrintStream out, PrintStream err, Options options) {
        this.out = out;
        this.err = err;
        this.options = options;
    }

    /**
     * Runs the tables and writes the JSON file if asked.
     *
     * @param host the devices' host (at least two devices)
     * @throws UsageException if a test cannot run as asked on these devices
     */
    void run(Host host) {
        List<Device> devs = Main.requireDevices(host, 2, "perf");
        Device a = devs.get(0);
        Device b = devs.get(1);
        int mtu = a.queryPort(1, new PortAttr()).activeMtu().bytes();
        boolean sweep = options.given.stream().noneMatch(TEST_OPTIONS::contains);
        List<PerfSpec> specs = sweep ? defaultSweep() : List.of(fromOptions(mtu));
        for (PerfSpec s : specs) {
            check(s, a, mtu);
        }
        Path json = options.json != null ? jsonPath(options.json) : null;
        JsonReport report = new JsonReport(host);
        if (sweep) {
            out.printf("rvt perf: a short sweep of what rvt does, %d ms a row (rvt --help: perf options)%n",
                    SWEEP_ROW_NANOS / 1_000_000);
        }
        // a terminal only: System.console() is null when output goes to a file or a pipe
        try (Progress progress = new Progress(err, err == System.err && System.console() != null)) {
            for (PerfSpec s : specs) {
                runTable(s, a, b, host, mtu, progress, report);
            }
        }
        if (json != null) {
            try {
                Files.writeString(json, report.finish(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IllegalStateException("cannot write " + json + ": " + e.getMessage(), e);
            }
        }
    }

    private void runTable(PerfSpec s, Device a, Device b, Host host, int mtu, Progress progress, JsonReport report) {
        PerfTable table = new PerfTable(out, s.latency());
        progress.printQuietly(() -> table.header(s, a, b, host));
        report.beginTest(s, a, mtu);
        int largest = 0;
        for (int size : s.sizes()) {
            largest = Math.max(largest, size);
        }
        try (PerfRunner runner = new PerfRunner(host, a, b, s, largest, progress)) {
            for (int size : s.sizes()) {
                if (s.latency()) {
                    LatencyResult r = runner.latency(size);
                    progress.printQuietly(() -> table.row(r));
                    report.result(r);
                } else {
                    BandwidthResult r = runner.bandwidth(size);
                    progress.printQuietly(() -> table.row(r));
                    report.result(r);
                }
            }
        }
        progress.printQuietly(table::footer);
        report.endTest();
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
        } else {
            sizes = new int[] {o.size > 0 ? o.size : o.latency ? DEFAULT_LAT_SIZE : DEFAULT_BW_SIZE};
        }
        int iters = o.durationSeconds > 0 ? 0
                : o.iters > 0 ? o.iters : o.latency ? PerfSpec.DEFAULT_LAT_ITERS : PerfSpec.DEFAULT_BW_ITERS;
        long duration = (long) (o.durationSeconds * 1e9);
        return new PerfSpec(o.test, o.transport, o.latency, sizes, o.qps, iters, duration, o.txDepth);
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

    private static Path jsonPath(String file) {
        Path p = Path.of(file).toAbsolutePath();
        Path dir = p.getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            throw new UsageException("option --json: cannot write '" + file + "': no directory " + dir);
        }
        if (Files.isDirectory(p)) {
            throw new UsageException("option --json: '" + file + "' is a directory");
        }
        return p;
    }
}
