package io.rvt.launcher;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * What the two processes of {@code rvt perf --server} / {@code rvt perf HOST} tell each other (big-endian): the
 * client's REQ carries the table it runs and its memory region ({@link Request}), the server's REP its memory region
 * ({@link Region}); then, over the control connection ({@link PerfControl}), the steps of each row ({@link Control}),
 * the client's DONE with its row ({@link Result}), so that the server prints the rows it does not measure itself, as
 * perftest's server prints the client's results.
 */
final class PerfWire {
    private static final int REQUEST_MAGIC = 0x72767446; // "rvtF"
    private static final int REGION_MAGIC = 0x7276744d; // "rvtM"
    private static final int RESULT_MAGIC = 0x72767452; // "rvtR"
    private static final int CONTROL_MAGIC = 0x72767443; // "rvtC"
    /** The request's flag byte: the table is a sweep ({@code -a}). */
    private static final int SWEEP = 1;

    private PerfWire() {
    }

    /**
     * @param b private data
     * @param magic the magic it must start with
     * @return a buffer positioned after the magic, or null if too short or another magic
     */
    private static ByteBuffer open(byte[] b, int magic) {
        ByteBuffer buf = ByteBuffer.wrap(b);
        return b.length >= 4 && buf.getInt() == magic ? buf : null;
    }

    /**
     * The client's table, its buffer and its ACK timeout: 46 bytes, within the REQ's 56 after rdma_cm's IP header. A
     * sweep ({@code -a}) is its largest size and a flag: its rows are every power of two from 2 bytes up to it.
     *
     * @param spec the table (one size, or {@code -a}'s powers of two)
     * @param addr the client's memory region's address (the server's target in write latency)
     * @param rkey its rkey
     * @param qpTimeout the client's {@code -u} (which the REQ's local ACK timeout gives both sides' QPs), so that a
     *        server started with another can say so
     */
    record Request(PerfSpec spec, long addr, int rkey, int qpTimeout) {
        /**
         * @param spec the table
         * @param addr the client's memory region's address
         * @param rkey its rkey
         */
        Request(PerfSpec spec, long addr, int rkey) {
            this(spec, addr, rkey, LinkOptions.DEFAULT_QP_TIMEOUT);
        }

        byte[] encode() {
            PerfSpec s = spec;
            return ByteBuffer.allocate(46).putInt(REQUEST_MAGIC).put((byte) s.test().ordinal())
                    .put((byte) s.transport().ordinal()).put((byte) (s.latency() ? 1 : 0))
                    .put((byte) (s.bidirectional() ? 1 : 0)).putInt(s.sizes()[s.sizes().length - 1]).putInt(s.iters())
                    .putLong(s.durationNanos()).putShort((short) s.txDepth()).putShort((short) s.cqMod())
                    .putShort((short) s.postList()).putShort((short) s.qps()).putLong(addr).putInt(rkey)
                    .put((byte) (s.sizes().length > 1 ? SWEEP : 0)).put((byte) qpTimeout).array();
        }

        /**
         * @param b a REQ's private data
         * @return the request, or null if it is not an rvt perf client's
         */
        static Request decode(byte[] b) {
            ByteBuffer buf = open(b, REQUEST_MAGIC);
            if (buf == null) {
                return null;
            }
            try {
                int test = buf.get();
                int transport = buf.get();
                if (test < 0 || test >= PerfTest.values().length || transport < 0
                        || transport >= Transport.values().length) {
                    return null;
                }
                boolean latency = buf.get() != 0;
                boolean bidirectional = buf.get() != 0;
                int size = buf.getInt();
                int iters = buf.getInt();
                long duration = buf.getLong();
                int txDepth = buf.getShort() & 0xFFFF;
                int cqMod = buf.getShort() & 0xFFFF;
                int postList = buf.getShort() & 0xFFFF;
                int qps = buf.getShort() & 0xFFFF;
                long addr = buf.getLong();
                int rkey = buf.getInt();
                boolean sweep = (buf.get() & SWEEP) != 0;
                int qpTimeout = buf.get();
                if (qpTimeout < 0 || qpTimeout > LinkOptions.MAX_QP_TIMEOUT || size <= 0 || txDepth <= 0 || cqMod <= 0 || postList <= 0 || qps <= 0 || iters < 0
                        || duration < 0 || iters == 0 && duration == 0) {
                    return null;
                }
                return new Request(new PerfSpec(PerfTest.values()[test], Transport.values()[transport], latency,
                        sweep ? sweep(size) : new int[] {size}, qps, iters, duration, txDepth, cqMod, postList,
                        bidirectional), addr, rkey, qpTimeout);
            } catch (BufferUnderflowException e) {
                return null;
            }
        }
    }

    /**
     * @param largest the largest size of a sweep
     * @return {@code -a}'s sizes: every power of two from 2 bytes up to {@code largest}
     */
    static int[] sweep(int largest) {
        int n = 0;
        for (long s = 2; s <= largest; s <<= 1) {
            n++;
        }
        int[] sizes = new int[n];
        for (int i = 0; i < n; i++) {
            sizes[i] = 2 << i;
        }
        return sizes;
    }

    /**
     * A memory region the peer may write, read and add to.
     *
     * @param addr its address
     * @param rkey its rkey
     */
    record Region(long addr, int rkey) {
        byte[] encode() {
            return ByteBuffer.allocate(16).putInt(REGION_MAGIC).putLong(addr).putInt(rkey).array();
        }

        /**
         * @param b a REP's private data
         * @return the region, or null if it is not an rvt perf server's
         */
        static Region decode(byte[] b) {
            ByteBuffer buf = open(b, REGION_MAGIC);
            if (buf == null || b.length < 16) {
                return null;
            }
            return new Region(buf.getLong(), buf.getInt());
        }
    }

    /**
     * The client's row, and for latency how many ping-pongs it ran unmeasured before it (the server measures its own
     * side of the same round trips and must skip those).
     *
     * @param bandwidth the bandwidth row, or null
     * @param latency the latency row, or null
     * @param warmUp latency: unmeasured iterations before the row; bandwidth: the messages sent in the row's margins
     *        ({@code -D}), not measured but received by the server
     */
    record Result(BandwidthResult bandwidth, LatencyResult latency, int warmUp) {
        byte[] encode() {
            ByteBuffer buf = ByteBuffer.allocate(96).putInt(RESULT_MAGIC).putInt(warmUp);
            if (bandwidth != null) {
                BandwidthResult r = bandwidth;
                buf.put((byte) 0).putInt(r.size()).putLong(r.iterations()).putDouble(r.peakMiBps())
                        .putDouble(r.averageMiBps()).putDouble(r.messageRateMpps());
            } else {
                LatencyResult r = latency;
                buf.put((byte) 1).putInt(r.size()).putLong(r.iterations()).putDouble(r.min()).putDouble(r.max())
                        .putDouble(r.typical()).putDouble(r.average()).putDouble(r.stdev()).putDouble(r.p99())
                        .putDouble(r.p999());
            }
            byte[] b = new byte[buf.position()];
            buf.flip().get(b);
            return b;
        }

        /**
         * @param b a DREQ's private data
         * @return the result, or null if it carries none (a client that ended early)
         */
        static Result decode(byte[] b) {
            ByteBuffer buf = open(b, RESULT_MAGIC);
            if (buf == null) {
                return null;
            }
            try {
                int warm = buf.getInt();
                boolean lat = buf.get() != 0;
                int size = buf.getInt();
                long iters = buf.getLong();
                if (!lat) {
                    return new Result(new BandwidthResult(size, iters, buf.getDouble(), buf.getDouble(),
                            buf.getDouble()), null, warm);
                }
                return new Result(null, new LatencyResult(size, iters, buf.getDouble(), buf.getDouble(),
                        buf.getDouble(), buf.getDouble(), buf.getDouble(), buf.getDouble(), buf.getDouble()), warm);
            } catch (BufferUnderflowException e) {
                return null;
            }
        }
    }

    /** What a {@link Control} message says. */
    enum Step {
        /** Client: the next row is {@code size} bytes. */
        ROW,
        /** Server: ready for the row (its pong and receives are that size). */
        READY,
        /** Client (SEND bandwidth): the warm-up is over; the server starts counting on {@link #GO}. */
        MEASURE,
        /** Server: counting; the client starts its measured run. */
        GO,
        /** Client: the row is over; its result and warm-up iterations. */
        DONE,
        /** Server ({@code -b}): its own flow of the row is over; its result. */
        FLOW
    }

    /**
     * One message on the control connection of {@code rvt perf} between two processes ({@link PerfControl}): the
     * client and the server step through each row of the table together with these.
     *
     * @param step what it says
     * @param size the row's size
     * @param count MEASURE: the messages the client's warm-up sent (the server counts that many before GO); else 0
     * @param result the row (DONE, FLOW), or null
     */
    record Control(Step step, int size, long count, Result result) {
        /** The largest message: magic, step, size, count and a {@link Result}. */
        static final int MAX_BYTES = 17 + 96;

        /**
         * @param step what it says
         * @param size the row's size
         */
        Control(Step step, int size) {
            this(step, size, 0, null);
        }

        byte[] encode() {
            byte[] r = result == null ? new byte[0] : result.encode();
            return ByteBuffer.allocate(17 + r.length).putInt(CONTROL_MAGIC).put((byte) step.ordinal()).putInt(size)
                    .putLong(count).put(r).array();
        }

        /**
         * @param b a control message
         * @return it, or null if it is none
         */
        static Control decode(byte[] b) {
            ByteBuffer buf = open(b, CONTROL_MAGIC);
            if (buf == null || b.length < 17) {
                return null;
            }
            int step = buf.get();
            if (step < 0 || step >= Step.values().length) {
                return null;
            }
            int size = buf.getInt();
            long count = buf.getLong();
            byte[] rest = new byte[buf.remaining()];
            buf.get(rest);
            Result r = rest.length == 0 ? null : Result.decode(rest);
            return rest.length > 0 && r == null ? null : new Control(Step.values()[step], size, count, r);
        }
    }
}
