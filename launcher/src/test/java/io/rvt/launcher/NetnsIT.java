package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rvt.testkit.Shell;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Two hosts in one machine, as driver-jni's NetnsRcIT makes them: two network namespaces joined by a veth pair, with
 * an IPv4 and an IPv6 address on each end; {@code rvt ... --server} runs in one, {@code rvt ... HOST} in the other,
 * each a JVM with one driver-jni HCA on UDP 4791, connected through rvt-cm. Over IPv4 and IPv6, and with nftables
 * dropping 5 % of UDP 4791 both ways in the server's namespace: the CM's retries and RC's still connect and every
 * message checks; and {@code -b} under that loss, a UD sweep ({@code -a}) over IPv6 and UD latency over IPv4
 * (SIDR both ways). Needs root, {@code ip} and (for the loss runs) {@code nft}; otherwise it skips and says why.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NetnsIT {
    private final long pid = ProcessHandle.current().pid();
    private final String tag = Long.toString(pid % 100_000);
    private final String nsA = "rvtLa" + tag;
    private final String nsB = "rvtLb" + tag;
    private final String ipA = "10.215." + pid % 250 + ".1";
    private final String ipB = "10.215." + pid % 250 + ".2";
    private final String ip6A = "fd00:215:" + Long.toHexString(pid % 250) + "::1";
    private final String ip6B = "fd00:215:" + Long.toHexString(pid % 250) + "::2";
    private boolean created;

    @BeforeAll
    void createNamespaces() throws Exception {
        assumeTrue(Shell.onPath("ip"), "skipped: the 'ip' command (iproute2) is not installed");
        assumeTrue(Shell.isRoot(), "skipped: creating network namespaces needs root (uid 0); CI runs as root");
        created = true;
        Shell.run("ip", "netns", "add", nsA);
        Shell.run("ip", "netns", "add", nsB);
        String va = "la" + tag;
        String vb = "lb" + tag;
        Shell.run("ip", "link", "add", va, "type", "veth", "peer", "name", vb);
        for (String[] end : new String[][] {{nsA, va, ipA, ip6A}, {nsB, vb, ipB, ip6B}}) {
            Shell.run("ip", "link", "set", end[1], "netns", end[0]);
            Shell.run("ip", "-n", end[0], "addr", "add", end[2] + "/24", "dev", end[1]);
            // no duplicate address detection: the address is usable at once
            Shell.run("ip", "-n", end[0], "addr", "add", end[3] + "/64", "dev", end[1], "nodad");
            Shell.run("ip", "-n", end[0], "link", "set", end[1], "up");
            Shell.run("ip", "-n", end[0], "link", "set", "lo", "up");
        }
    }

    @AfterAll
    void deleteNamespaces() throws Exception {
        if (created) {
            // deleting a namespace deletes its end of the veth pair, and with it the other end
            Shell.runQuietly("ip", "netns", "del", nsA);
            Shell.runQuietly("ip", "netns", "del", nsB);
        }
    }

    @Test
    void shouldPingPongBetweenNamespacesOverIpv4() throws Exception {
        TwoProcessIT.pingPong(new String[] {nsB, nsA}, ipB, ipA, List.of("--no-osgi"), List.of("--no-osgi"), 18515,
                "RC");
    }

    @Test
    void shouldPingPongBetweenNamespacesOverIpv6() throws Exception {
        TwoProcessIT.pingPong(new String[] {nsB, nsA}, ip6B, ip6A, List.of("--no-osgi"), List.of("--no-osgi"),
                18515, "RC");
    }

    @Test
    void shouldRunPerfWriteLatencyBetweenNamespacesOverIpv6() throws Exception {
        TwoProcessIT.perf(new String[] {nsB, nsA}, ip6B, ip6A, 18518, List.of("--test", "write", "--lat", "-n",
                "200"), "RDMA_Write Latency Test", " 2 +200( +[0-9.]+){7}", "measured here");
    }

    /** The veth pair is a 1500-byte Ethernet: a driver-jni port there reports the active MTU a RoCE NIC would, 1024. */
    @Test
    void shouldListTheVethsActiveMtuAsTheDevicesActiveMtu() throws Exception {
        try (RvtProcess p = RvtProcess.start("devices", nsA, "--driver", "jni", "--no-osgi", "--address", ipA,
                "devices")) {
            assertThat(p.exitCode()).as(p.out() + p.stderr()).isZero();
            assertThat(p.out()).contains("\t\t\tmax_mtu:\t\t4096 (5)\n", "\t\t\tactive_mtu:\t\t1024 (3)\n");
        }
    }

    // no -m: the ports' active MTU, 1024 on the veth pair (a 1500-byte Ethernet), 4096-byte messages in 4 packets each;
    // -b's row gives each side's own iterations, as perftest's print_full_bw_report does (the rates add both ways)
    @Test
    void shouldRunPerfSendBandwidthBothWaysAtOnceBetweenNamespacesOverIpv4() throws Exception {
        TwoProcessIT.perf(new String[] {nsB, nsA}, ipB, ipA, 18519, List.of("--test", "send", "-b", "-s", "4096",
                "-n", "500"), "Send Bidirectional BW Test", " 4096 +500 +[0-9.]+ +[0-9.]+ +[0-9.]+",
                TwoProcessIT.BOTH_FLOWS);
    }

    // a UD sweep ends at the MTU, the ports' active MTU without -m: ten rows, 2 to 1024 bytes, both sides printing each
    @Test
    void shouldSweepUdSendBandwidthBetweenNamespacesOverIpv6() throws Exception {
        TwoProcessIT.perfPair(new String[] {nsB, nsA}, ip6B, ip6A, 18523, List.of("--test", "send", "-c", "UD", "-a",
                "-n", "200"), (srv, cli) -> {
                    List<long[]> mine = TwoProcessIT.rows(cli.out());
                    assertThat(mine).hasSize(10).extracting(r -> r[1]).containsOnly(200L);
                    assertThat(mine.get(9)[0]).isEqualTo(1024L);
                    assertThat(TwoProcessIT.rows(srv.out())).extracting(r -> r[0])
                            .containsExactlyElementsOf(mine.stream().map(r -> r[0]).toList());
                });
    }

    @Test
    void shouldRunUdSendLatencyThroughSidrBetweenNamespacesOverIpv4() throws Exception {
        TwoProcessIT.perf(new String[] {nsB, nsA}, ipB, ipA, 18524, List.of("--test", "send", "--lat", "-c", "UD",
                "-n", "200", "-m", "1024"), "Send Latency Test", " 2 +200( +[0-9.]+){7}", "measured here");
    }

    @Test
    void shouldRunPerfWhenTheKernelDropsFivePercentOverIpv4AndIpv6() throws Exception {
        assumeTrue(Shell.onPath("nft"), "skipped: the 'nft' command (nftables) is not installed");
        withLoss(() -> {
            TwoProcessIT.perf(new String[] {nsB, nsA}, ipB, ipA, 18520, List.of("--test", "write", "-s", "65536",
                    "-n", "200", "-m", "1024"), "RDMA_Write BW Test", " 65536 +200 +[0-9.]+ +[0-9.]+ +[0-9.]+",
                    "the client's measurement");
            TwoProcessIT.perf(new String[] {nsB, nsA}, ip6B, ip6A, 18521, List.of("--test", "send", "-s", "4096",
                    "-n", "500", "-m", "1024"), "Send BW Test", " 4096 +500 +[0-9.]+ +[0-9.]+ +[0-9.]+",
                    TwoProcessIT.SERVER_RECEIVED);
            // both flows at once, each side's losses recovered by RC
            TwoProcessIT.perf(new String[] {nsB, nsA}, ipB, ipA, 18522, List.of("--test", "send", "-b", "-s", "4096",
                    "-n", "300", "-m", "1024"), "Send Bidirectional BW Test", " 4096 +300 +[0-9.]+ +[0-9.]+ +[0-9.]+",
                    TwoProcessIT.BOTH_FLOWS);
        });
    }

    @Test
    void shouldConnectAndCheckEveryMessageWhenTheKernelDropsFivePercentOverIpv4AndIpv6() throws Exception {
        assumeTrue(Shell.onPath("nft"), "skipped: the 'nft' command (nftables) is not installed");
        withLoss(() -> {
            TwoProcessIT.pingPong(new String[] {nsB, nsA}, ipB, ipA, List.of("--no-osgi"), List.of("--no-osgi"),
                    18516, "RC");
            TwoProcessIT.pingPong(new String[] {nsB, nsA}, ip6B, ip6A, List.of("--no-osgi"), List.of("--no-osgi"),
                    18517, "RC");
        });
    }

    /**
     * Issue 27: ping-pong through 5 % loss each way with both cores busy (two CPU hogs the test starts beside the two
     * JVMs, for at most 10 minutes). A loaded machine kept one side's process silent for 0.35-1 s, longer than the
     * examples' fixed retry budget (8 x 67 ms), and 8 of 11 runs of 3000 iterations failed with RETRY_EXC_ERR; with
     * driver-jni's retry backoff the peer gets 5.3 s.
     */
    @Test
    void shouldPingPongThroughFivePercentLossEachWayWithBothCoresBusy() throws Exception {
        assumeTrue(Shell.onPath("nft"), "skipped: the 'nft' command (nftables) is not installed");
        assumeTrue(Shell.onPath("timeout"), "skipped: the 'timeout' command (coreutils) is not installed");
        try (CpuHogs hogs = CpuHogs.start(2, 600)) {
            withLoss(() -> TwoProcessIT.pingPong(new String[] {nsB, nsA}, ipB, ipA, List.of("--no-osgi"),
                    List.of("--no-osgi"), 18525, "RC"));
            assertThat(hogs.allAlive()).as("the hogs ran throughout").isTrue();
        }
    }

    /** Something to run while nftables drops packets. */
    interface Lossy {
        void run() throws Exception;
    }

    /** Runs {@code body} with 5 % of UDP 4791 dropped both ways in the server's namespace, and checks it dropped. */
    void withLoss(Lossy body) throws Exception {
        Shell.run("ip", "netns", "exec", nsB, "nft", "add", "table", "inet", "rvt");
        try {
            for (String hook : new String[] {"input", "output"}) {
                Shell.run("ip", "netns", "exec", nsB, "nft", "add", "chain", "inet", "rvt", hook,
                        "{ type filter hook " + hook + " priority 0 ; }");
                Shell.run("ip", "netns", "exec", nsB, "nft", "add", "rule", "inet", "rvt", hook, "udp", "dport", "4791",
                        "numgen", "random", "mod", "100", "<", "5", "counter", "drop");
            }
            body.run();
            String rules = Shell.run("ip", "netns", "exec", nsB, "nft", "list", "table", "inet", "rvt");
            assertThat(rules).as("the rule dropped packets").containsPattern("counter packets [1-9]");
        } finally {
            Shell.runQuietly("ip", "netns", "exec", nsB, "nft", "delete", "table", "inet", "rvt");
        }
    }
}
