package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * perftest's flags of how a test runs (issue 26, item 3) between two real {@code rvt perf} processes, each with one
 * driver-jni HCA on its own loopback address, over perftest's protocol: the software rate limiter,
 * {@code --retry_count} and {@code -e}.
 */
class PerftestFlagsTwoProcessIT {
    /** Loopback addresses of this run: 127.18.x.y (Linux routes all of 127/8 to lo). */
    private static final String NET = "127.18." + ProcessHandle.current().pid() % 250 + ".";
    private static final Pattern BW_ROW = Pattern.compile("(?m)^ (\\d+) +(\\d+) +([0-9.]+) +([0-9.]+) +([0-9.]+)$");

    /**
     * ib_write_bw limited to 100 MB/sec in bursts of 10 64 KiB WRITEs (1600 a second, bursts 6.25 ms apart), RC QPs
     * retrying 3 times: the client's row, which the passive server prints from its report, is at most what 19 gaps
     * allow (200 WRITEs in 118.75 ms: 105.3 MiB/sec), both sides exit 0.
     */
    @Test
    void shouldKeepTheClientsWriteRowsUnderTheRateLimitWithTheRetryCountGiven() throws Exception {
        TwoProcessIT.perfPair(null, NET + "1", NET + "2", 18720, List.of("--test", "ib_write_bw", "-s", "65536",
                "-n", "200", "--rate_limit", "100", "--rate_units", "M", "--burst_size", "10", "--retry_count", "3"),
                (srv, cli) -> {
                    for (RvtProcess p : List.of(srv, cli)) {
                        Matcher m = BW_ROW.matcher(p.out());
                        assertThat(m.find()).as(p.out()).isTrue();
                        assertThat(Long.parseLong(m.group(2))).isEqualTo(200);
                        assertThat(Double.parseDouble(m.group(4))).as(m.group()).isPositive()
                                .isLessThanOrEqualTo(100.0 * 20 / 19);
                    }
                });
    }

    /**
     * ib_send_bw with -R and --retry_count 2: rvt-cm's REQ carries the count (perftest's rdma_cm mode), and the SENDs
     * arrive: the server counts all 300.
     */
    @Test
    void shouldRunSendBandwidthThroughRdmaCmWithTheRetryCount() throws Exception {
        List<String> test = List.of("--test", "ib_send_bw", "-R", "-s", "4096", "-n", "300", "--retry_count", "2");
        List<String> s = new java.util.ArrayList<>(List.of("--driver", "jni", "--no-osgi", "--address", NET + "3",
                "perf", "--server", "-p", "18721"));
        s.addAll(test);
        List<String> c = new java.util.ArrayList<>(List.of("--driver", "jni", "--no-osgi", "--address", NET + "4",
                "perf", NET + "3", "-p", "18721"));
        c.addAll(test);
        TwoProcessIT.runPair(null, s, c, (srv, cli) -> {
            assertThat(TwoProcessIT.rows(cli.out())).extracting(r -> r[1]).containsExactly(300L);
            assertThat(TwoProcessIT.rows(srv.out())).extracting(r -> r[1]).containsExactly(300L);
            assertThat(srv.stderr() + cli.stderr()).doesNotContain("rvt:");
        });
    }

    /**
     * ib_send_bw -e: the client waits on its send CQ's completion channel, the server on its receive CQ's; the server
     * counts all 500 SENDs, both exit 0.
     */
    @Test
    void shouldRunSendBandwidthWaitingOnCompletionEventsOnBothSides() throws Exception {
        TwoProcessIT.perfPair(null, NET + "5", NET + "6", 18722, List.of("--test", "ib_send_bw", "-s", "4096", "-n",
                "500", "-e"), (srv, cli) -> {
                    assertThat(TwoProcessIT.rows(cli.out())).extracting(r -> r[1]).containsExactly(500L);
                    assertThat(TwoProcessIT.rows(srv.out())).extracting(r -> r[1]).containsExactly(500L);
                });
    }

    /**
     * ib_send_bw --use-srq over two QPs: the server's QPs take their receives from one shared receive queue, both
     * say 'Using SRQ : ON', and both rows count all 2 x 300 SENDs.
     */
    @Test
    void shouldRunSendBandwidthIntoASharedReceiveQueue() throws Exception {
        TwoProcessIT.perfPair(null, NET + "7", NET + "8", 18723, List.of("--test", "ib_send_bw", "-s", "4096", "-n",
                "300", "-q", "2", "--use-srq"), (srv, cli) -> {
                    for (RvtProcess p : List.of(srv, cli)) {
                        assertThat(p.out()).as(p.out()).containsPattern("Using SRQ +: ON");
                    }
                    assertThat(TwoProcessIT.rows(cli.out())).extracting(r -> r[1]).containsExactly(600L);
                    assertThat(TwoProcessIT.rows(srv.out())).extracting(r -> r[1]).containsExactly(600L);
                });
    }
}
