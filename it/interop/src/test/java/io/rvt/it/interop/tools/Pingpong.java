package io.rvt.it.interop.tools;

import io.rvt.api.AccessFlag;
import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
import io.rvt.api.Gid;
import io.rvt.api.MemoryRegion;
import io.rvt.api.PathMtu;
import io.rvt.api.PortAttr;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.launcher.pingpong.PingpongDest;
import io.rvt.launcher.pingpong.PingpongExchange;
import io.rvt.launcher.pingpong.PingpongQp;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * rvt's ibv_rc_pingpong, ibv_uc_pingpong and ibv_ud_pingpong (libibverbs/examples): the server (no operand) or the
 * client ({@code <host>}) exchange {@link PingpongDest}s over TCP ({@link PingpongExchange}), connect their QPs as
 * the examples do ({@link PingpongQp}; the three are the launcher's, whose {@code rvt pingpong} speaks the same) and play {@code -n} (1000) rounds of ping-pong: the client SENDs {@code -s}
 * bytes (RC/UC 4096, UD 1024) and waits for its send's completion and the server's answer, the server answers each
 * message as it arrives. Options: {@code -p} TCP port (18515), {@code -i} HCA port (1), {@code -s}, {@code -m} path
 * MTU (1024; not UD), {@code -r} receives posted (500), {@code -n}, {@code -l} SL, {@code -g} GID index, {@code -c}
 * (the example's {@code --chk}: the client zeroes the first byte of each 4 KiB page), {@code -e} and {@code -d}
 * accepted (events, device: nothing on the wire).
 *
 * <p>What is checked: the examples send the buffer they receive into, so every message of a run carries the
 * client's buffer, 0x7b bytes (the examples' {@code memset}) and, with {@code -c}, zeros at the page starts; rvt
 * checks every byte of every message against that (a UD message after its 40-byte GRH area), having scribbled the
 * receive buffer before each receive.
 */
class Pingpong implements Tool {
    /** The examples' buffer fill. */
    static final byte FILL = 0x7b;
    /** The page size of the examples' {@code --chk} marks (x86's). */
    static final int PAGE = 4096;
    /** UD's GRH area in front of a received message. */
    static final int GRH = 40;
    /** wr_id of every receive ({@code PINGPONG_RECV_WRID}). */
    static final long RECV = 1;
    /** wr_id of every send ({@code PINGPONG_SEND_WRID}). */
    static final long SEND = 2;
    /** The examples' ACK timeout code (14: 67 ms). */
    static final int TIMEOUT = 14;

    private final String name;
    private final QpType type;

    /**
     * @param name the example's name
     * @param type its transport
     */
    Pingpong(String name, QpType type) {
        this.name = name;
        this.type = type;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String options() {
        return type == QpType.UD ? "p:d:i:s:r:n:l:eg:c" : "p:d:i:s:m:r:n:l:eg:c";
    }

    @Override
    public String role(ToolArgs args) {
        return args.operands().isEmpty() ? "server" : "client";
    }

    @Override
    public Map<String, String> run(ToolContext ctx, ToolArgs args) throws Exception {
        List<String> operands = args.operands();
        if (operands.size() > 1) {
            throw new IllegalArgumentException(name + ": one operand at most, the server's host: " + operands);
        }
        String server = operands.isEmpty() ? null : operands.get(0);
        int tcpPort = args.integer('p', PingpongExchange.PORT);
        int ibPort = args.integer('i', 1);
        int size = args.integer('s', type == QpType.UD ? 1024 : 4096);
        PathMtu mtu = PathMtu.ofBytes(args.integer('m', 1024));
        int rxDepth = args.integer('r', 500);
        int iters = args.integer('n', 1000);
        int sl = args.integer('l', 0);
        int gidIndex = args.integer('g', -1);
        boolean chk = args.has('c');
        Device device = ctx.device();
        if (type == QpType.UD) {
            int portMtu = device.queryPort(ibPort, new PortAttr()).activeMtu().bytes();
            if (size > portMtu) {
                throw new ToolFailure("Requested size larger than port MTU (" + portMtu + ")");
            }
        }
        ProtectionDomain pd = device.allocPd();
        CompletionQueue cqs = device.createCq(rxDepth + 1, 0, null, null);
        int recvLength = type == QpType.UD ? size + GRH : size;
        MemoryRegion recv = pd.regMr(ByteBuffer.allocateDirect(recvLength), AccessFlag.LOCAL_WRITE.bit());
        MemoryRegion send = pd.regMr(ByteBuffer.allocateDirect(size), AccessFlag.LOCAL_WRITE.bit());
        ByteBuffer message = content(size, chk);
        send.buffer().put(0, message, 0, size);
        try (PingpongQp qp = new PingpongQp(pd, cqs, type, rxDepth, ibPort)) {
            RecvWorkRequest rwr = new RecvWorkRequest(1).wrId(RECV).sge(recv, 0, recvLength);
            Messages.fill(recv.buffer(), 0, recvLength, Messages.SCRIBBLE);
            for (int i = 0; i < rxDepth; i++) {
                qp.qp().postRecv(rwr);
            }
            PortAttr port = device.queryPort(ibPort, new PortAttr());
            PingpongDest mine = new PingpongDest(port.lid(), qp.qp().qpNum(),
                    ThreadLocalRandom.current().nextInt(1 << 24),
                    gidIndex < 0 ? Gid.ZERO : device.queryGid(ibPort, gidIndex));
            ctx.say("  local address:  " + mine.describe());
            PingpongQp.Path path = new PingpongQp.Path(mtu, sl, gidIndex, ctx.options().ackTimeoutOr(TIMEOUT),
                    port.lid() != 0);
            PingpongDest remote;
            try (PingpongExchange.Session session = server != null
                    ? PingpongExchange.client(InetAddress.getByName(server), tcpPort, mine, ctx.remaining())
                    : PingpongExchange.server(null, tcpPort, mine, ctx.remaining(),
                            () -> ctx.listening("tcp-port " + tcpPort), r -> qp.connect(pd, mine.psn(), r, path))) {
                remote = session.remote();
            }
            ctx.say("  remote address: " + remote.describe());
            if (server != null) {
                qp.connect(pd, mine.psn(), remote, path);
            }
            SendWorkRequest swr = new SendWorkRequest(1).wrId(SEND).opcode(WrOpcode.SEND)
                    .sendFlags(SendFlag.SIGNALED.bit()).sge(send, 0, size);
            if (type == QpType.UD) {
                swr.ah(qp.ah()).remoteQpn(remote.qpn()).remoteQkey(PingpongQp.UD_QKEY);
            }
            CompletionWaiter cq = new CompletionWaiter(cqs, ctx);
            int offset = type == QpType.UD ? GRH : 0;
            long start = System.nanoTime();
            boolean lastAnswerUnacknowledged = false;
            for (int i = 0; i < iters; i++) {
                if (server != null) {
                    qp.qp().postSend(swr);
                    cq.await(SEND, "send " + i);
                }
                WorkCompletion wc = cq.await(RECV, "message " + i);
                Messages.checkLength("message " + i, wc.byteLen(), recvLength);
                Messages.check("message " + i, recv.buffer(), offset, message, 0, size);
                Messages.fill(recv.buffer(), 0, recvLength, Messages.SCRIBBLE);
                qp.qp().postRecv(rwr);
                if (server == null) {
                    qp.qp().postSend(swr);
                    if (i < iters - 1 || type != QpType.RC) {
                        cq.await(SEND, "answer " + i);
                    } else if (!cq.awaitLast(SEND, "the last answer")) {
                        // the client's success says it arrived; the client ended before its ACK got through
                        lastAnswerUnacknowledged = true;
                    }
                }
            }
            double usec = (System.nanoTime() - start) / 1e3;
            long bytes = (long) size * iters * 2;
            ctx.say(String.format(Locale.ROOT, "%d bytes in %.2f seconds = %.2f Mbit/sec", bytes, usec / 1e6,
                    bytes * 8 / usec));
            ctx.say(String.format(Locale.ROOT, "%d iters in %.2f seconds = %.2f usec/iter", iters, usec / 1e6,
                    usec / iters));
            Map<String, String> facts = new LinkedHashMap<>();
            facts.put("iters", Integer.toString(iters));
            facts.put("size", Integer.toString(size));
            facts.put("bytes_checked", Long.toString((long) size * iters));
            facts.put("remote_qpn", Integer.toString(remote.qpn()));
            if (lastAnswerUnacknowledged) {
                facts.put("last_answer_unacknowledged", "1");
            }
            facts.put("usec_per_iter", String.format(Locale.ROOT, "%.0f", usec / iters));
            return facts;
        } finally {
            send.deregMr();
            recv.deregMr();
            cqs.destroyCq();
            pd.deallocPd();
        }
    }

    /**
     * @param size the message size
     * @param chk the examples' {@code --chk}
     * @return what every message of a run carries
     */
    static ByteBuffer content(int size, boolean chk) {
        ByteBuffer b = ByteBuffer.allocate(size);
        Messages.fill(b, 0, size, FILL);
        if (chk) {
            for (int i = 0; i < size; i += PAGE) {
                b.put(i, (byte) 0);
            }
        }
        return b;
    }
}
