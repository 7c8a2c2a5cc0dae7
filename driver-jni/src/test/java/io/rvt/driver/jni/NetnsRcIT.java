package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rvt.testkit.Shell;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
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
 * Two hosts in one machine: two network namespaces joined by a veth pair (10.213.x.1 and 10.213.x.2, and fe80::a and
 * fe80::b), a child JVM in
 * each ({@link NetnsPeer}) with a driver-jni HCA on UDP 4791, and RC traffic between them, checked message by message
 * and by a CRC-32 of everything; then again with 5 % random loss injected by nftables in the server's namespace, in
 * both directions; and a third namespace, joined to the server's by a second veth pair, that tries to inject into
 * the connection. Needs root, {@code ip} and (for the loss run) {@code nft}; otherwise it skips and says why.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NetnsRcIT {
    private static final int MESSAGES = 2000;
    private static final long CHILD_DEADLINE_SECONDS = 300;
    /** In-window packets the intruder of the third namespace sends. */
    private static final int INJECTED = 8;

    private final String tag = Long.toString(ProcessHandle.current().pid() % 100_000);
    private final String nsA = "rvtA" + tag;
    private final String nsB = "rvtB" + tag;
    /** The intruder's namespace, joined to B by a second veth pair on another subnet (10.214.x.0/24). */
    private final String nsC = "rvtC" + tag;
    private final String ipC = "10.214." + (ProcessHandle.current().pid() % 250) + ".2";
    private final String ipBtoC = "10.214." + (ProcessHandle.current().pid() % 250) + ".1";
    private final String ipA = "10.213." + (ProcessHandle.current().pid() % 250) + ".1";
    private final String ipB = "10.213." + (ProcessHandle.current().pid() % 250) + ".2";
    private final java.util.Map<Process, File> errors = new java.util.concurrent.ConcurrentHashMap<>();
    private boolean created;

    @BeforeAll
    void createNamespaces() throws Exception {
        assumeTrue(Shell.onPath("ip"), "skipped: the 'ip' command (iproute2) is not installed");
        assumeTrue(Shell.isRoot(), "skipped: creating network namespaces needs root (uid 0); CI runs as root");
        created = true;
        Shell.run("ip", "netns", "add", nsA);
        Shell.run("ip", "netns", "add", nsB);
        Shell.run("ip", "netns", "add", nsC);
        veth(nsA, "va" + tag, ipA, nsB, "vb" + tag, ipB);
        // Link-local IPv6 too, without duplicate address detection (the address is usable at once).
        Shell.run("ip", "-n", nsA, "addr", "add", "fe80::a/64", "dev", "va" + tag, "nodad");
        Shell.run("ip", "-n", nsB, "addr", "add", "fe80::b/64", "dev", "vb" + tag, "nodad");
        // C reaches B's address 10.213.x.2 through B's second interface (B delivers it locally).
        veth(nsC, "vc" + tag, ipC, nsB, "vd" + tag, ipBtoC);
        Shell.run("ip", "-n", nsC, "route", "add", "default", "via", ipBtoC);
        for (String ns : new String[] {nsA, nsB, nsC}) {
            Shell.run("ip", "-n", ns, "link", "set", "lo", "up");
        }
    }

    /** A veth pair between two namespaces, an IPv4 /24 address on each end, both ends up. */
    private static void veth(String ns1, String if1, String ip1, String ns2, String if2, String ip2)
            throws Exception {
        Shell.run("ip", "link", "add", if1, "type", "veth", "peer", "name", if2);
        for (String[] end : new String[][] {{ns1, if1, ip1}, {ns2, if2, ip2}}) {
            Shell.run("ip", "link", "set", end[1], "netns", end[0]);
            Shell.run("ip", "-n", end[0], "addr", "add", end[2] + "/24", "dev", end[1]);
            Shell.run("ip", "-n", end[0], "link", "set", end[1], "up");
        }
    }

    @AfterAll
    void deleteNamespaces() throws Exception {
        if (created) {
            // Deleting a namespace deletes its end of the veth pair, and with it the other end.
            Shell.runQuietly("ip", "netns", "del", nsA);
            Shell.runQuietly("ip", "netns", "del", nsB);
            Shell.runQuietly("ip", "netns", "del", nsC);
        }
    }

    @Test
    void shouldDeliverEveryMessageOnceInOrderBetweenNamespaces() throws Exception {
        exchange(ipB, ipA, ipA, ipB);
    }

    /**
     * After the exchange, an HCA in a third namespace that knows the server's QPN, expected PSN and rkey sends
     * in-window RDMA WRITEs to it: each is dropped and counted ({@code RX_ADDR_MISMATCH}), nothing is delivered, the expected PSN
     * does not move.
     */
    @Test
    void shouldDropAndCountInWindowPacketsInjectedFromAThirdNamespace() throws Exception {
        exchange(ipB, ipA, ipA, ipB, INJECTED);
    }

    /** The GIDs RoCE NICs list first: link-local IPv6 addresses, each bound with its interface as scope. */
    @Test
    void shouldDeliverEveryMessageOnceInOrderOverLinkLocalIpv6() throws Exception {
        exchange("fe80::b%vb" + tag, "fe80::a", "fe80::a%va" + tag, "fe80::b");
    }

    /**
     * No path MTU asked for: the CM agrees on the ports' active MTU, which each port takes from its veth (1500 bytes:
     * 1024), so messages of up to 8 KiB go as several packets of 1024 (a port that reported 4096 whatever its link had
     * the CM agree on 4096, and every full packet was refused with EMSGSIZE).
     */
    @Test
    void shouldAgreeOnTheActiveMtuOfTheLinkWhenNoneIsAskedFor() throws Exception {
        exchange(ipB, ipA, ipA, ipB, 0, "active");
    }

    @Test
    void shouldDeliverEveryMessageOnceInOrderWhenKernelDropsPackets() throws Exception {
        assumeTrue(Shell.onPath("nft"), "skipped: the 'nft' command (nftables) is not installed");
        Shell.run("ip", "netns", "exec", nsB, "nft", "add", "table", "inet", "rvt");
        try {
            for (String hook : new String[] {"input", "output"}) {
                Shell.run("ip", "netns", "exec", nsB, "nft", "add", "chain", "inet", "rvt", hook,
                        "{ type filter hook " + hook + " priority 0 ; }");
                Shell.run("ip", "netns", "exec", nsB, "nft", "add", "rule", "inet", "rvt", hook, "udp", "dport", "4791",
                        "numgen", "random", "mod", "100", "<", "5", "counter", "drop");
            }
            exchange(ipB, ipA, ipA, ipB);
            String rules = Shell.run("ip", "netns", "exec", nsB, "nft", "list", "table", "inet", "rvt");
            assertThat(rules).as("the rule dropped packets").containsPattern("counter packets [1-9]");
        } finally {
            Shell.runQuietly("ip", "netns", "exec", nsB, "nft", "delete", "table", "inet", "rvt");
        }
    }

    /** RC from a client in A to a server in B, each bound to its local address and talking to the other's GID. */
    private void exchange(String serverLocal, String serverPeer, String clientLocal, String clientPeer)
            throws Exception {
        exchange(serverLocal, serverPeer, clientLocal, clientPeer, 0);
    }

    /** ... then, if {@code inject > 0}, that many in-window packets from the third namespace. */
    private void exchange(String serverLocal, String serverPeer, String clientLocal, String clientPeer, int inject)
            throws Exception {
        exchange(serverLocal, serverPeer, clientLocal, clientPeer, inject, "1024");
    }

    /** ... with the path MTU {@code mtu} ({@link NetnsPeer}'s argument: bytes, or {@code active}). */
    private void exchange(String serverLocal, String serverPeer, String clientLocal, String clientPeer, int inject,
            String mtu) throws Exception {
        Process server = child(nsB, "server", serverLocal, serverPeer, MESSAGES, mtu);
        Process client = child(nsA, "client", clientLocal, clientPeer, MESSAGES, mtu);
        try {
            BufferedReader so = reader(server);
            BufferedReader co = reader(client);
            expectLine(so, "QPN ", server);
            expectLine(co, "QPN ", client);
            Writer si = new OutputStreamWriter(server.getOutputStream(), StandardCharsets.UTF_8);
            Writer ci = new OutputStreamWriter(client.getOutputStream(), StandardCharsets.UTF_8);
            // the server listens (rvt-cm), then the client connects to it; the server posts its receives
            si.write("go\n");
            si.flush();
            ci.write("go\n");
            ci.flush();
            String pathMtu = expectLine(so, "PATH_MTU ", server);
            assertThat(pathMtu).isEqualTo("PATH_MTU 1024"); // asked for, or the active MTU of the 1500-byte veth
            expectLine(so, "READY", server);
            String sent = expectLine(co, "SENT ", client);
            String received = expectLine(so, "RECEIVED ", server);
            assertThat(sent).startsWith("SENT " + MESSAGES + " ");
            assertThat(received.substring("RECEIVED ".length())).isEqualTo(sent.substring("SENT ".length()));
            String expects = expectLine(so, "EXPECTS ", server);
            if (inject > 0) {
                injectFromThirdNamespace(expects, serverLocal, inject, so, si, server);
            }
            si.write("done\n");
            si.flush();
            ci.write("done\n");
            ci.flush();
            assertThat(server.waitFor(CHILD_DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
            assertThat(client.waitFor(CHILD_DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
            assertThat(server.exitValue()).as(stderr(server)).isZero();
            assertThat(client.exitValue()).as(stderr(client)).isZero();
        } finally {
            server.destroyForcibly();
            client.destroyForcibly();
        }
    }

    private void injectFromThirdNamespace(String expects, String target, int count, BufferedReader so, Writer si,
            Process server) throws Exception {
        Process intruder = child(nsC, "intruder", ipC, target, count);
        try {
            BufferedReader io = reader(intruder);
            expectLine(io, "QPN ", intruder);
            Writer ii = new OutputStreamWriter(intruder.getOutputStream(), StandardCharsets.UTF_8);
            ii.write("QPN " + expects.substring("EXPECTS ".length()) + "\n");
            ii.flush();
            assertThat(expectLine(io, "INJECTED ", intruder)).isEqualTo("INJECTED " + count);
            si.write("probe " + count + "\n");
            si.flush();
            assertThat(expectLine(so, "DROPPED ", server)).isEqualTo("DROPPED " + count + " PSN unchanged");
            ii.write("done\n");
            ii.flush();
            assertThat(intruder.waitFor(CHILD_DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
            assertThat(intruder.exitValue()).as(stderr(intruder)).isZero();
        } finally {
            intruder.destroyForcibly();
        }
    }

    private Process child(String ns, String role, String local, String peer, int messages) throws IOException {
        return child(ns, role, local, peer, messages, "1024");
    }

    private Process child(String ns, String role, String local, String peer, int messages, String mtu)
            throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", ns, java, "-cp",
                System.getProperty("java.class.path"), NetnsPeer.class.getName(), role, local, peer,
                Integer.toString(messages), mtu));
        File err = Files.createTempFile("rvt-netns-" + role, ".err").toFile();
        err.deleteOnExit();
        Process p = new ProcessBuilder(cmd).redirectError(err).start();
        errors.put(p, err);
        return p;
    }

    private static BufferedReader reader(Process p) {
        return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    }

    /** Reads lines until one starts with {@code prefix}; fails with the child's stderr if it ends first. */
    private String expectLine(BufferedReader r, String prefix, Process p) throws Exception {
        String line;
        while ((line = r.readLine()) != null) {
            if (line.startsWith(prefix)) {
                return line;
            }
        }
        p.waitFor(CHILD_DEADLINE_SECONDS, TimeUnit.SECONDS);
        throw new AssertionError("child ended before printing '" + prefix + "': " + stderr(p));
    }

    private String stderr(Process p) {
        try {
            return "exit " + (p.isAlive() ? "(running)" : p.exitValue()) + ", stderr:\n"
                    + Files.readString(errors.get(p).toPath());
        } catch (IOException | RuntimeException e) {
            return String.valueOf(e);
        }
    }
}
