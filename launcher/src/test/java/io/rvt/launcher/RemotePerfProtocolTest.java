package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Device;
import io.rvt.api.spi.DriverRegistry;
import io.rvt.api.spi.RvtDriver;
import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.driver.sim.SimDriver;
import io.rvt.driver.sim.fabric.Fabric;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code rvt perf --server} and {@code rvt perf HOST} as two {@link RemotePerf}s in one JVM, on one driver-sim fabric,
 * over perftest's TCP exchange on the loopback: every program of the six (and send and write latency) runs, both
 * sides print what perftest's would, and neither is left waiting for an exchange the other does not make.
 */
class RemotePerfProtocolTest {
    /** The devices' GIDs are these addresses' RoCEv2 GIDs ({@code ::ffff:a.b.c.d}). */
    private static final String SERVER_IP = "127.0.0.1";
    private static final String CLIENT_IP = "127.0.0.2";
    private static final Pattern WARM_UP = Pattern.compile(" Warm-up         : (\\d+) messages between two QPs of");
    private static final Pattern ROW = Pattern.compile("(?m)^ (\\d+)\\s+(\\d+)\\s+[0-9.]+");

    private static Fabric fabric;
    private static DriverRegistry registry;
    private static Side server;
    private static Side client;

    /** One side's host: one HCA of the shared fabric, whose polls run the fabric (the progress hook). */
    record Side(Fabric fabric, Device device) implements Host {
        @Override
        public List<Device> devices() {
            return List.of(device);
        }

        @Override
        public String description() {
            return "driver-sim " + device.name() + " on fabric '" + fabric.name() + "'";
        }

        @Override
        public DriverKind driver() {
            return DriverKind.SIM;
        }

        @Override
        public void progress() {
            if (fabric.progress(RvtDriver.POLL_BUDGET) == 0) {
                Thread.onSpinWait();
            }
        }

        /** The polls run the fabric: so do the CM's waits ({@link Connector#await}), with {@code -R}. */
        @Override
        public Threading threading() {
            return Threading.PROGRESS;
        }

        @Override
        public void close() {
        }
    }

    static long guidOf(String ip) throws java.net.UnknownHostException {
        return 0x0000_FFFF_0000_0000L | (ByteBuffer.wrap(InetAddress.getByName(ip).getAddress()).getInt() & 0xFFFF_FFFFL);
    }

    @BeforeAll
    static void fabric() throws Exception {
        // GID prefix 0 and port 1's GUID (the node GUID + 1) the address: the GID is ::ffff:a.b.c.d
        fabric = Fabric.builder("perftest-" + System.nanoTime()).gidPrefix(0).realTime()
                .threading(ThreadingMode.PROGRESS).build();
        registry = DriverRegistry.create();
        server = new Side(fabric, registry.register(SimDriver.builder(fabric).name("server")
                .nodeGuid(guidOf(SERVER_IP) - 1).build()));
        client = new Side(fabric, registry.register(SimDriver.builder(fabric).name("client")
                .nodeGuid(guidOf(CLIENT_IP) - 1).build()));
    }

    @AfterAll
    static void close() throws Exception {
        registry.close();
        fabric.close();
    }

    /** @return a TCP port free on the loopback now */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /**
     * Runs {@code spec} between a {@link RemotePerf} server on {@code server} and a client on {@code client}, the
     * server on a thread of its own, until both have ended.
     *
     * @return what the server and the client printed
     */
    static String[] serverAndClient(Side server, Side client, PerfSpec spec) throws Exception {
        return serverAndClient(server, client, spec, false, PerftestFlags.DEFAULT);
    }

    /**
     * Runs {@code spec} between a {@link RemotePerf} server and a client, the server on a thread of its own, until
     * both have ended.
     *
     * @param rdmaCm perftest's {@code -R}: the channel and the QPs connected through rvt-cm
     * @return what the server and the client printed
     */
    static String[] serverAndClient(Host server, Host client, PerfSpec spec, boolean rdmaCm) throws Exception {
        return serverAndClient(server, client, spec, rdmaCm, PerftestFlags.DEFAULT);
    }

    /**
     * Runs {@code spec} as {@link #serverAndClient(Host, Host, PerfSpec, boolean)} does, both sides given
     * perftest's {@code flags}.
     *
     * @return what the server and the client printed
     */
    static String[] serverAndClient(Host server, Host client, PerfSpec spec, boolean rdmaCm, PerftestFlags flags)
            throws Exception {
        return serverAndClient(server, client, spec, rdmaCm, flags, r -> r);
    }

    /**
     * Runs {@code spec} as {@link #serverAndClient(Host, Host, PerfSpec, boolean, PerftestFlags)} does, each side's
     * {@link RemotePerf} also set up by {@code more}.
     *
     * @return what the server and the client printed
     */
    static String[] serverAndClient(Host server, Host client, PerfSpec spec, boolean rdmaCm, PerftestFlags flags,
            java.util.function.UnaryOperator<RemotePerf> more) throws Exception {
        return serverAndClient(server, client, spec, rdmaCm, flags, more, LinkOptions.DEFAULT);
    }

    /**
     * Runs {@code spec} as {@link #serverAndClient(Host, Host, PerfSpec, boolean, PerftestFlags)} does, each side's
     * {@link RemotePerf} also set up by {@code more}, both on {@code link}.
     *
     * @return what the server and the client printed
     */
    static String[] serverAndClient(Host server, Host client, PerfSpec spec, boolean rdmaCm, PerftestFlags flags,
            java.util.function.UnaryOperator<RemotePerf> more, LinkOptions link) throws Exception {
        return serverAndClient(server, client, spec, rdmaCm, flags, more, more, link);
    }

    /**
     * Runs {@code spec} as {@link #serverAndClient(Host, Host, PerfSpec, boolean, PerftestFlags)} does, the server's
     * {@link RemotePerf} also set up by {@code serverMore}, the client's by {@code clientMore}, both on {@code link}.
     *
     * @return what the server and the client printed
     */
    static String[] serverAndClient(Host server, Host client, PerfSpec spec, boolean rdmaCm, PerftestFlags flags,
            java.util.function.UnaryOperator<RemotePerf> serverMore, java.util.function.UnaryOperator<RemotePerf>
            clientMore, LinkOptions link) throws Exception {
        ByteArrayOutputStream serverOut = new ByteArrayOutputStream();
        ByteArrayOutputStream clientOut = new ByteArrayOutputStream();
        PrintStream serverPrint = new PrintStream(serverOut, true, StandardCharsets.UTF_8);
        PrintStream clientPrint = new PrintStream(clientOut, true, StandardCharsets.UTF_8);
        RemotePerf.Reports none = (s, d, mtu, bw, lat) -> { };
        int port = freePort();
        CompletableFuture<Void> serverRun = CompletableFuture.runAsync(() -> serverMore.apply(new RemotePerf(serverPrint,
                serverPrint, link, port, false, none, rdmaCm).flags(flags)).server(server, spec));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!serverOut.toString(StandardCharsets.UTF_8).contains("waiting for a client")) {
            assertThat(System.nanoTime()).as("the server listens").isLessThan(deadline);
            assertThat(serverRun).as("the server: %s", serverOut).isNotDone();
            Thread.onSpinWait();
        }
        try {
            clientMore.apply(new RemotePerf(clientPrint, clientPrint, link, port, false, none, rdmaCm)
                    .flags(flags)).client(client, serverAddress(server), spec);
        } catch (RuntimeException e) {
            String ended = serverRun.isDone() ? serverRun.handle((v, t) -> "ended: " + t).join() : "still running";
            throw new AssertionError("the client failed: " + e + "\n" + clientOut + "\nthe server (" + ended
                    + "):\n" + serverOut, e);
        }
        try {
            serverRun.get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new AssertionError("the server failed: " + e.getCause() + "\n" + serverOut, e.getCause());
        }
        return new String[] {serverOut.toString(StandardCharsets.UTF_8), clientOut.toString(StandardCharsets.UTF_8)};
    }

    /** @return the server's address: its HCA's GID, an IPv4-mapped one */
    static InetAddress serverAddress(Host server) throws java.net.UnknownHostException {
        return InetAddress.getByAddress(server.devices().get(0).queryGid(1, 0).toBytes());
    }

    static List<long[]> rows(String out) {
        List<long[]> rows = new ArrayList<>();
        Matcher m = ROW.matcher(out);
        while (m.find()) {
            rows.add(new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))});
        }
        return rows;
    }

    private static String[] run(PerfTest test, Transport t, boolean lat, int[] sizes, int qps, int iters,
            boolean bidi) throws Exception {
        PerfSpec spec = new PerfSpec(test, t, lat, sizes, qps, iters, 0, lat ? 1 : 128,
                lat ? 1 : PerfSpec.CQ_MODERATION, 1, bidi);
        String[] out = serverAndClient(server, client, spec);
        for (String o : out) {
            assertThat(o).contains(spec.title(), "Data ex. method : Ethernet", "rdma_cm QPs     : OFF",
                    " local address: LID ", " remote address: LID ", " GID: 00:00:00:00:00:00:00:00:00:00:255:255:127:00:00:0");
        }
        return out;
    }

    @Test
    @Timeout(120)
    void shouldRunSendBandwidthOverTwoQpsWithTheServerCountingEveryMessage() throws Exception {
        String[] out = run(PerfTest.SEND, Transport.RC, false, new int[] {4096}, 2, 500, false);
        assertThat(rows(out[1])).extracting(r -> r[1]).containsExactly(1000L);
        assertThat(rows(out[0])).as(out[0]).extracting(r -> r[1]).containsExactly(1000L);
        assertThat(out[0]).contains("(server: measured here");
        // each side warmed up on its own HCA first, and the server counted none of it
        for (String o : out) {
            Matcher m = WARM_UP.matcher(o);
            assertThat(m.find()).as(o).isTrue();
            assertThat(Long.parseLong(m.group(1))).isPositive();
        }
    }

    @Test
    @Timeout(120)
    void shouldSweepSendBandwidthWithAHandShakeAroundEveryRow() throws Exception {
        String[] out = run(PerfTest.SEND, Transport.UD, false, new int[] {2, 4, 8}, 1, 200, false);
        assertThat(rows(out[1])).extracting(r -> r[0]).containsExactly(2L, 4L, 8L);
        assertThat(rows(out[0])).extracting(r -> r[0]).containsExactly(2L, 4L, 8L);
        assertThat(rows(out[0])).extracting(r -> r[1]).allMatch(n -> n > 0 && n <= 200);
    }

    @Test
    @Timeout(120)
    void shouldPrintTheClientsLastWriteRowOnThePassiveServer() throws Exception {
        String[] out = run(PerfTest.WRITE, Transport.RC, false, new int[] {64, 65536}, 1, 300, false);
        assertThat(rows(out[1])).extracting(r -> r[0]).containsExactly(64L, 65536L);
        // perftest's write_bw server prints the one report it gets: the last row's
        String last = out[1].lines().filter(l -> l.startsWith(" 65536 ")).findFirst().orElseThrow();
        assertThat(out[0]).contains(last).contains("(server: the client's measurement, from its report");
        assertThat(out[0]).contains(" RKey 0x").contains(" VAddr 0x");
    }

    /**
     * A server host whose progress calls made while it waits for the client's rows ({@code
     * progressUntilTheClientEnds}) are counted; it runs as {@code threading} says and otherwise as {@code side}.
     */
    record WaitCounting(Side side, Threading threading, AtomicLong progressedWaiting) implements Host {
        @Override
        public List<Device> devices() {
            return side.devices();
        }

        @Override
        public String description() {
            return side.description();
        }

        @Override
        public DriverKind driver() {
            return side.driver();
        }

        @Override
        public void progress() {
            if (StackWalker.getInstance().walk(frames -> frames.anyMatch(f -> f.getMethodName()
                    .equals("progressUntilTheClientEnds")))) {
                progressedWaiting.incrementAndGet();
            }
            side.progress();
        }

        @Override
        public void close() {
        }
    }

    /**
     * The passive server of a WRITE bandwidth row runs the network while it waits for the client's rows (the
     * progress hook, as a SEND server's polls), where it blocked in the exchange's read and left its port's engine to
     * the backstop (issue 30); with the network's own threads it still blocks there.
     */
    @Test
    @Timeout(120)
    void shouldProgressTheNetworkWhileThePassiveServerWaitsForTheClientsRows() throws Exception {
        PerfSpec spec = new PerfSpec(PerfTest.WRITE, Transport.RC, false, new int[] {65536}, 1, 300, 0, 128,
                PerfSpec.CQ_MODERATION, 1, false);
        for (Threading threading : List.of(Threading.PROGRESS, Threading.DEDICATED)) {
            AtomicLong progressedWaiting = new AtomicLong();
            AtomicLong framesWhileWaiting = new AtomicLong();
            // the frames between the two sides once the server's wait has begun (each side's warm-up stays on its
            // own port): the client's whole row, if the wait is the one around it
            fabric.dropRule((from, to, frame) -> {
                if (from != to && progressedWaiting.get() > 0) {
                    framesWhileWaiting.incrementAndGet();
                }
                return false;
            });
            String[] out;
            try {
                out = serverAndClient(new WaitCounting(server, threading, progressedWaiting), client, spec, false);
            } finally {
                fabric.dropRule(null);
            }
            assertThat(rows(out[0])).as(out[0]).extracting(r -> r[1]).containsExactly(300L);
            if (threading == Threading.PROGRESS) {
                assertThat(progressedWaiting.get()).as("progress calls while waiting").isPositive();
                // 300 WRITEs of 64 KiB, 16 packets each at the 4096-byte MTU, and their ACKs
                assertThat(framesWhileWaiting.get()).as("frames while the server waited").isGreaterThan(300 * 16);
            } else {
                assertThat(progressedWaiting.get()).as("progress calls while waiting").isZero();
            }
        }
    }

    @Test
    @Timeout(120)
    void shouldAdvertiseAndUsePerftestsOutstandingReadsAndShowNoPeak() throws Exception {
        PerfSpec spec = new PerfSpec(PerfTest.READ, Transport.RC, false, new int[] {4096}, 1, 200, 0, 128,
                PerfSpec.CQ_MODERATION, 1, false);
        // -o 2 -N -r 1 --wait_destroy 0: each side offers 2 outstanding reads, and the rows' peak is 0
        PerftestFlags flags = new PerftestFlags(true, 0, 0, 0, RemotePerf.HOP_LIMIT, 0, 0, 2, 1, 0, 0, null);
        String[] out = serverAndClient(server, client, spec, false, flags);
        for (String o : out) {
            assertThat(o.lines().filter(l -> l.contains("address: LID")).toList()).as(o).hasSize(2)
                    .allMatch(l -> l.contains(" OUT 0x02 "));
            assertThat(o.lines().filter(l -> l.startsWith(" 4096 ")).toList()).as(o).singleElement()
                    .satisfies(l -> assertThat(l.trim().split("\\s+")[2]).isEqualTo("0.00"));
        }
    }

    @Test
    @Timeout(120)
    void shouldRunReadAndAtomicBandwidth() throws Exception {
        String[] read = run(PerfTest.READ, Transport.RC, false, new int[] {4096}, 1, 200, false);
        assertThat(rows(read[0])).hasSize(1);
        assertThat(read[1]).contains(" OUT 0x10");
        String[] atomic = run(PerfTest.ATOMIC, Transport.RC, false, new int[] {8}, 2, 200, false);
        assertThat(rows(atomic[1])).extracting(r -> r[1]).containsExactly(400L);
        assertThat(rows(atomic[0])).extracting(r -> r[1]).containsExactly(400L);
    }

    @Test
    @Timeout(120)
    void shouldRunSendAndWriteLatencyWithBothSidesMeasuring() throws Exception {
        for (PerfTest test : List.of(PerfTest.SEND, PerfTest.WRITE)) {
            String[] out = run(test, Transport.RC, true, new int[] {2, 64}, 1, 100, false);
            assertThat(rows(out[1])).as(out[1]).extracting(r -> r[0]).containsExactly(2L, 64L);
            assertThat(rows(out[0])).as(out[0]).extracting(r -> r[0]).containsExactly(2L, 64L);
        }
        String[] ud = run(PerfTest.SEND, Transport.UD, true, new int[] {32}, 1, 100, false);
        assertThat(rows(ud[0])).hasSize(1);
    }

    /** -I, -C, -H, -U between processes: both sides of SEND latency say the inline size and list their samples. */
    @Test
    @Timeout(120)
    void shouldAnswerInlineAndListSamplesInTicksOnBothSidesOfSendLatency() throws Exception {
        PerfSpec spec = new PerfSpec(PerfTest.SEND, Transport.RC, true, new int[] {64}, 1, 50, 0, 1, 1, 1, false);
        String[] out = serverAndClient(server, client, spec, false, PerftestFlags.DEFAULT,
                r -> r.inlineSize(64).latencyReport(new LatencyReport(true, true, true)));
        for (String o : out) {
            assertThat(o).as(o).contains("  Actual inline-size(0) < requested inline-size(64)",
                    LatencyReport.CYCLES_LINE);
            assertThat(o.lines().filter("#, cycles"::equals).count()).as(o).isEqualTo(2);
            assertThat(rows(o)).as(o).extracting(r -> r[0]).containsExactly(64L);
        }
        // the client lists its 50 samples; the server the intervals between its 50 arrivals
        assertThat(out[1].lines().filter(l -> l.matches("\\d+, [0-9.e+]+")).count()).isEqualTo(100);
        assertThat(out[0].lines().filter(l -> l.matches("\\d+, [0-9.e+]+")).count()).isEqualTo(98);
    }

    /**
     * -S, -L, --tclass, --flow_label: every packet both ways carries them where perftest's AH puts them, the LRH's SL
     * and the GRH's traffic class, flow label and hop limit, as the fabric sees each frame sent (GRH: -x 0).
     */
    @Test
    @Timeout(120)
    void shouldPutTheServiceLevelAndGrhFieldsInEveryPacket() throws Exception {
        PerftestFlags flags = Options.parse("--driver", "jni", "--address", "127.0.0.2", "perf", "127.0.0.3", "-S",
                "3", "-L", "7", "--tclass", "32", "--flow_label", "0x12345").perftestFlags();
        java.util.Map<String, Integer> seen = new java.util.concurrent.ConcurrentHashMap<>();
        fabric.dropRule((from, to, frame) -> {
            // between the two sides (each side's warm-up runs between two QPs of its own port, on its own path)
            if (from != to && (frame.get(1) & 0x3) == 0x3) { // LRH's LNH: a GRH follows
                int sl = (frame.get(1) & 0xF0) >>> 4;
                int word = frame.getInt(8); // version 4 bits, traffic class 8, flow label 20
                String key = "sl " + sl + " tclass " + (word >>> 20 & 0xFF) + " flow 0x"
                        + Integer.toHexString(word & 0xFFFFF) + " hop " + (frame.get(15) & 0xFF);
                seen.merge(key, 1, Integer::sum);
            }
            return false;
        });
        String[] out;
        try {
            out = serverAndClient(server, client, new PerfSpec(PerfTest.SEND, Transport.RC, false, new int[] {64}, 1,
                    200, 0, 128, PerfSpec.CQ_MODERATION, 1, false), false, flags, r -> r, new LinkOptions(1, 0, 0));
        } finally {
            fabric.dropRule(null);
        }
        assertThat(rows(out[1])).as(out[1]).extracting(r -> r[1]).containsExactly(200L);
        assertThat(seen.keySet()).as("%s", seen).containsExactly("sl 3 tclass 32 flow 0x12345 hop 7");
        assertThat(seen.values().iterator().next()).isGreaterThanOrEqualTo(200);
    }

    /**
     * perftest's --reversed on both sides: the server (no HOST) sends and prints the sender's rows, the client
     * receives and prints the receiving side's (SEND: what arrived, 2 QPs x 500; WRITE: the server's last row from its
     * report; READ latency: the server alone measures), the exchange's roles unchanged.
     */
    @Test
    @Timeout(120)
    void shouldSendFromTheServerToTheClientWhenReversed() throws Exception {
        PerfSpec send = new PerfSpec(PerfTest.SEND, Transport.RC, false, new int[] {4096}, 2, 500, 0, 128,
                PerfSpec.CQ_MODERATION, 1, false);
        String[] out = serverAndClient(server, client, send, false, PerftestFlags.DEFAULT, r -> r.reversed(true));
        assertThat(rows(out[0])).as(out[0]).extracting(r -> r[1]).containsExactly(1000L);
        assertThat(rows(out[1])).as(out[1]).extracting(r -> r[1]).containsExactly(1000L);
        // the server's device sends to the client's address, and the client counted what arrived
        assertThat(out[0]).contains(" Device          : server -> ").doesNotContain("(server: ");
        assertThat(out[1]).contains(" -> client", "(client, receiving with --reversed: measured here: the messages "
                + "received and at what rate)");

        PerfSpec write = new PerfSpec(PerfTest.WRITE, Transport.RC, false, new int[] {65536}, 1, 300, 0, 128,
                PerfSpec.CQ_MODERATION, 1, false);
        out = serverAndClient(server, client, write, false, PerftestFlags.DEFAULT, r -> r.reversed(true));
        String last = out[0].lines().filter(l -> l.startsWith(" 65536 ")).findFirst().orElseThrow();
        assertThat(out[1]).contains(last, "(client, receiving with --reversed: the server's measurement, from its "
                + "report)");

        PerfSpec readLat = new PerfSpec(PerfTest.READ, Transport.RC, true, new int[] {8}, 1, 100, 0, 1, 1, 1, false);
        out = serverAndClient(server, client, readLat, false, PerftestFlags.DEFAULT, r -> r.reversed(true));
        assertThat(rows(out[0])).as(out[0]).extracting(r -> r[1]).containsExactly(100L);
        assertThat(rows(out[1])).as(out[1]).isEmpty();
        assertThat(out[1]).contains("none: the server measures, perftest's client prints no row");
    }

    /** @return RC SEND of 4096 B with --run_infinitely's -D 1 (no iteration count) */
    private static PerfSpec sendInfinitely() {
        return new PerfSpec(PerfTest.SEND, Transport.RC, false, new int[] {4096}, 1, 0, 1_000_000_000L, 128,
                PerfSpec.CQ_MODERATION, 1, false);
    }

    /**
     * Runs {@code spec} with --run_infinitely between a server and a client, each side's rows stopped when its
     * predicate, asked after each of its rows with what both sides printed so far (server, client), says so.
     *
     * @return what the server and the client printed, and whether the server was still running when the client ended
     */
    private static Object[] infinitely(PerfSpec spec, boolean reversed, boolean rdmaCm,
            java.util.function.Predicate<String[]> stopServer, java.util.function.Predicate<String[]> stopClient)
            throws Exception {
        ByteArrayOutputStream serverOut = new ByteArrayOutputStream();
        ByteArrayOutputStream clientOut = new ByteArrayOutputStream();
        java.util.function.Supplier<String[]> both = () -> new String[] {serverOut.toString(StandardCharsets.UTF_8),
                clientOut.toString(StandardCharsets.UTF_8)};
        RemotePerf.Reports none = (s, d, mtu, bw, lat) -> { };
        PerftestFlags noPeak = new PerftestFlags(true, 0, 0, 0, RemotePerf.HOP_LIMIT, 0, 0, 0, 0, 0, 0, null);
        int port = freePort();
        PrintStream serverPrint = new PrintStream(serverOut, true, StandardCharsets.UTF_8);
        CompletableFuture<Void> serverRun = CompletableFuture.runAsync(() -> new RemotePerf(serverPrint, serverPrint,
                LinkOptions.DEFAULT, port, false, none, rdmaCm).flags(noPeak).reversed(reversed)
                .runInfinitely(() -> stopServer.test(both.get())).server(server, spec));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!serverOut.toString(StandardCharsets.UTF_8).contains("waiting for a client")) {
            assertThat(System.nanoTime()).as("the server listens").isLessThan(deadline);
            Thread.onSpinWait();
        }
        PrintStream clientPrint = new PrintStream(clientOut, true, StandardCharsets.UTF_8);
        try {
            new RemotePerf(clientPrint, clientPrint, LinkOptions.DEFAULT, port, false, none, rdmaCm).flags(noPeak)
                    .reversed(reversed).runInfinitely(() -> stopClient.test(both.get()))
                    .client(client, serverAddress(server), spec);
        } catch (RuntimeException e) {
            throw new AssertionError("the client failed: " + e + "\n" + clientOut + "\nthe server:\n" + serverOut, e);
        }
        boolean serverRunning = !serverRun.isDone();
        try {
            serverRun.get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new AssertionError("the server failed: " + e.getCause() + "\n" + serverOut, e.getCause());
        }
        String[] out = both.get();
        return new Object[] {out[0], out[1], serverRunning};
    }

    /**
     * --run_infinitely -D 1 between two processes, as perftest 4.5's: SEND, the client's rows until it stops (as
     * perftest's SEND client, killed, without a closing exchange) while the server prints a row of what arrived every
     * second and goes on after the client has gone, with rows of 0, until it is stopped itself; WRITE, the sender's
     * rows until it stops (perftest's SIGINT), then " User stopped traffic" and the closing exchanges, and the
     * passive side, which printed no row, prints " Client closed connection" and ends by itself; the same with
     * --reversed, the server sending, and with -R.
     */
    @Test
    @Timeout(180)
    void shouldRunInfinitelyUntilTheSenderStops() throws Exception {
        PerfSpec send = sendInfinitely();
        java.util.concurrent.atomic.AtomicInteger clientEnd = new java.util.concurrent.atomic.AtomicInteger(-1);
        Object[] r = infinitely(send, false, false, out -> clientEnd.get() >= 0
                && rows(out[0].substring(clientEnd.get())).stream().anyMatch(row -> row[1] == 0), out -> {
                    boolean stop = rows(out[1]).size() >= 3;
                    if (stop) {
                        clientEnd.set(out[0].length());
                    }
                    return stop;
                });
        String serverOut = (String) r[0];
        String clientOut = (String) r[1];
        assertThat(r[2]).as("the server outlives the client: %s", serverOut).isEqualTo(true);
        assertThat(rows(clientOut)).as(clientOut).hasSize(3).allMatch(row -> row[0] == 4096 && row[1] > 0);
        assertThat(clientOut).doesNotContain("User stopped traffic");
        List<long[]> before = rows(serverOut.substring(0, clientEnd.get()));
        assertThat(before).as(serverOut).isNotEmpty().anyMatch(row -> row[1] > 0);
        // after the client has gone, a row of nothing: perftest's server counts on, it does not notice
        assertThat(rows(serverOut.substring(clientEnd.get()))).as(serverOut).anyMatch(row -> row[1] == 0);
        assertThat(serverOut).doesNotContain("Client closed connection");

        PerfSpec write = new PerfSpec(PerfTest.WRITE, Transport.RC, false, new int[] {65536}, 1, 0, 1_000_000_000L,
                128, PerfSpec.CQ_MODERATION, 1, false);
        for (boolean[] reversedAndCm : new boolean[][] {{false, false}, {true, false}, {false, true}}) {
            boolean reversed = reversedAndCm[0];
            int sender = reversed ? 0 : 1;
            r = infinitely(write, reversed, reversedAndCm[1], out -> reversed && rows(out[0]).size() >= 2,
                    out -> !reversed && rows(out[1]).size() >= 2);
            String sent = (String) r[sender];
            String passive = (String) r[1 - sender];
            assertThat(rows(sent)).as(sent).hasSize(2).allMatch(row -> row[0] == 65536 && row[1] > 0);
            assertThat(sent).contains(" User stopped traffic");
            assertThat(rows(passive)).as(passive).isEmpty();
            assertThat(passive).contains(" Client closed connection");
        }
    }

    /**
     * --run_infinitely -D 1 with --reversed SEND: the server sends, a row a second, until it is stopped (perftest's
     * SIGINT on the sender: no closing exchange); the client receives and prints a row of what arrived every second,
     * then rows of 0 once the server has gone, until it is stopped itself: perftest's SEND sides with their roles
     * swapped.
     */
    @Test
    @Timeout(180)
    void shouldRunInfinitelyReversedWithTheServerSending() throws Exception {
        PerfSpec send = sendInfinitely();
        java.util.concurrent.atomic.AtomicInteger serverEnd = new java.util.concurrent.atomic.AtomicInteger(-1);
        Object[] r = infinitely(send, true, false, out -> {
            boolean stop = rows(out[0]).size() >= 3;
            if (stop) {
                serverEnd.set(out[1].length());
            }
            return stop;
        }, out -> serverEnd.get() >= 0
                && rows(out[1].substring(serverEnd.get())).stream().anyMatch(row -> row[1] == 0));
        String serverOut = (String) r[0];
        String clientOut = (String) r[1];
        assertThat(rows(serverOut)).as(serverOut).hasSize(3).allMatch(row -> row[0] == 4096 && row[1] > 0);
        List<long[]> before = rows(clientOut.substring(0, serverEnd.get()));
        assertThat(before).as(clientOut).isNotEmpty().anyMatch(row -> row[1] > 0);
        assertThat(rows(clientOut.substring(serverEnd.get()))).as(clientOut).anyMatch(row -> row[1] == 0);
    }

    /**
     * perftest's -e on latency rows between two processes: SEND latency, each side waits for every ping or pong on its
     * receive CQ's completion channel, and READ latency, the client on its send CQ's; both print their rows and each
     * waiting side's CQs gave events (a busy-polling side gives none).
     */
    @Test
    @Timeout(120)
    void shouldWaitOnCompletionEventsInLatencyRowsOnBothSides() throws Exception {
        for (PerfTest test : List.of(PerfTest.SEND, PerfTest.READ)) {
            PerfSpec spec = new PerfSpec(test, Transport.RC, true, new int[] {64}, 1, 200, 0, 1, 1, 1, false);
            List<RemotePerf> sides = new java.util.concurrent.CopyOnWriteArrayList<>();
            String[] out = serverAndClient(server, client, spec, false, PerftestFlags.DEFAULT, r -> {
                sides.add(r);
                return r.events(true);
            });
            assertThat(rows(out[1])).as(out[1]).extracting(r -> r[1]).containsExactly(200L);
            assertThat(sides).hasSize(2);
            // the server's RemotePerf was made first; READ's server only waits for the closing exchange
            assertThat(sides.get(1).completionEvents()).as("the client, %s", test).isPositive();
            if (test == PerfTest.SEND) {
                assertThat(rows(out[0])).as(out[0]).extracting(r -> r[0]).containsExactly(64L);
                assertThat(sides.get(0).completionEvents()).as("the server").isPositive();
            }
        }
    }

    @Test
    @Timeout(120)
    void shouldRunReadAndAtomicLatencyWithTheClientAloneMeasuring() throws Exception {
        for (PerfTest test : List.of(PerfTest.READ, PerfTest.ATOMIC)) {
            String[] out = run(test, Transport.RC, true, new int[] {8}, 1, 100, false);
            assertThat(rows(out[1])).extracting(r -> r[1]).containsExactly(100L);
            assertThat(rows(out[0])).isEmpty();
            assertThat(out[0]).contains("perftest's server prints no row");
        }
    }

    @Test
    @Timeout(120)
    void shouldAddBothSidesReportsOfABidirectionalRow() throws Exception {
        for (PerfTest test : List.of(PerfTest.SEND, PerfTest.WRITE)) {
            String[] out = run(test, Transport.RC, false, new int[] {4096}, 1, 300, true);
            // perftest's print_full_bw_report: the rates of both reports added, the iterations this side's own
            assertThat(rows(out[1])).extracting(r -> r[1]).containsExactly(300L);
            assertThat(rows(out[0])).extracting(r -> r[1]).containsExactly(300L);
        }
    }

    /**
     * A bidirectional SEND row of {@code -n} iterations ends on each side only once the peer's messages have all
     * arrived too, as perftest's {@code run_iter_bi}: here the client sends at 3,000 messages a second and the server
     * at once, each side keeping 32 receives posted, so the server's own 600 sends complete long before the
     * client's 600 have arrived. Were it to stop reposting then (and wait for the client's report), the client's
     * remaining messages would be RNR-NAKed for good ({@code rnr_retry} 7) and its row never end: the stall two
     * processes met beside busy CPUs.
     */
    @Test
    @Timeout(120)
    void shouldKeepReceivingTheSlowerPeersMessagesBeforeEndingABidirectionalRow() throws Exception {
        PerfSpec spec = new PerfSpec(PerfTest.SEND, Transport.RC, false, new int[] {4096}, 1, 600, 0, 128,
                PerfSpec.CQ_MODERATION, 1, true);
        PerftestFlags flags = new PerftestFlags(false, 0, 0, 0, RemotePerf.HOP_LIMIT, 0, 0, 0, 32, 0, 0, null);
        String[] out = serverAndClient(server, client, spec, false, flags, r -> r,
                r -> r.rateLimit(new RateLimit(3000, 'p', 1)), LinkOptions.DEFAULT);
        assertThat(rows(out[1])).as(out[1]).extracting(r -> r[1]).containsExactly(600L);
        assertThat(rows(out[0])).as(out[0]).extracting(r -> r[1]).containsExactly(600L);
    }
}
