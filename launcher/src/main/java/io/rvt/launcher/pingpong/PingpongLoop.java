package io.rvt.launcher.pingpong;

import io.rvt.api.AddressHandle;
import io.rvt.api.CompletionQueue;
import io.rvt.api.MemoryRegion;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import java.nio.ByteBuffer;
import java.util.Locale;

/**
 * The examples' completion loop ({@code parse_single_wc}): the client sends first; each side sends its next message
 * once its last send has completed and the next message has arrived, until both have sent and received {@code -n};
 * receives are reposted in a batch when one is left. Every message received is checked byte for byte against what
 * the examples send: their buffer's fill, 0x7b, with the page-start bytes zeroed by a client's {@code --chk}
 * ({@code -c}; a server takes the marks as the first message has them). The receive buffer is scribbled after each
 * check, so a message that left a byte unwritten is caught too. One CQ, one SGE, no allocation per message.
 */
public final class PingpongLoop {
    /** wr_id of every receive ({@code PINGPONG_RECV_WRID}). */
    public static final long RECV_WRID = 1;
    /** wr_id of every send ({@code PINGPONG_SEND_WRID}). */
    public static final long SEND_WRID = 2;
    /** The examples' buffer fill. */
    public static final byte FILL = 0x7b;
    /** The page size of {@code --chk}'s marks (x86's). */
    public static final int PAGE = 4096;
    /** UD's GRH area in front of a received message. */
    public static final int GRH = 40;
    private static final byte SCRIBBLE = (byte) 0xA5;

    private final QueuePair qp;
    private final CompletionQueue cq;
    private final MemoryRegion sendMr;
    private final MemoryRegion recvMr;
    private final int size;
    private final int offset;
    private final int rxDepth;
    private final Runnable progress;
    private final long patienceNanos;
    private final SendWorkRequest swr;
    private final RecvWorkRequest rwr;
    private final WorkCompletion wc = new WorkCompletion();
    private CqEvents events;
    /** Asked for a timeout's detail; null for none. */
    private java.util.function.Supplier<String> timeoutDetail;
    private boolean marks;
    private boolean marksKnown;

    /**
     * The loop of one side. The send buffer must hold {@code size} bytes, the receive buffer {@code size} (UD: 40
     * more, the GRH area first).
     *
     * @param qp the connected QP
     * @param cq its one CQ
     * @param sendMr the send buffer's region
     * @param recvMr the receive buffer's region
     * @param size bytes per message ({@code -s})
     * @param rxDepth receives kept posted ({@code -r})
     * @param ud whether the QP is UD (a GRH area before the payload)
     * @param progress run between empty polls (moves the network on, or spins)
     * @param patienceNanos the most one completion may take
     */
    public PingpongLoop(QueuePair qp, CompletionQueue cq, MemoryRegion sendMr, MemoryRegion recvMr, int size,
            int rxDepth, boolean ud, Runnable progress, long patienceNanos) {
        this.qp = qp;
        this.cq = cq;
        this.sendMr = sendMr;
        this.recvMr = recvMr;
        this.size = size;
        this.offset = ud ? GRH : 0;
        this.rxDepth = rxDepth;
        this.progress = progress;
        this.patienceNanos = patienceNanos;
        this.swr = new SendWorkRequest(1).wrId(SEND_WRID).opcode(WrOpcode.SEND).sendFlags(SendFlag.SIGNALED.bit())
                .sge(sendMr, 0, size);
        this.rwr = new RecvWorkRequest(1).wrId(RECV_WRID).sge(recvMr, 0, offset + size);
        scribble();
    }

    /**
     * UD: where the sends go.
     *
     * @param ah the address handle to the peer
     * @param remoteQpn the peer's QPN
     * @return this loop
     */
    public PingpongLoop udTarget(AddressHandle ah, int remoteQpn) {
        swr.ah(ah).remoteQpn(remoteQpn).remoteQkey(PingpongQp.UD_QKEY);
        return this;
    }

    /**
     * What a timeout's error adds after its own words (e.g. the port counters that moved since the exchange), asked
     * only then.
     *
     * @param detail says it, or returns null for nothing
     * @return this loop
     */
    public PingpongLoop timeoutDetail(java.util.function.Supplier<String> detail) {
        this.timeoutDetail = detail;
        return this;
    }

    /**
     * The examples' {@code -e}: sleep on completion events.
     *
     * @param handler the events whose channel the CQ was created on
     * @return this loop
     */
    public PingpongLoop events(CqEvents handler) {
        this.events = handler;
        return this;
    }

    /**
     * The client's content: fills the send buffer with the examples' data.
     *
     * @param chk zero the first byte of every page ({@code --chk})
     * @return this loop
     */
    public PingpongLoop clientContent(boolean chk) {
        this.marks = chk;
        this.marksKnown = true;
        fill(sendMr.buffer(), size, chk);
        return this;
    }

    /**
     * Posts the first {@code -r} receives, as the examples do before the exchange.
     *
     * @return this loop
     */
    public PingpongLoop postReceives() {
        for (int i = 0; i < rxDepth; i++) {
            qp.postRecv(rwr);
        }
        return this;
    }

    /**
     * @param b a buffer
     * @param size bytes of message
     * @param chk zero the page starts
     */
    static void fill(ByteBuffer b, int size, boolean chk) {
        for (int i = 0; i < size; i++) {
            b.put(i, chk && i % PAGE == 0 ? 0 : FILL);
        }
    }

    /**
     * Runs the loop ({@link #postReceives()} first).
     *
     * @param iters messages each way ({@code -n})
     * @param client whether this side sends first
     * @return the nanoseconds from the first post to the last completion
     * @throws IllegalStateException on a failed completion, a message unlike the examples', or a completion that
     *         does not come within the patience
     */
    public long run(int iters, boolean client) {
        long start = System.nanoTime();
        int routs = rxDepth;
        int pending = (int) RECV_WRID;
        if (client) {
            qp.postSend(swr);
            pending |= (int) SEND_WRID;
        }
        int rcnt = 0;
        int scnt = 0;
        while (rcnt < iters || scnt < iters) {
            take(scnt, rcnt, iters);
            if (wc.status() != WcStatus.SUCCESS) {
                throw new IllegalStateException(String.format(Locale.ROOT, "Failed status %s for wr_id %d (sent %d, "
                        + "received %d of %d)", wc.status(), wc.wrId(), scnt, rcnt, iters));
            }
            if (wc.wrId() == SEND_WRID) {
                scnt++;
            } else if (wc.wrId() == RECV_WRID) {
                check(rcnt);
                if (--routs <= 1) {
                    for (; routs < rxDepth; routs++) {
                        qp.postRecv(rwr);
                    }
                }
                rcnt++;
            } else {
                throw new IllegalStateException("Completion for unknown wr_id " + wc.wrId());
            }
            pending &= ~(int) wc.wrId();
            if (scnt < iters && pending == 0) {
                qp.postSend(swr);
                pending = (int) (RECV_WRID | SEND_WRID);
            }
        }
        return System.nanoTime() - start;
    }

    private void take(int scnt, int rcnt, int iters) {
        if (cq.pollCq(wc)) {
            return;
        }
        long deadline = System.nanoTime() + patienceNanos;
        while (!(events != null ? events.take(cq, wc, deadline, progress) : cq.pollCq(wc))) {
            if (System.nanoTime() - deadline > 0) {
                String detail = timeoutDetail != null ? timeoutDetail.get() : null;
                throw new IllegalStateException(String.format(Locale.ROOT, "no completion within %d s (sent %d, "
                        + "received %d of %d): is the peer still there?%s", patienceNanos / 1_000_000_000L, scnt, rcnt,
                        iters, detail != null ? " (" + detail + ")" : ""));
            }
            progress.run();
        }
    }

    private void check(int n) {
        if (wc.byteLen() != offset + size) {
            throw new IllegalStateException(String.format(Locale.ROOT, "message %d: %d bytes arrived, expected %d "
                    + "(-s %d on both sides?)", n, wc.byteLen() - offset, size, size));
        }
        ByteBuffer b = recvMr.buffer();
        if (!marksKnown) {
            // a server answers with what it got: whether the client zeroed its page starts (--chk) shows at byte 0
            marks = size > 0 && b.get(offset) == 0;
            marksKnown = true;
            fill(sendMr.buffer(), size, marks);
        }
        for (int i = 0; i < size; i++) {
            byte expected = marks && i % PAGE == 0 ? 0 : FILL;
            byte got = b.get(offset + i);
            if (got != expected) {
                throw new IllegalStateException(String.format(Locale.ROOT, "data corruption: message %d, byte %d of %d "
                        + "is 0x%02x, the examples send 0x%02x", n, i, size, got & 0xFF, expected & 0xFF));
            }
        }
        scribble();
    }

    private void scribble() {
        ByteBuffer b = recvMr.buffer();
        for (int i = 0; i < offset + size; i++) {
            b.put(i, SCRIBBLE);
        }
    }
}
