package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.PortAttr;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * perftest's {@code -O} on {@code rvt perf}: driver-sim's HCAs built with two ports, twice {@code -q}'s QPs, the
 * first half on port 1 and the second on port 2, every QP's messages on its own port's LIDs; and the refusals.
 */
class PerftestDualPortTest {
    private final CommandLine cli = new CommandLine();

    /** Runs a dual-port table and counts the frames between the two HCAs by "slid-&gt;dlid". */
    private Map<String, Integer> run(String... perf) {
        PlainHost host = PlainHost.start(Options.parse("perf", "-O").fabric());
        Map<String, Integer> seen = new ConcurrentHashMap<>();
        host.fabric().dropRule((from, to, frame) -> {
            if (from != to) {
                seen.merge(String.format("0x%x->0x%x", frame.getShort(6) & 0xFFFF, frame.getShort(2) & 0xFFFF), 1,
                        Integer::sum);
            }
            return false;
        });
        String[] lids = new String[4];
        for (int d = 0; d < 2; d++) {
            for (int p = 1; p <= 2; p++) {
                lids[2 * d + p - 1] = "0x" + Integer.toHexString(host.devices().get(d).queryPort(p, new PortAttr()).lid());
            }
        }
        assertThat(cli.runOn(host, perf)).as(cli.err()).isZero();
        Map<String, Integer> byPort = new java.util.TreeMap<>();
        // the requester's (sim0) port 1 to the responder's (sim1) port 1, and port 2 to port 2
        byPort.put("port 1", seen.getOrDefault(lids[0] + "->" + lids[2], 0));
        byPort.put("port 2", seen.getOrDefault(lids[1] + "->" + lids[3], 0));
        byPort.put("across", seen.getOrDefault(lids[0] + "->" + lids[3], 0)
                + seen.getOrDefault(lids[1] + "->" + lids[2], 0));
        return byPort;
    }

    @Test
    @Timeout(180)
    void shouldRunHalfTheQpsOnEachHcasSecondPort(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("perftest.json");
        Map<String, Integer> send = run("perf", "--test", "ib_send_bw", "-O", "-s", "1024", "-n", "400",
                "--out_json", "--out_json_file=" + json);
        assertThat(MiniJson.map(MiniJson.parseFile(json).get("test_info"))).containsEntry("Dual_port", "ON")
                .containsEntry("Number_of_qps", 2.0).containsEntry("test", "Send_BW_Test");
        assertThat(cli.out()).contains(" Dual-port       : ON", " Number of qps   : 2", "Connection type : RC",
                " Port 2 counters : sim0 sent ");
        assertThat(send.get("port 1")).as("%s", send).isGreaterThanOrEqualTo(400);
        assertThat(send.get("port 2")).as("%s", send).isGreaterThanOrEqualTo(400);
        assertThat(send.get("across")).as("%s", send).isZero();

        cli.reset();
        Map<String, Integer> write = run("perf", "--test", "ib_write_bw", "--dualport", "-q", "2", "-s", "4096",
                "-n", "200");
        assertThat(cli.out()).contains(" Number of qps   : 4");
        assertThat(write.get("port 1")).as("%s", write).isGreaterThanOrEqualTo(400);
        assertThat(write.get("port 2")).as("%s", write).isGreaterThanOrEqualTo(400);
        assertThat(write.get("across")).as("%s", write).isZero();

        cli.reset();
        Map<String, Integer> ud = run("perf", "--test", "ib_send_bw", "-O", "-c", "UD", "-s", "512", "-n", "300");
        assertThat(cli.out()).contains(" Dual-port       : ON", "Connection type : UD");
        assertThat(ud.get("port 1")).as("%s", ud).isGreaterThanOrEqualTo(300);
        assertThat(ud.get("port 2")).as("%s", ud).isGreaterThanOrEqualTo(300);
    }

    /** Through OSGi (the default host): driver-sim's HCA configurations say two ports, and port 2 carries half. */
    @Test
    @Timeout(180)
    void shouldBuildTwoPortHcasThroughOsgi() {
        assertThat(cli.run("perf", "--test", "ib_write_bw", "-O", "-s", "4096", "-n", "300")).as(cli.err()).isZero();
        assertThat(cli.out()).contains(" Dual-port       : ON", " Number of qps   : 2");
        String port2 = cli.out().lines().filter(l -> l.startsWith(" Port 2 counters : sim0 sent ")).findFirst()
                .orElseThrow(() -> new AssertionError(cli.out()));
        assertThat(Long.parseLong(port2.split("\\s+")[7])).as(port2).isGreaterThanOrEqualTo(300);
    }

    @Test
    void shouldRefuseDualPortWherePerftestOrRvtDoesWithOneLine() {
        cli.assertUsage("option --dualport: dual-port mode only supports BW tests (perftest's rule)", "perf",
                "--test", "ib_send_lat", "-O");
        cli.assertUsage("option --dualport: dual-port mode is not supported with multicast, -g", "perf", "-g", "-O");
        cli.assertUsage("option --dualport: it runs the QPs on ports 1 and 2 (perftest sets both): -i does not "
                + "apply", "perf", "-O", "-i", "1");
        cli.assertUsage("option --dualport: driver-jni's HCAs have one port each", "--driver", "jni", "perf", "-O");
        cli.assertUsage("option --report-per-port is refused: a -O row adds both ports' messages", "perf", "-O",
                "--report-per-port");
        assertThat(Options.parse("perf", "-O").fabric().ports()).isEqualTo(2);
        assertThat(Options.parse("perf").fabric().ports()).isOne();
        assertThat(SimConfigurations.properties(Options.parse("perf", "-O").fabric(), "sim0", false))
                .containsEntry("ports", 2);
    }
}
