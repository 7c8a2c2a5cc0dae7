package io.rvt.it.interop.tools;

import io.rvt.api.AccessFlag;
import io.rvt.api.CompletionQueue;
import io.rvt.api.MemoryRegion;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.SharedReceiveQueue;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.cm.ConnectRequest;
import io.rvt.cm.Connection;
import io.rvt.cm.Listener;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * rping's server ({@code rping_test_server}): takes the first connection and serves pings until the client
 * disconnects. Per ping: on the source advertisement it RDMA READs the client's buffer (its advertised size, at most
 * this side's {@code -S}) and checks every byte against ping {@code n}'s data, SENDs the go-ahead (16 zero bytes, as
 * rping's server sends its never-written buffer), on the sink advertisement RDMA WRITEs the data back
 * ({@code strlen + 1} bytes) and SENDs the second go-ahead. With {@code -C} the client must have pinged exactly that
 * often when it disconnects, and once it has, the server waits {@link #DREQ_PATIENCE} for the client's DREQ and then
 * ends without it: rping's client destroys its ID right after {@code rdma_disconnect}, which stops ib_cm sending the
 * DREQ again, so a lost DREQ leaves nothing on the wire that could tell this side (the result line's
 * {@code disconnect} says which: {@code dreq} or {@code unseen}).
 */
final class RpingServer {
    /** How long the server waits for the DREQ of a client that pinged its {@code -C} times. */
    static final java.time.Duration DREQ_PATIENCE = java.time.Duration.ofSeconds(30);

    private final ToolContext ctx;
    private final CmSide side;
    private final int size;
    private final int count;

    RpingServer(ToolContext ctx, CmSide side, int size, int count) {
        this.ctx = ctx;
        this.side = side;
        this.size = size;
        this.count = count;
    }

    Map<String, String> serve(int port) throws Exception {
        MemoryRegion recv = side.region(RpingData.INFO_SIZE, AccessFlag.LOCAL_WRITE.bit());
        MemoryRegion send = side.region(RpingData.INFO_SIZE, AccessFlag.LOCAL_WRITE.bit());
        MemoryRegion data = side.region(size, Rping.rdmaAccess());
        CompletionQueue cqs = side.eventCq(Rping.SQ_DEPTH * 2);
        CompletionWaiter cq = new CompletionWaiter(cqs, side.channel(), ctx);
        RecvWorkRequest rwr = new RecvWorkRequest(1).wrId(Rping.RECV).sge(recv, 0, RpingData.INFO_SIZE);
        SendWorkRequest goAhead = new SendWorkRequest(1).wrId(Rping.SEND).opcode(WrOpcode.SEND)
                .sge(send, 0, RpingData.INFO_SIZE);
        SendWorkRequest rdma = new SendWorkRequest(1);
        SharedReceiveQueue srq = side.srq(2);
        srq.postSrqRecv(rwr); // before the accept, as rping (see CmSide.srq)
        try (Listener listener = side.cm().listen(port)) {
            ctx.listening("cm-port " + port);
            ConnectRequest request = listener.accept(ctx.remaining());
            try (Connection conn = request.acceptAsync(Rping.qp(ctx, side, cqs).srq(srq), null)) {
                conn.awaitEstablished(ctx.remaining());
                int pings = 0;
                long checked = 0;
                int readLength = 0;
                boolean readNext = true;
                while (true) {
                    String what = readNext ? "ping " + pings + "'s source advertisement"
                            : "ping " + pings + "'s sink advertisement";
                    boolean done = readNext && count > 0 && pings == count;
                    long givenUp = System.nanoTime() + DREQ_PATIENCE.toNanos();
                    WorkCompletion wc = cq.awaitOrEnd(Rping.RECV, what, () -> conn.disconnected().isDone()
                            || done && System.nanoTime() - givenUp > 0);
                    if (wc == null) {
                        if (!readNext || (count > 0 && pings != count)) {
                            throw new ToolFailure("the client disconnected after " + pings + " pings"
                                    + (count > 0 ? ", expected " + count : "") + (readNext ? "" : ", in the middle of one"));
                        }
                        break;
                    }
                    Messages.checkLength(what, wc.byteLen(), RpingData.INFO_SIZE);
                    ByteBuffer info = recv.buffer();
                    long addr = RpingData.addr(info);
                    int rkey = RpingData.rkey(info);
                    int len = RpingData.size(info);
                    srq.postSrqRecv(rwr);
                    if (readNext) {
                        if (len < 1 || len > size) {
                            throw new ToolFailure(what + " names " + len + " bytes; this server's -S is " + size);
                        }
                        Messages.fill(data.buffer(), 0, size, Messages.SCRIBBLE);
                        conn.qp().postSend(rdma.wrId(Rping.READ).opcode(WrOpcode.RDMA_READ).sge(data, 0, len)
                                .remoteAddr(addr).rkey(rkey));
                        cq.await(Rping.READ, "ping " + pings + "'s RDMA READ");
                        Messages.check("ping " + pings + " as the server read it", data.buffer(), 0,
                                RpingData.ping(len, pings), 0, len);
                        readLength = len;
                    } else {
                        int wlen = stringLength(data.buffer(), readLength) + 1;
                        if (wlen > len) {
                            throw new ToolFailure(what + " names " + len + " bytes, fewer than the " + wlen
                                    + " to write back");
                        }
                        conn.qp().postSend(rdma.wrId(Rping.WRITE).opcode(WrOpcode.RDMA_WRITE).sge(data, 0, wlen)
                                .remoteAddr(addr).rkey(rkey));
                        cq.await(Rping.WRITE, "ping " + pings + "'s RDMA WRITE");
                        checked += readLength;
                    }
                    conn.qp().postSend(goAhead);
                    if (readNext) {
                        cq.await(Rping.SEND, "ping " + pings + "'s first go-ahead");
                    } else {
                        // the client disconnects once this go-ahead arrived: with its ACK lost, the DREQ flushes it
                        cq.awaitOrEnd(Rping.SEND, "ping " + pings + "'s second go-ahead",
                                () -> conn.disconnected().isDone());
                    }
                    if (!readNext) {
                        pings++;
                    }
                    readNext = !readNext;
                }
                Map<String, String> facts = new LinkedHashMap<>();
                facts.put("peer", CmSide.describe(request.remoteAddress()));
                facts.put("pings", Integer.toString(pings));
                facts.put("size", Integer.toString(readLength));
                facts.put("bytes_checked", Long.toString(checked));
                facts.put("mtu", Integer.toString(conn.pathMtu().bytes()));
                facts.put("cq_events", Long.toString(cq.events()));
                facts.put("disconnect", conn.disconnected().isDone() ? "dreq" : "unseen");
                return facts;
            }
        }
    }

    /** @return the length of the NUL-terminated string at the buffer's start, at most {@code max} */
    private static int stringLength(ByteBuffer b, int max) {
        for (int i = 0; i < max; i++) {
            if (b.get(i) == 0) {
                return i;
            }
        }
        return max;
    }
}
