package io.rvt.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.launcher.Main;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code rvt perf} (the launcher, in a child JVM in the peer's namespace, its HCA on the host's IPv4 address) against
 * the guest's perftest 4.5 ({@code ib_send_bw}, {@code ib_write_bw}, {@code ib_read_lat}, {@code ib_atomic_bw}),
 * either side as server, over perftest's TCP exchange (perftest's socket is IPv4 only), and with {@code -R} over its
 * rdma_cm mode (rvt-cm against Linux's rdma_cm), RoCE v2 between the IPv4-mapped GIDs: both exit 0, the client prints its row (and a SEND or WRITE bandwidth server its own or the
 * client's), and each side's QPN and PSN are what the other printed as remote. Small tables: the guest is TCG.
 */
@ExtendWith(LinuxPeerExtension.class)
class RvtPerftestLinuxIT {
    private static final Duration GUEST = Duration.ofSeconds(240);
    private static final Duration CHILD = Duration.ofSeconds(300);
    private static final int ITERS = 50;
    private static final Pattern LOCAL = Pattern.compile("local address: LID \\S+ QPN (0x[0-9a-f]+) PSN "
            + "(0x[0-9a-f]+)");
    private static final Pattern REMOTE = Pattern.compile("remote address: LID \\S+ QPN (0x[0-9a-f]+) PSN "
            + "(0x[0-9a-f]+)");
    /** A row: bytes, iterations and at least three numbers more. */
    private static final Pattern ROW = Pattern.compile("(?m)^[ \\t]+(\\d+)[ \\t]+(\\d+)([ \\t]+[0-9.]+){3,}");

    @ParameterizedTest
    @CsvSource({"ib_send_bw, 4096, true", "ib_write_bw, 65536, true", "ib_read_lat, 64, false",
        "ib_atomic_bw, 8, true"})
    void shouldRunRvtPerfAgainstThePerftestServer(String program, int size, boolean serverRow, LinuxPeer peer)
            throws Exception {
        int port = 18600 + List.of("ib_send_bw", "ib_write_bw", "ib_read_lat", "ib_atomic_bw").indexOf(program);
        GuestProcess server = peer.spawn(perftest(peer, program, size, port, null));
        peer.awaitListener(port, GUEST);
        try (NamespaceJvm client = peer.jvm("rvt-client", Main.class, rvt(peer, program, size, port,
                peer.guestIpv4().getHostAddress()))) {
            int exit = client.awaitExit(CHILD);
            GuestResult r = server.await(GUEST);
            assertThat(exit).as("rvt perf: " + client.outputs() + "\nguest: " + r.output()).isZero();
            String guest = r.assertSuccess();
            check(guest, client.out(), program, size, serverRow);
        }
    }

    // ib_atomic_bw's client steps its FETCH_AND_ADDs through a page of rvt's target, 64 bytes apart: docs/interop.md
    @ParameterizedTest
    @CsvSource({"ib_send_bw, 4096, true", "ib_write_bw, 65536, true", "ib_read_lat, 64, false",
        "ib_atomic_bw, 8, true"})
    void shouldServeThePerftestClient(String program, int size, boolean serverRow, LinuxPeer peer)
            throws Exception {
        int port = 18610 + List.of("ib_send_bw", "ib_write_bw", "ib_read_lat", "ib_atomic_bw").indexOf(program);
        try (NamespaceJvm server = peer.jvm("rvt-server", Main.class, rvt(peer, program, size, port, "--server"))) {
            server.awaitLine("rvt perf: waiting for a client", CHILD);
            GuestResult r = peer.exec(GUEST, perftest(peer, program, size, port,
                    peer.hostIpv4().getHostAddress()));
            int exit = server.awaitExit(CHILD);
            assertThat(exit).as("rvt perf --server: " + server.outputs() + "\nguest: " + r.output()).isZero();
            check(server.out(), r.assertSuccess(), program, size, serverRow);
        }
    }

    /**
     * {@code -R} on both sides: perftest's rdma_cm mode, its channel and QPs connected through the CM (rvt-cm against
     * Linux's rdma_cm) to CM port {@code -p}, the exchanges in SENDs. The rvt client is started without waiting for
     * perftest's server (its rdma_cm listener shows in no socket table): it tries again while the guest rejects its
     * REQ for want of a listener, as perftest's own client does.
     */
    @ParameterizedTest
    @CsvSource({"ib_send_bw, 4096, true", "ib_write_bw, 65536, true", "ib_read_lat, 64, false"})
    void shouldRunRvtPerfAgainstThePerftestServerWithR(String program, int size, boolean serverRow, LinuxPeer peer)
            throws Exception {
        int port = 18620 + List.of("ib_send_bw", "ib_write_bw", "ib_read_lat").indexOf(program);
        GuestProcess server = peer.spawn(withR(perftest(peer, program, size, port, null)));
        try (NamespaceJvm client = peer.jvm("rvt-client", Main.class, withR(rvt(peer, program, size, port,
                peer.guestIpv4().getHostAddress())))) {
            int exit = client.awaitExit(CHILD);
            GuestResult r = server.await(GUEST);
            assertThat(exit).as("rvt perf -R: " + client.outputs() + "\nguest: " + r.output()).isZero();
            String guest = r.assertSuccess();
            checkR(guest, client.out(), program, size, serverRow);
        }
    }

    /** {@code -R}, perftest's client against {@code rvt perf -R --server}. */
    @ParameterizedTest
    @CsvSource({"ib_send_bw, 4096, true", "ib_write_bw, 65536, true", "ib_read_lat, 64, false"})
    void shouldServeThePerftestClientWithR(String program, int size, boolean serverRow, LinuxPeer peer)
            throws Exception {
        int port = 18630 + List.of("ib_send_bw", "ib_write_bw", "ib_read_lat").indexOf(program);
        try (NamespaceJvm server = peer.jvm("rvt-server", Main.class, withR(rvt(peer, program, size, port,
                "--server")))) {
            server.awaitLine("rvt perf: waiting for a client", CHILD);
            GuestResult r = peer.exec(GUEST, withR(perftest(peer, program, size, port,
                    peer.hostIpv4().getHostAddress())));
            int exit = server.awaitExit(CHILD);
            assertThat(exit).as("rvt perf -R --server: " + server.outputs() + "\nguest: " + r.output()).isZero();
            checkR(server.out(), r.assertSuccess(), program, size, serverRow);
        }
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

    /**
     * perftest's command line: the IPv4 GID (rxe's index of ::ffff:192.0.2.2), RC's ACK timeout 18 (1 s: rxe under
     * TCG is slow to answer), a few iterations.
     */
    private static String[] perftest(LinuxPeer peer, String program, int size, int port, String server)
            throws InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(program, "-x", Integer.toString(peer.gidIndex(peer.guestIpv4())),
                "-n", Integer.toString(ITERS), "-s", Integer.toString(size), "-p", Integer.toString(port), "-u",
                "18"));
        if (server != null) {
            cmd.add(server);
        }
        return cmd.toArray(String[]::new);
    }

    /** The rvt side's command line: one HCA on the host's IPv4 address, the same test options as perftest's. */
    private static String[] rvt(LinuxPeer peer, String program, int size, int port, String role) {
        return new String[] {"--driver", "jni", "--no-osgi", "--address", peer.hostIpv4().getHostAddress(), "perf",
            role, "--test", program, "-n", Integer.toString(ITERS), "-s", Integer.toString(size), "-p",
            Integer.toString(port), "-u", "18"};
    }

    /** The client printed its row (the server too where perftest's does), and each side's QP is the other's remote. */
    private static void check(String serverOut, String clientOut, String program, int size, boolean serverRow) {
        assertThat(rows(clientOut)).as(clientOut).containsExactly(size + " " + ITERS);
        if (serverRow) {
            assertThat(rows(serverOut)).as(serverOut).hasSize(1).allMatch(r -> r.startsWith(size + " "));
        }
        assertThat(groups(LOCAL, serverOut)).as("server's QP, %s", program).isEqualTo(groups(REMOTE, clientOut));
        assertThat(groups(LOCAL, clientOut)).as("client's QP, %s", program).isEqualTo(groups(REMOTE, serverOut));
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
