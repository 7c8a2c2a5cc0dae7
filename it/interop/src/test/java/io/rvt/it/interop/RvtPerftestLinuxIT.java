package io.rvt.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.launcher.Main;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code rvt perf} (the launcher, in a child JVM in the peer's namespace, its HCA on the host's IPv4 or IPv6 address)
 * against the guest's perftest 4.5 (the eight {@code ib_*} programs), either side as server, over perftest's TCP
 * exchange (perftest's socket is IPv4 only), and with {@code -R} over its rdma_cm mode (rvt-cm against Linux's
 * rdma_cm), RoCE v2 between the IPv4-mapped or the IPv6 GIDs: both exit 0, the
 * client prints its rows (and the server its own or the client's where perftest's does), and each side's QPN and PSN
 * are what the other printed as remote. Small tables: the guest is TCG.
 */
@ExtendWith(LinuxPeerExtension.class)
class RvtPerftestLinuxIT {
    private static final Duration GUEST = Duration.ofSeconds(240);
    private static final Duration CHILD = Duration.ofSeconds(300);
    private static final int ITERS = 50;
    private static final AtomicInteger PORTS = new AtomicInteger();
    private static final Pattern LOCAL = Pattern.compile("local address: LID \\S+ QPN (0x[0-9a-f]+) PSN "
            + "(0x[0-9a-f]+)");
    private static final Pattern REMOTE = Pattern.compile("remote address: LID \\S+ QPN (0x[0-9a-f]+) PSN "
            + "(0x[0-9a-f]+)");
    /**
     * A row: bytes, iterations and at least three numbers more; perftest's may be {@code inf} where its clock
     * calibration failed ({@code -F}, {@link #perftest}).
     */
    private static final Pattern ROW = Pattern.compile("(?m)^[ \\t]+(\\d+)[ \\t]+(\\d+)"
            + "([ \\t]+([0-9.]+|inf|-?nan)){3,}");

    /** The matrix both ways: program, message size (none: perftest's default or -a), flags, RDMA over IPv6 GIDs. */
    private static final String MATRIX = """
            ib_send_bw, 4096, , false
            ib_write_bw, 65536, , false
            ib_read_lat, 64, , false
            ib_atomic_bw, 8, , false
            ib_send_bw, 4096, -c UC, false
            ib_send_bw, 512, -c UD, false
            ib_write_bw, 65536, -c UC, false
            ib_send_bw, , -c UD -a, false
            ib_send_bw, 4096, -b, false
            ib_write_bw, 65536, -b, false
            ib_send_lat, 64, , false
            ib_write_lat, 64, , false
            ib_read_bw, 65536, , false
            ib_atomic_lat, 8, , false
            ib_write_bw, 64, , false
            ib_read_bw, 64, , false
            ib_send_bw, 4096, , true
            ib_read_lat, 64, , true
            ib_read_bw, 4096, -o 4 -N, false
            ib_send_bw, 4096, -S 1 --tclass 32 -L 64, false
            """;
    /** The {@code -R} cases both ways: program, message size, whether the server prints a row too. */
    private static final String MATRIX_R = """
            ib_send_bw, 4096, true
            ib_write_bw, 65536, true
            ib_read_lat, 64, false
            ib_atomic_bw, 8, true
            """;

    /**
     * {@code -R} with UD and with the flags rdma_cm carries, both ways: program, size, flags, whether the server prints
     * a row too. UD ({@code -c UD}, one QP): rvt-cm's SIDR against rdma_cm's UDP port space (perftest's
     * {@code rdma_cm_client_connection} resolves the server's UD QP, {@code rdma_cm_server_connection} answers);
     * {@code -I} (inline size: rxe's QPs take 64, rvt's none, the wire the same); {@code -T} (the ToS of each test
     * connection's path, in the GRH both ways).
     */
    private static final String MATRIX_R_FLAGS = """
            ib_send_bw, 512, -c UD, true
            ib_send_lat, 64, -c UD, true
            ib_send_bw, 4096, -I 64, true
            ib_write_lat, 64, -I 64, true
            ib_send_bw, 4096, -T 96, true
            ib_read_bw, 65536, -T 32, true
            """;

    /**
     * perftest's flags of how a test runs (issue 26, item 3), both ways over the TCP exchange, each side given them:
     * program, message size, flags. {@code -e}: each side waits on its CQs' completion channels (perftest's
     * {@code ctx_notify_events}, rvt's bandwidth rows); the software rate limiter, 100 MB/sec in bursts of 10.
     */
    private static final String RUN_FLAGS = """
            ib_send_bw, 4096, -e
            ib_read_bw, 4096, -e
            ib_write_bw, 65536, --rate_limit 100 --rate_units M --burst_size 10 --rate_limit_type SW
            """;

    /** {@link #RUN_FLAGS}, rvt the client. */
    @ParameterizedTest
    @CsvSource(textBlock = RUN_FLAGS)
    void shouldRunRvtPerfWithRunFlagsAgainstThePerftestServer(String program, int size, String flags,
            LinuxPeer peer) throws Exception {
        shouldRunRvtPerfAgainstThePerftestServer(program, size, flags, false, peer);
    }

    /** {@link #RUN_FLAGS}, rvt the server. */
    @ParameterizedTest
    @CsvSource(textBlock = RUN_FLAGS)
    void shouldServeThePerftestClientWithRunFlags(String program, int size, String flags, LinuxPeer peer)
            throws Exception {
        shouldServeThePerftestClient(program, size, flags, false, peer);
    }

    /**
     * {@code ib_send_bw --use-srq} both ways: the server's QPs (perftest's or rvt's) take their receives from one
     * shared receive queue.
     */
    @ParameterizedTest
    @CsvSource({"true", "false"})
    void shouldRunSendBandwidthIntoASharedReceiveQueueWithPeerFlags(boolean rvtClient, LinuxPeer peer)
            throws Exception {
        if (rvtClient) {
            shouldRunRvtPerfAgainstThePerftestServer("ib_send_bw", 4096, "--use-srq", false, peer);
        } else {
            shouldServeThePerftestClient("ib_send_bw", 4096, "--use-srq", false, peer);
        }
    }

    /**
     * {@code --reversed} both ways over the TCP exchange (issue 26, item 3): the side without HOST (perftest's or
     * rvt's) sends and the connecting side receives, each printing a row of the {@value #ITERS} messages (SEND: its
     * side's; WRITE, READ and atomic bandwidth: the receiving side the sender's, from its report; SEND latency:
     * both sides'), as perftest's {@code is_reversed} swaps its {@code machine}, not the exchange's order.
     */
    @ParameterizedTest
    @CsvSource({"true, ib_send_bw, 4096", "false, ib_send_bw, 4096", "true, ib_write_bw, 65536",
        "false, ib_write_bw, 65536", "true, ib_read_bw, 65536", "false, ib_read_bw, 65536", "true, ib_atomic_bw, 8",
        "false, ib_atomic_bw, 8", "true, ib_send_lat, 64", "false, ib_send_lat, 64"})
    void shouldReverseTheTrafficWithThePerftestPeer(boolean rvtClient, String program, int size, LinuxPeer peer)
            throws Exception {
        if (rvtClient) {
            shouldRunRvtPerfAgainstThePerftestServer(program, size, "--reversed", false, peer);
        } else {
            shouldServeThePerftestClient(program, size, "--reversed", false, peer);
        }
    }

    /**
     * {@code ib_send_bw -g} (multicast) both ways: rvt refuses a perftest peer with one line after the version
     * exchange (perftest's version buffer lacks rvt's mark), as driver-jni's unicast copies of a group's SENDs never
     * reach an rxe group (rxe looks the group up by the packet's IP destination and its IP stack joins none); the
     * perftest side then fails its next exchange, the rvt server waits for its next client.
     */
    @ParameterizedTest
    @CsvSource({"true", "false"})
    void shouldRefuseMulticastWithThePerftestPeer(boolean rvtClient, LinuxPeer peer) throws Exception {
        String why = "-g (multicast) with the peer at " + peer.guestIpv4().getHostAddress() + ", which is perftest, "
                + "not rvt: ";
        int port = nextPort();
        if (rvtClient) {
            GuestProcess server = peer.spawn(perftest(peer, "ib_send_bw", 512, "-c UD -g", false, port, null));
            peer.awaitListener(port, GUEST);
            try (NamespaceJvm client = peer.jvm("rvt-client", Main.class, rvt(peer, "ib_send_bw", 512, "-c UD -g",
                    false, port, peer.guestIpv4().getHostAddress()))) {
                int exit = client.awaitExit(CHILD);
                GuestResult r = server.await(GUEST);
                assertThat(exit).as(client.outputs()).isEqualTo(1);
                assertThat(client.outputs()).contains("rvt: " + why);
                assertThat(r.timedOut()).as(r.output()).isFalse();
                assertThat(r.exitCode()).as(r.output()).isNotZero();
                assertThat(rows(r.output())).as(r.output()).isEmpty();
            }
            return;
        }
        try (NamespaceJvm server = peer.jvm("rvt-server", Main.class, rvt(peer, "ib_send_bw", 512, "-c UD -g", false,
                port, "--server"))) {
            server.awaitLine("rvt perf: waiting for a client", CHILD);
            GuestResult r = peer.exec(GUEST, perftest(peer, "ib_send_bw", 512, "-c UD -g", false, port,
                    peer.hostIpv4().getHostAddress()));
            assertThat(server.awaitLine("rvt perf: refused the client at ", CHILD)).contains(why);
            assertThat(r.timedOut()).as(r.output()).isFalse();
            assertThat(r.exitCode()).as(r.output()).isNotZero();
            assertThat(rows(r.output())).as(r.output()).isEmpty();
            assertThat(server.isAlive()).as("the server waits for its next client: " + server.outputs()).isTrue();
        }
    }

    /**
     * {@code ib_send_bw -R --retry_count 5} both ways: perftest's rdma_cm mode puts the count in its
     * {@code rdma_conn_param} (retry and RNR retry), rvt-cm in its REQ or takes the peer's; both exit 0 with rows.
     */
    @ParameterizedTest
    @CsvSource({"true", "false"})
    void shouldConnectThroughRdmaCmWithTheRetryCount(boolean rvtClient, LinuxPeer peer) throws Exception {
        bothWaysWithR("ib_send_bw", 4096, "--retry_count 5", true, rvtClient, rvtClient ? 18624 : 18634, peer);
    }

    /** {@link #MATRIX_R_FLAGS}, rvt the client. */
    @ParameterizedTest
    @CsvSource(textBlock = MATRIX_R_FLAGS)
    void shouldRunRvtPerfAgainstThePerftestServerWithRAndFlags(String program, int size, String flags,
            boolean serverRow, LinuxPeer peer) throws Exception {
        bothWaysWithR(program, size, flags, serverRow, true, 18740 + PORTS.getAndIncrement() % 10, peer);
    }

    /** {@link #MATRIX_R_FLAGS}, rvt the server. */
    @ParameterizedTest
    @CsvSource(textBlock = MATRIX_R_FLAGS)
    void shouldServeThePerftestClientWithRAndFlags(String program, int size, String flags, boolean serverRow,
            LinuxPeer peer) throws Exception {
        bothWaysWithR(program, size, flags, serverRow, false, 18750 + PORTS.getAndIncrement() % 10, peer);
    }

    /**
     * {@code -R -c UC}: perftest 4.5 refuses it before it connects (rdma_cm has no UC, perftest_parameters.c), so no
     * perftest side meets rvt's (rvt runs UC through rvt-cm rvt to rvt only; docs/interop.md).
     */
    @ParameterizedTest
    @CsvSource({"true", "false"})
    void shouldFindPerftestRefusingUcThroughRdmaCm(boolean server, LinuxPeer peer) throws Exception {
        GuestResult r = peer.exec(GUEST, withR(perftest(peer, "ib_send_bw", 4096, "-c UC", false, 18760,
                server ? null : peer.hostIpv4().getHostAddress())));
        assertThat(r.exitCode()).as(r.output()).isEqualTo(1);
        assertThat(r.output()).contains(" UC is not supported in librdmacm");
    }

    /**
     * Runs {@code program} with {@code -R} and {@code flags} on both sides, rvt the client (perftest's server started
     * first; rvt's client tries again while the guest rejects its REQ for want of a listener) or the server, and
     * checks both exit 0 with their rows ({@link #checkR}).
     */
    private static void bothWaysWithR(String program, int size, String flags, boolean serverRow, boolean rvtClient,
            int port, LinuxPeer peer) throws Exception {
        if (rvtClient) {
            GuestProcess server = peer.spawn(withR(perftest(peer, program, size, flags, false, port, null)));
            try (NamespaceJvm client = peer.jvm("rvt-client", Main.class, withR(rvt(peer, program, size, flags,
                    false, port, peer.guestIpv4().getHostAddress())))) {
                int exit = client.awaitExit(CHILD);
                GuestResult r = server.await(GUEST);
                assertThat(exit).as("rvt perf -R: " + client.outputs() + "\nguest: " + r.output()).isZero();
                checkR(r.assertSuccess(), client.out(), program, size, serverRow);
            }
            return;
        }
        try (NamespaceJvm server = peer.jvm("rvt-server", Main.class, withR(rvt(peer, program, size, flags,
                false, port, "--server")))) {
            server.awaitLine("rvt perf: waiting for a client", CHILD);
            GuestResult r = peer.exec(GUEST, withR(perftest(peer, program, size, flags, false, port,
                    peer.hostIpv4().getHostAddress())));
            int exit = server.awaitExit(CHILD);
            assertThat(exit).as("rvt perf -R --server: " + server.outputs() + "\nguest: " + r.output()).isZero();
            checkR(server.out(), r.assertSuccess(), program, size, serverRow);
        }
    }

    /**
     * The matrix (issue 26), rvt the client: SEND, WRITE, READ and atomic bandwidth and latency, UC and UD where
     * perftest has them, {@code -a} (over UD: every size up to the MTU), {@code -b}, small messages, RDMA over IPv6 GIDs
     * (perftest's TCP socket stays IPv4), and perftest's flags that change the path or the rows ({@code -o}, {@code -N},
     * {@code -S}, {@code --tclass}, {@code -L}).
     */
    @ParameterizedTest
    @CsvSource(textBlock = MATRIX)
    void shouldRunRvtPerfAgainstThePerftestServer(String program, Integer size, String flags, boolean ipv6,
            LinuxPeer peer) throws Exception {
        int port = nextPort();
        GuestProcess server = peer.spawn(perftest(peer, program, size, flags, ipv6, port, null));
        peer.awaitListener(port, GUEST);
        try (NamespaceJvm client = peer.jvm("rvt-client", Main.class, rvt(peer, program, size, flags, ipv6, port,
                peer.guestIpv4().getHostAddress()))) {
            int exit = client.awaitExit(CHILD);
            GuestResult r = server.await(GUEST);
            assertThat(exit).as("rvt perf: " + client.outputs() + "\nguest: " + r.output()).isZero();
            String guest = r.assertSuccess();
            check(guest, client.out(), program, size, flags);
        }
    }

    // ib_atomic_bw's client steps its FETCH_AND_ADDs through a page of rvt's target, 64 bytes apart: docs/interop.md
    /** The same matrix, rvt the server and perftest the client. */
    @ParameterizedTest
    @CsvSource(textBlock = MATRIX)
    void shouldServeThePerftestClient(String program, Integer size, String flags, boolean ipv6,
            LinuxPeer peer) throws Exception {
        int port = nextPort();
        try (NamespaceJvm server = peer.jvm("rvt-server", Main.class, rvt(peer, program, size, flags, ipv6, port,
                "--server"))) {
            server.awaitLine("rvt perf: waiting for a client", CHILD);
            GuestResult r = peer.exec(GUEST, perftest(peer, program, size, flags, ipv6, port,
                    peer.hostIpv4().getHostAddress()));
            int exit = server.awaitExit(CHILD);
            assertThat(exit).as("rvt perf --server: " + server.outputs() + "\nguest: " + r.output()).isZero();
            check(server.out(), r.assertSuccess(), program, size, flags);
        }
    }

    /**
     * {@code -R} on both sides: perftest's rdma_cm mode, its channel and QPs connected through the CM (rvt-cm against
     * Linux's rdma_cm) to CM port {@code -p}, the exchanges in SENDs. The rvt client is started without waiting for
     * perftest's server (its rdma_cm listener shows in no socket table): it tries again while the guest rejects its
     * REQ for want of a listener, as perftest's own client does.
     */
    @ParameterizedTest
    @CsvSource(textBlock = MATRIX_R)
    void shouldRunRvtPerfAgainstThePerftestServerWithR(String program, int size, boolean serverRow, LinuxPeer peer)
            throws Exception {
        int port = 18620 + List.of("ib_send_bw", "ib_write_bw", "ib_read_lat", "ib_atomic_bw").indexOf(program);
        bothWaysWithR(program, size, null, serverRow, true, port, peer);
    }

    /** {@code -R}, perftest's client against {@code rvt perf -R --server}. */
    @ParameterizedTest
    @CsvSource(textBlock = MATRIX_R)
    void shouldServeThePerftestClientWithR(String program, int size, boolean serverRow, LinuxPeer peer)
            throws Exception {
        int port = 18630 + List.of("ib_send_bw", "ib_write_bw", "ib_read_lat", "ib_atomic_bw").indexOf(program);
        bothWaysWithR(program, size, null, serverRow, false, port, peer);
    }

    private static String[] withR(String[] cmd) {
        List<String> c = new ArrayList<>(List.of(cmd));
        c.add("-R");
        return c.toArray(String[]::new);
    }

    /**
     * As {@link #check}, and both say the QPs are rdma_cm's; the QPNs each printed as its own are the other's remote
     * (perftest's printed PSN is a random number of its own with {@code -R}, the CM's is the QPs').
     */
    private static void checkR(String serverOut, String clientOut, String program, int size, boolean serverRow) {
        assertThat(rows(clientOut)).as(clientOut).containsExactly(size + " " + ITERS);
        if (serverRow) {
            assertThat(rows(serverOut)).as(serverOut).hasSize(1).allMatch(r -> r.startsWith(size + " "));
        }
        for (String out : List.of(serverOut, clientOut)) {
            assertThat(out).as(out).containsPattern("rdma_cm QPs\\s*: ON").containsPattern(
                    "Data ex\\. method\\s*: rdma_cm");
        }
        assertThat(groups(LOCAL, serverOut)).as("server's QP, %s", program).isEqualTo(groups(REMOTE, clientOut));
        assertThat(groups(LOCAL, clientOut)).as("client's QP, %s", program).isEqualTo(groups(REMOTE, serverOut));
    }

    private static int nextPort() {
        return 18640 + PORTS.getAndIncrement() % 100;
    }

    private static String[] perftest(LinuxPeer peer, String program, Integer size, String flags, boolean ipv6,
            int port, String server) throws InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(program, "-x", Integer.toString(peer.gidIndex(ipv6
                ? peer.guestIpv6() : peer.guestIpv4())), "-n", Integer.toString(ITERS), "-p", Integer.toString(port)));
        cmd.addAll(common(program, size, flags));
        // under TCG on a busy host perftest's calibration of its cycle counter against the wall clock
        // (sample_get_cpu_mhz) may find r^2 < 0.9; without -F perftest then exits 1 after its test ("Can't produce a
        // report"; 5 of 16 cases at load 43-61), with it its figures are 0 or inf, its rows and exchanges the same
        cmd.add("-F");
        if (server != null) {
            cmd.add(server);
        }
        return cmd.toArray(String[]::new);
    }

    private static String[] rvt(LinuxPeer peer, String program, Integer size, String flags, boolean ipv6, int port,
            String role) {
        List<String> cmd = new ArrayList<>(List.of("--driver", "jni", "--no-osgi", "--address", (ipv6
                ? peer.hostIpv6() : peer.hostIpv4()).getHostAddress(), "perf", role, "--test", program, "-n",
                Integer.toString(ITERS), "-p", Integer.toString(port)));
        cmd.addAll(common(program, size, flags));
        return cmd.toArray(String[]::new);
    }

    /** The options both sides take: the size, the flags of the case, RC's ACK timeout 18 (1 s: rxe under TCG). */
    private static List<String> common(String program, Integer size, String flags) {
        List<String> cmd = new ArrayList<>();
        if (size != null) {
            cmd.addAll(List.of("-s", Integer.toString(size)));
        }
        if (flags != null) {
            cmd.addAll(List.of(flags.trim().split(" +")));
        }
        if (flags == null || !flags.contains("-c U")) {
            cmd.addAll(List.of("-u", "18"));
        }
        return cmd;
    }

    /**
     * The client printed a row of {@value #ITERS} iterations for the size (with {@code -a}: for every size from 2 up,
     * at least two), the server a row of one of those sizes where perftest's does (READ and atomic latency servers
     * print none), and each side's QP is the other's remote.
     */
    private static void check(String serverOut, String clientOut, String program, Integer size, String flags) {
        List<String> client = rows(clientOut);
        boolean all = flags != null && flags.contains("-a");
        if (all) {
            assertThat(client).as(clientOut).hasSizeGreaterThan(1);
            for (int i = 0; i < client.size(); i++) {
                assertThat(client.get(i)).as(clientOut).isEqualTo((2 << i) + " " + ITERS);
            }
        } else {
            assertThat(client).as(clientOut).containsExactly(size + " " + ITERS);
        }
        List<String> sizes = client.stream().map(r -> r.split(" ")[0] + " ").toList();
        boolean serverRow = !program.equals("ib_read_lat") && !program.equals("ib_atomic_lat");
        if (serverRow) {
            assertThat(rows(serverOut)).as(serverOut).isNotEmpty()
                    .allMatch(r -> sizes.stream().anyMatch(r::startsWith));
        }
        assertThat(groups(LOCAL, serverOut)).as("server's QP, %s", program).isEqualTo(groups(REMOTE, clientOut));
        assertThat(groups(LOCAL, clientOut)).as("client's QP, %s", program).isEqualTo(groups(REMOTE, serverOut));
        if (flags != null && flags.contains("-o 4")) {
            // -o: each side offers 4 outstanding reads in its pingpong_dest
            for (String out : List.of(serverOut, clientOut)) {
                assertThat(out.lines().filter(l -> l.contains("address: LID")).toList()).as(out).hasSize(2)
                        .allMatch(l -> l.contains(" OUT 0x04 "));
            }
        }
        if (flags != null && flags.contains("-N")) {
            // -N: no peak, 0.00 in its column
            assertThat(clientOut.lines().filter(l -> ROW.matcher(l).find()).toList()).as(clientOut).isNotEmpty()
                    .allMatch(l -> l.trim().split("\\s+")[2].equals("0.00"));
        }
    }

    private static List<String> rows(String out) {
        List<String> rows = new ArrayList<>();
        Matcher m = ROW.matcher(out);
        while (m.find()) {
            rows.add(m.group(1) + " " + m.group(2));
        }
        return rows;
    }

    private static String groups(Pattern p, String text) {
        Matcher m = p.matcher(text);
        assertThat(m.find()).as("%s in %s", p, text).isTrue();
        return m.group(1) + " " + m.group(2);
    }
}
