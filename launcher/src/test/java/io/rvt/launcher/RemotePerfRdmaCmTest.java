package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.spi.DriverRegistry;
import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.driver.jni.JniDriverBuilder;
import io.rvt.driver.sim.SimDriver;
import io.rvt.driver.sim.fabric.Fabric;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code rvt perf -R --server} and {@code rvt perf -R HOST} as two {@link RemotePerf}s in one JVM: perftest's rdma_cm
 * mode ({@link PerftestRdmaCm}), its channel an RC connection through rvt-cm whose SENDs carry the exchanges, the
 * test's QPs connected through rvt-cm between two hand-shakes, on a driver-sim fabric and on two driver-jni HCAs on
 * loopback addresses. Both sides print their rows and each other's QP as the CM connected it; neither waits for an
 * exchange the other does not make.
 */
class RemotePerfRdmaCmTest {
    private static final String SERVER_IP = "127.0.0.1";
    private static final String CLIENT_IP = "127.0.0.2";
    /** Loopback addresses of this run's driver-jni HCAs: 127.15.x.1 and .2. */
    private static final String NET = "127.15." + ProcessHandle.current().pid() % 250 + ".";
    private static final Pattern QPN = Pattern.compile("(local|remote) address: LID \\S+ QPN (0x[0-9a-f]+) PSN "
            + "(\\S+)");

    private static Fabric fabric;
    private static DriverRegistry registry;
    private static RemotePerfProtocolTest.Side server;
    private static RemotePerfProtocolTest.Side client;

    @BeforeAll
    static void fabric() throws Exception {
        fabric = Fabric.builder("perftest-cm-" + System.nanoTime()).gidPrefix(0).realTime()
                .threading(ThreadingMode.PROGRESS).build();
        registry = DriverRegistry.create();
        server = new RemotePerfProtocolTest.Side(fabric, registry.register(SimDriver.builder(fabric).name("server")
                .nodeGuid(RemotePerfProtocolTest.guidOf(SERVER_IP) - 1).build()));
        client = new RemotePerfProtocolTest.Side(fabric, registry.register(SimDriver.builder(fabric).name("client")
                .nodeGuid(RemotePerfProtocolTest.guidOf(CLIENT_IP) - 1).build()));
    }

    @AfterAll
    static void close() throws Exception {
        registry.close();
        fabric.close();
    }

    private static PerfSpec spec(PerfTest test, Transport t, boolean lat, int[] sizes, int qps, int iters) {
        return new PerfSpec(test, t, lat, sizes, qps, iters, 0, lat ? 1 : 128, lat ? 1 : PerfSpec.CQ_MODERATION, 1,
                false);
    }

    private static String[] run(Host s, Host c, PerfSpec spec) throws Exception {
        String[] out = RemotePerfProtocolTest.serverAndClient(s, c, spec, true);
        for (String o : out) {
            assertThat(o).contains(spec.title(), "Data ex. method : rdma_cm", "rdma_cm QPs     : ON");
        }
        assertThat(out[0]).contains("waiting for a client on ", "CM port ", "(rdma_cm)");
        // each side's QP is what the other printed as remote: the CM's QPN and send PSN, exchanged in the SENDs
        assertThat(addresses(out[0], "local")).isEqualTo(addresses(out[1], "remote"));
        assertThat(addresses(out[1], "local")).isEqualTo(addresses(out[0], "remote"));
        return out;
    }

    private static List<String> addresses(String out, String side) {
        Matcher m = QPN.matcher(out);
        List<String> found = new java.util.ArrayList<>();
        while (m.find()) {
            if (m.group(1).equals(side)) {
                found.add(m.group(2) + " " + m.group(3));
            }
        }
        assertThat(found).as("%s addresses in %s", side, out).isNotEmpty();
        return found;
    }

    @Test
    @Timeout(120)
    void shouldRunSendBandwidthOverTwoQpsConnectedThroughTheCm() throws Exception {
        String[] out = run(server, client, spec(PerfTest.SEND, Transport.RC, false, new int[] {4096}, 2, 300));
        assertThat(RemotePerfProtocolTest.rows(out[1])).extracting(r -> r[1]).containsExactly(600L);
        assertThat(RemotePerfProtocolTest.rows(out[0])).as(out[0]).extracting(r -> r[1]).containsExactly(600L);
        assertThat(addresses(out[1], "local")).hasSize(2);
    }

    @Test
    @Timeout(120)
    void shouldSweepWriteBandwidthWithThePassiveServerPrintingTheClientsReport() throws Exception {
        String[] out = run(server, client, spec(PerfTest.WRITE, Transport.RC, false, new int[] {64, 65536}, 1, 200));
        assertThat(RemotePerfProtocolTest.rows(out[1])).extracting(r -> r[0]).containsExactly(64L, 65536L);
        String last = out[1].lines().filter(l -> l.startsWith(" 65536 ")).findFirst().orElseThrow();
        assertThat(out[0]).contains(last);
    }

    @Test
    @Timeout(120)
    void shouldRunReadLatencyAndAtomicBandwidth() throws Exception {
        String[] read = run(server, client, spec(PerfTest.READ, Transport.RC, true, new int[] {64}, 1, 100));
        assertThat(RemotePerfProtocolTest.rows(read[1])).extracting(r -> r[1]).containsExactly(100L);
        String[] atomic = run(server, client, spec(PerfTest.ATOMIC, Transport.RC, false, new int[] {8}, 1, 200));
        assertThat(RemotePerfProtocolTest.rows(atomic[1])).extracting(r -> r[1]).containsExactly(200L);
        assertThat(RemotePerfProtocolTest.rows(atomic[0])).extracting(r -> r[1]).containsExactly(200L);
    }

    /**
     * perftest's -T with -R: the test's connections carry the type of service as their path's traffic class, in the
     * GRH of every packet of their QPs both ways (the fabric sees each frame as sent); the channel's QP keeps 0.
     */
    @Test
    @Timeout(120)
    void shouldPutTheTypeOfServiceInTheGrhOfTheTestsPackets() throws Exception {
        java.util.Map<Integer, Integer> byClass = new java.util.concurrent.ConcurrentHashMap<>();
        fabric.dropRule((from, to, frame) -> {
            if ((frame.get(1) & 0x3) == 0x3) { // LRH's LNH: a GRH follows
                int tclass = (frame.get(8) & 0x0F) << 4 | (frame.get(9) & 0xF0) >>> 4;
                byClass.merge(tclass, 1, Integer::sum);
            }
            return false;
        });
        try {
            String[] out = RemotePerfProtocolTest.serverAndClient(server, client,
                    spec(PerfTest.SEND, Transport.RC, false, new int[] {4096}, 1, 300), true, PerftestFlags.DEFAULT,
                    r -> r.tos(0x60));
            assertThat(RemotePerfProtocolTest.rows(out[1])).extracting(r -> r[1]).containsExactly(300L);
        } finally {
            fabric.dropRule(null);
        }
        // 300 SENDs one way and their ACKs the other carry it; the channel's few messages and the CM's MADs do not
        assertThat(byClass).as("frames by traffic class").containsKey(0x60);
        assertThat(byClass.keySet()).as("frames by traffic class: %s", byClass).isSubsetOf(0, 0x60);
        assertThat(byClass.get(0x60)).as("frames by traffic class: %s", byClass).isGreaterThanOrEqualTo(300);
    }

    @Test
    @Timeout(120)
    void shouldRunSendLatencyOverUc() throws Exception {
        String[] out = run(server, client, spec(PerfTest.SEND, Transport.UC, true, new int[] {32}, 1, 100));
        assertThat(RemotePerfProtocolTest.rows(out[1])).hasSize(1);
        assertThat(RemotePerfProtocolTest.rows(out[0])).hasSize(1);
    }

    /**
     * UD with {@code -R}: the server serves its UD QP on the CM port, the client resolves it by SIDR (QPN and Q_Key
     * from the SIDR_REP); where the server sends too (latency, {@code -b}) the client's QPN comes in a
     * SEND_WITH_IMM, as perftest's.
     */
    @Test
    @Timeout(180)
    void shouldRunUdSendBandwidthAndLatencyResolvedBySidr() throws Exception {
        String[] bw = run(server, client, spec(PerfTest.SEND, Transport.UD, false, new int[] {1024}, 1, 300));
        assertThat(RemotePerfProtocolTest.rows(bw[1])).extracting(r -> r[0]).containsExactly(1024L);
        assertThat(RemotePerfProtocolTest.rows(bw[0])).as(bw[0]).hasSize(1);
        String[] lat = run(server, client, spec(PerfTest.SEND, Transport.UD, true, new int[] {64}, 1, 100));
        assertThat(RemotePerfProtocolTest.rows(lat[1])).extracting(r -> r[1]).containsExactly(100L);
        assertThat(RemotePerfProtocolTest.rows(lat[0])).as(lat[0]).hasSize(1);
        PerfSpec both = new PerfSpec(PerfTest.SEND, Transport.UD, false, new int[] {512}, 1, 200, 0, 128,
                PerfSpec.CQ_MODERATION, 1, true);
        String[] bidi = run(server, client, both);
        assertThat(RemotePerfProtocolTest.rows(bidi[1])).as(bidi[1]).hasSize(1);
        assertThat(RemotePerfProtocolTest.rows(bidi[0])).as(bidi[0]).hasSize(1);
    }

    /**
     * UD with {@code -R} against a client that asks SIDR once, as perftest's does (a SIDR_REP of status 1 is its
     * RDMA_CM_EVENT_UNREACHABLE): the server serves its UD QP before the hand-shake after which the client asks, so
     * no client ever finds nobody serving, however fast it asks.
     */
    @Test
    @Timeout(300)
    void shouldServeTheUdQpBeforeTheClientCanAsk() throws Exception {
        for (int i = 0; i < 4; i++) {
            for (boolean lat : new boolean[] {false, true}) {
                String[] out = RemotePerfProtocolTest.serverAndClient(server, client, spec(PerfTest.SEND,
                        Transport.UD, lat, new int[] {64}, 1, 50), true, PerftestFlags.DEFAULT, RemotePerf::sidrOnce);
                assertThat(RemotePerfProtocolTest.rows(out[1])).as(out[1]).hasSize(1);
                assertThat(RemotePerfProtocolTest.rows(out[0])).as(out[0]).hasSize(1);
            }
        }
    }

    /**
     * A server with {@code -R} refuses a client that connects through the CM and then opens the channel as perftest
     * would not (a message of another size where the version goes, another program's bytes, leaving at once), says
     * whom and why, and serves the next client, as its TCP exchange does.
     */
    @Test
    @Timeout(240)
    void shouldRefuseClientsThatOpenTheChannelBadlyAndServeTheNext() throws Exception {
        PerfSpec spec = spec(PerfTest.SEND, Transport.RC, false, new int[] {4096}, 1, 200);
        ByteArrayOutputStream serverOut = new ByteArrayOutputStream();
        PrintStream serverPrint = new PrintStream(serverOut, true,
                StandardCharsets.UTF_8);
        RemotePerf.Reports none = (s, d, mtu, bw, lat) -> { };
        int port = RemotePerfProtocolTest.freePort();
        CompletableFuture<Void> serverRun = CompletableFuture.runAsync(
                () -> new RemotePerf(serverPrint, serverPrint, LinkOptions.DEFAULT, port, false, none, true)
                        .server(server, spec));
        awaitServer(serverOut, serverRun, "waiting for a client", 1);
        InetAddress at = RemotePerfProtocolTest.serverAddress(server);
        io.rvt.api.Device dev = client.devices().get(0);
        Duration patience = Duration.ofSeconds(30);
        // a struct pingpong_dest where perftest's version string goes
        try (PerftestRdmaCm bad = PerftestRdmaCm.connect(client, dev, LinkOptions.DEFAULT, at, port, patience)) {
            assertThatThrownBy(() -> bad.exchange(new byte[PerftestRdmaCm.MESSAGE]))
                    .isInstanceOf(IllegalStateException.class);
        }
        awaitServer(serverOut, serverRun, "refused the client at ", 1);
        // another program's bytes, of the version's size
        try (PerftestRdmaCm bad = PerftestRdmaCm.connect(client, dev, LinkOptions.DEFAULT, at, port, patience)) {
            byte[] http = "GET / HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII);
            // the server answers the exchange with its version, as perftest's, then reads what came
            assertThat(new String(bad.exchange(http), StandardCharsets.US_ASCII)).matches("\\d+\\.\\d+.*");
        }
        awaitServer(serverOut, serverRun, "refused the client at ", 2);
        // connects and leaves before saying anything
        PerftestRdmaCm.connect(client, dev, LinkOptions.DEFAULT, at, port, patience).close();
        awaitServer(serverOut, serverRun, "refused the client at ", 3);
        ByteArrayOutputStream clientOut = new ByteArrayOutputStream();
        PrintStream clientPrint = new PrintStream(clientOut, true,
                StandardCharsets.UTF_8);
        new RemotePerf(clientPrint, clientPrint, LinkOptions.DEFAULT, port, false, none, true).client(client, at,
                spec);
        serverRun.get(60, TimeUnit.SECONDS);
        String out = serverOut.toString(StandardCharsets.UTF_8);
        List<String> refusals = out.lines().filter(l -> l.startsWith("rvt perf: refused the client at ")).toList();
        assertThat(refusals).as(out).hasSize(3).allSatisfy(l -> assertThat(l)
                .startsWith("rvt perf: refused the client at " + CLIENT_IP + ": ")
                .endsWith("; waiting for the next client"));
        assertThat(refusals.get(0)).contains("sent 56 bytes where perftest's exchange has 16");
        assertThat(refusals.get(1)).contains("is not perftest", "GET / HTTP/1.1");
        assertThat(RemotePerfProtocolTest.rows(out)).as(out).extracting(r -> r[1]).containsExactly(200L);
        assertThat(RemotePerfProtocolTest.rows(clientOut.toString(StandardCharsets.UTF_8)))
                .extracting(r -> r[1]).containsExactly(200L);
    }

    /** Waits until the server has printed {@code what} {@code times} times, failing if it ends first. */
    private static void awaitServer(ByteArrayOutputStream out,
            CompletableFuture<Void> run, String what, int times) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (true) {
            String text = out.toString(StandardCharsets.UTF_8);
            if (text.split(Pattern.quote(what), -1).length - 1 >= times) {
                return;
            }
            assertThat(System.nanoTime()).as("the server printed '%s' %d times: %s", what, times, text)
                    .isLessThan(deadline);
            assertThat(run).as("the server: %s", text).isNotDone();
            Thread.onSpinWait();
        }
    }

    /** The same protocol between two driver-jni HCAs on loopback addresses: RoCEv2 datagrams, rdma_cm's MADs. */
    @Test
    @Timeout(180)
    void shouldRunSendAndWriteBandwidthBetweenTwoJniHcas() throws Exception {
        // one host of two HCAs (device names are the JVM's), each on UDP 4791 of its own address, as two processes
        JniSetup setup = new JniSetup(List.of(NET + "1", NET + "2"), List.of(JniSetup.ROCEV2_PORT,
                JniSetup.ROCEV2_PORT), JniSetup.DEFAULT_MTU, JniDriverBuilder.DEFAULT_SOURCE_PORTS, Threading.PROGRESS,
                true, true);
        try (PlainJniHost both = PlainJniHost.start(setup)) {
            JniSide s = new JniSide(both, both.devices().get(0));
            JniSide c = new JniSide(both, both.devices().get(1));
            String[] send = run(s, c, spec(PerfTest.SEND, Transport.RC, false, new int[] {4096}, 1, 500));
            assertThat(RemotePerfProtocolTest.rows(send[0])).extracting(r -> r[1]).containsExactly(500L);
            String[] write = run(s, c, spec(PerfTest.WRITE, Transport.RC, false, new int[] {65536}, 1, 200));
            assertThat(RemotePerfProtocolTest.rows(write[1])).extracting(r -> r[1]).containsExactly(200L);
        }
    }

    /** One HCA of a two-HCA driver-jni host, as a process's host of one HCA. */
    record JniSide(PlainJniHost both, io.rvt.api.Device device) implements Host {
        @Override
        public List<io.rvt.api.Device> devices() {
            return List.of(device);
        }

        @Override
        public String description() {
            return "driver-jni " + device.name();
        }

        @Override
        public DriverKind driver() {
            return DriverKind.JNI;
        }

        @Override
        public void progress() {
            both.progress();
        }

        @Override
        public Threading threading() {
            return Threading.PROGRESS;
        }

        @Override
        public void close() {
        }
    }
}
