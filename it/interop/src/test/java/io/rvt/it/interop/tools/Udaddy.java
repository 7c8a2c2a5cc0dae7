package io.rvt.it.interop.tools;

import io.rvt.api.AccessFlag;
import io.rvt.api.AddressHandle;
import io.rvt.api.AhAttr;
import io.rvt.api.CompletionQueue;
import io.rvt.api.Gid;
import io.rvt.api.MemoryRegion;
import io.rvt.api.PortAttr;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.SigType;
import io.rvt.api.WcFlag;
import io.rvt.api.WcOpcode;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.cm.ConnectOptions;
import io.rvt.cm.ConnectionManager;
import io.rvt.cm.DatagramPeer;
import io.rvt.cm.Listener;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * rvt's {@code udaddy} (librdmacm/examples/udaddy.c): UD through SIDR in rdma_cm's UDP port space, CM port 7174.
 * The client resolves the server's UD QP ({@code -c} times, one UD QP each), posts {@code -C} (10) receives of
 * {@code -S} (100) bytes plus the 40-byte GRH area first, then SENDs {@code -C} messages with immediate data (its
 * own QPN, big-endian: the server answers to it) unsignaled, and waits for as many answers. The server answers every
 * SIDR_REQ with its UD QP (Q_Key {@link ConnectionManager#RDMA_UDP_QKEY}, as rdma_cm sets it), waits for the
 * messages, builds the address of each sender from the message's GRH area and its immediate data (as
 * {@code ibv_create_ah_from_wc}), and sends back as many, signaled. udaddy sends uninitialised memory, so rvt checks
 * each message's length (the GRH area and {@code -S} bytes), that it carries a GRH and that its immediate data is the
 * sending QP's number. rvt's server serves all {@code -c} clients from one UD QP (rdma_cm makes one per request).
 * Usage: {@code Udaddy [-s server] [-b bind] [-c n] [-C n] [-S n] --bind ADDR}.
 */
public final class Udaddy implements Tool {
    /** udaddy's CM port (rdma_cm's UDP port space). */
    static final int PORT = 7174;
    private static final int GRH = 40;
    /** wr_id of the sends (the receives' are their slots). */
    private static final long SEND = -1;

    /**
     * @param args the command line
     */
    public static void main(String[] args) {
        ToolRunner.main(new Udaddy(), args);
    }

    @Override
    public String name() {
        return "udaddy";
    }

    @Override
    public String options() {
        return "s:b:c:C:S:t:P:f:";
    }

    @Override
    public String role(ToolArgs args) {
        return args.has('s') ? "client" : "server";
    }

    /** udaddy's {@code -f gid} (AF_IB) and {@code -P ipoib} (RDMA_PS_IPOIB) are refused: rvt-cm has neither. */
    @Override
    public void check(ToolArgs args) {
        CmSide.refuseAfIb(args);
        CmSide.refusePortSpace(args, "udp", "the UDP port space (RDMA_PS_UDP)");
    }

    @Override
    public Map<String, String> run(ToolContext ctx, ToolArgs args) throws Exception {
        int connections = args.integer('c', 1);
        int count = args.integer('C', 10);
        int size = args.integer('S', 100);
        int mtu = ctx.device().queryPort(1, new PortAttr()).activeMtu().bytes();
        if (count > 0 && size > mtu) {
            throw new ToolFailure("udaddy: message_size " + size + " is larger than active mtu " + mtu);
        }
        try (CmSide side = new CmSide(ctx.device())) {
            side.checkBindAddress(args.string('b', null));
            Map<String, String> facts = args.has('s')
                    ? client(ctx, side, CmSide.address(args.string('s', null)), connections, count, size)
                    : server(ctx, side, connections, count, size);
            facts.put("size", Integer.toString(size));
            return facts;
        }
    }

    private static Map<String, String> client(ToolContext ctx, CmSide side, java.net.InetAddress server,
            int connections, int count, int size) throws Exception {
        List<Node> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < connections; i++) {
                Node n = new Node(ctx, side, count, size, count);
                n.postReceives(count, size);
                nodes.add(n);
            }
            for (Node n : nodes) {
                DatagramPeer peer = side.cm().resolveDatagramAsync(new ConnectOptions().destination(server)
                        .port(PORT)).get(ctx.remaining().toMillis(), TimeUnit.MILLISECONDS);
                n.ah = side.pd().createAh(peer.address(new AhAttr(), 1));
                n.remoteQpn = peer.qpn();
                n.remoteQkey = peer.qkey();
                n.remoteGid = peer.gid();
            }
            for (Node n : nodes) {
                n.send(count, size, false);
            }
            for (Node n : nodes) {
                n.receive(count, size, n.remoteQpn, n.remoteGid);
            }
        } finally {
            for (Node n : nodes) {
                n.close();
            }
        }
        Map<String, String> facts = new LinkedHashMap<>();
        facts.put("connections", Integer.toString(connections));
        facts.put("messages_each_way", Integer.toString(connections * count));
        return facts;
    }

    private static Map<String, String> server(ToolContext ctx, CmSide side, int connections, int count, int size)
            throws Exception {
        int total = connections * count;
        Node n = new Node(ctx, side, Math.max(total, 1), size, count);
        try (Listener l = side.cm().listenDatagram(PORT, n.qp, null)) {
            n.postReceives(total, size);
            ctx.say("udaddy: starting server");
            ctx.listening("cm-port " + PORT);
            // the senders, by QPN, in the order their first message came, and how many each sent
            Map<Integer, Integer> senders = new LinkedHashMap<>();
            Map<Integer, Gid> from = new LinkedHashMap<>();
            for (int i = 0; i < total; i++) {
                WorkCompletion wc = n.receiveOne(i, "message " + i, size);
                senders.merge(wc.srcQp(), 1, Integer::sum);
                from.putIfAbsent(wc.srcQp(), n.sourceGid(i, size));
            }
            if (senders.size() != connections || senders.values().stream().anyMatch(c -> c != count)) {
                throw new ToolFailure("expected " + count + " messages from each of " + connections + " QPs, got "
                        + senders);
            }
            for (Map.Entry<Integer, Integer> s : senders.entrySet()) {
                n.ah = side.pd().createAh(new AhAttr().portNum(1).global(true).dgid(from.get(s.getKey()))
                        .hopLimit(64));
                n.remoteQpn = s.getKey();
                n.remoteQkey = ConnectionManager.RDMA_UDP_QKEY;
                n.send(count, size, true);
                n.ah.destroyAh();
                n.ah = null;
            }
        } finally {
            n.close();
        }
        Map<String, String> facts = new LinkedHashMap<>();
        facts.put("connections", Integer.toString(connections));
        facts.put("messages_each_way", Integer.toString(total));
        return facts;
    }

    /** One UD QP with its CQ, buffer and peer. */
    private static final class Node {
        private final CmSide side;
        private final CompletionWaiter cq;
        private final QueuePair qp;
        private final MemoryRegion mem;
        private AddressHandle ah;
        private int remoteQpn;
        private int remoteQkey;
        private Gid remoteGid;

        Node(ToolContext ctx, CmSide side, int depth, int size, int count) {
            this.side = side;
            int d = Math.max(depth, 1);
            CompletionQueue c = side.cq(d * 2);
            cq = new CompletionWaiter(c, ctx);
            QpInitAttr init = new QpInitAttr().qpType(QpType.UD).sendCq(c).recvCq(c).sigType(SigType.SIGNAL_REQ_WR);
            init.cap().maxSendWr(Math.max(count, 1)).maxRecvWr(d).maxSendSge(1).maxRecvSge(1);
            qp = side.pd().createQp(init);
            qp.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1)
                    .qkey(ConnectionManager.RDMA_UDP_QKEY), QpAttrMask.mask(QpAttrMask.STATE,
                            QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.QKEY));
            qp.modifyQp(new QpAttr().qpState(QpState.RTR), QpAttrMask.STATE.bit());
            qp.modifyQp(new QpAttr().qpState(QpState.RTS).sqPsn(0), QpAttrMask.mask(QpAttrMask.STATE,
                    QpAttrMask.SQ_PSN));
            mem = side.region(d * (size + GRH), AccessFlag.LOCAL_WRITE.bit());
        }

        /** Posts {@code n} receives, each into a slot of its own (wr_id = slot), its GRH area scribbled. */
        void postReceives(int n, int size) {
            int slot = size + GRH;
            for (int i = 0; i < n; i++) {
                Messages.fill(mem.buffer(), i * slot, GRH, Messages.SCRIBBLE);
                qp.postRecv(new RecvWorkRequest(1).wrId(i).sge(mem, i * slot, slot));
            }
        }

        /** @return the sender's GID from the GRH area of receive {@code i} (bytes 8..23: the source GID) */
        Gid sourceGid(int i, int size) {
            return Gid.read(mem.buffer(), i * (size + GRH) + 8);
        }

        WorkCompletion receiveOne(int i, String what, int size) throws ToolFailure {
            WorkCompletion wc = cq.await(i, what);
            Messages.checkLength(what, wc.byteLen(), size + GRH);
            if (!WcFlag.GRH.in(wc.wcFlags()) || !WcFlag.WITH_IMM.in(wc.wcFlags())
                    || wc.opcode() != WcOpcode.RECV) {
                throw new ToolFailure(what + ": not a SEND with immediate data and a GRH: " + wc);
            }
            if (wc.immData() != wc.srcQp()) {
                throw new ToolFailure(what + ": immediate data 0x" + Integer.toHexString(wc.immData())
                        + " is not the sending QP's number 0x" + Integer.toHexString(wc.srcQp()));
            }
            return wc;
        }

        void receive(int count, int size, int fromQpn, Gid fromGid) throws ToolFailure {
            for (int i = 0; i < count; i++) {
                WorkCompletion wc = receiveOne(i, "answer " + i, size);
                if (wc.srcQp() != fromQpn || !sourceGid(i, size).equals(fromGid)) {
                    throw new ToolFailure("answer " + i + " came from QP 0x" + Integer.toHexString(wc.srcQp())
                            + " GID " + sourceGid(i, size) + ", not the resolved 0x" + Integer.toHexString(fromQpn)
                            + " " + fromGid);
                }
            }
        }

        void send(int count, int size, boolean signaled) throws ToolFailure {
            SendWorkRequest s = new SendWorkRequest(1).wrId(SEND).opcode(WrOpcode.SEND_WITH_IMM).immData(qp.qpNum())
                    .sendFlags(signaled ? SendFlag.SIGNALED.bit() : 0).sge(mem, GRH, size).ah(ah)
                    .remoteQpn(remoteQpn).remoteQkey(remoteQkey);
            for (int i = 0; i < count; i++) {
                qp.postSend(s);
                if (signaled) {
                    cq.await(SEND, "send " + i);
                }
            }
        }

        void close() {
            qp.destroyQp();
            if (ah != null) {
                ah.destroyAh();
            }
        }
    }
}
