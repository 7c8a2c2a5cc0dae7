package io.rvt.launcher;

/**
 * The sizes of what a perf table sets up on each side, the same whichever process runs which side
 * ({@link PerfRunner} in one process; {@link RemotePerf}'s client and server in two): buffer bytes, queue and
 * completion queue depths, receives kept posted.
 */
final class PerfSizing {
    /** Receives kept posted per responder QP in a SEND bandwidth test (perftest's {@code RX_depth}). */
    static final int RX_DEPTH = 512;

    private PerfSizing() {
    }

    /**
     * @param spec a table
     * @param largest the largest size of its rows
     * @return bytes of each side's buffer: write latency keeps the source in the first half and receives the peer's
     *         write in the second
     */
    static int bufferBytes(PerfSpec spec, int largest) {
        int dataOff = spec.transport() == Transport.UD ? Endpoint.GRH_BYTES : 0;
        int bytes = spec.latency() && spec.test() == PerfTest.WRITE ? 2 * largest : dataOff + largest;
        return Math.max(bytes, PerfTest.ATOMIC_SIZE);
    }

    /**
     * @param spec a table
     * @return send queue entries per QP: latency runs one operation at a time, but ACKs may trail the replies, so
     *         the queue has room
     */
    static int sendDepth(PerfSpec spec) {
        return spec.latency() ? 64 : spec.txDepth();
    }

    /**
     * @param spec a table
     * @return receive queue entries per QP
     */
    static int recvDepth(PerfSpec spec) {
        return spec.test().needsReceives() ? (spec.latency() ? 4 : RX_DEPTH) : 1;
    }

    /**
     * @param spec a table
     * @return entries of each completion queue of a side
     */
    static int cqDepth(PerfSpec spec) {
        int qps = spec.latency() ? 1 : spec.qps();
        return qps * Math.max(sendDepth(spec), RX_DEPTH) + 16;
    }

    /**
     * @param spec a table
     * @return receives kept posted per receiving QP in it (perftest's {@code RX_depth}; SEND tests only post any)
     */
    static int rxDepth(PerfSpec spec) {
        return spec.latency() ? 1 : RX_DEPTH;
    }
}
