package io.rvt.launcher;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One option of the command line: its long name (the one errors use), its other names (perftest's and
 * ibv_rc_pingpong's short and long forms), its value's label (none for a flag), the commands it belongs to, and its
 * help line. {@link #ALL} is the whole table; {@link Syntax} gives each command its options from it, and an option
 * given to a command it does not belong to is an error, so that nothing is silently ignored.
 *
 * @param name the long name, e.g. {@code --size}
 * @param aliases the other names, e.g. {@code -s}; {@code -l@pingpong}: a name only that command has (perftest's and
 *                the examples' short names differ for one meaning: {@code --sl} is the examples' {@code -l} and
 *                perftest's {@code -S})
 * @param label the value's label in help, e.g. {@code BYTES}; null for a flag
 * @param commands the commands it belongs to, space-separated ({@code default} is the run without a command)
 * @param help one line of help
 */
record OptionDef(String name, List<String> aliases, String label, String commands, String help) {
    private static final String EVERY = "devices pingpong perf stat shell default";
    /** Not the shell's: it always runs under OSGi, where the driver-sim bundle keeps its network thread. */
    private static final String NOT_SHELL = "devices pingpong perf stat default";
    private static final String CONNECT = "pingpong perf";

    /** Every option, in the order help lists them. */
    static final List<OptionDef> ALL = List.of(
            // what each command does
            opt("--size", "-s", "BYTES", "pingpong perf default", "bytes per message"),
            opt("--iters", "-n", "N", "pingpong perf stat default", "iterations (perf: per QP and row)"),
            opt("--all", "-a", null, "perf", "every size from 2 B to 8 MiB (UD: to the MTU)"),
            opt("--duration", "-D", "SECONDS", "perf", "run each row this long instead of -n iterations"),
            opt("--test", null, "TEST", "perf", "send, write, read or atomic; or perftest's program name, e.g. "
                    + "ib_write_bw, write_lat"),
            opt("--bw", null, null, "perf", "a bandwidth test (the default)"),
            opt("--lat", null, null, "perf", "a latency test"),
            opts("--transport", List.of("-c", "--connection"), "RC|UC|UD", CONNECT, "the QPs' transport (RC)"),
            opts("--qps", List.of("-q", "--qp"), "N", "perf", "queue pairs of a bandwidth test (1)"),
            opt("--tx-depth", "-t", "N", "perf", "send work requests in flight per QP (128)"),
            opt("--cq-mod", "-Q", "N", "perf", "a signaled completion every N sends (100, at most -t)"),
            opt("--post_list", "-l", "N", "perf", "post N chained sends per post call (1)"),
            opt("--bidirectional", "-b", null, "perf", "both sides send at once; the rows add both directions"),
            opt("--ib-dev", "-d", "DEVICE", CONNECT + " devices", "the device to use (the first one; one JVM: the "
                    + "requester; devices: list only it)"),
            opt("--ib-port", "-i", "PORT", CONNECT + " devices", "the device's port (1; devices: list only it)"),
            opt("--mtu", "-m", "BYTES", CONNECT, "path MTU: 256, 512, 1024, 2048 or 4096 (the port's active MTU)"),
            opt("--gid-index", "-x", "INDEX", CONNECT, "address the peer with a GRH from this GID index"),
            opt("--qp-timeout", "-u", "N", CONNECT, "RC local ACK timeout: 4.096 us x 2^N per try, 0 to 31 (14, 67 ms; "
                    + "two processes: the client's)"),
            opt("--rx-depth", "-r", "N", CONNECT, "two processes: receives kept posted (pingpong: 500, the examples' "
                    + "-r; perf: SEND tests, 512, perftest's -r)"),
            opts("--sl", List.of("-l@pingpong", "-S@perf"), "SL", CONNECT, "two processes: the path's service level, "
                    + "0 to 15 (0; pingpong -l, perf -S)"),
            opt("--events", "-e", null, CONNECT, "sleep on completion events instead of polling (pingpong: two "
                    + "processes; perf: bandwidth and latency rows, not WRITE)"),
            opt("--gid-idx", "-g", "INDEX", "pingpong", "the examples' -g: advertise this GID index and address the "
                    + "peer from it (RoCE: 0 unless given, as a RoCE port has no LIDs)"),
            opt("--chk", null, null, "pingpong", "the examples' -c with no value: the client zeroes the first byte "
                    + "of every 4 KiB page (every message is checked either way)"),
            opt("--new_send", "-N", null, "pingpong", "accepted: the examples' ibv_wr_* send API (rvt has one post "
                    + "call; the wire is the same)"),
            opts("--odp", List.of("-o@pingpong"), null, CONNECT, "refused: " + Refusals.ODP),
            opt("--iodp", "-O", null, "pingpong", "refused: " + Refusals.ODP),
            opt("--prefetch", "-P", null, "pingpong", "refused: " + Refusals.ODP),
            opt("--ts", "-t", null, "pingpong", "refused: " + Refusals.TS),
            opt("--dm", "-j", null, "pingpong", "refused: " + Refusals.DM),
            opt("--server", null, null, CONNECT, "wait for a client (rvt ... HOST) to connect; jni, one HCA, UDP 4791"),
            opt("--port", "-p", "PORT", CONNECT, "the port to listen on or connect to: pingpong's TCP exchange, the "
                    + "CM's with -R and perf's (18515)"),
            opt("--report_gbits", null, null, "perf", "bandwidth in Gb/sec (10^9 bits) instead of MiB/sec"),
            opt("--json", null, "FILE", "perf", "every table and row as one JSON document"),
            opt("--out_json", null, null, "perf", "perftest's JSON report (to perftest_out.json unless "
                    + "--out_json_file)"),
            opt("--out_json_file", null, "FILE", "perf", "where --out_json writes"),
            opt("--plot", null, "FILE", "perf", "with -a: draw the rows against the size into FILE.svg or FILE.png"),
            opt("--CPU-freq", "-F", null, "perf", "accepted for perftest's command lines (no CPU frequency check "
                    + "to silence)"),
            opt("--rdma_cm", "-R", null, CONNECT, "pingpong: connect through rvt-cm, rvt to rvt (without: the "
                    + "examples' TCP exchange); perf: perftest's -R, its channel and QPs connected through rvt-cm to "
                    + "CM port -p, RC and UC (without: perftest's TCP exchange)"),
            opt("--use-srq", null, null, "perf", "two processes, SEND bandwidth: the server's QPs share one receive "
                    + "queue (ibv_create_srq)"),
            opt("--ipv6", null, null, "perf", "jni: the HCA's GID is IPv6: --address must be an IPv6 address (::1 "
                    + "unless given); perftest's own TCP socket stays IPv4"),
            opt("--output", null, "WHAT", "perf", "bandwidth, message_rate (bandwidth tests) or latency (latency "
                    + "tests): each row prints that one figure (MiB/sec or Gb/sec, Mpps, usec t_avg) and nothing else"),
            opt("--reversed", null, null, "perf", "two processes, not with -R: the server sends and the client "
                    + "receives (perftest's sides swapped), each printing that side's rows"),
            opt("--run_infinitely", null, null, "perf", "bandwidth: a row every -D SECONDS (5) until killed, no peak; "
                    + "two processes: the sender's rows until stopped, a SEND receiver's too"),
            opt("--retry_count", null, "N", "perf", "RC: the QPs' retry count, 0 to 7 (7); with -R, as perftest's, the "
                    + "REQ's retry and RNR retry counts"),
            opt("--latency_gap", null, "USEC", "perf", "latency: wait USEC before each post, inside the measured time "
                    + "as perftest's"),
            opt("--rate_limit", null, "RATE", "perf", "bandwidth: perftest's software rate limiter: at most RATE "
                    + "(--rate_units), in bursts of --burst_size sends"),
            // perftest's other flags (issue 26): docs/cli.md 'perftest's flags' has each with what rvt does
            opt("--noPeak", "-N", null, "perf", "bandwidth: no peak (BW peak 0.00), as perftest's -N"),
            opt("--limit_bw", "-w", "BW", "perf", "bandwidth: exit 1 unless the average reaches BW (the row's unit: "
                    + "MiB/sec, Gb/sec with --report_gbits)"),
            opt("--limit_msgrate", "-y", "MPPS", "perf", "bandwidth: exit 1 unless the message rate reaches MPPS"),
            opt("--hop_limit", "-L", "N", "perf", "two processes: the GRH's hop limit, 0 to 255 (255)"),
            opt("--tclass", null, "N", "perf", "two processes: the GRH's traffic class, 0 to 255 (0)"),
            opt("--flow_label", null, "N", "perf", "two processes: the GRH's flow label, 0 to 0xFFFFF (0)"),
            opt("--outs", "-o", "N", "perf", "two processes, READ and atomics: outstanding reads and atomics per QP "
                    + "(the device's most, " + Endpoint.RD_ATOMIC + ")"),
            opt("--wait_destroy", null, "SECONDS", "perf", "bandwidth: wait this long after the rows before the QPs, "
                    + "CQs and region are destroyed"),
            opt("--use_old_post_send", null, null, "perf", "accepted: rvt has one post call (ibv_post_send's)"),
            opt("--pkey_index", null, "INDEX", "perf", "the P_Key index: 0, the one rvt's ports have"),
            opt("--force-link", null, "IB|Ethernet", "perf", "accepted when it names the driver's link (sim: IB, jni: "
                    + "Ethernet)"),
            opt("--atomic_type", "-A", "TYPE", "perf", "atomics: FETCH_AND_ADD (the default, adds 1) or CMP_AND_SWAP "
                    + "(compares 0, swaps in 0)"),
            opt("--report-cycles", "-C", null, "perf", "latency: figures in clock ticks, not usec (rvt's clock is "
                    + "System.nanoTime: 1 tick = 1 ns; Java reads no CPU cycle counter)"),
            opt("--vector", "-X", "N", "perf", "refused: " + Refusals.EVENTS),
            opt("--margin", "-f", "SECONDS", "perf", "refused: " + Refusals.MARGIN),
            opt("--mcg", "-g", null, "perf", "SEND over UD to a multicast group: the receiving side's QP attached to "
                    + "it, the sender addressing the group (one QP, not -b, not -R)"),
            opt("--MGID", "-M", "GID", "perf", "with -g: the group's GID, 16 colon-separated bytes as perftest's "
                    + "(ff01:0:2:c985::, the client's ...:1)"),
            opt("--report-histogram", "-H", null, "perf", "latency: list every sample, sorted, before the row"),
            opt("--report-unsorted", "-U", null, "perf", "latency: list every sample as taken before the row"),
            opt("--inline_size", "-I", "BYTES", "perf", "inline data asked of the QPs, 0 to 1024; rvt's have none "
                    + "(rdmavt's max_inline_data 0), said as perftest says it"),
            opt("--inline_recv", null, "BYTES", "perf", "refused: " + Refusals.INLINE),
            opt("--recv_post_list", null, "N", "perf", "refused: " + Refusals.RECV_POST_LIST),
            opt("--dualport", "-O", null, "perf", "bandwidth, one process on driver-sim: twice -q's QPs, half on "
                    + "each HCA's port 1 and half on its port 2 (HCAs of two ports)"),
            opt("--report-per-port", null, null, "perf", "refused: " + Refusals.REPORT_PER_PORT),
            opt("--connectionless", null, null, "perf", "refused: " + Refusals.CONNECTIONLESS),
            opt("--tos", "-T", "TOS", "perf", "two processes with -R: the connections' type of service, 0 to 255, "
                    + "rdma_cm's traffic class (0)"),
            opt("--report-counters", "-W", "COUNTERS", "perf", "refused: " + Refusals.COUNTERS),
            opt("--comm_rdma_cm", "-z", null, "perf", "refused: " + Refusals.COMM_RDMA_CM),
            opt("--cpu_util", null, null, "perf", "refused: " + Refusals.CPU_UTIL),
            opt("--dlid", null, "LID", "perf", "refused: " + Refusals.DLID),
            opt("--dont_xchg_versions", null, null, "perf", "refused: " + Refusals.XCHG_VERSIONS),
            opt("--mmap", null, "FILE", "perf", "refused: " + Refusals.MMAP),
            opt("--mmap-offset", null, "OFFSET", "perf", "refused: " + Refusals.MMAP),
            opt("--mr_per_qp", null, null, "perf", "refused: " + Refusals.MR_PER_QP),
            opt("--perform_warm_up", null, null, "perf", "refused: " + Refusals.WARM_UP),
            opt("--report-both", null, null, "perf", "refused: " + Refusals.REPORT_BOTH),
            opt("--use_cuda", null, "ID", "perf", "refused: " + Refusals.GPU),
            opt("--use_cuda_bus_id", null, "BUS", "perf", "refused: " + Refusals.GPU),
            opt("--use_rocm", null, "ID", "perf", "refused: " + Refusals.GPU),
            opt("--use_hugepages", null, null, "perf", "refused: " + Refusals.HUGEPAGES),
            opt("--disable_pcie_relaxed", null, null, "perf", "refused: " + Refusals.HARDWARE + " (PCIe relaxed "
                    + "ordering)"),
            opt("--use_ooo", null, null, "perf", "refused: " + Refusals.HARDWARE + " (out-of-order placement)"),
            opt("--burst_size", null, "N", "perf", "with --rate_limit: sends per burst (-t's)"),
            opt("--typical_pkt_size", null, "BYTES", "perf", "refused: " + Refusals.TYPICAL_PKT),
            opt("--rate_units", null, "M|g|p", "perf", "with --rate_limit: MB/sec (M), Gb/sec (g, the default) or "
                    + "packets/sec (p)"),
            opt("--rate_limit_type", null, "HW|SW|PP", "perf", "with --rate_limit: SW (the default in rvt; HW and PP "
                    + "refused: " + Refusals.RATE_LIMIT_HW + ")"),
            opt("--log_dci_streams", null, "N", "perf", "refused: " + Refusals.HARDWARE + " (DC)"),
            opt("--log_active_dci_streams", null, "N", "perf", "refused: " + Refusals.HARDWARE + " (DC)"),
            opt("--aes_xts", null, null, "perf", "refused: " + Refusals.HARDWARE + " (AES-XTS encryption)"),
            opt("--encrypt_on_tx", null, null, "perf", "refused: " + Refusals.HARDWARE + " (AES-XTS encryption)"),
            opt("--sig_before", null, null, "perf", "refused: " + Refusals.HARDWARE + " (AES-XTS encryption)"),
            opt("--aes_block_size", null, "N", "perf", "refused: " + Refusals.HARDWARE + " (AES-XTS encryption)"),
            opt("--data_enc_keys_number", null, "N", "perf", "refused: " + Refusals.HARDWARE + " (AES-XTS "
                    + "encryption)"),
            opt("--kek_path", null, "FILE", "perf", "refused: " + Refusals.HARDWARE + " (AES-XTS encryption)"),
            opt("--credentials_path", null, "FILE", "perf", "refused: " + Refusals.HARDWARE + " (AES-XTS "
                    + "encryption)"),
            opt("--data_enc_key_app_path", null, "FILE", "perf", "refused: " + Refusals.HARDWARE + " (AES-XTS "
                    + "encryption)"),
            opt("--source_mac", "-B", "MAC", "perf", "refused: " + Refusals.RAW_ETH),
            opt("--dest_mac", "-E", "MAC", "perf", "refused: " + Refusals.RAW_ETH),
            opt("--dest_ip", "-J", "IP", "perf", "refused: " + Refusals.RAW_ETH),
            opt("--source_ip", "-j", "IP", "perf", "refused: " + Refusals.RAW_ETH + "; rvt's source is --address"),
            opt("--dest_port", "-K", "PORT", "perf", "refused: " + Refusals.RAW_ETH),
            opt("--source_port", "-k", "PORT", "perf", "refused: " + Refusals.RAW_ETH),
            opt("--ethertype", "-Y", "TYPE", "perf", "refused: " + Refusals.RAW_ETH),
            opt("--mac_fwd", null, null, "perf", "refused: " + Refusals.RAW_ETH),
            opt("--use_rss", "-G", null, "perf", "refused: " + Refusals.RAW_ETH),
            opt("--verbose", "-v", null, "devices default", "device limits too"),
            opt("--list", "-l", null, "devices", "the devices' names only, as ibv_devinfo -l"),
            opt("--no-traffic", null, null, "stat", "counters only, no traffic run first"),
            // where the devices come from
            opt("--driver", null, "sim|jni", EVERY, "simulated HCAs (sim, the default) or RoCEv2 over UDP (jni)"),
            opt("--address", null, "A[,B]", EVERY, "jni: the HCAs' IP addresses (127.0.0.1)"),
            opt("--udp-port", null, "P", EVERY, "jni: the first HCA's UDP port, P+1 the second's (free ports)"),
            opt("--source-ports", null, "N", EVERY, "jni: UDP source ports per HCA, one per flow in 0xC000-0xFFFF "
                    + "(16; 1: every packet from the HCA's port)"),
            opt("--udp-gso", null, "on|off", EVERY, "jni: IPv6 ports send runs of equal packets as UDP GSO messages "
                    + "(on; never on IPv4)"),
            opt("--udp-gro", null, "on|off", EVERY, "jni: the HCAs receive datagrams the kernel coalesced (UDP GRO) "
                    + "and split them into packets (on)"),
            opt("--poller-wait", null, "US", EVERY, "jni: the most a thread polling an idle port spins before it "
                    + "waits in poll, in µs (" + JniSetup.DEFAULT_POLLER_WAIT_MICROS + "; 0: never wait)"),
            opt("--poller-spin", null, "adaptive|fixed", EVERY, "jni: that spin follows the port's idle gaps, none "
                    + "where the peer answers far later than --poller-wait (adaptive), or is always --poller-wait "
                    + "(fixed, the default)"),
            opt("--loss", null, "P", EVERY, "sim: probability of losing a frame"),
            opt("--dup", null, "P", EVERY, "sim: probability of delivering a frame twice"),
            opt("--reorder", null, "P", EVERY, "sim: probability of delaying a frame past later ones"),
            opt("--seed", null, "N", EVERY, "sim: the seed of every fault draw"),
            opt("--deterministic", null, null, EVERY, "sim: virtual time on one event loop"),
            opt("--threading", null, "progress|dedicated|shared|invoker", NOT_SHELL, "who runs the network (progress: "
                    + "the command's polls and a backstop; dedicated: its own threads; shared: one thread, sim real "
                    + "time; invoker: sim, needs --no-osgi; network, deprecated: dedicated or shared)"),
            opt("--no-osgi", null, null, EVERY, "the plain class path instead of Felix"),
            opt("--debug", null, null, EVERY, "stack traces with errors"),
            opt("--help", "-h", null, EVERY, "this help"),
            opt("--version", "-V", null, EVERY, "rvt's version, the host a command runs in, the Java version "
                    + "(perftest's -V)"));

    private static final Map<String, List<OptionDef>> BY_NAME = new HashMap<>();

    static {
        // a short name may serve two options of different commands (-l: perf's --post_list, devices' --list), as
        // perftest's and ibv_devinfo's do; never two of one command
        for (OptionDef d : ALL) {
            if (BY_NAME.containsKey(d.name)) {
                throw new IllegalStateException("option name " + d.name + " defined twice");
            }
            BY_NAME.computeIfAbsent(d.name, k -> new ArrayList<>()).add(d);
            for (String alias : d.aliases) {
                String n = bare(alias);
                List<OptionDef> owners = BY_NAME.computeIfAbsent(n, k -> new ArrayList<>());
                String cmds = alias.contains("@") ? alias.substring(alias.indexOf('@') + 1) : d.commands;
                for (OptionDef other : owners) {
                    if (List.of(cmds.split(" ")).stream().anyMatch(c -> List.of(other.names(c)).contains(n))) {
                        throw new IllegalStateException("option name " + n + " defined twice");
                    }
                }
                owners.add(d);
            }
        }
    }

    private static OptionDef opt(String name, String alias, String label, String commands, String help) {
        return opts(name, alias == null ? List.of() : List.of(alias), label, commands, help);
    }

    private static OptionDef opts(String name, List<String> aliases, String label, String commands, String help) {
        return new OptionDef(name, aliases, label, commands, help);
    }

    /** @return true if it takes no value */
    boolean flag() {
        return label == null;
    }

    /**
     * @param command a command, or {@code default}
     * @return true if the option belongs to it
     */
    boolean appliesTo(String command) {
        return List.of(commands.split(" ")).contains(command);
    }

    private static String bare(String alias) {
        int at = alias.indexOf('@');
        return at < 0 ? alias : alias.substring(0, at);
    }

    /** @return every name, the short ones first */
    String[] names() {
        List<String> n = new ArrayList<>();
        aliases.forEach(a -> n.add(bare(a)));
        n.add(name);
        n.sort((a, b) -> Boolean.compare(a.startsWith("--"), b.startsWith("--")));
        return n.toArray(String[]::new);
    }

    /**
     * @param command a command, or {@code default}
     * @return the names the command knows it by, the short ones first; none if it does not apply to the command
     */
    String[] names(String command) {
        if (!appliesTo(command)) {
            return new String[0];
        }
        List<String> n = new ArrayList<>();
        for (String a : aliases) {
            int at = a.indexOf('@');
            if (at < 0 || List.of(a.substring(at + 1).split(" ")).contains(command)) {
                n.add(bare(a));
            }
        }
        n.add(name);
        n.sort((a, b) -> Boolean.compare(a.startsWith("--"), b.startsWith("--")));
        return n.toArray(String[]::new);
    }

    /**
     * @param name any of an option's names
     * @return the option
     * @throws IllegalStateException if there is none (the table and picocli disagree)
     */
    static OptionDef byName(String name) {
        List<OptionDef> d = BY_NAME.get(name);
        if (d == null) {
            throw new IllegalStateException("option table has no " + name);
        }
        return d.get(0);
    }

    /**
     * @param name any of an option's names
     * @param command the command it was given to, or {@code default}
     * @return the option of that name the command has, else the first of that name
     * @throws IllegalStateException if there is none (the table and picocli disagree)
     */
    static OptionDef byName(String name, String command) {
        for (OptionDef d : BY_NAME.getOrDefault(name, List.of())) {
            if (d.appliesTo(command)) {
                return d;
            }
        }
        return byName(name);
    }

    /**
     * @param name a name from the command line
     * @return the option, or null if no command has it
     */
    static OptionDef byNameOrNull(String name) {
        List<OptionDef> d = BY_NAME.get(name);
        return d == null ? null : d.get(0);
    }
}
