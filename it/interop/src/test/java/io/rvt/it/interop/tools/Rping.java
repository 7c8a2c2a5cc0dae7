package io.rvt.it.interop.tools;

import io.rvt.api.AccessFlag;
import io.rvt.api.CompletionQueue;
import io.rvt.cm.QpOptions;
import java.util.Map;

/**
 * rvt's {@code rping} (librdmacm/examples/rping.c), both roles: {@code -s} server or {@code -c} client, {@code -a}
 * the server's address, {@code -p} the CM port (7174), {@code -C} the ping count, {@code -S} the ping size (64;
 * 26..65535), {@code -v}/{@code -V}/{@code -d} accepted (rvt checks every byte always). Per ping the client SENDs
 * the advertisement of its source buffer ({@link RpingData}), the server RDMA READs it and SENDs a go-ahead, the
 * client advertises its sink buffer, the server RDMA WRITEs the data back and SENDs another go-ahead; the client
 * compares. The QPs: 16 sends, 2 receives (one posted, reposted after each), responder resources and initiator depth
 * 1, retry and RNR retry 7. rvt's client needs {@code -C} (rping's runs forever without it). rping's {@code -P}
 * (persistent server) and {@code -q} (a QP made outside the CM) change nothing on the wire and are not offered.
 * Each side waits on a completion channel, as rping's {@code cq_thread} ({@link CompletionWaiter}; {@code cq_events}
 * counts the events it took). Usage: {@code Rping -s|-c -a ADDR [-p port] [-C count] [-S size] --bind ADDR}.
 */
public final class Rping implements Tool {
    /** rping's CM port. */
    static final int PORT = 7174;
    /** rping's default size. */
    static final int SIZE = 64;
    /** wr_id of the one posted receive. */
    static final long RECV = 1;
    /** wr_id of the advertisement and go-ahead SENDs. */
    static final long SEND = 2;
    /** wr_id of the server's RDMA READ. */
    static final long READ = 3;
    /** wr_id of the server's RDMA WRITE. */
    static final long WRITE = 4;
    /** rping's send queue depth ({@code RPING_SQ_DEPTH}). */
    static final int SQ_DEPTH = 16;

    /**
     * @param args the command line
     */
    public static void main(String[] args) {
        ToolRunner.main(new Rping(), args);
    }

    @Override
    public String name() {
        return "rping";
    }

    @Override
    public String options() {
        return "a:p:C:S:scvVd";
    }

    @Override
    public String role(ToolArgs args) {
        return args.has('s') ? "server" : "client";
    }

    @Override
    public Map<String, String> run(ToolContext ctx, ToolArgs args) throws Exception {
        if (args.has('s') == args.has('c')) {
            throw new IllegalArgumentException("rping: give -s (server) or -c (client)");
        }
        int size = args.integer('S', SIZE);
        if (size < RpingData.MIN_SIZE || size > RpingData.MAX_SIZE) {
            throw new IllegalArgumentException("rping: invalid size " + size + " (valid range is "
                    + RpingData.MIN_SIZE + " to " + RpingData.MAX_SIZE + ")");
        }
        int count = args.integer('C', 0);
        if (count < 0) {
            throw new IllegalArgumentException("rping: invalid count " + count);
        }
        int port = args.integer('p', PORT);
        try (CmSide side = new CmSide(ctx.device())) {
            if (args.has('s')) {
                side.checkBindAddress(args.string('a', null));
                return new RpingServer(ctx, side, size, count).serve(port);
            }
            if (count == 0) {
                throw new IllegalArgumentException("rping: rvt's client needs -C (a count)");
            }
            String server = args.string('a', null);
            if (server == null) {
                throw new IllegalArgumentException("rping: the client needs -a (the server's address)");
            }
            return new RpingClient(ctx, side, size, count).ping(CmSide.address(server), port);
        }
    }

    /**
     * @param ctx the run
     * @param side the side's verbs objects
     * @param cq the one CQ of sends and receives
     * @return rping's QP: 16 sends, 2 receives, one read/atomic each way, retries 7
     */
    static QpOptions qp(ToolContext ctx, CmSide side, CompletionQueue cq) {
        QpOptions qp = new QpOptions().pd(side.pd()).cq(cq).responderResources(1).initiatorDepth(1).retryCount(7)
                .rnrRetryCount(7).localAckTimeout(ctx.options().ackTimeoutOr(QpOptions.DEFAULT_LOCAL_ACK_TIMEOUT));
        qp.cap().maxSendWr(SQ_DEPTH).maxRecvWr(2);
        return qp;
    }

    /** @return the access of rping's RDMA buffers */
    static int rdmaAccess() {
        return AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE);
    }
}
