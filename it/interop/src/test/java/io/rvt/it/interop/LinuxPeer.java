package io.rvt.it.interop;

import io.rvt.testkit.Shell;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The Linux peer: a Debian 12 guest with Debian's kernel and Soft-RoCE ({@code rdma_rxe} as {@code rxe0} on its
 * {@code eth0}), rdma-core and the RDMA tools, in QEMU (TCG) on a TAP inside a network namespace; the host end of
 * the TAP has {@link #hostIpv4()} and {@link #hostIpv6()}, the guest {@link #guestIpv4()} and
 * {@link #guestIpv6()} (documentation addresses; nothing leaves the namespace). Started and stopped through the
 * scripts of {@code it/interop/linux-peer/} (start.sh builds the image first if it is not cached); commands run in
 * the guest through its agent ({@link #exec}, {@link #spawn}); rvt runs in the namespace in a child JVM
 * ({@link #jvm}). {@link #close()} leaves no QEMU and no namespace behind; a JVM that dies without closing is
 * covered by start.sh's watcher ({@code --owner}) and a shutdown hook.
 */
public final class LinuxPeer implements AutoCloseable {
    /** System property: the folder of the scripts (the failsafe configuration sets it). */
    public static final String SCRIPTS_PROPERTY = "rvt.linuxPeer.scripts";
    /** System property: the state folder of a peer started by hand (start.sh): attach to it, never stop it. */
    public static final String STATE_PROPERTY = "rvt.linuxPeer.state";
    /** System property: where {@link #close()} keeps the guest's console log. */
    public static final String LOGS_PROPERTY = "rvt.linuxPeer.logs";
    /** Building the image (at most 30 min, build-image.sh) and booting to ACTIVE (at most 10 min, start.sh). */
    private static final Duration START_TIMEOUT = Duration.ofMinutes(45);
    private static final Duration SYSFS_TIMEOUT = Duration.ofSeconds(60);
    private static final String PORT = "/sys/class/infiniband/rxe0/ports/1";

    private final Path scripts;
    private final Path state;
    private final Map<String, String> env;
    private final boolean owned;
    private final GuestAgent agent;
    private final List<GuestProcess> spawned = new CopyOnWriteArrayList<>();
    private final Thread shutdownHook;
    private volatile boolean closed;

    private LinuxPeer(Path scripts, Path state, boolean owned) throws IOException {
        this.scripts = scripts;
        this.state = state;
        this.owned = owned;
        this.env = readEnv(state.resolve("peer.env"));
        long qemu = Long.parseLong(env("QEMU_PID"));
        this.agent = new GuestAgent(state.resolve("share").resolve("cmd"),
                () -> ProcessHandle.of(qemu).map(ProcessHandle::isAlive).orElse(false));
        this.shutdownHook = owned ? new Thread(this::close, "rvt-linux-peer-stop") : null;
        if (owned) {
            Runtime.getRuntime().addShutdownHook(shutdownHook);
        }
    }

    /**
     * @return null if this machine can run the peer, else why not and what to install (for a test's
     *         {@code assumeTrue})
     */
    public static String missingPrerequisite() {
        if (System.getProperty(STATE_PROPERTY) != null) {
            return null;
        }
        if (!System.getProperty("os.name").equals("Linux")) {
            return "skipped: the Linux peer needs Linux (network namespaces, TAP, QEMU)";
        }
        if (!Shell.onPath("ip")) {
            return "skipped: the Linux peer needs the 'ip' command (apt-get install iproute2)";
        }
        if (!Shell.isRoot()) {
            return "skipped: the Linux peer needs root (uid 0) for its network namespace, TAP device and image build;"
                    + " CI runs as root";
        }
        if (!Files.exists(Path.of("/dev/net/tun"))) {
            return "skipped: the Linux peer needs /dev/net/tun (the tun driver) for its TAP device";
        }
        boolean tools = Shell.onPath("qemu-system-x86_64") && Shell.onPath("qemu-img") && Shell.onPath("mmdebstrap")
                && Shell.onPath("mkfs.ext4") && Shell.onPath("nft");
        if (!tools && !Shell.onPath("apt-get")) {
            return "skipped: the Linux peer needs qemu-system-x86, qemu-utils, mmdebstrap, e2fsprogs and nftables, and"
                    + " there is no apt-get to install them: install them by hand";
        }
        return null;
    }

    /**
     * Starts a peer (building its image first if it is not cached: about 5 minutes; booting to an ACTIVE rxe0 takes
     * about 1.5 minutes under TCG), or attaches to the one named by {@value #STATE_PROPERTY}.
     *
     * @return the running peer
     * @throws IllegalStateException with start.sh's messages and the guest's console if it does not come up
     * @throws IOException if the scripts cannot be run
     * @throws InterruptedException if interrupted (the half-started peer is stopped)
     */
    public static LinuxPeer start() throws IOException, InterruptedException {
        String attach = System.getProperty(STATE_PROPERTY);
        if (attach != null) {
            return new LinuxPeer(scripts(), Path.of(attach), false);
        }
        return start(null);
    }

    /**
     * Starts a peer of an image variant ({@code build-variant.sh}; {@code trixie}: Debian 13, kernel 6.12, whose rxe
     * has ATOMIC_WRITE and FLUSH, with the verbs programs of {@code linux-peer/variant/} in /usr/local/bin), or of the
     * default image for null. A variant's first start builds its image (about 20 minutes on a busy machine; then
     * cached). {@value #STATE_PROPERTY} is not consulted: a variant is always started here and stopped by
     * {@link #close()}.
     *
     * @param variant the variant's name, or null for the default Debian 12 image
     * @return the running peer
     * @throws IllegalStateException with start.sh's messages and the guest's console if it does not come up
     * @throws IOException if the scripts cannot be run
     * @throws InterruptedException if interrupted (the half-started peer is stopped)
     */
    public static LinuxPeer start(String variant) throws IOException, InterruptedException {
        Path scripts = scripts();
        // a variant's peer may run beside the run's default one (LinuxPeerExtension): a namespace of its own
        String netns = "rvtpeer" + ProcessHandle.current().pid() + (variant == null ? "" : "-" + variant);
        Path state = Path.of(System.getProperty("java.io.tmpdir"), "rvt-linux-peer-" + netns);
        if (Files.exists(state)) { // left by an earlier JVM with this pid that its watcher has not cleaned yet
            stop(scripts, state, false);
        }
        List<String> cmd = new ArrayList<>(List.of(scripts.resolve("start.sh").toString(), "--state",
                state.toString(), "--netns", netns, "--owner", Long.toString(ProcessHandle.current().pid())));
        if (variant != null) {
            cmd.addAll(List.of("--variant", variant));
        }
        Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        StringBuilder messages = new StringBuilder();
        Thread pump = new Thread(() -> echo(p, messages), "rvt-linux-peer-start");
        pump.setDaemon(true);
        pump.start();
        boolean ended = false;
        try {
            ended = p.waitFor(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } finally {
            if (!ended) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                stop(scripts, state, false);
            }
        }
        if (!ended) {
            throw new IllegalStateException("the Linux peer did not start within " + START_TIMEOUT + ":\n" + messages);
        }
        pump.join(TimeUnit.SECONDS.toMillis(10));
        if (p.exitValue() != 0) {
            stop(scripts, state, false); // start.sh kept the logs for the message above; now nothing is left
            throw new IllegalStateException("the Linux peer did not start (start.sh exit " + p.exitValue() + "):\n"
                    + messages);
        }
        return new LinuxPeer(scripts, state, true);
    }

    private static void echo(Process p, StringBuilder messages) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                System.err.println(line);
                synchronized (messages) {
                    messages.append(line).append('\n');
                }
            }
        } catch (IOException e) {
            // start.sh ended
        }
    }

    private static Path scripts() {
        Path dir = Path.of(System.getProperty(SCRIPTS_PROPERTY, "linux-peer")).toAbsolutePath();
        if (!Files.isExecutable(dir.resolve("start.sh"))) {
            throw new IllegalStateException("no linux-peer/start.sh at " + dir + " (set -D" + SCRIPTS_PROPERTY + ")");
        }
        return dir;
    }

    private static Map<String, String> readEnv(Path file) throws IOException {
        Map<String, String> m = new HashMap<>();
        for (String line : Files.readAllLines(file)) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                m.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return m;
    }

    private String env(String key) {
        String v = env.get(key);
        if (v == null) {
            throw new IllegalStateException("no " + key + " in " + state.resolve("peer.env"));
        }
        return v;
    }

    private InetAddress address(String key) {
        try {
            return InetAddress.getByName(env(key));
        } catch (UnknownHostException e) {
            throw new IllegalStateException(key + " in peer.env is not an address: " + env(key), e);
        }
    }

    /** @return the network namespace the TAP (and rvt's child JVMs) live in */
    public String netns() {
        return env("NETNS");
    }

    /** @return the host end's IPv4 address, 192.0.2.1 (/24) */
    public InetAddress hostIpv4() {
        return address("HOST_IPV4");
    }

    /** @return the guest's IPv4 address, 192.0.2.2 (/24) */
    public InetAddress guestIpv4() {
        return address("GUEST_IPV4");
    }

    /** @return the host end's IPv6 address, 2001:db8::1 (/64) */
    public InetAddress hostIpv6() {
        return address("HOST_IPV6");
    }

    /** @return the guest's IPv6 address, 2001:db8::2 (/64) */
    public InetAddress guestIpv6() {
        return address("GUEST_IPV6");
    }

    /** @return the state folder (start.sh's; for guest.sh and stop.sh) */
    public Path stateDir() {
        return state;
    }

    /** @return the guest's console log (the kernel's and rvt-peer-setup's messages) */
    public Path serialLog() {
        return state.resolve("serial.log");
    }

    /** @return how long the guest took from QEMU's start to an ACTIVE rxe0 (start.sh measured it) */
    public Duration bootTime() {
        return Duration.ofMillis(Long.parseLong(env("BOOT_MS")));
    }

    /**
     * Runs a command in the guest (as root, in /root) and waits for its end; past the deadline it is killed.
     *
     * @param timeout the longest wait
     * @param cmd the command and its arguments (no shell: use {@code "bash", "-c", "..."} for pipes)
     * @return its exit code and output ({@link GuestResult#assertSuccess()} to require exit code 0)
     * @throws InterruptedException if interrupted
     */
    public GuestResult exec(Duration timeout, String... cmd) throws InterruptedException {
        String id = agent.submit(cmd);
        try {
            int rc = agent.await(id, timeout);
            if (rc < 0) {
                rc = agent.kill(id);
                return new GuestResult(String.join(" ", cmd), rc, agent.output(id), true);
            }
            return new GuestResult(String.join(" ", cmd), rc, agent.output(id), false);
        } finally {
            agent.forget(id);
        }
    }

    /**
     * Starts a command in the guest in the background (a server, a capture); {@link #close()} kills it if it still
     * runs.
     *
     * @param cmd the command and its arguments
     * @return its handle
     */
    public GuestProcess spawn(String... cmd) {
        GuestProcess p = new GuestProcess(agent, agent.submit(cmd), String.join(" ", cmd));
        spawned.add(p);
        return p;
    }

    /**
     * @return rxe0 port 1's counters ({@code /sys/class/infiniband/rxe0/ports/1/hw_counters}: {@code rcvd_pkts},
     *         {@code sent_pkts}, {@code duplicate_request}, {@code out_of_seq_request}, {@code rcvd_seq_err},
     *         {@code retry_exceeded_err}, ...), by name. rxe drops bad packets silently: read them before and after
     *         a case. {@code rcvd_pkts} counts only packets that passed the header and ICRC checks.
     * @throws InterruptedException if interrupted
     */
    public Map<String, Long> hwCounters() throws InterruptedException {
        String out = exec(SYSFS_TIMEOUT, "bash", "-c", "cd " + PORT + "/hw_counters && for f in *; do"
                + " read -r v < \"$f\" && echo \"$f $v\"; done").assertSuccess();
        Map<String, Long> m = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            String[] f = line.trim().split(" ");
            if (f.length == 2) {
                m.put(f[0], Long.parseLong(f[1]));
            }
        }
        if (!m.containsKey("rcvd_pkts")) {
            throw new IllegalStateException("no rcvd_pkts among rxe0's hw_counters:\n" + out);
        }
        return m;
    }

    /**
     * @return rxe0 port 1's GID table, the valid entries (sysfs {@code gids/N} not all zero), by index
     * @throws InterruptedException if interrupted
     */
    public List<GuestGid> gids() throws InterruptedException {
        String zero = "0000:0000:0000:0000:0000:0000:0000:0000";
        String out = exec(SYSFS_TIMEOUT, "bash", "-c", "cd " + PORT + " && for f in gids/*; do"
                + " read -r g < \"$f\" || continue; [ \"$g\" = " + zero + " ] && continue; i=${f#gids/};"
                + " read -r t < gid_attrs/types/$i; echo \"$i $g $t\"; done | sort -n").assertSuccess();
        List<GuestGid> gids = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (!line.isBlank()) {
                gids.add(GuestGid.parse(line));
            }
        }
        return gids;
    }

    /**
     * @param address one of the guest's addresses (e.g. {@link #guestIpv4()})
     * @return the index of its RoCE v2 GID in rxe0's table, as sysfs shows it now
     * @throws IllegalStateException with the table if there is none
     * @throws InterruptedException if interrupted
     */
    public int gidIndex(InetAddress address) throws InterruptedException {
        List<GuestGid> gids = gids();
        for (GuestGid g : gids) {
            if (g.address().equals(address) && g.isRoceV2()) {
                return g.index();
            }
        }
        throw new IllegalStateException("no RoCE v2 GID for " + address.getHostAddress() + " on rxe0: " + gids);
    }

    /**
     * Waits until something in the guest listens on {@code port}: an rdma_cm id in state LISTEN
     * ({@code rdma resource show cm_id}: rping on 7174, rdma_server on 7471) or a TCP socket (the
     * {@code ibv_*_pingpong} tools and perftest exchange their addresses over TCP 18515). A server the guest started
     * with {@link #spawn} is ready for a client once this returns.
     *
     * @param port the TCP port or rdma_cm port
     * @param timeout the longest wait
     * @throws AssertionError if nothing listens by then
     * @throws InterruptedException if interrupted
     */
    public void awaitListener(int port, Duration timeout) throws InterruptedException {
        long tenths = Math.max(1, timeout.toMillis() / 100);
        GuestResult r = exec(timeout.plusSeconds(10), "bash", "-c", "for _ in $(seq " + tenths + "); do"
                + " rdma res show cm_id 2>/dev/null | grep -q \"state LISTEN .* src-addr [^ ]*:" + port + " \""
                + " && exit 0; [ -n \"$(ss -Hltn 'sport = :" + port + "')\" ] && exit 0; sleep 0.1; done; exit 1");
        if (r.exitCode() != 0) {
            throw new AssertionError("nothing in the guest listens on port " + port + " after " + timeout
                    + (r.timedOut() ? " (the check itself timed out)" : ""));
        }
    }

    /**
     * Starts dropping {@code percent} % of the RoCEv2 packets on the link to the guest (nftables on the TAP device).
     *
     * @param percent 1..100
     * @return the loss; close it to stop
     */
    public Loss loss(int percent) {
        return Loss.add(netns(), env("TAP"), percent);
    }

    /**
     * Starts {@code main} in a child JVM inside the namespace, on this JVM's class path.
     *
     * @param name a short name for messages
     * @param main the class to run
     * @param args its arguments
     * @return the child
     * @throws IOException if it cannot be started
     */
    public NamespaceJvm jvm(String name, Class<?> main, String... args) throws IOException {
        return NamespaceJvm.start(netns(), name, main, List.of(), args);
    }

    /**
     * Kills the commands {@link #spawn} started; then, for a peer this JVM started, keeps the console log (under
     * {@value #LOGS_PROPERTY}, default {@code target/linux-peer}) and stops it: QEMU, whatever runs in the
     * namespace, the namespace, the state folder. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (GuestProcess p : spawned) {
            p.close();
        }
        if (!owned) {
            return;
        }
        try {
            Path logs = Path.of(System.getProperty(LOGS_PROPERTY, "target/linux-peer"));
            Files.createDirectories(logs);
            Files.copy(serialLog(), logs.resolve("serial-" + netns() + ".log"), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | UncheckedIOException e) {
            System.err.println("linux-peer: console log not kept: " + e);
        }
        stop(scripts, state, true);
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // closing from the hook itself, at shutdown
        }
    }

    private static void stop(Path scripts, Path state, boolean loud) {
        try {
            // timeout(1): a read of the output that never ends would outlast any waitFor
            Process p = new ProcessBuilder("timeout", "120", scripts.resolve("stop.sh").toString(), state.toString())
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                System.err.println("linux-peer: stop.sh " + state + " failed: " + out);
            } else if (loud && !out.isBlank()) {
                System.err.print(out);
            }
        } catch (IOException e) {
            System.err.println("linux-peer: stop.sh could not run: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "Linux peer in " + netns() + " (" + state + ")";
    }
}
