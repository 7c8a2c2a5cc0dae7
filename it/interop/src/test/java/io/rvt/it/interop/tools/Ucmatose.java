package io.rvt.it.interop.tools;

import io.rvt.api.AccessFlag;
import io.rvt.api.CompletionQueue;
import io.rvt.api.MemoryRegion;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.SharedReceiveQueue;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.cm.ConnectOptions;
import io.rvt.cm.ConnectRequest;
import io.rvt.cm.Connection;
import io.rvt.cm.Listener;
import io.rvt.cm.QpOptions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * rvt's {@code ucmatose} (librdmacm/examples/cmatose.c): {@code -c} connections (1) on CM port 7471 ({@code -p}),
 * each an RC QP with its own send and receive CQ, {@code -C} (10) receives of {@code -S} (100) bytes posted before
 * the connect or accept. Once every connection is established the server SENDs {@code -C} messages on each, waits
 * for their completions and for the client's {@code -C} messages, and disconnects them all; the client waits for the
 * server's messages, answers with as many, and waits for the server's disconnect. The REQ asks for one responder
 * resource and initiator, retry count 5; {@code -a} sets the ACK timeout ({@code RDMA_OPTION_ID_ACK_TIMEOUT}),
 * {@code -t} the traffic class, {@code -b} the bind address (this HCA's). cmatose sends uninitialised memory, so
 * only the messages' sizes can be checked. Usage: {@code Ucmatose [-s server] [-c n] [-C n] [-S n] --bind ADDR}.
 */
public final class Ucmatose implements Tool {
    /** cmatose's CM port. */
    static final int PORT = 7471;

    /**
     * @param args the command line
     */
    public static void main(String[] args) {
        ToolRunner.main(new Ucmatose(), args);
    }

    @Override
    public String name() {
        return "ucmatose";
    }

    @Override
    public String options() {
        return "s:b:f:P:c:C:S:t:p:a:m";
    }

    @Override
    public String role(ToolArgs args) {
        return args.has('s') ? "client" : "server";
    }

    /** cmatose's {@code -f gid} (AF_IB) and {@code -P ib} (RDMA_PS_IB) are refused: rvt-cm has neither. */
    @Override
    public void check(ToolArgs args) {
        CmSide.refuseAfIb(args);
        CmSide.refusePortSpace(args, "tcp", "the TCP port space (RDMA_PS_TCP)");
    }

    @Override
    public Map<String, String> run(ToolContext ctx, ToolArgs args) throws Exception {
        int connections = args.integer('c', 1);
        int count = args.integer('C', 10);
        int size = args.integer('S', 100);
        int port = args.integer('p', PORT);
        if (size == 0) {
            count = 0;
        }
        try (CmSide side = new CmSide(ctx.device())) {
            side.checkBindAddress(args.string('b', null));
            List<Node> nodes = new ArrayList<>();
            try {
                if (args.has('s')) {
                    connect(ctx, side, args, nodes, connections, count, size, port);
                } else {
                    accept(ctx, side, args, nodes, connections, count, size, port);
                }
                for (Node n : nodes) {
                    n.conn.awaitEstablished(ctx.remaining());
                }
                if (args.has('s')) {
                    for (Node n : nodes) {
                        n.receive(count, size);
                    }
                    for (Node n : nodes) {
                        n.send(count, size, () -> n.conn.disconnected().isDone());
                    }
                } else {
                    for (Node n : nodes) {
                        n.send(count, size, () -> false);
                    }
                    for (Node n : nodes) {
                        n.receive(count, size);
                    }
                    for (Node n : nodes) {
                        n.conn.disconnect();
                    }
                }
                for (Node n : nodes) {
                    CmWaits.disconnected(n.conn, ctx);
                }
            } finally {
                for (Node n : nodes) {
                    n.conn.close();
                }
            }
            Map<String, String> facts = new LinkedHashMap<>();
            facts.put("connections", Integer.toString(nodes.size()));
            facts.put("messages_each_way", Integer.toString(nodes.size() * count));
            facts.put("size", Integer.toString(size));
            return facts;
        }
    }

    private static void connect(ToolContext ctx, CmSide side, ToolArgs args, List<Node> nodes, int connections,
            int count, int size, int port) throws ToolFailure {
        ConnectOptions to = new ConnectOptions().destination(CmSide.address(args.string('s', null))).port(port);
        if (args.has('t')) {
            to.trafficClass(args.integer('t', 0));
        }
        for (int i = 0; i < connections; i++) {
            Node n = new Node(ctx, side, count, size);
            to.qp(n.qp(args, ctx).retryCount(5));
            n.conn = side.cm().connectAsync(to);
            nodes.add(n);
            n.postReceives(count, size, n.conn.qp()::postRecv);
        }
    }

    private static void accept(ToolContext ctx, CmSide side, ToolArgs args, List<Node> nodes, int connections,
            int count, int size, int port) throws ToolFailure {
        try (Listener listener = side.cm().listen(port)) {
            ctx.say("cmatose: starting server");
            ctx.listening("cm-port " + port);
            for (int i = 0; i < connections; i++) {
                ConnectRequest request = listener.accept(ctx.remaining());
                Node n = new Node(ctx, side, count, size);
                SharedReceiveQueue srq = side.srq(count);
                n.postReceives(count, size, srq::postSrqRecv); // before the accept, as cmatose (CmSide.srq)
                n.conn = request.acceptAsync(n.qp(args, ctx).srq(srq), null);
                nodes.add(n);
            }
        }
    }

    /** One connection: its CQs, its buffer and the work it posts. */
    private static final class Node {
        private final CmSide side;
        private final CompletionQueue sendCq;
        private final CompletionQueue recvCq;
        private final CompletionWaiter sends;
        private final CompletionWaiter recvs;
        private final MemoryRegion mem;
        private final int cqe;
        private Connection conn;

        Node(ToolContext ctx, CmSide side, int count, int size) {
            this.side = side;
            this.cqe = Math.max(count, 1);
            sendCq = side.cq(cqe);
            recvCq = side.cq(cqe);
            sends = new CompletionWaiter(sendCq, ctx);
            recvs = new CompletionWaiter(recvCq, ctx);
            mem = side.region(size, AccessFlag.LOCAL_WRITE.bit());
        }

        QpOptions qp(ToolArgs args, ToolContext ctx) {
            QpOptions q = new QpOptions().pd(side.pd()).sendCq(sendCq).recvCq(recvCq).responderResources(1)
                    .initiatorDepth(1).localAckTimeout(args.integer('a',
                            ctx.options().ackTimeoutOr(QpOptions.DEFAULT_LOCAL_ACK_TIMEOUT)));
            q.cap().maxSendWr(cqe).maxRecvWr(cqe);
            return q;
        }

        void postReceives(int count, int size, java.util.function.Consumer<RecvWorkRequest> post) {
            RecvWorkRequest r = new RecvWorkRequest(1).sge(mem, 0, size);
            for (int i = 0; i < count; i++) {
                post.accept(r.wrId(i));
            }
        }

        void receive(int count, int size) throws ToolFailure {
            for (int i = 0; i < count; i++) {
                WorkCompletion wc = recvs.await(i, "message " + i + " on connection " + conn.localCommId());
                Messages.checkLength("message " + i, wc.byteLen(), size);
            }
        }

        void send(int count, int size, java.util.function.BooleanSupplier ended) throws ToolFailure {
            SendWorkRequest s = new SendWorkRequest(1).opcode(WrOpcode.SEND).sge(mem, 0, size);
            for (int i = 0; i < count; i++) {
                conn.qp().postSend(s.wrId(i));
            }
            for (int i = 0; i < count; i++) {
                // the client's last answers: the server disconnects once they arrived, and a lost ACK is flushed
                sends.awaitOrEnd(i, "send " + i + " on connection " + conn.localCommId(), ended);
            }
        }
    }
}
