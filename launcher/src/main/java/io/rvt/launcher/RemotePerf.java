package io.rvt.launcher;

import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.SigType;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.cm.CmEvent;
import io.rvt.cm.CmException;
import io.rvt.cm.ConnectRequest;
import io.rvt.cm.Connection;
import io.rvt.cm.Listener;
import io.rvt.cm.QpOptions;
import java.io.PrintStream;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;

/**
 * {@code rvt perf --server} and {@code rvt perf HOST}: perftest's server and client as two processes, {@code -q} QPs
 * between them, each connected through rvt-cm. The client's REQ carries the table ({@link PerfWire.Request}); the
 * server refuses (a REJ with the reason) one that contradicts its own command line, and answers with its memory
 * region in the REP.
 * The client measures as the one-JVM {@code rvt perf} does ({@link PerfRunner}, requester side only); the server
 * keeps receives posted (SEND bandwidth), answers pings (SEND and WRITE latency, timing its own side of each round
 * trip) or stays passive (RDMA WRITE, READ and atomic bandwidth, READ and atomic latency). The client's DREQ carries
 * its row ({@link PerfWire.Result}): the server prints it as its bandwidth table, as perftest's server does, and for
 * SEND and WRITE latency prints what it measured itself.
 */
final class RemotePerf {
    private final PrintStream out;
    private final PrintStream err;
    private final LinkOptions link;
    private final int cmPort;
    private final boolean gbits;
    private final Reports reports;
    private final WorkCompletion wc = new WorkCompletion();

    /** Writes a row into the JSON files the command line asks for ({@code --out_json}, {@code --json}). */
    interface Reports {
        /**
         * @param spec the table
         * @param device this side's device
         * @param mtu the path MTU in bytes
         * @param bw the bandwidth row, or null
         * @param lat the latency row, or null
         */
        void write(PerfSpec spec, Device device, int mtu, BandwidthResult bw, LatencyResult lat);
    }

    /**
     * @param out where the table goes
     * @param err where the client's progress line goes
     * @param link the port, path MTU and GID index
     * @param cmPort the CM port
     * @param gbits bandwidth in Gb/s ({@code --report_gbits})
     * @param reports writes the JSON files
     */
    RemotePerf(PrintStream out, PrintStream err, LinkOptions link, int cmPort, boolean gbits, Reports reports) {
        this.out = out;
        this.err = err;
        this.link = link;
        this.cmPort = cmPort;
        this.gbits = gbits;
        this.reports = reports;
    }

    /**
     * Connects to the server, runs the table and sends the result with the disconnect.
     *
     * @param host this process's host (one HCA)
     * @param server the server's address
     * @param spec the table: one size, one direction
     */
    void client(Host host, InetAddress server, PerfSpec spec) {
        Device dev = Main.requireDevices(host, 1, "perf").get(0);
        link.check(dev);
        int size = spec.sizes()[0];
        Endpoint e = new Endpoint(dev, PerfRunner.bufferBytes(spec, size), PerfRunner.cqDepth(spec), link);
        Connector connector = new Connector(host);
        PerfRunner runner;
        Connection[] cs = new Connection[spec.qps()];
        Connection c;
        Connection control = null;
        try (Progress progress = new Progress(err, err == System.err && System.console() != null)) {
            try {
                byte[] table = new PerfWire.Request(spec, e.mr.addr(), e.mr.rkey()).encode();
                for (int q = 0; q < cs.length; q++) {
                    cs[q] = connect(connector, e, spec, server, table);
                    postReceives(cs[q].qp(), e, spec);
                }
                if (spec.bidirectional()) {
                    control = connect(connector, e, spec, server, table);
                }
                c = cs[0];
                PerfWire.Region region = PerfWire.Region.decode(c.remotePrivateData());
                if (region == null) {
                    throw new IllegalStateException("the server at " + server.getHostAddress() + " port " + cmPort
                            + " is not an rvt perf server (its REP carries no memory region)");
                }
                runner = new PerfRunner(host, e, connector, cs, region, spec, progress);
            } catch (RuntimeException x) {
                connector.close();
                e.close();
                throw x;
            }
            try (runner) {
                int mtu = c.pathMtu().bytes();
                PerfTable table = new PerfTable(out, spec.latency(), gbits);
                progress.printQuietly(() -> table.header(spec, dev.name(), server.getHostAddress(), mtu, host,
                        link));
                PerfWire.Result result;
                if (spec.latency()) {
                    LatencyResult r = runner.latency(size);
                    progress.printQuietly(() -> table.row(r));
                    result = new PerfWire.Result(null, r, runner.warmedUp());
                    reports.write(spec, dev, mtu, null, r);
                } else {
                    BandwidthResult mine = runner.bandwidth(size);
                    BandwidthResult r = control == null ? mine : sum(mine, serverRow(runner, control, server));
                    progress.printQuietly(() -> table.row(r));
                    result = new PerfWire.Result(r, null, 0);
                    reports.write(spec, dev, mtu, r, null);
                }
                progress.printQuietly(table::footer);
                c.disconnect(result.encode()); // the others go down with the runner
            }
        }
    }

    private Connection connect(Connector connector, Endpoint e, PerfSpec spec, InetAddress server, byte[] table) {
        try {
            return connector.connect(e, qpOptions(e, spec), server, cmPort, table);
        } catch (CmException x) {
            throw new IllegalStateException(RemotePingPong.refusal(x, server, cmPort), x);
        }
    }

    /** A SEND bandwidth table's receives for the peer's flow (SEND bandwidth, bidirectional on the client). */
    private static void postReceives(QueuePair qp, Endpoint e, PerfSpec spec) {
        if (spec.bidirectional() && spec.test().needsReceives()) {
            RecvWorkRequest recv = new RecvWorkRequest(1).sge(e.mr, 0, spec.sizes()[0]);
            for (int i = 0; i < PerfRunner.rxDepth(spec); i++) {
                qp.postRecv(recv);
            }
        }
    }

    /**
     * Bidirectional: waits (reposting receives) until the server's flow has ended, which it says by disconnecting
     * the control connection with its row as the DREQ's private data.
     */
    private static BandwidthResult serverRow(PerfRunner runner, Connection control, InetAddress server) {
        CmEvent bye = runner.serveUntil(control.disconnected(), "end of the server's flow");
        PerfWire.Result r = PerfWire.Result.decode(bye.privateData());
        if (r == null || r.bandwidth() == null) {
            throw new IllegalStateException("the server at " + server.getHostAddress() + " ended its flow without "
                    + "its results");
        }
        return r.bandwidth();
    }

    /** @return both directions of a bidirectional row added, as perftest's {@code -b} reports them */
    static BandwidthResult sum(BandwidthResult a, BandwidthResult b) {
        return new BandwidthResult(a.size(), a.iterations() + b.iterations(), a.peakMiBps() + b.peakMiBps(),
                a.averageMiBps() + b.averageMiBps(), a.messageRateMpps() + b.messageRateMpps());
    }

    /**
     * Listens, takes one client, serves its table and prints the results.
     *
     * @param host this process's host (one HCA)
     * @param conflicts why this side refuses a client's table, or null when it agrees with its command line
     */
    void server(Host host, java.util.function.Function<PerfSpec, String> conflicts) {
        Device dev = Main.requireDevices(host, 1, "perf").get(0);
        link.check(dev);
        try (Connector connector = new Connector(host)) {
            Listener l = connector.listen(dev, cmPort);
            out.printf("rvt perf: waiting for a client on %s port %d%n", dev.name(), cmPort);
            ConnectRequest req = connector.request(l, RemotePingPong.SERVER_PATIENCE);
            PerfWire.Request asked = PerfWire.Request.decode(req.privateData());
            String conflict = asked == null ? "the request is not an rvt perf client's" : conflicts.apply(asked.spec());
            if (conflict != null) {
                refuse(req, conflict);
            }
            PerfSpec spec = asked.spec();
            int size = spec.sizes()[0];
            try (Endpoint e = new Endpoint(dev, PerfRunner.bufferBytes(spec, size), PerfRunner.cqDepth(spec), link)) {
                RecvWorkRequest recv = new RecvWorkRequest(1).sge(e.mr, 0, size);
                int receives = spec.test().needsReceives() ? PerfRunner.rxDepth(spec) : 0;
                byte[] region = new PerfWire.Region(e.mr.addr(), e.mr.rkey()).encode();
                // bidirectional: one more connection, whose DREQ tells the client that this side's flow has ended
                Connection[] cs = new Connection[spec.qps() + (spec.bidirectional() ? 1 : 0)];
                byte[] first = req.privateData();
                for (int q = 0; q < cs.length; q++) {
                    if (q > 0) {
                        // the client's further QPs: each REQ carries the same table
                        req = connector.request(l, Connector.DEADLINE);
                        if (!java.util.Arrays.equals(req.privateData(), first)) {
                            refuse(req, "QP " + q + " of the client asks for another table than its first");
                        }
                    }
                    int posts = q < spec.qps() ? receives : 0; // none on -b's control connection: it carries no data
                    cs[q] = connector.accept(e, req, qpOptions(e, spec), region, qp -> {
                        // the client may send as soon as the REP is out: its receives must be there
                        for (int i = 0; i < posts; i++) {
                            qp.postRecv(recv);
                        }
                    });
                }
                Connection c = cs[0];
                if (spec.bidirectional()) {
                    Connection[] data = java.util.Arrays.copyOf(cs, spec.qps());
                    PerfRunner flow = new PerfRunner(host, e, connector, data, new PerfWire.Region(asked.addr(),
                            asked.rkey()), spec, new Progress(err, false));
                    BandwidthResult mine = flow.bandwidth(size);
                    cs[spec.qps()].disconnect(new PerfWire.Result(mine, null, 0).encode());
                }
                long[] arrivals = null;
                int pings = 0;
                if (spec.latency() && (spec.test() == PerfTest.SEND || spec.test() == PerfTest.WRITE)) {
                    arrivals = new long[WarmUp.MAX_ITERATIONS + (1 << 20) + 1];
                    pings = answer(host, e, c, spec, asked, recv, arrivals);
                } else if (spec.test() == PerfTest.SEND) {
                    repost(host, e, cs, spec, recv);
                }
                long patience = RemotePingPong.SERVER_PATIENCE.toNanos() + spec.durationNanos();
                CmEvent bye = connector.await(c.disconnected(), "the client's disconnect",
                        java.time.Duration.ofNanos(patience));
                PerfWire.Result result = PerfWire.Result.decode(bye.privateData());
                if (result == null) {
                    throw new IllegalStateException("the client at " + peerName(c) + " disconnected without its "
                            + "results");
                }
                for (Connection other : cs) {
                    connector.await(other.disconnected(), "the client's disconnect", java.time.Duration.ofNanos(
                            patience));
                }
                printServer(host, dev, c, spec, result, arrivals, pings);
            }
        }
    }

    private void printServer(Host host, Device dev, Connection c, PerfSpec spec, PerfWire.Result result,
            long[] arrivals, int pings) {
        int mtu = c.pathMtu().bytes();
        PerfTable table = new PerfTable(out, spec.latency(), gbits);
        table.header(spec, peerName(c), dev.name(), mtu, host, link);
        String whose;
        if (!spec.latency()) {
            table.row(result.bandwidth());
            reports.write(spec, dev, mtu, result.bandwidth(), null);
            whose = spec.bidirectional() ? "the client's measurement, sent with its disconnect: its flow and this "
                    + "side's, added" : "the client's measurement, sent with its disconnect";
        } else if (arrivals == null) {
            table.row(result.latency());
            reports.write(spec, dev, mtu, null, result.latency());
            whose = "the client's measurement, sent with its disconnect";
        } else {
            // a sample is the time from one ping's arrival to the next: one round trip, as the client's
            int first = Math.max(1, result.warmUp());
            int n = (int) Math.min(result.latency().iterations(), pings - first);
            if (n <= 0) {
                throw new IllegalStateException("the client at " + peerName(c) + " sent " + pings + " pings, "
                        + "fewer than its warm-up of " + result.warmUp());
            }
            long[] samples = new long[n];
            for (int i = 0; i < n; i++) {
                samples[i] = arrivals[first + i] - arrivals[first + i - 1];
            }
            LatencyResult r = LatencyResult.of(spec.sizes()[0], samples, n, 2);
            table.row(r);
            reports.write(spec, dev, mtu, null, r);
            whose = "measured here, from one ping's arrival to the next";
        }
        table.footer();
        out.println("(server: " + whose + ")");
    }

    /** Rejects a client's request with the reason as private data, and ends this side with it. */
    private static void refuse(ConnectRequest req, String why) {
        req.reject(why.getBytes(StandardCharsets.UTF_8));
        throw new UsageException("refused the client at " + RemotePingPong.clientName(req) + ": " + why);
    }

    /** SEND bandwidth: reposts every receive on the QP it completed on, until the client disconnects. */
    private void repost(Host host, Endpoint e, Connection[] cs, PerfSpec spec, RecvWorkRequest recv) {
        Connection c = cs[0];
        Quiet quiet = new Quiet(c, spec);
        while (true) {
            if (e.recvCq.pollCq(wc)) {
                if (wc.status() != WcStatus.SUCCESS) {
                    if (c.disconnected().isDone() || wc.status() == WcStatus.WR_FLUSH_ERR) {
                        return;
                    }
                    Completions.check(wc, "a receive on " + e.device.name());
                }
                qpOf(cs, wc.qpNum()).postRecv(recv);
                quiet.heard();
            } else if (quiet.over()) {
                return;
            } else {
                host.progress();
            }
        }
    }

    /**
     * SEND and WRITE latency: answers each ping with a pong until the client disconnects, noting when each ping
     * arrived.
     *
     * @return the pings answered
     */
    private int answer(Host host, Endpoint e, Connection c, PerfSpec spec, PerfWire.Request asked,
            RecvWorkRequest recv, long[] arrivals) {
        int size = spec.sizes()[0];
        boolean write = spec.test() == PerfTest.WRITE;
        SendWorkRequest pong = new SendWorkRequest(1).opcode(write ? WrOpcode.RDMA_WRITE : WrOpcode.SEND)
                .sge(e.mr, 0, size).remoteAddr(asked.addr() + size).rkey(asked.rkey());
        int pollIndex = 2 * size - 1; // write latency: the client writes into the second half
        QueuePair qp = c.qp();
        Quiet quiet = new Quiet(c, spec);
        byte last = 0;
        int k = 0;
        while (true) {
            if (write) {
                byte v = e.buffer.get(pollIndex);
                if (v == last) {
                    VarHandle.acquireFence();
                    if (quiet.over()) {
                        return k;
                    }
                    host.progress();
                    continue;
                }
                last = v;
                e.buffer.put(size - 1, v);
            } else {
                if (!e.recvCq.pollCq(wc)) {
                    if (quiet.over()) {
                        return k;
                    }
                    host.progress();
                    continue;
                }
                if (wc.status() != WcStatus.SUCCESS) {
                    if (c.disconnected().isDone() || wc.status() == WcStatus.WR_FLUSH_ERR) {
                        return k;
                    }
                    Completions.check(wc, "a ping on " + e.device.name());
                }
                qp.postRecv(recv);
            }
            if (k < arrivals.length) {
                arrivals[k++] = System.nanoTime();
            }
            quiet.heard();
            qp.postSend(pong);
            drain(e.sendCq, e);
        }
    }

    private static QueuePair qpOf(Connection[] cs, int qpn) {
        for (Connection c : cs) {
            if (c.qp().qpNum() == qpn) {
                return c.qp();
            }
        }
        throw new IllegalStateException("a receive completed on unknown QP 0x" + Integer.toHexString(qpn));
    }

    private void drain(CompletionQueue cq, Endpoint e) {
        while (cq.pollCq(wc)) {
            Completions.check(wc, "a pong on " + e.device.name());
        }
    }

    /** @return the peer's IP address (its GID on RoCEv2), as the user named it */
    private static String peerName(Connection c) {
        try {
            return InetAddress.getByAddress(c.remoteGid().toBytes()).getHostAddress();
        } catch (java.net.UnknownHostException e) {
            return c.remoteGid().toString();
        }
    }

    private static QpOptions qpOptions(Endpoint e, PerfSpec spec) {
        return e.qpOptions(spec.transport().qpType(), PerfRunner.sendDepth(spec), PerfRunner.recvDepth(spec),
                spec.latency() ? SigType.SIGNAL_ALL_WR : SigType.SIGNAL_REQ_WR);
    }

    /**
     * When a server loop stops: the client disconnected, or sent nothing for longer than a test of its size could
     * pause (it is gone without a DREQ).
     */
    private static final class Quiet {
        private final Connection c;
        private final long patience;
        private long last = System.nanoTime();
        private int spins;

        Quiet(Connection c, PerfSpec spec) {
            this.c = c;
            this.patience = RemotePingPong.SERVER_PATIENCE.toNanos() + spec.durationNanos();
        }

        void heard() {
            last = System.nanoTime();
        }

        boolean over() {
            if ((++spins & 0x3FF) != 0) {
                return false;
            }
            if (c.disconnected().isDone()) {
                return true;
            }
            if (System.nanoTime() - last > patience) {
                throw new IllegalStateException("the client at " + peerName(c) + " went quiet for "
                        + patience / 1_000_000_000L + " s without disconnecting");
            }
            return false;
        }
    }
}
