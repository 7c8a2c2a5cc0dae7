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

    private Refusals() {
    }
}
