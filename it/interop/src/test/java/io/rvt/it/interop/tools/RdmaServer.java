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
import io.rvt.cm.QpOptions;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * rvt's {@code rdma_server} (librdmacm/examples/rdma_server.c): listens on CM port 7471 ({@code -p}), takes the
 * first connection with a QP of one send and one receive, a receive of 16 bytes posted before the accept; waits
 * for the client's 16-byte message, answers with 16 bytes of its own, and disconnects. The example's buffers are
 * static arrays it never writes, so both messages are 16 zero bytes: that is what is checked here and sent.
 * Usage: {@code RdmaServer [-s bind_address] [-p port] --bind ADDR}.
 */
public final class RdmaServer implements Tool {
    /** rdma_server's and rdma_client's port. */
    static final int PORT = 7471;
    /** Their message size. */
    static final int SIZE = 16;

    /**
     * @param args the command line
     */
    public static void main(String[] args) {
        ToolRunner.main(new RdmaServer(), args);
    }

    @Override
    public String name() {
        return "rdma_server";
    }

    @Override
    public String options() {
        return "s:p:";
    }

    @Override
    public String role(ToolArgs args) {
        return "server";
    }

    @Override
    public Map<String, String> run(ToolContext ctx, ToolArgs args) throws Exception {
        int port = args.integer('p', PORT);
        try (CmSide side = new CmSide(ctx.device())) {
            side.checkBindAddress(args.string('s', null));
            MemoryRegion recv = side.region(SIZE, AccessFlag.LOCAL_WRITE.bit());
            MemoryRegion send = side.region(SIZE, AccessFlag.LOCAL_WRITE.bit());
            Messages.fill(recv.buffer(), 0, SIZE, Messages.SCRIBBLE);
            CompletionQueue cqs = side.cq(4);
            CompletionWaiter cq = new CompletionWaiter(cqs, ctx);
            SharedReceiveQueue srq = side.srq(1);
            srq.postSrqRecv(new RecvWorkRequest(1).wrId(1).sge(recv, 0, SIZE)); // before the accept, as the example
            QpOptions qp = new QpOptions().pd(side.pd()).cq(cqs).srq(srq);
            qp.cap().maxSendWr(1).maxRecvWr(1);
            try (Listener listener = side.cm().listen(port)) {
                ctx.say("rdma_server: start");
                ctx.listening("cm-port " + port);
                ConnectRequest request = listener.accept(ctx.remaining());
                try (Connection conn = request.acceptAsync(qp, null)) {
                    conn.awaitEstablished(ctx.remaining());
                    WorkCompletion got = cq.await(1, "the client's message");
                    Messages.checkLength("the client's message", got.byteLen(), SIZE);
                    Messages.checkAll("the client's message", recv.buffer(), 0, SIZE, (byte) 0);
                    conn.qp().postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.SEND).sge(send, 0, SIZE));
                    // the client disconnects once the answer arrived: with its ACK lost, the DREQ flushes it
                    cq.awaitOrEnd(2, "the answer", () -> conn.disconnected().isDone());
                    conn.disconnect();
                    CmWaits.disconnected(conn, ctx);
                    Map<String, String> facts = new LinkedHashMap<>();
                    facts.put("peer", CmSide.describe(request.remoteAddress()));
                    facts.put("received", "1");
                    facts.put("sent", "1");
                    return facts;
                }
            }
        }
    }
}
