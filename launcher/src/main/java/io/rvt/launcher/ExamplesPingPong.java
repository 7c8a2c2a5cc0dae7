package io.rvt.launcher;

import io.rvt.api.AccessFlag;
import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
import io.rvt.api.MemoryRegion;
import io.rvt.api.PathMtu;
import io.rvt.api.PortAttr;
import io.rvt.api.PortCounter;
import io.rvt.api.ProtectionDomain;
import io.rvt.launcher.pingpong.CqEvents;
import io.rvt.launcher.pingpong.PingpongDest;
import io.rvt.launcher.pingpong.PingpongExchange;
import io.rvt.launcher.pingpong.PingpongLoop;
import io.rvt.launcher.pingpong.PingpongQp;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Locale;

/**
 * {@code rvt pingpong --server} and {@code rvt pingpong HOST} as {@code ibv_rc_pingpong}, {@code ibv_uc_pingpong}
 * and {@code ibv_ud_pingpong} are on the wire: the TCP exchange of LID:QPN:PSN:GID ({@link PingpongExchange}), the
 * examples' QP attributes ({@link PingpongQp}) and completion loop ({@link PingpongLoop}), their output lines. Either
 * side runs against an example or another rvt. Where rvt differs: a RoCE port (no LIDs) advertises GID 0 unless
 * {@code -g} says another (the examples advertise none without {@code -g}, and cannot connect on RoCE then), and every
 * message is checked, not only with {@code --chk}.
 */
final class ExamplesPingPong {
    /** How long a client's connect and each read of the exchange may take. */
    static final Duration EXCHANGE_PATIENCE = Duration.ofSeconds(30);
    /** How long a side waits for an rvt peer's end (an example's came at the exchange). */
    private static final Duration GOODBYE = Duration.ofSeconds(30);
    /** The examples' default path MTU ({@code IBV_MTU_1024}). */
    static final int DEFAULT_MTU = 1024;
    /** ibv_ud_pingpong's default message size. */
    static final int UD_DEFAULT_SIZE = 1024;
    /** The examples' default receive queue depth ({@code -r}). */
    static final int DEFAULT_RX_DEPTH = 500;
    private static final SecureRandom PSN_RANDOM = new SecureRandom();

    /**
     * One side's test.
     *
     * @param transport RC, UC or UD
     * @param size bytes per message
     * @param iters messages each way
     * @param rxDepth receives kept posted ({@code -r})
     * @param sl the service level ({@code -l})
     * @param chk the client zeroes page starts ({@code -c} alone, {@code --chk})
     * @param events sleep on CQ events ({@code -e})
     * @param tcpPort the exchange's TCP port ({@code -p})
     */
    record Params(Transport transport, int size, int iters, int rxDepth, int sl, boolean chk, boolean events,
            int tcpPort) {
    }

    private final PrintStream out;
    private final Params params;
    private final LinkOptions link;

    /**
     * @param out where the lines go
     * @param params the test
     * @param link the HCA port, path MTU ({@code -m}, 0: the examples' 1024), GID index ({@code -g}) and ACK timeout
     */
    ExamplesPingPong(PrintStream out, Params params, LinkOptions link) {
        this.out = out;
        this.params = params;
        this.link = link;
    }

    /**
     * Runs one side.
     *
     * @param host this process's host (one HCA)
     * @param server the server's address for a client, or null for the server
     * @param bind the server's listening address (the HCA's)
     */
    void run(Host host, InetAddress server, InetAddress bind) {
        run(host, Main.requireDevices(host, 1, "pingpong").get(0), server, bind);
    }

    /**
     * Runs one side on a given device.
     *
     * @param host the device's host
     * @param dev the device
     * @param server the server's address for a client, or null for the server
     * @param bind the server's listening address
     */
    void run(Host host, Device dev, InetAddress server, InetAddress bind) {
        link.check(dev);
        boolean ud = params.transport() == Transport.UD;
        int port = link.port();
        PortAttr attr = dev.queryPort(port, new PortAttr());
        if (ud && params.size() > attr.activeMtu().bytes()) {
            throw new UsageException("option --size: " + params.size() + " is larger than port " + port + "'s MTU ("
                    + attr.activeMtu().bytes() + "), the most a UD message carries");
        }
        // a RoCE port has no LIDs: without a GID the peer could not reach it (-g 0 unless given)
        int gidIndex = link.gidIndex() >= 0 ? link.gidIndex() : attr.lid() == 0 ? 0 : -1;
        PathMtu mtu = PathMtu.ofBytes(link.mtu() > 0 ? link.mtu() : DEFAULT_MTU);
        CqEvents events = params.events() ? new CqEvents(dev) : null;
        ProtectionDomain pd = dev.allocPd();
        CompletionQueue cq = null;
        MemoryRegion sendMr = null;
        MemoryRegion recvMr = null;
        try {
            cq = dev.createCq(params.rxDepth() + 1, 0, events != null ? events.channel() : null, null, null);
            int offset = ud ? PingpongLoop.GRH : 0;
            sendMr = pd.regMr(ByteBuffer.allocateDirect(params.size()), AccessFlag.LOCAL_WRITE.bit());
            recvMr = pd.regMr(ByteBuffer.allocateDirect(offset + params.size()), AccessFlag.LOCAL_WRITE.bit());
            try (PingpongQp qp = new PingpongQp(pd, cq, params.transport().qpType(), params.rxDepth(), port)) {
                run(host, dev, pd, cq, sendMr, recvMr, qp, attr, gidIndex, mtu, events, server, bind);
            }
        } finally {
            if (recvMr != null) {
                recvMr.deregMr();
            }
            if (sendMr != null) {
                sendMr.deregMr();
            }
            if (cq != null) {
                if (events != null) {
                    events.ack(cq);
                }
                cq.destroyCq();
            }
            if (events != null) {
                events.close();
            }
            pd.deallocPd();
        }
    }

    private void run(Host host, Device dev, ProtectionDomain pd, CompletionQueue cq, MemoryRegion sendMr,
            MemoryRegion recvMr, PingpongQp qp, PortAttr attr, int gidIndex, PathMtu mtu, CqEvents events,
            InetAddress server, InetAddress bind) {
        boolean ud = params.transport() == Transport.UD;
        PingpongLoop loop = new PingpongLoop(qp.qp(), cq, sendMr, recvMr, params.size(), params.rxDepth(), ud,
                host::progress, Completions.DEADLINE_NANOS).events(events).postReceives();
        PingpongDest mine = new PingpongDest(attr.lid(), qp.qp().qpNum(), PSN_RANDOM.nextInt(1 << 24),
                gidIndex < 0 ? io.rvt.api.Gid.ZERO : dev.queryGid(link.port(), gidIndex));
        // ibv_ud_pingpong's local line has a colon before the GID (ud_pingpong.c), its remote one a comma
        out.println("  local address:  " + mine.describe(ud ? ": " : ", "));
        PingpongQp.Path path = new PingpongQp.Path(mtu, params.sl(), gidIndex, link.qpTimeout(), attr.lid() != 0);
        try (PingpongExchange.Session session = server != null
                ? PingpongExchange.client(server, params.tcpPort(), mine, EXCHANGE_PATIENCE)
                : PingpongExchange.server(bind, params.tcpPort(), mine, RemotePingPong.SERVER_PATIENCE, () -> {
                    out.printf("rvt pingpong: waiting for a client on %s TCP port %d%n", bind.getHostAddress(),
                            params.tcpPort());
                    out.flush();
                }, r -> qp.connect(pd, mine.psn(), r, path))) {
            PingpongDest remote = session.remote();
            out.println("  remote address: " + remote.describe());
            if (server != null) {
                qp.connect(pd, mine.psn(), remote, path);
                loop.clientContent(params.chk());
            }
            if (ud) {
                loop.udTarget(qp.ah(), remote.qpn());
            }
            long[] counters = counters(dev, link.port());
            loop.timeoutDetail(() -> "port counters since the exchange: " + moved(dev, link.port(), counters));
            PortTraffic traffic = params.transport() == Transport.RC ? new PortTraffic(dev, dev, link.port(), host)
                    : null;
            long nanos = loop.run(params.iters(), server != null);
            printResults(host, nanos);
            if (traffic != null) {
                // what the loss cost this side: its resends, sequence NAKs and timeouts, its kernel's drops
                out.println(traffic.since());
            }
            // an rvt peer may still need an ACK of its last message: keep the QP until it is done too
            session.finish(GOODBYE);
        }
    }

    /** @return every port counter of {@code port} now, by {@link PortCounter#ordinal()} */
    static long[] counters(Device dev, int port) {
        PortCounter[] all = PortCounter.values();
        long[] v = new long[all.length];
        for (PortCounter c : all) {
            v[c.ordinal()] = dev.portCounter(port, c);
        }
        return v;
    }

    /** @return the counters that moved since {@code before}, e.g. {@code rx_packets +3, rx_malformed +1}, or "none" */
    static String moved(Device dev, int port, long[] before) {
        StringBuilder sb = new StringBuilder();
        long[] now = counters(dev, port);
        for (PortCounter c : PortCounter.values()) {
            long d = now[c.ordinal()] - before[c.ordinal()];
            if (d != 0) {
                sb.append(sb.length() == 0 ? "" : ", ").append(c.name().toLowerCase(Locale.ROOT)).append(" +")
                        .append(d);
            }
        }
        return sb.length() == 0 ? "none moved" : sb.toString();
    }

    private void printResults(Host host, long nanos) {
        double usec = nanos / 1e3;
        long bytes = 2L * params.size() * params.iters();
        out.printf(Locale.ROOT, "%d bytes in %.2f seconds = %.2f Mbit/sec%n", bytes, usec / 1e6, bytes * 8 / usec);
        out.printf(Locale.ROOT, "%d iters in %.2f seconds = %.2f usec/iter%n", params.iters(), usec / 1e6,
                usec / params.iters());
        out.printf("(%s; every message checked; measured on %s)%n", params.transport().name(), host.measuredOn());
    }

    /**
     * @param transport the transport
     * @return the examples' default message size: 4096, ibv_ud_pingpong's 1024
     */
    static int defaultSize(Transport transport) {
        return transport == Transport.UD ? UD_DEFAULT_SIZE : PingPongCommand.DEFAULT_SIZE;
    }
}
