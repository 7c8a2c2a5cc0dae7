package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Two real {@code rvt} processes on one machine, as a user runs them: a server ({@code --server}) and a client
 * ({@code HOST}), each with one driver-jni HCA on UDP 4791 of its own loopback address; pingpong connected by the
 * ibv_*_pingpong examples' TCP exchange (or rvt-cm with -R), perf by perftest's TCP exchange. Both must finish, print their
 * results, and agree on each other's QP numbers and PSNs.
 */
class TwoProcessIT {
    /** Loopback addresses of this run: 127.14.x.1 and .2 (Linux routes all of 127/8 to lo). */
    private static final String NET = "127.14." + ProcessHandle.current().pid() % 250 + ".";
    static final Pattern LOCAL = Pattern.compile("local address: +LID 0x[0-9a-f]{4}, (QPN 0x[0-9a-f]{6}, PSN "
            + "0x[0-9a-f]{6})");
    /** The server's closing line of a SEND bandwidth table: its own rows. */
    static final String SERVER_RECEIVED = "measured here: the messages received and at what rate";
    /** The server's closing line of a {@code -b} table: both sides' reports added. */
    static final String BOTH_FLOWS = "its own flow and the client's, added";
    private static final Pattern ROW = Pattern.compile("(?m)^ (\\d+) +(\\d+)( +[0-9.]+){3,7}$");
    static final Pattern REMOTE = Pattern.compile("remote address: +LID 0x[0-9a-f]{4}, (QPN 0x[0-9a-f]{6}, PSN "
            + "0x[0-9a-f]{6})");

    @Test
    void shouldPingPongBetweenAServerAndAClientProcess() throws Exception {
        pingPong(null, NET + "1", NET + "2", List.of("--no-osgi"), List.of("--no-osgi"), 18515, "RC");
    }

    @Test
    void shouldPingPongOverUcBetweenAnOsgiServerAndAPlainClient() throws Exception {
        pingPong(null, NET + "3", NET + "4", List.of(), List.of("--no-osgi"), 18600, "UC");
    }

    @Test
    void shouldPingPongOverUdThroughTheExamplesExchange() throws Exception {
        pingPong(null, NET + "23", NET + "24", List.of("--no-osgi"), List.of("--no-osgi"), 18601, "UD");
    }

    /** -R: rvt-cm instead of the examples' TCP exchange, as perftest's -R (rvt to rvt). */
    @Test
    void shouldPingPongThroughRvtCmWithR() throws Exception {
        pingPong(null, NET + "25", NET + "26", List.of("--no-osgi"), List.of("--no-osgi"), 18602, "RC", "-R");
    }

    /**
     * Runs {@code rvt pingpong --server} and {@code rvt pingpong SERVER} and checks both outputs.
     *
     * @param netns the namespaces of server and client ({@code [server, client]}), or null for this one
     * @param server the server's address
     * @param client the client's address
     * @param serverHost options of the server's host
     * @param clientHost options of the client's host
     * @param port the CM port
     * @param transport RC or UC
     * @throws Exception if a child cannot be run
     */
    static void pingPong(String[] netns, String server, String client, List<String> serverHost,
            List<String> clientHost, int port, String transport, String... both) throws Exception {
        List<String> s = new ArrayList<>(List.of("--driver", "jni", "--address", server));
        s.addAll(serverHost);
        // the examples' exchange carries no test: both sides name it, as ibv_rc_pingpong's do (-R: the client's REQ)
        s.addAll(List.of("pingpong", "--server", "-p", Integer.toString(port), "-c", transport, "-s", "1000", "-n",
                "200"));
        s.addAll(List.of(both));
        List<String> c = new ArrayList<>(List.of("--driver", "jni", "--address", client));
        c.addAll(clientHost);
        c.addAll(List.of("pingpong", bare(server), "-p", Integer.toString(port), "-c", transport, "-s", "1000", "-n",
                "200"));
        c.addAll(List.of(both));
        runPair(netns, s, c, (srv, cli) -> {
            for (RvtProcess p : List.of(srv, cli)) {
                assertThat(p.out()).as(p.out()).contains("400000 bytes in ", "200 iters in ",
                        "(" + transport + "; every message checked; measured on driver-jni");
            }
            // each side's own QPN and PSN are what the other side was told
            assertThat(group(LOCAL, srv.out())).isEqualTo(group(REMOTE, cli.out()));
            assertThat(group(LOCAL, cli.out())).isEqualTo(group(REMOTE, srv.out()));
            assertThat(srv.stderr() + cli.stderr()).doesNotContain("rvt:");
        });
    }

    @Test
    void shouldRunPerfWriteBandwidthBetweenAServerAndAClientProcess() throws Exception {
        perf(null, NET + "5", NET + "6", 18700, List.of("--test", "write", "-s", "65536", "-n", "300"),
                "RDMA_Write BW Test", " 65536 +300 +[0-9.]+ +[0-9.]+ +[0-9.]+", "the client's measurement");
    }

    // RC: every message arrives, so the server, counting its own receives, counts all of them
    @Test
    void shouldRunPerfSendBandwidthOverTwoQpsWhoseReceivesTheServerRepostsAndCounts() throws Exception {
        perf(null, NET + "11", NET + "12", 18703, List.of("--test", "send", "-q", "2", "-s", "4096", "-n", "1500"),
                "Send BW Test", " 4096 +3000 +[0-9.]+ +[0-9.]+ +[0-9.]+", SERVER_RECEIVED);
    }

    // the rates add both directions; the iterations are each side's own, as perftest's print_full_bw_report prints
    @Test
    void shouldRunBidirectionalPerfSendBandwidthWithBothProcessesSendingAndTheirRowsAdded() throws Exception {
        perf(null, NET + "13", NET + "14", 18704, List.of("--test", "send", "-b", "-s", "4096", "-n", "1000"),
                "Send Bidirectional BW Test", " 4096 +1000 +[0-9.]+ +[0-9.]+ +[0-9.]+", BOTH_FLOWS);
    }

    @Test
    void shouldSweepUdSendBandwidthUpToTheMtuWithBothProcessesPrintingEveryRow() throws Exception {
        List<String> test = List.of("--test", "send", "-c", "UD", "-a", "-n", "300", "-m", "1024");
        perfPair(null, NET + "15", NET + "16", 18705, test, (srv, cli) -> {
            List<long[]> mine = rows(cli.out());
            List<long[]> theirs = rows(srv.out());
            // perftest's rule: a UD sweep ends at the MTU
            assertThat(mine).extracting(r -> r[0]).containsExactly(2L, 4L, 8L, 16L, 32L, 64L, 128L, 256L, 512L,
                    1024L);
            assertThat(mine).extracting(r -> r[1]).containsOnly(300L);
            assertThat(theirs).extracting(r -> r[0]).containsExactlyElementsOf(mine.stream().map(r -> r[0])
                    .toList());
            // the server counts what arrived: UD may lose some, never invent any
            assertThat(theirs).extracting(r -> r[1]).allMatch(n -> n <= 300);
            assertThat(theirs.stream().mapToLong(r -> r[1]).sum()).isPositive();
            assertThat(srv.out()).contains("Connection type : UD", "(server: " + SERVER_RECEIVED);
        });
    }

    @Test
    void shouldRunUdSendLatencyThroughSidrWithBothProcessesMeasuring() throws Exception {
        perf(null, NET + "17", NET + "18", 18706, List.of("--test", "send", "--lat", "-c", "UD", "-n", "200"),
                "Send Latency Test", " 2 +200( +[0-9.]+){7}", "measured here");
    }

    /**
     * -R: perftest's rdma_cm mode between two rvt processes, its channel and the test's QP connected through rvt-cm
     * to CM port -p; the passive WRITE server prints the client's report.
     */
    @Test
    void shouldRunPerfWriteBandwidthThroughRdmaCmWithR() throws Exception {
        List<String> test = List.of("--test", "ib_write_bw", "-R", "-s", "65536", "-n", "500");
        List<String> s = new ArrayList<>(List.of("--driver", "jni", "--no-osgi", "--address", NET + "27", "perf",
                "--server", "-p", "18710"));
        s.addAll(test);
        List<String> c = new ArrayList<>(List.of("--driver", "jni", "--no-osgi", "--address", NET + "28", "perf",
                NET + "27", "-p", "18710"));
        c.addAll(test);
        runPair(null, s, c, (srv, cli) -> {
            for (RvtProcess p : List.of(srv, cli)) {
                assertThat(p.out()).as(p.out()).contains("Data ex. method : rdma_cm", "rdma_cm QPs     : ON");
            }
            assertThat(srv.out()).contains("waiting for a client on roce0, CM port 18710 (rdma_cm)");
            assertThat(rows(cli.out())).extracting(r -> r[1]).containsExactly(500L);
            assertThat(rows(srv.out())).extracting(r -> r[1]).containsExactly(500L);
            assertThat(srv.stderr() + cli.stderr()).doesNotContain("rvt:");
        });
    }

    /**
     * {@code rvt perf -R -c UD} between two processes: the server's UD QP served on CM port -p in rdma_cm's UDP port
     * space and resolved by the client's SIDR; a latency test, so the client also sends its QPN in a SEND_WITH_IMM.
     */
    @Test
    void shouldRunPerfUdSendLatencyThroughRdmaCmWithR() throws Exception {
        List<String> test = List.of("--test", "ib_send_lat", "-R", "-c", "UD", "-s", "64", "-n", "200");
        List<String> s = new ArrayList<>(List.of("--driver", "jni", "--no-osgi", "--address", NET + "29", "perf",
                "--server", "-p", "18711"));
        s.addAll(test);
        List<String> c = new ArrayList<>(List.of("--driver", "jni", "--no-osgi", "--address", NET + "30", "perf",
                NET + "29", "-p", "18711"));
        c.addAll(test);
        runPair(null, s, c, (srv, cli) -> {
            for (RvtProcess p : List.of(srv, cli)) {
                assertThat(p.out()).as(p.out()).contains("Connection type : UD", "Data ex. method : rdma_cm",
                        "rdma_cm QPs     : ON");
            }
            assertThat(rows(cli.out())).extracting(r -> r[1]).containsExactly(200L);
            assertThat(rows(srv.out())).as(srv.out()).hasSize(1);
            assertThat(srv.stderr() + cli.stderr()).doesNotContain("rvt:");
        });
    }

    @Test
    void shouldRunUcSendBandwidthWithTheServerCountingWhatArrived() throws Exception {
        perfPair(null, NET + "19", NET + "20", 18707, List.of("--test", "send", "-c", "UC", "-s", "4096", "-n",
                "1000"), (srv, cli) -> {
                    assertThat(rows(cli.out())).extracting(r -> r[1]).containsExactly(1000L);
                    assertThat(rows(srv.out())).extracting(r -> r[1]).allMatch(n -> n > 0 && n <= 1000);
                    assertThat(srv.out()).contains("(server: " + SERVER_RECEIVED);
                });
    }

    @Test
    void shouldRunPerfSendLatencyWithBothProcessesMeasuring() throws Exception {
        perf(null, NET + "7", NET + "8", 18701, List.of("--test", "ib_send_lat", "-n", "200"), "Send Latency Test",
                " 2 +200( +[0-9.]+){7}", "measured here");
    }

    /**
     * A perf server refuses a client that does not speak perftest's protocol (an examples' ping-pong client, whose
     * 52-byte address is no perftest version) with one line of its own, and serves the next client: a bad client does
     * not end it.
     */
    @Test
    void shouldRefuseAClientThatIsNotPerftestAndServeTheNextClient() throws Exception {
        List<String> s = List.of("--driver", "jni", "--no-osgi", "--address", NET + "9", "perf", "--server", "-p",
                "18702", "--test", "write", "-n", "10");
        try (RvtProcess srv = RvtProcess.start("server", null, s.toArray(String[]::new))) {
            srv.awaitLine("waiting for a client");
            try (RvtProcess foreign = RvtProcess.start("foreign", null, "--driver", "jni", "--no-osgi", "--address",
                    NET + "10", "pingpong", NET + "9", "-p", "18702", "-n", "10")) {
                assertThat(foreign.exitCode()).as(foreign.stderr()).isEqualTo(1);
            }
            srv.awaitLine(" is not perftest 5.7 or later (its version is '0000:");
            assertThat(srv.out()).contains("; waiting for the next client");
            try (RvtProcess cli = RvtProcess.start("client", null, "--driver", "jni", "--no-osgi", "--address",
                    NET + "10", "perf", NET + "9", "-p", "18702", "--test", "write", "-n", "10")) {
                assertThat(cli.exitCode()).as(cli.out() + cli.stderr()).isZero();
            }
            assertThat(srv.exitCode()).as(srv.out() + srv.stderr()).isZero();
            assertThat(srv.out()).contains("RDMA_Write BW Test");
            assertThat(srv.stderr()).isEmpty();
        }
    }

    /**
     * The client's {@code -u} is both QPs' (its REQ carries it): a ping-pong server started with another refuses it
     * and serves the next client.
     */
    @Test
    void shouldRefuseAPingPongClientWhoseAckTimeoutContradictsTheServersAndServeTheNextClient()
            throws Exception {
        List<String> s = List.of("--driver", "jni", "--no-osgi", "--address", NET + "21", "pingpong", "--server", "-R",
                "-p", "18708", "-u", "18");
        try (RvtProcess srv = RvtProcess.start("server", null, s.toArray(String[]::new))) {
            srv.awaitLine("waiting for a client");
            try (RvtProcess cli = RvtProcess.start("client", null, "--driver", "jni", "--no-osgi", "--address",
                    NET + "22", "pingpong", NET + "21", "-R", "-p", "18708", "-u", "9", "-n", "10")) {
                assertThat(cli.exitCode()).as(cli.stderr()).isEqualTo(1);
                assertThat(cli.stderr()).contains("the server at " + NET + "21 port 18708 refused: the client asks "
                        + "for -u 9, the server was started with -u 18");
            }
            srv.awaitLine("rvt pingpong: refused a request from " + NET + "22 port ");
            assertThat(srv.out()).contains(": the client asks for -u 9, the server was started with -u 18",
                    "; waiting for the next client");
            try (RvtProcess cli = RvtProcess.start("client", null, "--driver", "jni", "--no-osgi", "--address",
                    NET + "22", "pingpong", NET + "21", "-R", "-p", "18708", "-u", "18", "-n", "10")) {
                assertThat(cli.exitCode()).as(cli.out() + cli.stderr()).isZero();
            }
            assertThat(srv.exitCode()).as(srv.out() + srv.stderr()).isZero();
            assertThat(srv.out()).contains("10 iters in ");
            assertThat(srv.stderr()).isEmpty();
        }
    }

    /**
     * A perf client that fails after its first row of two (here: its report cannot be written) closes its connection;
     * its server, waiting for the client's last hand-shake and report, must not end as if the table had run: it exits
     * 1 and says the client left.
     */
    @Test
    void shouldExitNonZeroWhenItsPerfClientLeavesBeforeItsTableIsDone() throws Exception {
        List<String> s = List.of("--driver", "jni", "--no-osgi", "--address", NET + "23", "perf", "--server", "-p",
                "18709", "--test", "write");
        try (RvtProcess srv = RvtProcess.start("server", null, s.toArray(String[]::new))) {
            srv.awaitLine("waiting for a client");
            // rows of 2 and 4 bytes: the passive server waits for the end of the client's table
            PerfSpec spec = new PerfSpec(PerfTest.WRITE, Transport.RC, false, new int[] {2, 4}, 1, 200, 0, 128);
            int[] rows = new int[1];
            java.io.ByteArrayOutputStream sink = new java.io.ByteArrayOutputStream();
            java.io.PrintStream quiet = new java.io.PrintStream(sink, true, java.nio.charset.StandardCharsets.UTF_8);
            RemotePerf client = new RemotePerf(quiet, quiet, LinkOptions.DEFAULT, 18709, false, (sp, d, mtu, bw, lat) -> {
                if (++rows[0] == 2) {
                    throw new IllegalStateException("the client's report could not be written");
                }
            });
            try (PlainJniHost host = PlainJniHost.start(JniSetup.single(NET + "24",
                    io.rvt.driver.jni.JniDriverBuilder.DEFAULT_SOURCE_PORTS))) {
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.client(host,
                        java.net.InetAddress.getByName(NET + "23"), spec)).hasMessageContaining("could not be written");
            }
            assertThat(srv.exitCode()).as(srv.out() + srv.stderr()).isEqualTo(Main.EXIT_FAILURE);
            assertThat(rows(srv.out())).as(srv.out()).isEmpty();
            assertThat(srv.stderr()).contains("rvt: the connection to the peer at " + NET + "24 failed: the peer "
                    + "closed the connection");
            assertThat(srv.out()).doesNotContain("(server: ");
        }
    }

    /**
     * Runs {@code rvt perf --server} and {@code rvt perf SERVER} with the same test options and checks that both
     * print the table and its row.
     *
     * @param netns the namespaces of server and client ({@code [server, client]}), or null for this one
     * @param server the server's address
     * @param client the client's address
     * @param port the TCP port
     * @param test the test options of both sides
     * @param title the table's title
     * @param row a regular expression of its row
     * @param serverNote what the server's closing line says its row is
     * @throws Exception if a child cannot be run
     */
    static void perf(String[] netns, String server, String client, int port, List<String> test, String title,
            String row, String serverNote) throws Exception {
        perfPair(netns, server, client, port, test, (srv, cli) -> {
            Pattern rowLine = Pattern.compile("(?m)^" + row + "$");
            for (RvtProcess p : List.of(srv, cli)) {
                assertThat(p.out()).as(p.out()).contains(title);
                assertThat(rowLine.matcher(p.out()).find()).as(row + " in " + p.out()).isTrue();
            }
            if (serverNote.startsWith("the client's")) {
                // the server prints the row the client sent at the row's end, digit for digit
                assertThat(group(Pattern.compile("(?m)^(" + row + ")$"), srv.out()))
                        .isEqualTo(group(Pattern.compile("(?m)^(" + row + ")$"), cli.out()));
            }
            assertThat(srv.out()).contains("(server: " + serverNote);
        });
    }

    /**
     * Runs {@code rvt perf --server} and {@code rvt perf SERVER} with the same test options, checks what every such
     * pair prints, and then what {@code check} asks.
     *
     * @param netns the namespaces of server and client ({@code [server, client]}), or null for this one
     * @param server the server's address
     * @param client the client's address
     * @param port the TCP port
     * @param test the test options of both sides
     * @param check what else to check
     * @throws Exception if a child cannot be run
     */
    static void perfPair(String[] netns, String server, String client, int port, List<String> test,
            PairCheck check) throws Exception {
        List<String> s = new ArrayList<>(List.of("--driver", "jni", "--no-osgi", "--address", server, "perf",
                "--server", "-p", Integer.toString(port)));
        s.addAll(test);
        List<String> c = new ArrayList<>(List.of("--driver", "jni", "--no-osgi", "--address", client, "perf",
                bare(server), "-p", Integer.toString(port)));
        c.addAll(test);
        runPair(netns, s, c, (srv, cli) -> {
            for (RvtProcess p : List.of(srv, cli)) {
                assertThat(p.out()).as(p.out()).contains("Data ex. method : Ethernet", "Measured on     : driver-jni");
            }
            assertThat(cli.out()).contains(" Device          : roce0 -> " + javaForm(server));
            assertThat(srv.out()).contains(" Device          : " + javaForm(client) + " -> roce0");
            assertThat(srv.stderr() + cli.stderr()).doesNotContain("rvt:");
            check.check(srv, cli);
        });
    }

    /** @return the size and iterations of every row of the tables in {@code out} */
    static List<long[]> rows(String out) {
        List<long[]> rows = new ArrayList<>();
        Matcher m = ROW.matcher(out);
        while (m.find()) {
            rows.add(new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))});
        }
        return rows;
    }

    /** What a test checks of a server's and a client's output once both have ended well. */
    interface PairCheck {
        void check(RvtProcess server, RvtProcess client) throws Exception;
    }

    /**
     * Starts the server, waits until it listens, starts the client, and checks that both exit 0.
     *
     * @param netns the namespaces of server and client ({@code [server, client]}), or null for this one
     * @param s the server's command line
     * @param c the client's
     * @param check what else to check of their output
     * @throws Exception if a child cannot be run
     */
    static void runPair(String[] netns, List<String> s, List<String> c, PairCheck check) throws Exception {
        try (RvtProcess srv = RvtProcess.start("server", netns == null ? null : netns[0], s.toArray(String[]::new))) {
            srv.awaitLine("waiting for a client");
            try (RvtProcess cli = RvtProcess.start("client", netns == null ? null : netns[1],
                    c.toArray(String[]::new))) {
                int clientExit = cli.exitCode();
                // a failed client's cause is often the server's (its CM, its QP): show both
                assertThat(clientExit).as("client: " + cli.out() + cli.stderr() + "\nserver so far: " + srv.out()
                        + srv.stderr()).isZero();
                assertThat(srv.exitCode()).as("server: " + srv.out() + srv.stderr()).isZero();
                check.check(srv, cli);
            }
        }
    }

    /** @return the address as Java prints it ({@code fd00:0:0:0:0:0:0:1}), as the tables name the peer */
    static String javaForm(String address) throws java.net.UnknownHostException {
        return java.net.InetAddress.getByName(bare(address)).getHostAddress();
    }

    /** @return the address without an IPv6 scope, as a client names its server */
    static String bare(String address) {
        int pct = address.indexOf('%');
        return pct < 0 ? address : address.substring(0, pct);
    }

    static String group(Pattern p, String text) {
        Matcher m = p.matcher(text);
        assertThat(m.find()).as("%s in %s", p, text).isTrue();
        return m.group(1);
    }
}
