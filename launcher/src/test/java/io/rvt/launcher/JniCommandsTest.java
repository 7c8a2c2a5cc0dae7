package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commands with {@code --driver jni}, run in process: two RoCEv2 HCAs talking over real UDP on loopback. The
 * subclasses run them on each host (plain class path, OSGi).
 */
abstract class JniCommandsTest {
    /** GID 0 of a port on 127.0.0.1, as ibv_devinfo writes it: IPv4-mapped. */
    static final String LOOPBACK_GID = "0000:0000:0000:0000:0000:ffff:7f00:0001";

    final CommandLine cli = new CommandLine();

    /** @return the options that choose the host, e.g. {@code --no-osgi} */
    abstract List<String> hostOptions();

    /** @return what the "measured on" notes say of this host */
    abstract String hostDescription();

    int run(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.add("--driver");
        all.add("jni");
        all.addAll(hostOptions());
        return cli.run(all.toArray(String[]::new));
    }

    @Test
    @Timeout(120)
    void shouldListTwoRoceHcasWithEthernetLinkAndIpGidWhenAskedForDevices() {
        assertThat(run("devices")).isZero();
        assertThat(cli.out().split("hca_id:", -1)).hasSize(3);
        assertThat(cli.out()).contains("InfiniBand (RoCEv2 over UDP by roce0)", "InfiniBand (RoCEv2 over UDP by roce1)",
                "link_layer:\t\tEthernet", "port_lid:\t\t0", "GID[0]:\t\t\t" + LOOPBACK_GID, "PORT_ACTIVE (4)");
        assertThat(cli.out()).doesNotContain("simulated", "link_layer:\t\tInfiniBand");
        assertThat(cli.err()).isEmpty();
    }

    /**
     * A server on an address whose RoCEv2 port another program holds: one line at once, the driver's own words, on
     * either host (under Felix it was ~40 lines of SCR's stack trace and a 20 s wait for devices that never came).
     */
    @Test
    @Timeout(120)
    void shouldSayInOneLineAtOnceThatTheRoceV2PortIsTakenWhenAServerCannotBindIt() throws Exception {
        String address = "127.16." + ProcessHandle.current().pid() % 250 + "." + (hostOptions().isEmpty() ? 1 : 2);
        try (java.net.DatagramSocket taken = new java.net.DatagramSocket(new java.net.InetSocketAddress(address,
                JniSetup.ROCEV2_PORT))) {
            assertThat(run("--address", address, "pingpong", "--server")).isEqualTo(Main.EXIT_FAILURE);
        }
        assertThat(cli.err()).isEqualTo("rvt: bind " + address + ":4791 failed: EADDRINUSE (98, address already in "
                + "use)" + System.lineSeparator());
        assertThat(cli.out()).doesNotContain("waiting for a client");
    }

    @Test
    @Timeout(180)
    void shouldExchangeCheckedMessagesOverGlobalAddressesWhenPingPongingOverEveryTransport() {
        for (String t : List.of("rc", "uc", "ud")) {
            assertThat(run("pingpong", "--transport", t, "-n", "40", "-s", "1000")).as(t).isZero();
        }
        assertThat(cli.out()).contains("40 iters in", "80000 bytes in", "RC; every message checked", "UC;", "UD;",
                "LID 0x0000, QPN 0x", ", GID " + LOOPBACK_GID + " (roce0",
                "measured on " + hostDescription(), "RoCEv2 over UDP on 127.0.0.1, ports ");
        assertThat(cli.out()).doesNotContain("simulated");
        assertThat(cli.err()).isEmpty();
    }

    @Test
    @Timeout(120)
    void shouldPrintPerftestTableAndJsonSayingEthernetAndNotSimulatedWhenMeasuring(@TempDir Path dir)
            throws IOException {
        Path json = dir.resolve("send.json");
        assertThat(run("perf", "--test", "send", "-s", "64", "-n", "200", "--json", json.toString())).isZero();
        assertThat(cli.out()).contains("Send BW Test", " Link type       : Ethernet" + System.lineSeparator(),
                " Measured on     : " + hostDescription());
        assertThat(cli.out()).containsPattern("(?m)^ 64\\s+200\\s+\\d+\\.\\d\\d\\s+\\d+\\.\\d\\d\\s+\\d+\\.\\d{6}$");
        Map<?, ?> doc = (Map<?, ?>) MiniJson.parse(Files.readString(json, StandardCharsets.UTF_8));
        assertThat(doc.get("simulated")).isEqualTo(false);
        assertThat((String) doc.get("measured_on")).startsWith(hostDescription());
        Map<?, ?> info = (Map<?, ?>) ((Map<?, ?>) ((List<?>) doc.get("tests")).get(0)).get("test_info");
        assertThat(info.get("Link_type")).isEqualTo("Ethernet");
        assertThat(info.get("Driver")).isEqualTo("roce0");
    }

    @Test
    @Timeout(120)
    void shouldShowPortCountersAndQueuePairsAfterTrafficWhenStatRuns() {
        assertThat(run("stat", "-n", "20")).isZero();
        assertThat(cli.counter("rc_acks")).isBetween(1L, 20L); // ACKs may be coalesced
        assertThat(cli.counter("rx_packets")).isGreaterThanOrEqualTo(2 * 20); // RC and UD requests at least
        assertThat(cli.counter("rx_malformed")).isZero();
        assertThat(cli.counter("rx_addr_mismatch")).isZero(); // every packet from the peer's own address
        assertThat(cli.counter("rx_kernel_drops")).isZero();
        assertThat(cli.out()).doesNotContain("not visible to this host");
        // Random initial PSNs: had the four QPs started at 0, each sq_psn would be below 0x1000 after 20 round trips.
        Matcher psn = Pattern.compile("(?m)^\\s+\\S+\\s+0x\\w+\\s+(?:RC|UD)\\s+RTS\\s+0x(\\w{6})").matcher(cli.out());
        int qps = 0;
        int low = 0;
        while (psn.find()) {
            qps++;
            low += Integer.parseInt(psn.group(1), 16) < 0x1000 ? 1 : 0;
        }
        assertThat(qps).as("queue pair lines in%n%s", cli.out()).isEqualTo(4);
        assertThat(low).as("QPs whose sq_psn is below 0x1000").isLessThan(4);
        assertThat(cli.out()).contains("20 RC round trips", "UD round trips", "RC   RTS", "UD   RTS",
                "network: " + hostDescription());
    }
}
