package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rvt.testkit.Shell;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A port's active MTU comes from its interface, as a RoCE NIC's and rxe's do: in a network namespace with a veth
 * whose MTU the test sets (1500, 9000, 1280, and 2144 / 2143 on either side of the 2048 step) and loopback, a child
 * JVM ({@link LinkMtuProbe}) queries HCAs on the veth's IPv4 and IPv6 addresses, one capped at 2048 by its builder,
 * and on {@code 127.0.0.1}, {@code 127.0.0.2} (held by no interface, within {@code lo}'s {@code 127.0.0.1/8}) and
 * {@code ::1}; the same HCAs each time, so a change of the interface's MTU shows at the next query. An RC QP asking for
 * a path MTU of 4096 gets the active MTU. Needs root and {@code ip}; otherwise it skips and says why.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NetnsLinkMtuIT {
    private static final long DEADLINE_SECONDS = 120;
    private final long pid = ProcessHandle.current().pid();
    private final String tag = Long.toString(pid % 100_000);
    private final String ns = "rvtM" + tag;
    private final String veth = "ma" + tag;
    private final String ip4 = "10.216." + pid % 250 + ".1";
    private final String ip6 = "fd00:216:" + Long.toHexString(pid % 250) + "::1";
    private boolean created;

    @BeforeAll
    void createNamespace() {
        assumeTrue(Shell.onPath("ip"), "skipped: the 'ip' command (iproute2) is not installed");
        assumeTrue(Shell.isRoot(), "skipped: creating network namespaces needs root (uid 0); CI runs as root");
        created = true;
        Shell.run("ip", "netns", "add", ns);
        Shell.run("ip", "link", "add", veth, "type", "veth", "peer", "name", "mb" + tag);
        for (String end : new String[] {veth, "mb" + tag}) {
            Shell.run("ip", "link", "set", end, "netns", ns);
            Shell.run("ip", "-n", ns, "link", "set", end, "up");
        }
        Shell.run("ip", "-n", ns, "addr", "add", ip4 + "/24", "dev", veth);
        Shell.run("ip", "-n", ns, "addr", "add", ip6 + "/64", "dev", veth, "nodad");
        Shell.run("ip", "-n", ns, "link", "set", "lo", "up");
    }

    @AfterAll
    void deleteNamespace() {
        if (created) {
            Shell.runQuietly("ip", "netns", "del", ns); // with the veth pair in it
        }
    }

    @Test
    void shouldReportTheActiveMtuOfTheInterfaceAndFollowItsChanges() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", ns, java, "-cp",
                System.getProperty("java.class.path"), LinkMtuProbe.class.getName(), ip4, ip6, ip4 + "/2048",
                "127.0.0.1", "127.0.0.2", "::1"));
        File err = Files.createTempFile("rvt-netns-mtu", ".err").toFile();
        err.deleteOnExit();
        Process probe = new ProcessBuilder(cmd).redirectError(err).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(probe.getInputStream(),
                    StandardCharsets.UTF_8));
            Writer in = new OutputStreamWriter(probe.getOutputStream(), StandardCharsets.UTF_8);
            assertThat(out.readLine()).as(stderr(probe, err)).isEqualTo("READY");
            // link MTU -> the veth ports' active MTU (iboe_get_mtu: the largest IBTA MTU <= link MTU - 96)
            int[][] steps = {{1500, 1024}, {9000, 4096}, {1280, 1024}, {2144, 2048}, {2143, 1024}};
            for (int[] step : steps) {
                Shell.run("ip", "-n", ns, "link", "set", "dev", veth, "mtu", Integer.toString(step[0]));
                in.write("query\n");
                in.flush();
                List<String> lines = new ArrayList<>();
                for (int i = 0; i < 6; i++) {
                    lines.add(out.readLine());
                }
                int onVeth = step[1];
                int capped = Math.min(onVeth, 2048);
                assertThat(lines).as("veth MTU %d; %s", step[0], stderr(probe, err)).containsExactly(
                        port(0, onVeth, 4096), port(1, onVeth, 4096), port(2, capped, 2048),
                        port(3, 4096, 4096), port(4, 4096, 4096), port(5, 4096, 4096));
            }
            in.close();
            assertThat(probe.waitFor(DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
            assertThat(probe.exitValue()).as(stderr(probe, err)).isZero();
        } finally {
            probe.destroyForcibly();
        }
    }

    /** What the probe prints for HCA {@code i}: the QP's path MTU is the active MTU. */
    private static String port(int i, int active, int max) {
        return "PORT " + i + " ACTIVE " + active + " MAX " + max + " QP " + active;
    }

    private static String stderr(Process p, File err) {
        try {
            return "probe " + (p.isAlive() ? "running" : "exit " + p.exitValue()) + ", stderr:\n"
                    + Files.readString(err.toPath());
        } catch (java.io.IOException e) {
            return String.valueOf(e);
        }
    }
}
