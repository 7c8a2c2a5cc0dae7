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

    /** perftest's {@code --use-srq}. */
    static final String USE_SRQ = "rvt perf posts each QP's receives on the QP itself; a shared receive queue "
            + "(ibv_create_srq) is not built into perf";
    /** perftest's {@code --ipv6}. */
    static final String IPV6 = "rvt's GID is its HCA's --address: give an IPv6 --address for RDMA over IPv6 "
            + "(perftest's own socket stays IPv4)";
    /** perftest's {@code --output}. */
    static final String OUTPUT = "perftest's one-number output (bandwidth, message_rate, latency) is not "
            + "built: rvt perf prints the table";
    /** perftest's {@code --reversed}. */
    static final String REVERSED = "the server sending to the client (perftest's --reversed) is not built: "
            + "start the sending side as the client";
    /** perftest's {@code --run_infinitely}. */
    static final String RUN_INFINITELY = "a row that never ends is not built: give -D SECONDS";
    /** perftest's {@code --retry_count}. */
    static final String RETRY_COUNT = "rvt's RC QPs always retry 7 times (perftest takes it with -R only, "
            + "which rvt perf between processes has not)";
    /** perftest's {@code --latency_gap}. */
    static final String LATENCY_GAP = "a pause between latency iterations is not built";
    /** perftest's {@code --rate_limit}. */
    static final String RATE_LIMIT = "rvt has no rate limiter (perftest's --rate_limit, SW or HW)";

    private Refusals() {
    }
}
