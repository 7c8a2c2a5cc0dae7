package io.rvt.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.AccessFlag;
import io.rvt.api.CompletionQueue;
import io.rvt.api.ProtectionDomain;
import io.rvt.core.RvtDevice;
import io.rvt.driver.jni.JniDriver;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Wireshark's view of the CM: a connect/disconnect between two driver-jni HCAs on two loopback addresses of this test
 * run's own (127.77.N.1 and 127.77.N.2, N from the process ID; both on UDP 4791, which Wireshark dissects as RoCEv2)
 * is captured on {@code lo} with tshark and dissected, the capture confined to the packets between those two
 * addresses (on a busy machine other programs' RoCE traffic on {@code lo} UDP 4791 landed in a capture of the whole
 * port, issue 27). Every CM MAD must
 * be a well-formed ConnectRequest, ConnectReply, ReadyToUse, DisconnectRequest or DisconnectReply with no malformed
 * packet and no expert warning or error, and the REQ must carry what rdma_cm sends: an RDMA_PS_TCP service ID for the
 * port and the IP CM header with the two IPv4 addresses. Needs tshark (Debian package {@code tshark}, which CI
 * installs) and root to capture.
 */
class WiresharkCmTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** Display filter of CM MADs (management class 0x07). */
    private static final String CM = "infiniband.mad.mgmtclass == 0x07";
    /** This run's loopback network: no other program's HCA is on it. */
    private static final String NET = "127.77." + (ProcessHandle.current().pid() % 250 + 1) + ".";
    private static final String SERVER_IP = NET + "1";
    private static final String CLIENT_IP = NET + "2";

    @TempDir
    Path dir;

    private static boolean tsharkPresent() {
        try {
            Process p = new ProcessBuilder("tshark", "-v").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static List<String> run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        List<String> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (!line.startsWith("Running as user")) {
                    out.add(line);
                }
            }
        }
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("%s finishes", List.of(cmd)).isTrue();
        return out;
    }

    /** @return the CM frames of the capture: attribute ID, then the REQ's fields (empty for the others) */
    private static List<String> cmFrames(Path pcap) throws Exception {
        return run("tshark", "-r", pcap.toString(), "-Y", CM, "-T", "fields", "-E", "separator=|",
                "-e", "infiniband.mad.attributeid", "-e", "infiniband.cm.req.serviceid",
                "-e", "infiniband.cm.req.ip_cm.ipv", "-e", "infiniband.cm.req.ip_cm.sport",
                "-e", "infiniband.cm.req.ip_cm.sip4", "-e", "infiniband.cm.req.ip_cm.dip4",
                "-e", "infiniband.cm.req.ip_cm.majv", "-e", "infiniband.cm.req.ip_cm.minv");
    }

    @Test
    void shouldDecodeEveryCmMadAsWellFormedInWireshark() throws Exception {
        Assumptions.assumeTrue(tsharkPresent(), "tshark is not installed (apt-get install tshark; CI installs it): "
                + "cannot check the MADs against Wireshark's dissector");
        Path pcap = dir.resolve("cm.pcapng");
        Process capture = new ProcessBuilder("tshark", "-i", "lo", "-f",
                "udp port 4791 and host " + SERVER_IP + " and host " + CLIENT_IP, "-w", pcap.toString())
                .redirectErrorStream(true).start();
        List<RvtDevice> devices = new ArrayList<>();
        List<ConnectionManager> cms = new ArrayList<>();
        try {
            BufferedReader log = new BufferedReader(new InputStreamReader(capture.getInputStream(),
                    StandardCharsets.UTF_8));
            StringBuilder said = new StringBuilder();
            CompletableFuture<Boolean> capturing = CompletableFuture.supplyAsync(() -> {
                try {
                    for (String line; (line = log.readLine()) != null; ) {
                        if (line.contains("Capturing on")) {
                            return true;
                        }
                        said.append(line).append('\n');
                    }
                } catch (IOException e) {
                    return false;
                }
                return false;
            });
            boolean started = capturing.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            // tshark ran and refused to capture (no permission on lo): say so rather than fail the build
            Assumptions.assumeTrue(started, "tshark cannot capture on lo (it needs root or CAP_NET_RAW): " + said);
            Thread drainer = new Thread(() -> {
                try {
                    while (log.readLine() != null) {
                        // keep tshark's pipe from filling up
                    }
                } catch (IOException ignored) {
                    // capture ended
                }
            }, "tshark-log");
            drainer.setDaemon(true);
            drainer.start();

            RvtDevice server = RvtDevice.register(JniDriver.builder().name("ws-srv").address(SERVER_IP).build());
            RvtDevice client = RvtDevice.register(JniDriver.builder().name("ws-cli").address(CLIENT_IP).build());
            devices.add(server);
            devices.add(client);
            ConnectionManager scm = ConnectionManager.of(server);
            ConnectionManager ccm = ConnectionManager.of(client);
            cms.add(scm);
            cms.add(ccm);
            ProtectionDomain spd = server.allocPd();
            ProtectionDomain cpd = client.allocPd();
            CompletionQueue scq = server.createCq(16, 0, null, null);
            CompletionQueue ccq = client.createCq(16, 0, null, null);
            spd.regMr(ByteBuffer.allocateDirect(4096), AccessFlag.LOCAL_WRITE.bit());
            CompletableFuture<Connection> accepted = new CompletableFuture<>();
            scm.listen(18515, req -> accepted.complete(req.acceptAsync(new QpOptions().pd(spd).cq(scq),
                    new byte[] {1, 2})));
            Connection c = ccm.connect(new ConnectOptions().destination(InetAddress.getByName(SERVER_IP))
                    .port(18515).sourcePort(40001).privateData("rvt".getBytes(StandardCharsets.US_ASCII))
                    .qp(new QpOptions().pd(cpd).cq(ccq)), WAIT);
            Connection s = accepted.get(WAIT.toSeconds(), TimeUnit.SECONDS).awaitEstablished(WAIT);
            c.disconnect();
            c.disconnected().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            s.disconnected().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            c.close();
            s.close();

            long end = System.nanoTime() + WAIT.toNanos();
            while (cmFrames(pcap).size() < 5 && System.nanoTime() < end) {
                Thread.sleep(200); // polling the capture file that tshark writes; not synchronising threads
            }
        } finally {
            for (ConnectionManager cm : cms) {
                cm.close();
            }
            for (RvtDevice d : devices) {
                d.unregister();
            }
            capture.destroy();
            capture.waitFor(30, TimeUnit.SECONDS);
        }
        assertThat(Files.size(pcap)).isPositive();
        Files.copy(pcap, Path.of("target", "cm-capture.pcapng"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);

        List<String> frames = cmFrames(pcap);
        List<String> types = new ArrayList<>();
        for (String f : frames) {
            types.add(f.split("\\|", -1)[0]);
        }
        // REQ 0x0010, REP 0x0013, RTU 0x0014, DREQ 0x0015, DREP 0x0016, in that order
        assertThat(types).containsExactly("0x0010", "0x0013", "0x0014", "0x0015", "0x0016");
        String[] req = frames.get(0).split("\\|", -1);
        assertThat(req[1]).as("service ID").isEqualTo("0x0000000001064853");
        assertThat(req[2]).as("IP version").isEqualTo("0x04");
        assertThat(req[3]).as("source port").isEqualTo("0x9c41"); // 40001
        assertThat(req[4]).as("source IP").isEqualTo(CLIENT_IP);
        assertThat(req[5]).as("destination IP").isEqualTo(SERVER_IP);
        assertThat(req[6] + "." + req[7]).as("IP CM version").isEqualTo("0x00.0x00");

        List<String> bad = run("tshark", "-r", pcap.toString(), "-Y",
                "infiniband && (_ws.malformed || _ws.expert.severity >= 6291456)", "-T", "fields", "-e",
                "frame.number", "-e", "_ws.expert.message");
        assertThat(bad).as("malformed frames or expert warnings/errors").isEmpty();
        List<String> names = run("tshark", "-r", pcap.toString(), "-Y", CM, "-V");
        String all = String.join("\n", names);
        for (String msg : new String[] {"ConnectRequest", "ConnectReply", "ReadyToUse", "DisconnectRequest",
            "DisconnectReply"}) {
            assertThat(all).as("Wireshark names %s", msg).contains(msg);
        }
    }
}
