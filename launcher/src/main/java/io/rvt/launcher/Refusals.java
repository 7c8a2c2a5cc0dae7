package io.rvt.launcher;

/** Why rvt refuses a flag of the Linux tools it takes the command lines of: one line each, in help and errors. */
final class Refusals {
    /** ibv_*_pingpong's {@code -o}, {@code -O}, {@code -P}. */
    static final String ODP = "rvt has no on-demand paging: a memory region is a Java buffer, always resident "
            + "(IBV_ACCESS_ON_DEMAND, ibv_advise_mr)";
    /** ibv_*_pingpong's {@code -t}. */
    static final String TS = "rvt's completions carry no hardware timestamps (IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)";
    /** ibv_*_pingpong's {@code -j}. */
    static final String DM = "rvt's HCAs have no device memory (ibv_alloc_dm)";

    /** perftest's {@code --reversed} with {@code -R}. */
    static final String REVERSED_RDMA_CM = "perftest's -R --reversed swaps rdma_cm's sides too, so the side "
            + "without HOST would connect to no host (rdma_getaddrinfo of no name) and two hosts never meet; give "
            + "--reversed without -R (perftest's TCP exchange)";
    /** perftest's {@code --rate_limit_type HW} and {@code PP}. */
    static final String RATE_LIMIT_HW = "a NIC's rate limiter (a QP's static rate, packet pacing) is hardware rvt has "
            + "not; SW, perftest's software limiter, is built";
    /** perftest's {@code --typical_pkt_size}. */
    static final String TYPICAL_PKT = "the typical packet size applies to packet pacing (--rate_limit_type PP), a "
            + "hardware rate limiter rvt has not";

    /** perftest's {@code -X} on rvt perf. */
    static final String EVENTS = "rvt's completion queues have one completion vector (0); -e waits on their "
            + "channels";
    /** perftest's {@code -f}. */
    static final String MARGIN = "the margin of a -D row is perftest's default (a quarter of -D in whole seconds); "
            + "another is not built";
    /** perftest's {@code -g} on a latency test between two processes on driver-jni. */
    static final String MULTICAST_JNI = "a latency test between two driver-jni processes is not built: the server "
            + "answers to the client's group, and driver-jni sends a multicast SEND as one unicast copy to each peer "
            + "in its HCA's peer table, where the server has none (rvt has no IP multicast; the client has the server "
            + "from HOST, so bandwidth runs)";
    /** perftest's {@code --inline_recv}. */
    static final String INLINE = "rvt perf posts no inline data (IBV_SEND_INLINE): every message is read from the "
            + "region";
    /** perftest's {@code --recv_post_list}. */
    static final String RECV_POST_LIST = "rvt perf posts its receives one at a time";
    /** perftest's {@code -O} on driver-jni. */
    static final String DUAL_PORT_JNI = "driver-jni's HCAs have one port each (one per --address, and a process of "
            + "two has one HCA): dual-port mode runs on driver-sim's HCAs, built with two ports for it";
    /** perftest's {@code --connectionless}. */
    static final String CONNECTIONLESS = "perftest's connectionless server serves a multicast group with "
            + "--run_infinitely between two processes, which rvt perf does not run (a -g server serves one client)";
    /** perftest's {@code --report-per-port}. */
    static final String REPORT_PER_PORT = "a -O row adds both ports' messages; rows per port are not built";
    /** perftest's {@code -W}. */
    static final String COUNTERS = "rvt has no sysfs counter files: rvt stat prints its port counters";
    /** perftest's {@code -z}. */
    static final String COMM_RDMA_CM = "the exchange is perftest's TCP one (or rvt-cm's with -R in one process); "
            + "rdma_cm as the side channel is not built";
    /** perftest's {@code --cpu_util}. */
    static final String CPU_UTIL = "CPU utilisation of a -D row is not measured";
    /** perftest's {@code --dlid}. */
    static final String DLID = "the peer's LID comes from the exchange (RoCE: none, a GID)";
    /** perftest's {@code --dont_xchg_versions}. */
    static final String XCHG_VERSIONS = "rvt perf always exchanges the versions and MTU, as perftest does unless told";
    /** perftest's {@code --mmap}. */
    static final String MMAP = "rvt perf's region is a direct Java buffer; a file mapped for P2P is not built";
    /** perftest's {@code --mr_per_qp}. */
    static final String MR_PER_QP = "one memory region serves every QP of a side";
    /** perftest's {@code --perform_warm_up}. */
    static final String WARM_UP = "between two processes rvt perf sends nothing the peer would count before the "
            + "row; in one process its rows warm up already";
    /** perftest's {@code --report-both}. */
    static final String REPORT_BOTH = "a -b row adds both directions; the two apart are not printed";
    /** perftest's {@code --use_cuda}, {@code --use_rocm}. */
    static final String GPU = "rvt has no GPU memory to register (GPUDirect RDMA)";
    /** perftest's {@code --use_hugepages}. */
    static final String HUGEPAGES = "the region is a direct Java buffer; huge pages are the JVM's (-XX:+UseLargePages)";
    /** Options of hardware features. */
    static final String HARDWARE = "a feature of NIC hardware that rvt, a software transport, has not";
    /** perftest's raw Ethernet options. */
    static final String RAW_ETH = "an option of perftest's raw_ethernet_* programs (raw packets), not of the eight "
            + "ib_* programs";

    private Refusals() {
    }
}
