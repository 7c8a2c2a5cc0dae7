package io.rvt.it.interop.tools;

import io.rvt.api.AccessFlag;
import io.rvt.api.CompletionQueue;
import io.rvt.api.MemoryRegion;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.cm.ConnectOptions;
import io.rvt.cm.Connection;
import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * rping's client ({@code rping_test_client}): per ping, fills the source buffer, advertises it, waits for the
 * server's go-ahead (it has RDMA READ the data), advertises the sink buffer (scribbled first, so that a byte the
 * server did not write shows), waits for the second go-ahead (it has RDMA WRITTEN the data back) and compares the
 * sink with the source, every byte.
 */
final class RpingClient {
    private final ToolContext ctx;
    private final CmSide side;
    private final int size;
    private final int count;

    RpingClient(ToolContext ctx, CmSide side, int size, int count) {
        this.ctx = ctx;
        this.side = side;
        this.size = size;
        this.count = count;
    }

    Map<String, String> ping(InetAddress server, int port) throws Exception {
        MemoryRegion recv = side.region(RpingData.INFO_SIZE, AccessFlag.LOCAL_WRITE.bit());
        MemoryRegion send = side.region(RpingData.INFO_SIZE, AccessFlag.LOCAL_WRITE.bit());
        MemoryRegion source = side.region(size, Rping.rdmaAccess());
        MemoryRegion sink = side.region(size, Rping.rdmaAccess());
        CompletionQueue cqs = side.eventCq(Rping.SQ_DEPTH * 2);
        CompletionWaiter cq = new CompletionWaiter(cqs, side.channel(), ctx);
        RecvWorkRequest rwr = new RecvWorkRequest(1).wrId(Rping.RECV).sge(recv, 0, RpingData.INFO_SIZE);
        SendWorkRequest adv = new SendWorkRequest(1).wrId(Rping.SEND).opcode(WrOpcode.SEND)
                .sge(send, 0, RpingData.INFO_SIZE);
        ConnectOptions to = new ConnectOptions().destination(server).port(port).qp(Rping.qp(ctx, side, cqs));
        try (Connection conn = side.cm().connectAsync(to)) {
            conn.qp().postRecv(rwr);
            conn.awaitEstablished(ctx.remaining());
            for (int ping = 0; ping < count; ping++) {
                RpingData.fillPing(source.buffer(), size, ping);
                RpingData.putInfo(send.buffer(), source.addr(), source.rkey(), size);
                conn.qp().postSend(adv);
                cq.await(Rping.SEND, "ping " + ping + "'s source advertisement");
                goAhead(cq, conn, rwr, "ping " + ping + "'s go-ahead after the RDMA READ");

                Messages.fill(sink.buffer(), 0, size, Messages.SCRIBBLE);
                RpingData.putInfo(send.buffer(), sink.addr(), sink.rkey(), size);
                conn.qp().postSend(adv);
                cq.await(Rping.SEND, "ping " + ping + "'s sink advertisement");
                goAhead(cq, conn, rwr, "ping " + ping + "'s go-ahead after the RDMA WRITE");
                Messages.check("ping " + ping + " as the server wrote it back", sink.buffer(), 0,
                        RpingData.ping(size, ping), 0, size);
            }
            conn.disconnect();
            CmWaits.disconnected(conn, ctx);
            Map<String, String> facts = new LinkedHashMap<>();
            facts.put("pings", Integer.toString(count));
            facts.put("size", Integer.toString(size));
            facts.put("bytes_checked", Long.toString((long) count * size));
            facts.put("mtu", Integer.toString(conn.pathMtu().bytes()));
            facts.put("cq_events", Long.toString(cq.events()));
            return facts;
        }
    }

    private static void goAhead(CompletionWaiter cq, Connection conn, RecvWorkRequest rwr, String what)
            throws ToolFailure {
        WorkCompletion wc = cq.await(Rping.RECV, what);
        Messages.checkLength(what, wc.byteLen(), RpingData.INFO_SIZE);
        conn.qp().postRecv(rwr);
    }
}
