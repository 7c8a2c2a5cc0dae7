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
import io.rvt.cm.QpOptions;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * rvt's {@code rdma_client} (librdmacm/examples/rdma_client.c): connects to {@code -s} (default 127.0.0.1) on CM
 * port 7471 ({@code -p}) with a QP of one send and one receive, the 16-byte receive posted before the connect;
 * sends 16 bytes, waits for the send and then for the server's 16 bytes, and disconnects. Both messages are 16 zero
 * bytes (the examples' static buffers). Usage: {@code RdmaClient -s server [-p port] --bind ADDR}.
 */
public final class RdmaClient implements Tool {
    /**
     * @param args the command line
     */
    public static void main(String[] args) {
        ToolRunner.main(new RdmaClient(), args);
    }

    @Override
    public String name() {
        return "rdma_client";
    }

    @Override
    public String options() {
        return "s:p:";
    }

    @Override
    public String role(ToolArgs args) {
        return "client";
    }

    @Override
    public Map<String, String> run(ToolContext ctx, ToolArgs args) throws Exception {
        int size = RdmaServer.SIZE;
        try (CmSide side = new CmSide(ctx.device())) {
            MemoryRegion recv = side.region(size, AccessFlag.LOCAL_WRITE.bit());
            MemoryRegion send = side.region(size, AccessFlag.LOCAL_WRITE.bit());
            Messages.fill(recv.buffer(), 0, size, Messages.SCRIBBLE);
            CompletionQueue cqs = side.cq(4);
            CompletionWaiter cq = new CompletionWaiter(cqs, ctx);
            QpOptions qp = new QpOptions().pd(side.pd()).cq(cqs).localAckTimeout(
                    ctx.options().ackTimeoutOr(QpOptions.DEFAULT_LOCAL_ACK_TIMEOUT));
            qp.cap().maxSendWr(1).maxRecvWr(1);
            ctx.say("rdma_client: start");
            ConnectOptions to = new ConnectOptions().destination(CmSide.address(args.string('s', "127.0.0.1")))
                    .port(args.integer('p', RdmaServer.PORT)).qp(qp);
            try (Connection conn = side.cm().connectAsync(to)) {
                conn.qp().postRecv(new RecvWorkRequest(1).wrId(1).sge(recv, 0, size));
                conn.awaitEstablished(ctx.remaining());
                conn.qp().postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.SEND).sge(send, 0, size));
                cq.await(2, "the message");
                WorkCompletion got = cq.await(1, "the server's answer");
                Messages.checkLength("the server's answer", got.byteLen(), size);
                Messages.checkAll("the server's answer", recv.buffer(), 0, size, (byte) 0);
                conn.disconnect();
                CmWaits.disconnected(conn, ctx);
                Map<String, String> facts = new LinkedHashMap<>();
                facts.put("sent", "1");
                facts.put("received", "1");
                facts.put("mtu", Integer.toString(conn.pathMtu().bytes()));
                return facts;
            }
        }
    }
}
