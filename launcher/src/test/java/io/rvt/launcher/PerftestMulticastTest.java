package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.spi.DriverRegistry;
import io.rvt.api.Gid;
import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.driver.sim.SimDriver;
import io.rvt.driver.sim.fabric.Fabric;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * perftest's {@code -g} and {@code -M} on {@code rvt perf}: UD SENDs to a multicast group, the receiving QP attached
 * to it, in one process and between two {@link RemotePerf}s on one driver-sim fabric; every SEND on the fabric is
 * addressed to the group (the LRH to its MLID, the BTH to QP {@code 0xFFFFFF}), and the flags' refusals.
 */
class PerftestMulticastTest {
    private final CommandLine cli = new CommandLine();

    /** Counts, per receiving link, the frames between two ports by "dlid 0x.... dqpn 0x......". */
    private static Map<String, Integer> watch(Fabric fabric) {
        Map<String, Integer> seen = new ConcurrentHashMap<>();
        fabric.dropRule((from, to, frame) -> {
            if (from != to && (frame.get(1) & 0x3) == 0x3) { // LRH's LNH: a GRH, then the BTH at 48
                int dlid = frame.getShort(2) & 0xFFFF;
                int dqpn = frame.getInt(52) & 0xFFFFFF;
                seen.merge(String.format("dlid 0x%04x dqpn 0x%06x", dlid, dqpn), 1, Integer::sum);
            }
            return false;
        });
        return seen;
    }

    private static long iterations(String out, String size) {
        return out.lines().filter(l -> l.startsWith(" " + size + " ")).mapToLong(l -> Long.parseLong(
                l.trim().split("\\s+")[1])).findFirst().orElse(-1);
    }

    @Test
    @Timeout(120)
    void shouldSendEveryMessageToTheServersGroupInOneProcess(@TempDir Path dir) throws Exception {
        PlainHost host = PlainHost.start(Options.parse().fabric());
        Map<String, Integer> seen = watch(host.fabric());
        Path json = dir.resolve("perftest.json");
        assertThat(cli.runOn(host, "perf", "--test", "ib_send_bw", "-g", "-s", "64", "-n", "300", "--out_json",
                "--out_json_file=" + json)).as(cli.err()).isZero();
        // perftest's test_info: the title's word and its line
        assertThat(MiniJson.map(MiniJson.parseFile(json).get("test_info"))).containsEntry("test",
                "Send_BW_Multicast_Test").containsEntry("MultiCast_runs", "on_UD").containsEntry("Connection_type",
                "UD").containsEntry("Dual_port", "OFF");
        assertThat(cli.out()).contains("Send BW Multicast Test", " MultiCast runs on UD!", "Connection type : UD");
        assertThat(iterations(cli.out(), "64")).isEqualTo(300);
        // perftest's MCG_GID ff01:0:2:c985:: has MLID 0xc000 here; the warm-up sends to the group too
        assertThat(seen.keySet()).as("%s", seen).containsExactly("dlid 0xc000 dqpn 0xffffff");
        assertThat(seen.get("dlid 0xc000 dqpn 0xffffff")).isGreaterThanOrEqualTo(300);
    }

    @Test
    @Timeout(120)
    void shouldPingPongBetweenBothSidesGroupsOrTheOneMgidNames() {
        PlainHost host = PlainHost.start(Options.parse().fabric());
        Map<String, Integer> seen = watch(host.fabric());
        assertThat(cli.runOn(host, "perf", "--test", "ib_send_lat", "--mcg", "-n", "100")).as(cli.err()).isZero();
        assertThat(cli.out()).contains("Send Latency Multicast Test");
        assertThat(iterations(cli.out(), "2")).isEqualTo(100);
        // the server's group (0xc000) and the client's, MCG_GID's last byte plus one (0xc001)
        assertThat(seen.keySet()).as("%s", seen).containsExactlyInAnyOrder("dlid 0xc000 dqpn 0xffffff",
                "dlid 0xc001 dqpn 0xffffff");
        assertThat(seen.values()).allSatisfy(n -> assertThat(n).isGreaterThanOrEqualTo(100));

        cli.reset();
        host = PlainHost.start(Options.parse().fabric());
        seen = watch(host.fabric());
        assertThat(cli.runOn(host, "perf", "--test", "ib_send_lat", "-g", "-M",
                "255:1:0:0:0:2:201:133:0:0:0:0:0:0:0:0x1f", "-n", "50")).as(cli.err()).isZero();
        assertThat(seen.keySet()).as("%s", seen).containsExactly("dlid 0xc01f dqpn 0xffffff");
        assertThat(seen.get("dlid 0xc01f dqpn 0xffffff")).isGreaterThanOrEqualTo(100); // both ways
    }

    /**
     * driver-jni in one process: its two HCAs are each other's peer, so a SEND to the group reaches the other's
     * attached QP as driver-jni's unicast copy with the group's ICRC; a SEND that did not would leave the rows empty.
     */
    @Test
    @Timeout(120)
    void shouldRunBothMulticastProgramsOnDriverJniInOneProcess() {
        assertThat(cli.run("--driver", "jni", "--no-osgi", "perf", "--test", "ib_send_bw", "-g", "-s", "256", "-n",
                "300")).as(cli.err()).isZero();
        assertThat(cli.out()).contains("Send BW Multicast Test", "Connection type : UD");
        assertThat(iterations(cli.out(), "256")).isEqualTo(300);
        cli.reset();
        assertThat(cli.run("--driver", "jni", "--no-osgi", "perf", "--test", "ib_send_lat", "-g", "-n", "100"))
                .as(cli.err()).isZero();
        assertThat(cli.out()).contains("Send Latency Multicast Test");
        assertThat(iterations(cli.out(), "2")).isEqualTo(100);
    }

    @Test
    @Timeout(120)
    void shouldAttachTheServersQpAndAdvertiseItsGroupBetweenTwoProcesses() throws Exception {
        Fabric fabric = Fabric.builder("mcast-" + System.nanoTime()).gidPrefix(0).realTime()
                .threading(ThreadingMode.PROGRESS).build();
        try (DriverRegistry registry = DriverRegistry.create()) {
            RemotePerfProtocolTest.Side server = new RemotePerfProtocolTest.Side(fabric, registry.register(SimDriver
                    .builder(fabric).name("server").nodeGuid(RemotePerfProtocolTest.guidOf("127.0.0.1") - 1).build()));
            RemotePerfProtocolTest.Side client = new RemotePerfProtocolTest.Side(fabric, registry.register(SimDriver
                    .builder(fabric).name("client").nodeGuid(RemotePerfProtocolTest.guidOf("127.0.0.2") - 1).build()));
            Map<String, Integer> seen = watch(fabric);
            PerftestMcast mcast = new PerftestMcast(null);
            String[] out = RemotePerfProtocolTest.serverAndClient(server, client, new PerfSpec(PerfTest.SEND,
                    Transport.UD, false, new int[] {64}, 1, 200, 0, 128, PerfSpec.CQ_MODERATION, 1, false), false,
                    PerftestFlags.DEFAULT, r -> r.multicast(mcast));
            String group = " MGID: 255:01:00:00:00:02:201:133:00:00:00:00:00:00:00:00";
            assertThat(out[0]).contains("Send BW Multicast Test", " MultiCast runs on UD!",
                    " local address: LID 0xc000 QPN 0xffffff", group);
            assertThat(out[1]).contains("Send BW Multicast Test", " remote address: LID 0xc000 QPN 0xffffff", group);
            assertThat(iterations(out[1], "64")).as(out[1]).isEqualTo(200);
            assertThat(iterations(out[0], "64")).as(out[0]).isEqualTo(200);
            assertThat(seen).as("%s", seen).containsOnlyKeys("dlid 0xc000 dqpn 0xffffff")
                    .containsValue(200);

            fabric.dropRule(null);
            seen = watch(fabric);
            Gid named = PerftestMcast.parse("ff01:0000:0002:c985:0000:0000:0000:0123");
            out = RemotePerfProtocolTest.serverAndClient(server, client, new PerfSpec(PerfTest.SEND, Transport.UD,
                    true, new int[] {8}, 1, 100, 0, 1, 1, 1, false), false, PerftestFlags.DEFAULT,
                    r -> r.multicast(new PerftestMcast(named)));
            for (String o : out) {
                assertThat(o).contains("Send Latency Multicast Test", " QPN 0xffffff");
                assertThat(iterations(o, "8")).as(o).isEqualTo(100);
            }
            assertThat(seen).as("%s", seen).containsOnlyKeys("dlid 0xc123 dqpn 0xffffff");
            assertThat(seen.get("dlid 0xc123 dqpn 0xffffff")).isGreaterThanOrEqualTo(200);
        } finally {
            fabric.close();
        }
    }

    /**
     * Two driver-jni processes' HCAs (one JVM, each host one HCA on UDP 4791 of its own loopback address, as
     * {@link Options#jniSetup()} makes them): the client's HCA has the server in its peer table, so its SENDs to the
     * server's group reach it as driver-jni's unicast copies; without that entry the server counts none.
     */
    @Test
    @Timeout(180)
    void shouldSendToTheServersGroupBetweenTwoDriverJniProcesses() throws Exception {
        String net = "127.16." + ProcessHandle.current().pid() % 250 + ".";
        JniSetup serverSetup = Options.parse("--driver", "jni", "--address", net + "1", "perf", "--server", "-g")
                .jniSetup();
        JniSetup clientSetup = Options.parse("--driver", "jni", "--address", net + "2", "perf", net + "1", "-g")
                .jniSetup();
        assertThat(serverSetup.properties(0).get("peers")).isEqualTo(new String[0]);
        assertThat(clientSetup.properties(0).get("peers")).isEqualTo(new String[] {net + "1=4791"});
        // a JVM names its verbs devices once: the client's HCA is built from its setup under another name
        try (PlainJniHost server = PlainJniHost.start(serverSetup);
                DriverRegistry clientRegistry = DriverRegistry.create()) {
            Host client = new OneHca(clientRegistry.register(clientSetup.builder(0).name("mcast-client").build()));
            String[] out = RemotePerfProtocolTest.serverAndClient(server, client, new PerfSpec(PerfTest.SEND,
                    Transport.UD, false, new int[] {1024}, 1, 300, 0, 128, PerfSpec.CQ_MODERATION, 1, false), false,
                    PerftestFlags.DEFAULT, r -> r.multicast(new PerftestMcast(null)));
            assertThat(out[0]).contains("Send BW Multicast Test", " local address: LID 0000 QPN 0xffffff",
                    " MGID: 255:01:00:00:00:02:201:133:00:00:00:00:00:00:00:00");
            assertThat(iterations(out[1], "1024")).as(out[1]).isEqualTo(300);
            // UD on loopback may lose a datagram under load; the server counts what reached its group
            assertThat(iterations(out[0], "1024")).as(out[0]).isBetween(270L, 300L);
        }
    }

    /**
     * An rvt client with {@code -g} meets a server whose version buffer is perftest's (no {@code rvt} after the
     * version's NUL): refused with one line after the opening exchanges, before any QP is made; the version buffers
     * rvt writes carry the mark, which perftest's C-string reading never sees.
     */
    @Test
    @Timeout(60)
    void shouldRefuseMulticastWithAPeerThatIsNotRvt() throws Exception {
        Fabric fabric = Fabric.builder("mcast-perftest-" + System.nanoTime()).gidPrefix(0).realTime()
                .threading(ThreadingMode.PROGRESS).build();
        try (DriverRegistry registry = DriverRegistry.create(); ServerSocket listen = new ServerSocket(0, 1,
                InetAddress.getLoopbackAddress())) {
            RemotePerfProtocolTest.Side client = new RemotePerfProtocolTest.Side(fabric, registry.register(SimDriver
                    .builder(fabric).name("client").nodeGuid(RemotePerfProtocolTest.guidOf("127.0.0.2") - 1).build()));
            // perftest's side of exchange_versions, check_sys_data and check_mtu: what it writes, as it reads
            CompletableFuture<byte[]> perftest = CompletableFuture.supplyAsync(() -> {
                try (Socket s = listen.accept()) {
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    byte[] version = in.readNBytes(16);
                    s.getOutputStream().write(Arrays.copyOf("6.06".getBytes(StandardCharsets.US_ASCII), 16));
                    in.readNBytes(4);
                    s.getOutputStream().write(ByteBuffer.allocate(4).putInt(4096).array());
                    in.readNBytes(4);
                    s.getOutputStream().write(ByteBuffer.allocate(4).putInt(64).array());
                    in.readNBytes(2);
                    s.getOutputStream().write(new byte[] {'3', 0});
                    assertThat(in.read()).as("rvt closes after the MTU").isEqualTo(-1);
                    return version;
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
            RemotePerf rvt = new RemotePerf(print, print, LinkOptions.DEFAULT, listen.getLocalPort(), false,
                    (side, dev, mtu, bw, lat) -> { }, false).multicast(new PerftestMcast(null));
            assertThatThrownBy(() -> rvt.client(client, listen.getInetAddress(), new PerfSpec(PerfTest.SEND,
                    Transport.UD, false, new int[] {64}, 1, 100, 0, 128, PerfSpec.CQ_MODERATION, 1, false)))
                    .isInstanceOf(IllegalStateException.class).hasMessage("-g (multicast) with the peer at "
                            + listen.getInetAddress().getHostAddress() + ", which is perftest, not rvt: driver-jni "
                            + "sends a group's SENDs as unicast copies, and a Linux RDMA device takes multicast only "
                            + "at the group's IP multicast address; run -g between two rvt processes");
            byte[] mine = perftest.get(30, TimeUnit.SECONDS);
            assertThat(PerftestComm.cString(mine)).isEqualTo("6.06");
            assertThat(Arrays.copyOfRange(mine, 5, 8)).asString(StandardCharsets.US_ASCII).isEqualTo("rvt");
            assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("local address");
        } finally {
            fabric.close();
        }
    }

    @Test
    void shouldRefuseMulticastWherePerftestOrRvtDoesWithOneLine() {
        String[] jni = {"--driver", "jni", "--address", "127.0.0.2", "perf", "127.0.0.3"};
        cli.assertUsage("option --mcg: multicast runs on SEND tests, not write", "perf", "--test", "write", "-g");
        cli.assertUsage("option --mcg: multicast runs on UD, not RC", "perf", "-c", "RC", "-g");
        cli.assertUsage("option --mcg: bidirectional mode is not supported in multicast", "perf", "-g", "-b");
        cli.assertUsage("option --mcg: only 1 QP is supported in multicast", "perf", "-g", "-q", "2");
        cli.assertUsage("option --mcg: multicast with -R (rdma_cm) is not supported", "--driver", "jni", "perf",
                "--server", "-R", "-g");
        cli.assertUsage("option --mcg: a latency test between two driver-jni processes is not built: the server "
                + "answers to the client's group", concat(jni, "--test", "ib_send_lat", "-g"));
        cli.assertUsage("option --connectionless is refused: perftest's connectionless server serves a multicast "
                + "group with --run_infinitely between two processes", "perf", "-g", "--connectionless");
        cli.assertUsage("option --MGID names the group of -g (--mcg): give -g too", "perf", "-M",
                "255:1:0:0:0:2:201:133:0:0:0:0:0:0:0:0");
        cli.assertUsage("option --MGID: '1:2:3' is not a GID", "perf", "-g", "-M", "1:2:3");
        cli.assertUsage("option --MGID: '254:1:0:0:0:2:201:133:0:0:0:0:0:0:0:0' is not a multicast GID (its first "
                + "byte is 254, not 255)", "perf", "-g", "-M", "254:1:0:0:0:2:201:133:0:0:0:0:0:0:0:0");
        cli.assertUsage("option --MGID: '255:1:0:0:0:2:201:133:0:0:0:0:0:0:0:256' is not a GID", "perf", "-g", "-M",
                "255:1:0:0:0:2:201:133:0:0:0:0:0:0:0:256");
    }

    @Test
    void shouldDeriveTheGroupsAsPerftestAndTheirLids() {
        assertThat(new PerftestMcast(null).group(false).toBytes()).containsExactly(
                ByteBuffer.allocate(16).put(new byte[] {(byte) 255, 1, 0, 0, 0, 2, (byte) 201, (byte) 133}).array());
        assertThat(new PerftestMcast(null).group(true).toString()).isEqualTo(
                "ff01:0000:0002:c985:0000:0000:0000:0001");
        Gid g = PerftestMcast.parse("255:1:0:0:0:2:201:133:0:0:0:0:0:0:0x12:0x34");
        assertThat(new PerftestMcast(g).group(true)).isEqualTo(g).isEqualTo(new PerftestMcast(g).group(false));
        assertThat(PerftestMcast.mlid(g)).isEqualTo(0xC000 | 0x1234);
    }

    /** A process's host of one driver-jni HCA, run by the polls of its CQs (driver-jni's progress mode). */
    private record OneHca(io.rvt.api.Device device) implements Host {
        @Override
        public java.util.List<io.rvt.api.Device> devices() {
            return java.util.List.of(device);
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
        public Threading threading() {
            return Threading.PROGRESS;
        }

        @Override
        public void close() {
        }
    }

    private static String[] concat(String[] a, String... b) {
        String[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
