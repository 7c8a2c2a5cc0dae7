package io.rvt.launcher;

import io.rvt.api.Gid;
import io.rvt.driver.jni.JniDriver;
import io.rvt.driver.jni.JniDriverBuilder;
import io.rvt.driver.sim.fabric.Fabric;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The parsed command line: the command, the fabric options, and each command's own options, perftest's and
 * ibv_rc_pingpong's flags among them. {@link Syntax} reads the command line (picocli) against the option table
 * {@link OptionDef#ALL}; every option belongs to some commands, and an option given to a command it does not belong
 * to is a usage error, so that nothing is silently ignored. Values are checked here when they are impossible whatever the device ({@code --size 0}); limits of a
 * device are checked by the command.
 */
public final class Options {
    /** The largest message size: 8 MiB, perftest's {@code -a} ceiling. */
    public static final int MAX_SIZE = 8 << 20;
    /** perftest's {@code MAX_INLINE}: the most {@code -I} takes. */
    static final int MAX_INLINE = 1024;

    /** The commands, in the order help lists them. */
    static final List<String> COMMANDS = List.of("devices", "pingpong", "perf", "stat", "shell");

    /** The simulated fabric's options: refused with {@code --driver jni}, whose network is real. */
    private static final List<String> SIM_ONLY = List.of("--loss", "--dup", "--reorder", "--seed", "--deterministic");
    /** driver-jni's options: refused with {@code --driver sim}. */
    private static final List<String> JNI_ONLY = List.of("--address", "--udp-port", "--source-ports", "--udp-gso",
            "--udp-gro", "--poller-wait", "--poller-spin");
    /** perftest's default CM port ({@code -p}), also ibv_rc_pingpong's. */
    public static final int DEFAULT_CM_PORT = 18515;
    /** perftest's default {@code --out_json_file}, in the working directory. */
    public static final String DEFAULT_JSON_FILE = "perftest_out.json";

    /** The command: one of {@link #COMMANDS}, or "default" (devices, then a ping-pong). */
    String command = "default";
    /** The long names of the options on the command line. */
    final Set<String> given = new HashSet<>();
    /** The command line as given (which of an option's names it used). */
    private List<String> args = List.of();
    /** {@code --debug}: stack traces with errors. */
    boolean debug;
    /** {@code --no-osgi}: the plain class-path host. */
    boolean noOsgi;
    /** {@code -h}, {@code --help}. */
    boolean help;
    /** {@code --version}. */
    boolean version;
    /** {@code --driver}. */
    DriverKind driver = DriverKind.SIM;
    /** {@code --address A[,B]}: the two jni HCAs' IP addresses. */
    List<String> addresses = List.of(JniSetup.DEFAULT_ADDRESS, JniSetup.DEFAULT_ADDRESS);
    /** {@code --udp-port}: the first jni HCA's UDP port (the second's is one more); 0 for free ports. */
    int udpPort;
    /** {@code --source-ports N}: UDP source sockets per jni HCA port (flow entropy; 1: one port for all). */
    int sourcePorts = JniDriverBuilder.DEFAULT_SOURCE_PORTS;
    /** {@code --udp-gso on|off}: jni IPv6 ports send runs of equal datagrams as UDP GSO messages. */
    boolean udpGso = true;
    /** {@code --udp-gro on|off}: jni ports receive coalesced datagrams (UDP GRO). */
    boolean udpGro = true;
    /** {@code --poller-wait US}: the most a jni poller spins on an idle port before it waits in poll (0: never). */
    int pollerWaitMicros = JniSetup.DEFAULT_POLLER_WAIT_MICROS;
    /** {@code --poller-spin adaptive|fixed}: whether that spin adapts to the port's idle gaps. */
    boolean pollerSpinAdaptive;
    /** {@code --loss}. */
    double loss;
    /** {@code --dup}. */
    double duplication;
    /** {@code --reorder}. */
    double reorder;
    /** {@code --seed}; driver-sim's default fabric seed unless given. */
    long seed = Fabric.DEFAULT_SEED;
    /** {@code --deterministic}. */
    boolean deterministic;
    /** {@code --threading}: who runs the simulated network. */
    Threading threading = Threading.PROGRESS;
    /** {@code --threading network}, the old spelling: resolved by {@link #check()} to what it meant. */
    private boolean threadingNetwork;
    /** Lines for stderr before the command runs (a deprecated spelling's); none usually. */
    final List<String> deprecations = new ArrayList<>();
    /** {@code -v}, {@code --verbose}. */
    boolean verbose;
    /** {@code -l}, {@code --list} (devices). */
    boolean list;
    /** {@code --transport}. */
    Transport transport = Transport.RC;
    /** {@code -s}, {@code --size}; -1 for the command's default. */
    int size = -1;
    /** {@code -n}, {@code --iters}; -1 for the command's default. */
    int iters = -1;
    /** {@code --test}. */
    PerfTest test = PerfTest.SEND;
    /** {@code --lat} (true) or {@code --bw} (false, the default). */
    boolean latency;
    /** {@code -a}, {@code --all}. */
    boolean all;
    /** {@code -q}, {@code --qps}. */
    int qps = 1;
    /** {@code -D}, {@code --duration}; 0 unless given. */
    double durationSeconds;
    /** {@code --json}; null unless given. */
    String json;
    /** {@code --plot}; null unless given. */
    String plot;
    /** {@code -t}, {@code --tx-depth}. */
    int txDepth = 128;
    /** {@code --no-traffic}. */
    boolean noTraffic;
    /** {@code --test}'s perftest program name said latency (true), bandwidth (false), or neither (null). */
    Boolean testLatency;
    /** {@code -Q}, {@code --cq-mod}; 0 for the default (100, or the post list). */
    int cqMod;
    /** {@code -l}, {@code --post_list}. */
    int postList = 1;
    /** {@code -b}, {@code --bidirectional}. */
    boolean bidirectional;
    /** {@code --report_gbits}. */
    boolean reportGbits;
    /** {@code --out_json} (or {@code --out_json_file}): perftest's JSON report to {@link #outJsonFile}. */
    boolean outJson;
    /** {@code --out_json_file}. */
    String outJsonFile = DEFAULT_JSON_FILE;
    /** {@code -d}, {@code --ib-dev}; null for the host's first device. */
    String ibDev;
    /** {@code -i}, {@code --ib-port}. */
    int ibPort = 1;
    /** {@code -m}, {@code --mtu} in bytes; 0 for the port's active MTU. */
    int mtu;
    /** {@code -x}, {@code --gid-index}; -1 unless given (LIDs on InfiniBand, GID 0 on RoCE). */
    int gidIndex = -1;
    /** {@code -u}, {@code --qp-timeout}: the RC local ACK timeout code. */
    int qpTimeout = LinkOptions.DEFAULT_QP_TIMEOUT;
    /** {@code -p}, {@code --port}: the CM port. */
    int cmPort = DEFAULT_CM_PORT;
    /** {@code --server}: wait for a client process. */
    boolean server;
    /** {@code HOST} after pingpong or perf: the server process to connect to; null unless given. */
    String peer;
    /** {@code -r}, {@code --rx-depth} (pingpong between processes). */
    int rxDepth = ExamplesPingPong.DEFAULT_RX_DEPTH;
    /** {@code -l}, {@code --sl} (pingpong between processes). */
    int sl;
    /** {@code -e}, {@code --events} (pingpong between processes). */
    boolean events;
    /** {@code -c} with no value, {@code --chk} (pingpong between processes). */
    boolean chk;
    /** {@code -R}, {@code --rdma_cm}: pingpong between processes through rvt-cm instead of the TCP exchange. */
    boolean rdmaCm;
    /** perftest's {@code -N}, {@code --noPeak}. */
    boolean noPeak;
    /** perftest's {@code -w}, {@code --limit_bw}; 0 unless given. */
    double limitBw;
    /** perftest's {@code -y}, {@code --limit_msgrate}; 0 unless given. */
    double limitMsgRate;
    /** perftest's {@code -L}, {@code --hop_limit}. */
    int hopLimit = RemotePerf.HOP_LIMIT;
    /** perftest's {@code --tclass}. */
    int trafficClass;
    /** perftest's {@code --flow_label}. */
    int flowLabel;
    /** perftest's {@code -o}, {@code --outs}; 0 unless given. */
    int outReads;
    /** perftest's {@code --wait_destroy}, in seconds. */
    int waitDestroy;
    /** perftest's {@code --latency_gap}, in microseconds. */
    int latencyGap;
    /** perftest's {@code --use-srq}: the receiving side's QPs share a receive queue. */
    boolean useSrq;
    /** perftest's {@code --run_infinitely}: one row after another, each {@code -D} long, until killed. */
    boolean runInfinitely;
    /**
     * perftest's {@code --reversed} ({@code is_reversed}): the sides' traffic roles swapped, the server (no HOST) the
     * sending side and the client the receiving one, the exchange's roles kept.
     */
    boolean reversed;
    /** perftest's {@code --rate_limit}; 0 unless given. */
    double rateLimit;
    /** perftest's {@code --rate_units}: M, g or p. */
    char rateUnits = 'g';
    /** perftest's {@code --burst_size}; 0 for the TX depth. */
    int burstSize;
    /** perftest's {@code --retry_count}: the RC QPs' retry count. */
    int retryCount = LinkOptions.DEFAULT_RETRY_COUNT;
    /** perftest's {@code --force-link}; null unless given. */
    String forceLink;
    /** perftest's {@code --ipv6}: the HCA's GID is an IPv6 address. */
    boolean ipv6;
    /** perftest's {@code -A CMP_AND_SWAP}: atomic rows compare and swap instead of fetch and add. */
    boolean cmpAndSwap;
    /** perftest's {@code --output}: the one figure each row prints; null for the table. */
    String output;
    /** perftest's {@code -T}, {@code --tos}: with {@code -R}, the connections' traffic class. */
    int tos;
    /** perftest's {@code -g}, {@code --mcg}: UD SENDs to a multicast group. */
    boolean mcg;
    /** perftest's {@code -M}, {@code --MGID}: the group; null for perftest's. */
    Gid mgid;
    /** perftest's {@code -O}, {@code --dualport}: the QPs on ports 1 and 2. */
    boolean dualPort;
    /** perftest's {@code -I}, {@code --inline_size}; -1 unless given. */
    int inlineSize = -1;
    /** perftest's {@code -C}, {@code --report-cycles}. */
    boolean reportCycles;
    /** perftest's {@code -H}, {@code --report-histogram}. */
    boolean reportHistogram;
    /** perftest's {@code -U}, {@code --report-unsorted}. */
    boolean reportUnsorted;

    private Options() {
    }

    /**
     * Parses a command line.
     *
     * @param args the arguments after {@code rvt}
     * @return the options
     * @throws UsageException naming the first problem
     */
    public static Options parse(String... args) {
        Options o = new Options();
        // --debug counts even if a later argument is bad, so that the failure can be traced
        o.debug = List.of(args).contains("--debug");
        o.args = List.of(args);
        Syntax.Parsed parsed = Syntax.parse(args);
        o.command = parsed.command();
        o.peer = parsed.positionals().isEmpty() ? null : parsed.positionals().get(0);
        for (Map.Entry<String, String> e : parsed.values().entrySet()) {
            o.given.add(e.getKey());
            o.set(e.getKey(), e.getValue());
        }
        o.check();
        return o;
    }

    private void set(String name, String v) {
        switch (name) {
            case "--debug" -> debug = true;
            case "--no-osgi" -> noOsgi = true;
            case "--help" -> help = true;
            case "--version" -> version = true;
            case "--driver" -> driver = DriverKind.parse(v);
            case "--address" -> addresses = JniSetup.parseAddresses(v);
            case "--udp-port" -> udpPort = udpPort(name, v);
            case "--source-ports" -> sourcePorts = inRange(name, v, 1, JniDriverBuilder.MAX_SOURCE_PORTS,
                    "a number of UDP source ports (1 to " + JniDriverBuilder.MAX_SOURCE_PORTS + ")");
            case "--udp-gso" -> udpGso = onOff(name, v);
            case "--udp-gro" -> udpGro = onOff(name, v);
            case "--poller-wait" -> pollerWaitMicros = inRange(name, v, 0, 1_000_000,
                    "a poller's wait in microseconds (0 to 1000000; 0: never wait)");
            case "--poller-spin" -> pollerSpinAdaptive = switch (v) {
                case "adaptive" -> true;
                case "fixed" -> false;
                default -> throw new UsageException("option " + name + ": '" + v + "' is not adaptive or fixed");
            };
            case "--loss" -> loss = probability(name, v);
            case "--dup" -> duplication = probability(name, v);
            case "--reorder" -> reorder = probability(name, v);
            case "--seed" -> seed = longValue(name, v);
            case "--deterministic" -> deterministic = true;
            case "--threading" -> {
                threadingNetwork = Threading.DEPRECATED_NETWORK.equals(v);
                threading = threadingNetwork ? Threading.SHARED : Threading.parse(v);
            }
            case "--verbose" -> verbose = true;
            case "--list" -> list = true;
            case "--transport" -> transport(v);
            case "--size" -> size = size(name, v);
            case "--iters" -> iters = positive(name, v);
            case "--test" -> {
                test = PerfTest.parse(v);
                testLatency = PerfTest.latencyOf(v);
            }
            case "--bw" -> latency = false;
            case "--lat" -> latency = true;
            case "--all" -> all = true;
            case "--qps" -> qps = positive(name, v);
            case "--duration" -> durationSeconds = duration(name, v);
            case "--json" -> json = v;
            case "--plot" -> plot = v;
            case "--tx-depth" -> txDepth = positive(name, v);
            case "--no-traffic" -> noTraffic = true;
            case "--cq-mod" -> cqMod = positive(name, v);
            case "--post_list" -> postList = positive(name, v);
            case "--bidirectional" -> bidirectional = true;
            case "--report_gbits" -> reportGbits = true;
            case "--out_json" -> outJson = true;
            case "--out_json_file" -> {
                outJson = true; // perftest needs both flags; the file alone says enough
                outJsonFile = v;
            }
            case "--CPU-freq", "--new_send" -> {
                // perftest's -F: no CPU frequency check to silence; the examples' -N: one post call, same wire
            }
            case "--rdma_cm" -> rdmaCm = true;
            case "--rx-depth" -> rxDepth = inRange(name, v, 1, 16384, "a receive queue depth (1 to 16384)");
            case "--sl" -> sl = inRange(name, v, 0, 15, "a service level (0 to 15)");
            case "--events" -> events = true;
            case "--gid-idx" -> gidIndex = inRange(name, v, 0, 255, "a GID index");
            case "--chk" -> chk = true;
            case "--use-srq" -> useSrq = true;
            case "--ipv6" -> ipv6 = true;
            case "--noPeak" -> noPeak = true;
            case "--limit_bw" -> limitBw = nonNegative(name, v, "a bandwidth");
            case "--limit_msgrate" -> limitMsgRate = nonNegative(name, v, "a message rate");
            case "--hop_limit" -> hopLimit = inRange(name, v, 0, 255, "a hop limit (0 to 255)");
            case "--tclass" -> trafficClass = inRange(name, v, 0, 255, "a traffic class (0 to 255)");
            case "--flow_label" -> flowLabel = inRange(name, v, 0, 0xFFFFF, "a flow label (0 to 0xFFFFF)");
            case "--outs" -> outReads = inRange(name, v, 1, 65535, "a number of outstanding reads (1 to 65535)");
            case "--wait_destroy" -> waitDestroy = inRange(name, v, 0, 3600, "seconds (0 to 3600)");
            case "--use_old_post_send" -> {
                // rvt has one post call, ibv_post_send's; perftest's ibv_wr_* API puts the same on the wire
            }
            case "--pkey_index" -> {
                if (longValue(name, v) != 0) {
                    throw new UsageException("option --pkey_index: " + v + " is not a P_Key index of rvt's ports "
                            + "(they have one, index 0)");
                }
            }
            case "--force-link" -> forceLink = v;
            case "--atomic_type" -> {
                cmpAndSwap = v.equals("CMP_AND_SWAP");
                if (!cmpAndSwap && !v.equals("FETCH_AND_ADD")) {
                    throw new UsageException("option --atomic_type: '" + v + "' is not CMP_AND_SWAP or FETCH_AND_ADD");
                }
            }
            case "--output" -> {
                if (!List.of("bandwidth", "message_rate", "latency").contains(v)) {
                    throw new UsageException("option --output: '" + v + "' is not bandwidth, message_rate or latency");
                }
                output = v;
            }
            case "--inline_size" -> inlineSize = inRange(name, v, 0, MAX_INLINE, "an inline size (0 to " + MAX_INLINE
                    + ", perftest's MAX_INLINE)");
            case "--tos" -> tos = inRange(name, v, 0, 255, "a type of service (0 to 255)");
            case "--mcg" -> mcg = true;
            case "--dualport" -> dualPort = true;
            case "--MGID" -> mgid = PerftestMcast.parse(v);
            case "--report-cycles" -> reportCycles = true;
            case "--report-histogram" -> reportHistogram = true;
            case "--report-unsorted" -> reportUnsorted = true;
            case "--reversed" -> reversed = true;
            case "--run_infinitely" -> runInfinitely = true;
            case "--retry_count" -> retryCount = inRange(name, v, 0, 7, "a retry count (0 to 7, the QP attribute's 3 "
                    + "bits)");
            case "--latency_gap" -> latencyGap = inRange(name, v, 0, 1_000_000, "microseconds (0 to 1000000)");
            case "--rate_limit" -> {
                rateLimit = decimal(name, v, "a rate");
                if (!(rateLimit > 0 && rateLimit < Double.POSITIVE_INFINITY)) {
                    throw new UsageException("option --rate_limit: " + v + " is not a rate (above 0)");
                }
            }
            case "--rate_units" -> {
                if (!List.of("M", "g", "p").contains(v)) {
                    throw new UsageException("option --rate_units: '" + v + "' is not M (MB/sec), g (Gb/sec) or p "
                            + "(packets/sec)");
                }
                rateUnits = v.charAt(0);
            }
            case "--burst_size" -> burstSize = positive(name, v);
            case "--rate_limit_type" -> {
                if (v.equals("HW") || v.equals("PP")) {
                    throw refused(name + " " + v, Refusals.RATE_LIMIT_HW);
                }
                if (!v.equals("SW")) {
                    throw new UsageException("option --rate_limit_type: '" + v + "' is not HW, SW or PP");
                }
            }
            case "--odp", "--iodp", "--prefetch" -> throw refused(name, Refusals.ODP);
            case "--ts" -> throw refused(name, Refusals.TS);
            case "--dm" -> throw refused(name, Refusals.DM);
            case "--ib-dev" -> ibDev = v;
            case "--ib-port" -> ibPort = inRange(name, v, 1, 255, "a port number");
            case "--mtu" -> mtu = mtu(name, v);
            case "--gid-index" -> gidIndex = inRange(name, v, 0, 255, "a GID index");
            case "--port" -> cmPort = inRange(name, v, 1, 65535, "a port (1 to 65535)");
            case "--qp-timeout" -> qpTimeout = inRange(name, v, 0, LinkOptions.MAX_QP_TIMEOUT, "an ACK timeout code "
                    + "(0 to " + LinkOptions.MAX_QP_TIMEOUT + ": 4.096 us x 2^N per try)");
            case "--server" -> server = true;
            default -> {
                String help = OptionDef.byName(name, command).help();
                if (help.startsWith("refused: ")) {
                    throw refused(name, help.substring("refused: ".length()));
                }
                throw new IllegalStateException("option table and parser disagree on " + name);
            }
        }
    }

    /**
     * {@code -c}: perf's transport; pingpong's transport with a value RC, UC or UD, else the examples' {@code --chk}
     * (a flag: the word after it, if any, is the HOST).
     */
    private void transport(String v) {
        boolean shortName = args.stream().noneMatch(a -> a.startsWith("--transport") || a.startsWith("--connection"));
        if (command.equals("pingpong") && shortName && !v.isEmpty()
                && !List.of("rc", "uc", "ud").contains(v.toLowerCase(Locale.ROOT))) {
            if (peer != null) {
                throw new UsageException("unexpected argument '" + v + "' after command 'pingpong'");
            }
            peer = v;
            v = "";
        }
        if (v.isEmpty()) {
            given.remove("--transport");
            given.add("--chk");
            chk = true;
            return;
        }
        transport = Transport.parse(v);
    }

    private static UsageException refused(String option, String why) {
        return new UsageException("option " + option + " is refused: " + why);
    }

    /** pingpong's examples-only flags: between two processes over the TCP exchange. */
    private void checkPingPong() {
        if (!command.equals("pingpong")) {
            return;
        }
        for (String f : List.of("--rx-depth", "--sl", "--events", "--chk")) {
            if (given.contains(f) && (!twoProcesses() || rdmaCm)) {
                throw new UsageException("option " + f + " applies to the examples' protocol between two processes "
                        + "(--server or HOST, without -R)");
            }
        }
        if (given.contains("--gid-idx") && given.contains("--gid-index")) {
            throw new UsageException("options --gid-idx (-g) and --gid-index (-x) say the same: give one");
        }
        if (rdmaCm && !twoProcesses()) {
            throw new UsageException("option --rdma_cm: connects two processes (--server or HOST); rvt pingpong "
                    + "alone always connects its two HCAs through rvt-cm");
        }
        if (rdmaCm && transport == Transport.UD) {
            throw new UsageException("option --transport: UD between two processes through rvt-cm (-R) is not built "
                    + "(without -R, the examples' exchange, it is)");
        }
    }

    /**
     * @return pingpong's test between two processes over the examples' exchange, or null with {@code -R}
     */
    ExamplesPingPong.Params examples() {
        if (rdmaCm) {
            return null;
        }
        return new ExamplesPingPong.Params(transport, size > 0 ? size : ExamplesPingPong.defaultSize(transport),
                iters > 0 ? iters : PingPongCommand.DEFAULT_ITERS, rxDepth, sl, chk, events, cmPort);
    }

    /** perftest's rules for its flags ({@code parser} in perftest_parameters.c), and rvt's for where they apply. */
    private void checkPerftest() {
        if (!command.equals("perf")) {
            return;
        }
        if (given.contains("--outs") && test != PerfTest.READ && test != PerfTest.ATOMIC) {
            throw new UsageException("option --outs: outstanding reads apply to READ and atomic tests, not "
                    + test.option());
        }
        if (given.contains("--rx-depth") && test != PerfTest.SEND && rxDepth > 1) {
            throw new UsageException("option --rx-depth: on RDMA " + test.option() + " tests the RX depth can only "
                    + "be 1 (perftest's rule; receives are for SEND tests)");
        }
        if (given.contains("--atomic_type") && test != PerfTest.ATOMIC) {
            throw new UsageException("option --atomic_type applies to atomic tests, not " + test.option());
        }
        if (given.contains("--tos") && (!twoProcesses() || !rdmaCm)) {
            throw new UsageException("option --tos applies between two processes with -R (rdma_cm's type of "
                    + "service, as perftest's); without -R give --tclass");
        }
        for (String f : List.of("--sl", "--hop_limit", "--tclass", "--flow_label", "--outs", "--rx-depth")) {
            if (given.contains(f) && (!twoProcesses() || rdmaCm)) {
                throw new UsageException("option " + f + " applies between two processes over perftest's exchange "
                        + "(--server or HOST, without -R); in one process rvt-cm sets up the path");
            }
        }
        checkRateLimit();
        checkRunInfinitely();
        checkMulticast();
        checkDualPort();
        if (reversed && !twoProcesses()) {
            throw new UsageException("option --reversed swaps the sending and receiving sides of two processes "
                    + "(--server or HOST); in one process rvt perf runs both");
        }
        if (reversed && rdmaCm) {
            throw refused("--reversed with -R", Refusals.REVERSED_RDMA_CM);
        }
        if (reversed && mcg) {
            throw new UsageException("option --reversed with -g (multicast) is not built: the group's receiver is "
                    + "the server");
        }
        if (useSrq) {
            String why = test != PerfTest.SEND ? "applies to SEND tests, not " + test.option() + " (perftest's rule)"
                    : latency || Boolean.TRUE.equals(testLatency) ? "on latency tests is not built (bandwidth is)"
                    : bidirectional ? "with -b is not built" : transport == Transport.UD ? "over UD is not built"
                    : !twoProcesses() ? "applies to the receiving side between two processes (--server or HOST): in "
                    + "one process it is not built" : null;
            if (why != null) {
                throw new UsageException("option --use-srq " + why);
            }
        }
        if (events && test == PerfTest.WRITE) {
            throw new UsageException("option --events: perftest's events are not available on WRITE tests (its "
                    + "rule: the peer's writes complete nothing there)");
        }
        if (forceLink != null && !forceLink.equalsIgnoreCase(driver.perftestLinkType())) {
            throw new UsageException("option --force-link: '" + forceLink + "' is not the link of --driver "
                    + driver.name().toLowerCase(Locale.ROOT) + " (" + driver.perftestLinkType() + ")");
        }
        if (ipv6) {
            if (driver != DriverKind.JNI) {
                throw new UsageException("option --ipv6 applies to --driver jni (an IPv6 --address is its GID)");
            }
            if (!given.contains("--address")) {
                addresses = JniSetup.parseAddresses("::1");
            }
            for (String a : addresses) {
                if (JniSetup.resolve(a) instanceof java.net.Inet4Address) {
                    throw new UsageException("option --ipv6: --address " + a + " is IPv4; rvt's GID is its HCA's "
                            + "address, give an IPv6 one");
                }
            }
        }
    }

    /**
     * perftest's rules for {@code -g} and {@code -M} ({@code parser}, {@code force_dependecies}): SEND tests, one QP,
     * not bidirectional, not with {@code -R}; the transport UD (perftest changes {@code -c} to it; rvt refuses
     * another given). rvt's: {@code -M} only with {@code -g} (perftest ignores it alone).
     */
    private void checkMulticast() {
        if (mgid != null && !mcg) {
            throw new UsageException("option --MGID names the group of -g (--mcg): give -g too");
        }
        if (!mcg) {
            return;
        }
        String why = null;
        if (test != PerfTest.SEND) {
            why = "multicast runs on SEND tests, not " + test.option() + " (perftest's rule)";
        } else if (given.contains("--transport") && transport != Transport.UD) {
            why = "multicast runs on UD, not " + transport + " (perftest changes -c to UD; give -c UD or no -c)";
        } else if (bidirectional) {
            why = "bidirectional mode is not supported in multicast (perftest's rule)";
        } else if (qps > 1) {
            why = "only 1 QP is supported in multicast (perftest's rule)";
        } else if (rdmaCm) {
            why = "multicast with -R (rdma_cm) is not supported (perftest's rule: perftest still doesn't support it)";
        } else if (driver == DriverKind.JNI && twoProcesses() && (latency || Boolean.TRUE.equals(testLatency))) {
            why = Refusals.MULTICAST_JNI;
        }
        if (why != null) {
            throw new UsageException("option --mcg: " + why);
        }
        transport = Transport.UD;
    }

    /**
     * perftest's rules for {@code -O} ({@code force_dependecies}): bandwidth tests, not multicast, not {@code -R}, on
     * ports 1 and 2 whatever {@code -i} says (rvt refuses {@code -i} with it); rvt's: one process on driver-sim, whose
     * HCAs it then builds with two ports.
     */
    private void checkDualPort() {
        if (!dualPort) {
            return;
        }
        String why = null;
        if (latency || Boolean.TRUE.equals(testLatency)) {
            why = "dual-port mode only supports BW tests (perftest's rule)";
        } else if (mcg) {
            why = "dual-port mode is not supported with multicast, -g (perftest's rule)";
        } else if (rdmaCm) {
            why = "dual-port mode with -R (rdma_cm) is not supported (perftest's rule)";
        } else if (given.contains("--ib-port")) {
            why = "it runs the QPs on ports 1 and 2 (perftest sets both): -i does not apply";
        } else if (driver == DriverKind.JNI) {
            why = Refusals.DUAL_PORT_JNI;
        }
        if (why != null) {
            throw new UsageException("option --dualport: " + why);
        }
    }

    /**
     * perftest's rules for its software rate limiter ({@code force_dependecies}): bandwidth tests, not atomic nor
     * bidirectional SEND; {@code --burst_size} only with a limit; and rvt's: the units and type only with a rate.
     */
    private void checkRateLimit() {
        for (String f : List.of("--burst_size", "--rate_units", "--rate_limit_type")) {
            if (given.contains(f) && rateLimit == 0) {
                throw new UsageException("option " + f + " applies to the rate limiter: give --rate_limit"
                        + (f.equals("--burst_size") ? " (perftest: 'Can't enable burst mode when rate limiter is off')"
                                : ""));
            }
        }
        if (rateLimit == 0) {
            return;
        }
        boolean lat = given.contains("--lat") || Boolean.TRUE.equals(testLatency);
        if (lat || test == PerfTest.ATOMIC || test == PerfTest.SEND && bidirectional) {
            throw new UsageException("option --rate_limit: the software rate limiter runs on bandwidth tests, not "
                    + (lat ? "latency" : test == PerfTest.ATOMIC ? "atomic" : "bidirectional SEND") + " ones "
                    + "(perftest's rule)");
        }
    }

    /**
     * perftest's rules for {@code --run_infinitely} ({@code force_dependecies}): bandwidth tests only, not with events,
     * the rate limiter or bidirectional SEND; a row every {@code -D} (perftest's default 5 s). rvt's: one size, and
     * between two processes not with {@code -b}.
     */
    private void checkRunInfinitely() {
        if (!runInfinitely) {
            return;
        }
        String why = null;
        if (latency || Boolean.TRUE.equals(testLatency)) {
            why = "runs only in bandwidth tests (perftest's rule)";
        } else if (events) {
            why = "does not support events (perftest's rule)";
        } else if (rateLimit > 0) {
            why = "does not support the rate limiter (perftest's rule)";
        } else if (bidirectional && test == PerfTest.SEND) {
            why = "is not supported in bidirectional SEND tests (perftest's rule)";
        } else if (given.contains("--iters")) {
            why = "prints a row every -D SECONDS: -n does not apply";
        } else if (all) {
            why = "runs one size: -a does not apply";
        } else if (twoProcesses() && bidirectional) {
            why = "with -b between two processes is not built (both sides sending rows for ever)";
        } else if (twoProcesses() && mcg) {
            why = "with -g (multicast) between two processes is not built (perftest's connectionless server)";
        }
        if (why != null) {
            throw new UsageException("option --run_infinitely " + why);
        }
        if (durationSeconds == 0) {
            durationSeconds = 5; // perftest's DEF_DURATION
        }
        noPeak = true; // perftest: 'BW peak won't be measured in this run'
    }

    /** perftest's rule for {@code --output}: bandwidth or message_rate on a BW test, latency on a LAT test. */
    private void checkOutput() {
        if (output == null) {
            return;
        }
        if (!given.contains("--test") && !given.contains("--bw") && !given.contains("--lat")) {
            throw new UsageException("option --output " + output + ": prints one figure of one table, not of the "
                    + "sweep: give --test (and --bw or --lat)");
        }
        if (latency != output.equals("latency")) {
            throw new UsageException("option --output " + output + ": a " + (latency ? "latency" : "bandwidth")
                    + " test prints " + (latency ? "latency" : "bandwidth or message_rate") + " (perftest's rule)");
        }
    }

    private void check() {
        checkPingPong();
        checkPerftest();
        if (given.contains("--bw") && given.contains("--lat")) {
            throw new UsageException("options --bw and --lat exclude each other");
        }
        if (testLatency != null) {
            if (given.contains(testLatency ? "--bw" : "--lat")) {
                throw new UsageException("option --test: " + test.option() + (testLatency ? " latency" : " bandwidth")
                        + " is what the perftest name says, not " + (testLatency ? "--bw" : "--lat"));
            }
            latency = testLatency;
        }
        checkOutput();
        if (plot != null && !all) {
            throw new UsageException("option --plot draws a sweep against the message size: add -a");
        }
        if (all && given.contains("--size")) {
            throw new UsageException("options --all and --size exclude each other");
        }
        if (given.contains("--iters") && given.contains("--duration")) {
            throw new UsageException("options --iters and --duration exclude each other");
        }
        for (String o : driver == DriverKind.JNI ? SIM_ONLY : JNI_ONLY) {
            if (given.contains(o)) {
                throw new UsageException("option " + o + (driver == DriverKind.JNI
                        ? " applies to the simulated fabric, not to --driver jni (real UDP sockets)"
                        : " applies to --driver jni"));
            }
        }
        if (given.contains("--qp-timeout") && given.contains("--transport") && transport != Transport.RC) {
            throw new UsageException("option --qp-timeout: " + transport + " has no ACKs to time out (the RC local ACK "
                    + "timeout; -c RC)");
        }
        checkThreading();
        checkProcesses();
        if (qps > 64) {
            throw new UsageException("option --qps: " + qps + " is more than 64 queue pairs");
        }
        if (txDepth > 4096) {
            throw new UsageException("option --tx-depth: " + txDepth + " is more than 4096 work requests");
        }
    }

    /**
     * Resolves {@code --threading network}: {@code shared} on a real-time simulated fabric, {@code dedicated} on a
     * deterministic one and with {@code --driver jni}, what it ran before the words were one. {@code shared} needs a
     * real-time simulated fabric; {@code invoker} a simulated real-time fabric whose agents the launcher holds.
     */
    private void checkThreading() {
        if (threadingNetwork) {
            threading = driver == DriverKind.JNI || deterministic ? Threading.DEDICATED : Threading.SHARED;
            deprecations.add("--threading network is deprecated: it is '" + threading.option() + "' here ("
                    + (threading == Threading.SHARED ? "one thread for the fabric and both HCAs"
                            : driver == DriverKind.JNI ? "a thread per port" : "the deterministic fabric's event loop")
                    + "); say --threading " + threading.option());
        }
        if (threading == Threading.SHARED) {
            if (driver == DriverKind.JNI) {
                throw new UsageException("option --threading shared applies to the simulated fabric, not to --driver "
                        + "jni (each port runs on a thread of its own: dedicated)");
            }
            if (deterministic) {
                throw new UsageException("option --threading shared needs a real-time fabric (a deterministic one runs "
                        + "the fabric and both HCAs on its event loop's thread: dedicated)");
            }
        }
        if (threading != Threading.INVOKER) {
            return;
        }
        if (driver == DriverKind.JNI) {
            throw new UsageException("option --threading invoker applies to the simulated fabric, not to --driver jni "
                    + "(its HCAs' port threads are the backstop of the command's polls: progress, the default, or "
                    + "run the engines alone: dedicated)");
        }
        if (!noOsgi) {
            throw new UsageException("option --threading invoker needs --no-osgi (under OSGi the driver-sim bundle "
                    + "runs the simulated network on a thread of its own)");
        }
    }

    /**
     * {@code --server} and {@code HOST}: one end of a test per process, which only real sockets can do; one HCA on
     * the process's own address and the RoCEv2 port.
     */
    private void checkProcesses() {
        if (!twoProcesses()) {
            return;
        }
        String what = server ? "option --server" : "HOST '" + peer + "'";
        if (server && peer != null) {
            throw new UsageException("option --server waits for a client: leave out HOST '" + peer + "' (a client "
                    + "names the server, the server names nobody)");
        }
        if (driver == DriverKind.SIM) {
            throw new UsageException(what + ": the simulated fabric lives in one process; two processes need "
                    + "--driver jni (rvt " + command + " alone runs both ends here)");
        }
        if (given.contains("--address") && addresses.size() == 2 && !addresses.get(0).equals(addresses.get(1))) {
            throw new UsageException("option --address: a " + (server ? "server" : "client") + " process has one "
                    + "HCA, got two addresses (" + String.join(",", addresses) + ")");
        }
        if (rdmaCm && command.equals("perf") && transport == Transport.UD && qps > 1) {
            throw new UsageException("option --qp " + qps + ": UD through rdma_cm between two processes serves one QP "
                    + "per CM port (rvt-cm's SIDR answers with one UD QP); give -q 1, or leave out -R");
        }
        if (given.contains("--udp-port")) {
            throw new UsageException("option --udp-port: a " + (server ? "server" : "client") + " process's HCA binds "
                    + "the RoCEv2 port " + JniSetup.ROCEV2_PORT + " of its own --address (the CM carries no UDP port)");
        }
        if (peer != null) {
            java.net.InetAddress local = JniSetup.resolve(addresses.get(0));
            java.net.InetAddress remote;
            try {
                remote = JniSetup.resolve(peer);
            } catch (UsageException e) {
                throw new UsageException("HOST '" + peer + "' is not an IP address or known host");
            }
            if (remote.equals(local)) {
                throw new UsageException("HOST " + peer + " is this process's own address (--address "
                        + addresses.get(0) + "): each process needs an address of its own, e.g. --address "
                        + (local instanceof java.net.Inet6Address ? "::2 (added to lo)" : "127.0.0.2"));
            }
            // the examples' and perftest's TCP exchange may take another family than the RDMA path (their servers
            // listen on IPv4's wildcard alone, their GID may be IPv6's); rvt-cm's IP header carries one family
            if (rdmaCm && remote instanceof java.net.Inet4Address != local instanceof java.net.Inet4Address) {
                throw new UsageException("HOST " + peer + " and --address " + addresses.get(0) + " are not of one IP "
                        + "family");
            }
        }
    }

    /** @return true with {@code --server} or a {@code HOST}: this process runs one end of the test */
    boolean twoProcesses() {
        return server || peer != null;
    }

    /**
     * @return the jni HCAs' addresses and UDP ports (free ports are picked now unless {@code --udp-port}); one HCA
     *         on UDP 4791 of the first address when this process runs one end ({@link #twoProcesses()})
     */
    JniSetup jniSetup() {
        JniSetup setup = (twoProcesses() ? JniSetup.single(addresses.get(0), sourcePorts)
                : JniSetup.of(addresses, udpPort, sourcePorts)).threading(threading).offloads(udpGso, udpGro)
                .pollers(pollerWaitMicros, pollerSpinAdaptive);
        // perf -g's client sends to the server's group: a copy to the server, the one peer of its HCA's table
        return mcg && peer != null ? setup.peer(peer) : setup;
    }

    /** @return the port, path MTU, GID index and ACK timeout of {@code -i}, {@code -m}, {@code -x}, {@code -u} */
    LinkOptions link() {
        return new LinkOptions(ibPort, mtu, gidIndex, qpTimeout, retryCount);
    }

    /** @return the fabric options */
    public FabricOptions fabric() {
        return new FabricOptions(loss, duplication, reorder, seed, deterministic, dualPort ? 2 : 1);
    }

    /**
     * @param option a long option name
     * @return true if it was on the command line
     */
    public boolean has(String option) {
        return given.contains(option);
    }

    private static double decimal(String option, String v, String what) {
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new UsageException("option " + option + " needs " + what + ", got '" + v + "'");
        }
    }

    private static double probability(String option, String v) {
        double p = decimal(option, v, "a probability");
        if (!(p >= 0 && p <= 1)) {
            throw new UsageException("option " + option + ": " + v + " is not a probability in [0, 1]");
        }
        return p;
    }

    private static long longValue(String option, String v) {
        try {
            return Long.decode(v);
        } catch (NumberFormatException e) {
            throw new UsageException("option " + option + " needs a whole number, got '" + v + "'");
        }
    }

    private static double nonNegative(String option, String v, String what) {
        double d = decimal(option, v, what);
        if (!(d >= 0 && d < Double.POSITIVE_INFINITY)) {
            throw new UsageException("option " + option + ": " + v + " is not " + what + " (0 or more)");
        }
        return d;
    }

    /** @return perftest's software rate limiter, or null without {@code --rate_limit} */
    RateLimit rateLimit() {
        return rateLimit > 0 ? new RateLimit(rateLimit, rateUnits, burstSize > 0 ? burstSize : txDepth) : null;
    }

    /** @return perftest's multicast ({@code -g}, {@code -M}), or null without {@code -g} */
    PerftestMcast multicast() {
        return mcg ? new PerftestMcast(mgid) : null;
    }

    /** @return perftest's flags beyond the table ({@link PerftestFlags}) */
    PerftestFlags perftestFlags() {
        return new PerftestFlags(noPeak, limitBw, limitMsgRate, sl, hopLimit, trafficClass, flowLabel, outReads,
                given.contains("--rx-depth") ? rxDepth : 0, waitDestroy, latencyGap, output);
    }

    /**
     * @return perftest's {@code -I} as it applies: 0 unless given, and 0 on READ and atomic tests, which post no
     *         data (perftest sets it so)
     */
    int inlineSize() {
        return test == PerfTest.READ || test == PerfTest.ATOMIC ? 0 : Math.max(0, inlineSize);
    }

    /** @return perftest's {@code -C}, {@code -H}, {@code -U} */
    LatencyReport latencyReport() {
        return new LatencyReport(reportCycles, reportHistogram, reportUnsorted);
    }

    private static int positive(String option, String v) {
        long n = longValue(option, v);
        if (n <= 0 || n > Integer.MAX_VALUE) {
            throw new UsageException("option " + option + " must be a positive number, got " + v);
        }
        return (int) n;
    }

    /** A UDP port for the first HCA; the second takes the next one, so 65535 is not allowed. */
    private static int udpPort(String option, String v) {
        long n = longValue(option, v);
        if (n < 1 || n > 65534) {
            throw new UsageException("option " + option + ": " + v + " is not a UDP port for two HCAs (1 to 65534; "
                    + "the second HCA takes the next port)");
        }
        return (int) n;
    }

    private static boolean onOff(String option, String v) {
        return switch (v) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new UsageException("option " + option + ": '" + v + "' is not on or off");
        };
    }

    private static int inRange(String option, String v, int min, int max, String what) {
        long n = longValue(option, v);
        if (n < min || n > max) {
            throw new UsageException("option " + option + ": " + v + " is not " + what);
        }
        return (int) n;
    }

    /** An IBTA path MTU ({@code enum ibv_mtu}): 256 to 4096 bytes in powers of two. */
    private static int mtu(String option, String v) {
        long n = longValue(option, v);
        if (n < 256 || n > 4096 || Long.bitCount(n) != 1) {
            throw new UsageException("option " + option + ": " + v + " is not an MTU (256, 512, 1024, 2048 or 4096)");
        }
        return (int) n;
    }

    private static int size(String option, String v) {
        long n = longValue(option, v);
        if (n <= 0 || n > MAX_SIZE) {
            throw new UsageException("option " + option + ": " + v + " is not a message size (1 to " + MAX_SIZE
                    + " bytes)");
        }
        return (int) n;
    }

    private static double duration(String option, String v) {
        double d = decimal(option, v, "seconds");
        if (!(d > 0 && d <= 3600)) {
            throw new UsageException("option " + option + ": " + v + " is not a duration (above 0, at most 3600 s)");
        }
        return d;
    }

    /** @return the usage text of {@code rvt --help} */
    static String usage() {
        return String.join(System.lineSeparator(),
                "usage: rvt [COMMAND] [OPTIONS]",
                "",
                "commands:",
                "  (none)      devices, then an RC ping-pong between the two HCAs",
                "  devices     list the devices, like ibv_devinfo (-d DEV, -i PORT: one; -l: names; -v: limits)",
                "  pingpong    ping-pong between the two HCAs, like ibv_rc_pingpong; data checked every iteration",
                "  perf        perftest-style bandwidth and latency tables (no options: a short sweep)",
                "  stat        port counters, QP state and fabric counters after a short traffic run",
                "  shell       the Gogo shell with the rvt:* commands (OSGi)",
                "",
                "pingpong:  -c|--connection|--transport RC|UC|UD  -s|--size BYTES (4096)  -n|--iters N (1000)",
                "           -d|--ib-dev DEV  -i|--ib-port PORT  -m|--mtu BYTES  -x|--gid-index N  -p|--port PORT",
                "           -u|--qp-timeout N (RC ACK timeout 4.096 us x 2^N, 14)",
                "           --server | HOST (two processes, --driver jni: one listens, the other connects to HOST)",
                "perf:      perftest's flags: --test send|write|read|atomic (or ib_write_bw, send_lat, ...)",
                "           --bw (default) | --lat  -s BYTES | -a  -n N | -D SECONDS  -q|--qp N  -c RC|UC|UD",
                "           -t|--tx-depth N (128)  -Q|--cq-mod N (100)  -l|--post_list N  -b|--bidirectional",
                "           -d DEV  -i PORT  -m BYTES  -x N  -u N  -p PORT  --report_gbits  -F  -R",
                "           --out_json [--out_json_file=FILE] (perftest's report)  --json FILE (every table)",
                "           -a --plot FILE.svg|FILE.png (the sweep drawn against the size)",
                "           (rvt perf --help, rvt pingpong --help: each option)",
                "stat:      -n|--iters N (traffic run)  --no-traffic",
                "driver:    --driver sim (default: two simulated HCAs) | jni (two RoCEv2 HCAs over UDP)",
                "fabric:    --loss P  --dup P  --reorder P  --seed N  --deterministic  (--driver sim)",
                "           --threading progress (default: the command's polls run the fabric and both HCAs,",
                "                       a backstop thread when they stop; with --deterministic, in OSGi and",
                "                       --no-osgi: same seed, same trace)",
                "                     | dedicated (threads of their own) | shared (one thread for all;",
                "                       real time) | invoker (only the command's thread; --no-osgi)",
                "jni:       --address A[,B] (127.0.0.1; ::1 for IPv6)  --udp-port P (P and P+1; default: free ports)",
                "           --source-ports N (UDP source ports per HCA, one per flow from 0xC000; default "
                        + JniDriverBuilder.DEFAULT_SOURCE_PORTS + "; 1: all from P)",
                "           --udp-gso on|off (IPv6: runs of packets as UDP GSO messages; on)",
                "           --udp-gro on|off (coalesced datagrams received and split; on)",
                "           --poller-wait US (a poller's spin on an idle port before it waits in poll; "
                        + JniSetup.DEFAULT_POLLER_WAIT_MICROS + "; 0: never wait)",
                "           --poller-spin adaptive|fixed (the spin follows the idle gaps, up to US; fixed)",
                "other:     --no-osgi (plain class path, no Felix)  --debug (stack traces)  -h|--help  --version",
                "",
                "exit codes: 0 success, 1 failure, 2 bad command line");
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "Options{%s %s}", command, given);
    }
}
