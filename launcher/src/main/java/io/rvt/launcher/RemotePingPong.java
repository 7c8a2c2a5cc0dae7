package io.rvt.launcher;

import io.rvt.api.Device;
import io.rvt.api.PortCounter;
import io.rvt.api.SigType;
import io.rvt.cm.CmException;
import io.rvt.cm.Connection;
import io.rvt.cm.Listener;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * {@code rvt pingpong --server} and {@code rvt pingpong HOST}: ibv_rc_pingpong's two processes, connected through
 * rvt-cm. The client's REQ carries the test ({@link Params}: transport, size, iterations, warm-up) in its private
 * data; the server takes it, refusing (a REJ with the reason as private data) values that contradict its own command
 * line; both then run the same iterations, check every message they receive byte for byte, and print
 * ibv_rc_pingpong's address lines and results. The server disconnects once its last pong has completed, and the
 * client waits for that: an RC send completes only when the peer has acknowledged it, so the side that ends the
 * connection must be the one whose last send completes last (a client that left first, its QP in ERR, could no longer
 * acknowledge a retransmitted last pong whose first ACK was lost, and the server's pong would fail). The client's
 * last ping may itself wait for a lost ACK when that disconnect comes: its pong shows it arrived, so its flush is
 * accepted ({@link PingPongSide#awaitAnsweredSend()}).
 */
final class RemotePingPong {
    /** How long a server waits for its client. */
    static final Duration SERVER_PATIENCE = Duration.ofSeconds(300);
    /** How long a client waits for the server's disconnect after the last pong. */
    private static final Duration GOODBYE = Duration.ofSeconds(30);

    /** How long a server waits for the DREP of its disconnect before it ends anyway. */
    private static final Duration DREP_PATIENCE = Duration.ofSeconds(5);

    private final PrintStream out;
    private final Params params;
    private final LinkOptions link;
    private final int cmPort;

    /**
     * What a client asks its server to run, as the REQ's private data: {@code "rvtP"}, then the transport's ordinal,
     * the message size, the measured iterations and the warm-up iterations (big-endian), and the client's ACK timeout
     * code ({@code -u}: the REQ's local ACK timeout gives it to both QPs; a server started with another refuses).
     *
     * @param transport RC or UC
     * @param size bytes per message
     * @param iters measured round trips
     * @param warmUp unmeasured round trips before them
     * @param qpTimeout the client's local ACK timeout code
     */
    record Params(Transport transport, int size, int iters, int warmUp, int qpTimeout) {
        private static final int MAGIC = 0x72767450; // "rvtP"

        Params(Transport transport, int size, int iters, int warmUp) {
            this(transport, size, iters, warmUp, LinkOptions.DEFAULT_QP_TIMEOUT);
        }

        byte[] encode() {
            return ByteBuffer.allocate(18).putInt(MAGIC).put((byte) transport.ordinal()).putInt(size).putInt(iters)
                    .putInt(warmUp).put((byte) qpTimeout).array();
        }

        static Params decode(byte[] b) {
            ByteBuffer buf = ByteBuffer.wrap(b);
            if (b.length < 18 || buf.getInt() != MAGIC) {
                return null;
            }
            int t = buf.get();
            if (t < 0 || t >= Transport.values().length) {
                return null;
            }
            Params p = new Params(Transport.values()[t], buf.getInt(), buf.getInt(), buf.getInt(), buf.get());
            return p.qpTimeout < 0 || p.qpTimeout > LinkOptions.MAX_QP_TIMEOUT ? null : p;
        }
    }

    /**
     * @param out where the results go
     * @param params this side's transport, size and iterations (the server's are checked against the client's)
     * @param link the port, path MTU and GID index
     * @param cmPort the CM port
     */
    RemotePingPong(PrintStream out, Params params, LinkOptions link, int cmPort) {
        this.out = out;
        this.params = params;
        this.link = link;
        this.cmPort = cmPort;
    }

    /**
     * Connects to the server and runs the ping side.
     *
     * @param host this process's host (one HCA)
     * @param server the server's address
     */
    void client(Host host, InetAddress server) {
        Device dev = Main.requireDevices(host, 1, "pingpong").get(0);
        link.check(dev);
        try (Endpoint e = new Endpoint(dev, params.size(), 16, link);
                Connector connector = new Connector(host)) {
            Connection c;
            try {
                c = connector.connect(e, qpOptions(e), server, cmPort, params.encode());
            } catch (CmException x) {
                throw new IllegalStateException(refusal(x, server, cmPort), x);
            }
            PingPongSide side = new PingPongSide(host, e, c.qp(), params.transport(), params.size(), null, 0, 0);
            printAddresses(e, c);
            long start = 0;
            int warm = params.warmUp();
            int total = warm + params.iters();
            WarmUp.Settling settling = WarmUp.Settling.start();
            long timeouts = dev.portCounter(link.port(), PortCounter.RC_TIMEOUTS);
            for (int i = 0; i < total; i++) {
                if (i < warm && (settling.tick() || (i & 15) == 0 && settling.elapsedNanos() >= WarmUp.MAX_NANOS
                        && dev.portCounter(link.port(), PortCounter.RC_TIMEOUTS) > timeouts)
                        && DataPattern.distinguishable(2L * i, 2L * warm, params.size())) {
                    // Warm (or out of time on a lossy path, where every lost packet costs an RC timeout): the next
                    // ping is the first measured one, and its stamp tells the server so.
                    i = warm;
                }
                if (i == warm) {
                    start = System.nanoTime();
                }
                side.postReceive();
                side.send(2L * i);
                side.awaitReceive(2L * i + 1, i, "pong");
                if (i + 1 < total) {
                    side.awaitSend();
                } else {
                    // the last pong has come, so the last ping did arrive; its ACK may have been lost, and the
                    // server, done, disconnects: that flush is no failure
                    side.awaitAnsweredSend();
                }
            }
            printResults(host, System.nanoTime() - start);
            // the server's last pong completes when this side acknowledges it: stay connected until it says so
            connector.await(c.disconnected(), "the server's disconnect", GOODBYE);
        }
    }

    /**
     * Listens, takes one client and runs the pong side.
     *
     * @param host this process's host (one HCA)
     * @param given the options on this side's command line (the ones it must agree on with the client)
     */
    void server(Host host, Set<String> given) {
        Device dev = Main.requireDevices(host, 1, "pingpong").get(0);
        link.check(dev);
        try (Connector connector = new Connector(host)) {
            Listener l = connector.listen(dev, cmPort);
            out.printf("rvt pingpong: waiting for a client on %s port %d%n", dev.name(), cmPort);
            // a request this server will not serve is refused, and it waits on
            io.rvt.cm.ConnectRequest req = new ClientWait(connector, l, out, "pingpong").next("a client",
                    SERVER_PATIENCE, r -> {
                        Params p = Params.decode(r.privateData());
                        return p == null ? "the request is not an rvt pingpong's" : conflict(p, given);
                    });
            Params asked = Params.decode(req.privateData());
            try (Endpoint e = new Endpoint(dev, asked.size(), 16, link)) {
                PingPongSide[] side = new PingPongSide[1];
                Connection c = connector.accept(e, req, qpOptions(e), null, qp -> {
                    // the first ping may come as soon as the REP is out: its receive must be there
                    side[0] = new PingPongSide(host, e, qp, asked.transport(), asked.size(), null, 0, 0);
                    side[0].postReceive();
                });
                printAddresses(e, c);
                long start = 0;
                int warm = asked.warmUp();
                int total = warm + asked.iters();
                for (int i = 0; i < total; i++) {
                    if (i == warm) {
                        start = System.nanoTime();
                    }
                    // A client whose warm-up ran out of time sends the first measured ping's stamp early.
                    if (side[0].awaitReceive(2L * i, i < warm ? 2L * warm : -1, i, "ping")) {
                        i = warm;
                        start = System.nanoTime();
                    }
                    if (i + 1 < total) {
                        side[0].postReceive();
                    }
                    side[0].send(2L * i + 1);
                    side[0].awaitSend();
                }
                new RemotePingPong(out, asked, link, cmPort).printResults(host, System.nanoTime() - start);
                c.disconnect();
                // the DREP, if it comes: a lost one leaves the client done and gone, which is not an error here
                c.disconnected().completeOnTimeout(null, DREP_PATIENCE.toMillis(), TimeUnit.MILLISECONDS).join();
            }
        }
    }

    private io.rvt.cm.QpOptions qpOptions(Endpoint e) {
        return e.qpOptions(params.transport().qpType(), PingPong.DEPTH, PingPong.DEPTH, SigType.SIGNAL_ALL_WR);
    }

    /** @return why the server refuses the client's request, or null if it agrees with this side's options */
    private String conflict(Params asked, Set<String> given) {
        String timeout = LinkOptions.timeoutConflict(asked.qpTimeout(), link, given.contains("--qp-timeout"));
        if (timeout != null) {
            return timeout;
        }
        if (given.contains("--transport") && asked.transport() != params.transport()) {
            return "the client asks for " + asked.transport() + ", the server was started with -c "
                    + params.transport();
        }
        if (given.contains("--size") && asked.size() != params.size()) {
            return "the client asks for -s " + asked.size() + ", the server was started with -s " + params.size();
        }
        if (given.contains("--iters") && asked.iters() != params.iters()) {
            return "the client asks for -n " + asked.iters() + ", the server was started with -n " + params.iters();
        }
        return null;
    }

    /**
     * @param x why a connect failed
     * @param server the server's address
     * @param cmPort its CM port
     * @return the error for the user: the server's reason when it rejected the client with one
     */
    static String refusal(CmException x, InetAddress server, int cmPort) {
        String why = reason(x.rejectPrivateData());
        String at = "the server at " + server.getHostAddress() + " port " + cmPort;
        if (!why.isEmpty()) {
            return at + " refused: " + why;
        }
        if (x.rejectReason() == io.rvt.cm.RejectReason.CONSUMER_DEFINED) {
            return at + " refused the connection without a reason (not an rvt server?)";
        }
        return x.getMessage();
    }

    /**
     * @param privateData a REJ's private data (148 bytes on the wire, zero-padded), or null
     * @return the text before its first NUL if that is printable text, else "" (another program's REJ, or one
     *         with no reason)
     */
    static String reason(byte[] privateData) {
        if (privateData == null) {
            return "";
        }
        int n = 0;
        while (n < privateData.length && privateData[n] != 0) {
            n++;
        }
        String text = new String(privateData, 0, n, StandardCharsets.UTF_8).trim();
        for (int i = 0; i < text.length(); i++) {
            if (Character.isISOControl(text.charAt(i)) || text.charAt(i) == '\uFFFD') {
                return "";
            }
        }
        return text;
    }

    private void printAddresses(Endpoint e, Connection c) {
        out.printf(Locale.ROOT, "  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s (%s)%n", e.lid(),
                c.qp().qpNum(), c.sendPsn(), e.gid, e.device.name());
        out.printf(Locale.ROOT, "  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s%n", 0, c.remoteQpn(),
                c.receivePsn(), c.remoteGid());
    }

    private void printResults(Host host, long nanos) {
        double secs = nanos / 1e9;
        long bytes = 2L * params.iters() * params.size();
        out.printf(Locale.ROOT, "%d bytes in %.2f seconds = %.2f Mbit/sec%n", bytes, secs, bytes * 8 / secs / 1e6);
        out.printf(Locale.ROOT, "%d iters in %.2f seconds = %.2f usec/iter%n", params.iters(), secs,
                secs * 1e6 / params.iters());
        out.printf("(%s; every message checked; measured on %s)%n", params.transport().name(), host.measuredOn());
    }
}
