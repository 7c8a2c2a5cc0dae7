package io.rvt.launcher;

/**
 * A memory region of the peer's that this side's RDMA WRITEs, READs and atomics target: the address and rkey of
 * perftest's {@code struct pingpong_dest} ({@link PerftestDest}).
 *
 * @param addr the address
 * @param rkey the rkey
 */
record PerfRegion(long addr, int rkey) {
}
