package io.rvt.launcher;

import io.rvt.api.AddressHandle;
import io.rvt.api.Device;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.SigType;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.cm.CmException;
import io.rvt.cm.ConnectRequest;
import io.rvt.cm.Connection;
import io.rvt.cm.DatagramPeer;
import io.rvt.cm.Listener;
import io.rvt.cm.QpOptions;
import java.io.PrintStream;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code rvt perf --server} and {@code rvt perf HOST}: perftest's server and client as two processes. The client's
 * first rvt-cm connection is the control connection ({@link PerfControl}): its REQ carries the table
 * ({@link PerfWire.Request}), which the server refuses (a REJ with the reason) when it contradicts its own command
 * line, and the server's REP its memory region. Then {@code -q} data QPs: RC and UC each through a connection of its
 * own (whose REQ repeats the table), UD each served by SIDR on both sides under CM port {@code -p + 1 + q} and
 * resolved by the other side. Both sides then step through the rows ({@code -a}: every size) together over the
 * control connection, and both print every row, as perftest's server and client do:
 * <ul>
 * <li>the client measures as the one-JVM {@code rvt perf} does ({@link PerfRunner}, its requester side alone);</li>
 * <li>SEND bandwidth: the server reposts its receives and prints its own row, what it received from the end of the
 * client's warm-up (a MEASURE/GO exchange) to the client's DONE, and at what rate (perftest's server does the
 * same; over UC and UD it counts the messages that arrived);</li>
 * <li>SEND and WRITE latency: the server answers each ping and prints its own side of the same round trips;</li>
 * <li>RDMA WRITE, READ and atomic bandwidth, READ and atomic latency: the server is passive and prints the client's
 * row, sent in its DONE;</li>
 * <li>{@code -b}: the server runs its own flow into the client at the same time and sends its row when it ends; the
 * client adds both and both print the sum.</li>
 * </ul>
 */
final class RemotePerf {
    private final PrintStream out;
    private final PrintStream err;
    private final LinkOptions link;
    private final int cmPort;
    private final boolean gbits;
    private final Reports reports;
    private final WorkCompletion wc = new WorkCompletion();
    private final WorkCompletion[] wcs = new WorkCompletion[16];

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
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
    }

    /**
     * @param q a data QP's index
     * @return the CM port under which each side serves its UD QP {@code q} (SIDR)
     */
    int datagramPort(int q) {
        return cmPort + 1 + q;
    }

    /**
     * Connects to the server, runs the table's rows with it and disconnects.
     *
     * @param host this process's host (one HCA)
     * @param server the server's address
     * @param spec the table
     */
    void client(Host host, InetAddress server, PerfSpec spec) {
        Device dev = Main.requireDevices(host, 1, "perf").get(0);
        link.check(dev);
        String serverName = server.getHostAddress();
        boolean ud = spec.transport() == Transport.UD;
        int n = spec.qps();
        Endpoint e = new Endpoint(dev, PerfSizing.bufferBytes(spec, largest(spec)), PerfSizing.cqDepth(spec), link);
        Connector connector = new Connector(host);
        PerfControl control = new PerfControl(host, dev, link);
        PerfRunner runner;
        try (Progress progress = new Progress(err, err == System.err && System.console() != null)) {
            try {
                byte[] table = new PerfWire.Request(spec, e.mr.addr(), e.mr.rkey(), link.qpTimeout()).encode();
                QueuePair[] qps = new QueuePair[n];
                if (ud) {
                    // served before the REQ goes out: the server resolves them as soon as it has accepted
                    for (int q = 0; q < n; q++) {
                        qps[q] = e.createUdQp(PerfSizing.sendDepth(spec), PerfSizing.recvDepth(spec), sigType(spec));
                        postReceives(qps[q], e, spec);
                        connector.serveDatagram(dev, datagramPort(q), qps[q]);
                    }
                }
                refusable(() -> control.connect(connector, server, cmPort, table), server);
                PerfWire.Region region = PerfWire.Region.decode(control.connection().remotePrivateData());
                if (region == null) {
                    throw new IllegalStateException("the server at " + serverName + " port " + cmPort
                            + " is not an rvt perf server (its REP carries no memory region)");
                }
                AddressHandle[] ahs = ud ? new AddressHandle[n] : null;
                int[] peerQpns = ud ? new int[n] : null;
                for (int q = 0; q < n; q++) {
                    if (ud) {
                        DatagramPeer peer = connector.resolveDatagram(e, server, datagramPort(q));
                        ahs[q] = e.addressHandle(peer);
                        peerQpns[q] = peer.qpn();
                    } else {
                        qps[q] = refusable(() -> connector.connect(e, qpOptions(e, spec), server, cmPort, table),
                                server).qp();
                        postReceives(qps[q], e, spec);
                    }
                }
                runner = new PerfRunner(host, e, connector, qps, ahs, peerQpns, region, spec, progress, serverName);
            } catch (RuntimeException x) {
                control.close();
                connector.close();
                e.close();
                throw x;
            }
            try (runner; control) {
                clientRows(host, dev, serverName, spec, runner, control, progress);
            }
        }
    }

    private void clientRows(Host host, Device dev, String serverName, PerfSpec spec, PerfRunner runner,
            PerfControl control, Progress progress) {
        int mtu = control.connection().pathMtu().bytes();
        PerfTable table = new PerfTable(out, spec.latency(), gbits);
        progress.printQuietly(() -> table.header(spec, dev.name(), serverName, mtu, host, link));
        long patience = patience(spec);
        // SEND bandwidth: the server counts what it receives, from the end of this side's warm-up
        Runnable measure = spec.test().needsReceives() && !spec.latency() && !spec.bidirectional() ? () -> {
            control.send(new PerfWire.Control(PerfWire.Step.MEASURE, 0, runner.warmUpMessages(), null));
            control.await(PerfWire.Step.GO, patience, runner::serveOnce);
        } : () -> { };
        for (int size : spec.sizes()) {
            control.send(new PerfWire.Control(PerfWire.Step.ROW, size));
            control.await(PerfWire.Step.READY, patience, runner::serveOnce);
            PerfWire.Result result;
            if (spec.latency()) {
                LatencyResult r = runner.latency(size);
                progress.printQuietly(() -> table.row(r));
                result = new PerfWire.Result(null, r, runner.warmedUp());
                reports.write(spec, dev, mtu, null, r);
            } else {
                BandwidthResult mine = runner.bandwidth(size, measure);
                BandwidthResult r = mine;
                if (spec.bidirectional()) {
                    PerfWire.Result theirs = control.await(PerfWire.Step.FLOW, patience, runner::serveOnce).result();
                    if (theirs == null || theirs.bandwidth() == null) {
                        throw new IllegalStateException("the server at " + serverName + " ended its flow without "
                                + "its results");
                    }
                    r = sum(mine, theirs.bandwidth());
                }
                BandwidthResult row = r;
                progress.printQuietly(() -> table.row(row));
                // a bandwidth row's unmeasured messages are those of its margins: the server counts them too
                result = new PerfWire.Result(r, null, (int) Math.min(Integer.MAX_VALUE, runner.lastRowUnmeasured()));
                reports.write(spec, dev, mtu, r, null);
            }
            control.send(new PerfWire.Control(PerfWire.Step.DONE, size, 0, result));
        }
        progress.printQuietly(table::footer);
        if (!spec.latency()) {
            String line = runner.unmeasuredLine();
            progress.printQuietly(() -> out.println(line));
        }
    }

    /** A connection attempt whose REJ or failure becomes one line naming the server. */
    private <T> T refusable(java.util.function.Supplier<T> attempt, InetAddress server) {
        try {
            return attempt.get();
        } catch (CmException x) {
            throw new IllegalStateException(RemotePingPong.refusal(x, server, cmPort), x);
        }
    }

    /** SEND bandwidth with {@code -b}: the receives for the server's flow, before it can start. */
    private static void postReceives(QueuePair qp, Endpoint e, PerfSpec spec) {
        if (spec.bidirectional() && spec.test().needsReceives() && !spec.latency()) {
            RecvWorkRequest recv = new RecvWorkRequest(1).sge(e.mr, 0, grh(spec) + largest(spec));
            for (int i = 0; i < PerfSizing.rxDepth(spec); i++) {
                qp.postRecv(recv);
            }
        }
    }

    /** @return both directions of a bidirectional row added, as perftest's {@code -b} reports them */
    static BandwidthResult sum(BandwidthResult a, BandwidthResult b) {
        return new BandwidthResult(a.size(), a.iterations() + b.iterations(), a.peakMiBps() + b.peakMiBps(),
                a.averageMiBps() + b.averageMiBps(), a.messageRateMpps() + b.messageRateMpps());
    }

    /**
     * Listens, takes one client, serves every row of its table and prints them.
     *
     * @param host this process's host (one HCA)
     * @param conflicts why this side refuses a client's request (its table, its ACK timeout), or null when it agrees
     *        with its command line
     */
    void server(Host host, java.util.function.Function<PerfWire.Request, String> conflicts) {
        Device dev = Main.requireDevices(host, 1, "perf").get(0);
        link.check(dev);
        try (Connector connector = new Connector(host)) {
            Listener l = connector.listen(dev, cmPort);
            out.printf("rvt perf: waiting for a client on %s port %d%n", dev.name(), cmPort);
            // a request this server will not serve is refused, and it waits on
            ClientWait clients = new ClientWait(connector, l, out, "perf");
            ConnectRequest req = clients.next("a client", RemotePingPong.SERVER_PATIENCE, r -> {
                PerfWire.Request p = PerfWire.Request.decode(r.privateData());
                return p == null ? "the request is not an rvt perf client's" : conflicts.apply(p);
            });
            PerfWire.Request asked = PerfWire.Request.decode(req.privateData());
            PerfSpec spec = asked.spec();
            boolean ud = spec.transport() == Transport.UD;
            int n = spec.qps();
            try (Endpoint e = new Endpoint(dev, PerfSizing.bufferBytes(spec, largest(spec)), PerfSizing.cqDepth(spec),
                    link); PerfControl control = new PerfControl(host, dev, link)) {
                RecvWorkRequest recv = new RecvWorkRequest(1).sge(e.mr, 0, grh(spec) + largest(spec));
                int receives = spec.test().needsReceives() ? PerfSizing.rxDepth(spec) : 0;
                QueuePair[] qps = new QueuePair[n];
                if (ud) {
                    for (int q = 0; q < n; q++) {
                        qps[q] = e.createUdQp(PerfSizing.sendDepth(spec), PerfSizing.recvDepth(spec), sigType(spec));
                        for (int i = 0; i < receives; i++) {
                            qps[q].postRecv(recv);
                        }
                        connector.serveDatagram(dev, datagramPort(q), qps[q]);
                    }
                }
                byte[] region = new PerfWire.Region(e.mr.addr(), e.mr.rkey()).encode();
                control.accept(connector, req, region);
                Connection c = control.connection();
                String client = peerName(c);
                List<Connection> data = new ArrayList<>();
                AddressHandle[] ahs = ud ? new AddressHandle[n] : null;
                int[] peerQpns = ud ? new int[n] : null;
                byte[] first = req.privateData();
                for (int q = 0; q < n; q++) {
                    if (ud) {
                        DatagramPeer peer = connector.resolveDatagram(e, peerAddress(c), datagramPort(q));
                        ahs[q] = e.addressHandle(peer);
                        peerQpns[q] = peer.qpn();
                        continue;
                    }
                    // the client's data QPs: each REQ carries the same table; another client meanwhile is refused
                    ConnectRequest more = clients.next("QP " + q + " of the client at " + client, Connector.DEADLINE,
                            r -> java.util.Arrays.equals(r.privateData(), first) ? null
                                    : "the server is busy with the client at " + client);
                    Connection dc = connector.accept(e, more, qpOptions(e, spec), region, qp -> {
                        // the client may send as soon as the REP is out: its receives must be there
                        for (int i = 0; i < receives; i++) {
                            qp.postRecv(recv);
                        }
                    });
                    data.add(dc);
                    qps[q] = dc.qp();
                }
                PerfRunner flow = spec.bidirectional() ? new PerfRunner(host, e, connector, qps, ahs, peerQpns,
                        new PerfWire.Region(asked.addr(), asked.rkey()), spec, new Progress(err, false), client)
                        : null; // not closed: the endpoint and the connector are this method's
                PerfTable table = new PerfTable(out, spec.latency(), gbits);
                int mtu = c.pathMtu().bytes();
                table.header(spec, client, dev.name(), mtu, host, link);
                new ServerRows(host, dev, e, control, qps, ahs, peerQpns, asked, flow, table, mtu, recv).run();
                table.footer();
                out.println("(server: " + whose(spec) + ")");
                Duration goodbye = Duration.ofNanos(patience(spec));
                for (Connection dc : data) {
                    connector.await(dc.disconnected(), "the client's disconnect", goodbye);
                }
            }
        }
    }

    /** @return what the server's rows are, for its closing line */
    static String whose(PerfSpec spec) {
        if (spec.bidirectional()) {
            return "the client's measurement: its flow and this side's, added";
        }
        if (spec.latency()) {
            return spec.test() == PerfTest.SEND || spec.test() == PerfTest.WRITE
                    ? "measured here, from one ping's arrival to the next" : "the client's measurement";
        }
        return spec.test().needsReceives() ? "measured here: the messages received and at what rate"
                : "the client's measurement";
    }

    /**
     * The server's side of the rows: one loop that answers the control connection and, between a row's READY and
     * its DONE, does this side's part of the data (reposting receives and counting them, answering pings).
     */
    private final class ServerRows {
        /** The shortest interval a receiver's peak rate is measured over. */
        private static final long PEAK_NANOS = 1_000_000;
        /** The longest a passive server blocks before it looks at the clock again. */
        private static final long BLOCK_NANOS = 100_000_000;
        /** UC and UD: how long the server waits for a message that may have been lost, before it counts without. */
        private static final long STRAGGLER_NANOS = 200_000_000;
        private final Host host;
        private final Device dev;
        private final Endpoint e;
        private final PerfControl control;
        private final QueuePair[] qps;
        private final PerfSpec spec;
        private final PerfRunner flow;
        private final PerfTable table;
        private final int mtu;
        private final RecvWorkRequest recv;
        /** SEND and WRITE latency: the reply to every ping; else null. */
        private final SendWorkRequest pong;
        private final long clientAddr;
        private final long[] arrivals;
        private final long patience;
        /** RDMA WRITE, READ, atomics: this side's HCA does everything, the server only waits for the client's DONE. */
        private final boolean passive;
        private int size;
        private int pings;
        private byte last;
        private boolean measuring;
        private long received;
        private long start;
        private long lastReceive;
        private double best;
        /** Receives of this row so far, warm-up included; and how many of them the warm-up's were. */
        private long rowReceived;
        private long base;
        /** The peak's current interval: received before it, and when it began. */
        private long marked;
        private long markNanos;
        /** The data QPs went down (the client disconnects): their flushed receives are not counted. */
        private boolean flushed;
        /** The rows the client has finished (its DONE): fewer than its table's when it leaves is a failure. */
        private int rowsDone;
        private long heard = System.nanoTime();

        ServerRows(Host host, Device dev, Endpoint e, PerfControl control, QueuePair[] qps, AddressHandle[] ahs,
                int[] peerQpns, PerfWire.Request asked, PerfRunner flow, PerfTable table, int mtu,
                RecvWorkRequest recv) {
            this.host = host;
            this.dev = dev;
            this.e = e;
            this.control = control;
            this.qps = qps;
            this.spec = asked.spec();
            this.flow = flow;
            this.table = table;
            this.mtu = mtu;
            this.recv = recv;
            this.clientAddr = asked.addr();
            this.patience = patience(spec);
            this.passive = !spec.test().needsReceives() && !(spec.latency() && spec.test() == PerfTest.WRITE);
            boolean answers = spec.latency() && (spec.test() == PerfTest.SEND || spec.test() == PerfTest.WRITE);
            if (answers) {
                pong = new SendWorkRequest(1).opcode(spec.test() == PerfTest.WRITE ? WrOpcode.RDMA_WRITE
                        : WrOpcode.SEND).sge(e.mr, 0, 1).rkey(asked.rkey());
                if (ahs != null) {
                    pong.ah(ahs[0]).remoteQpn(peerQpns[0]).remoteQkey(Endpoint.QKEY);
                }
                arrivals = new long[WarmUp.MAX_ITERATIONS + (1 << 20) + 1];
            } else {
                pong = null;
                arrivals = null;
            }
        }

        void run() {
            int spins = 0;
            while (true) {
                boolean busy = size > 0 && !flushed && dataStep();
                if (busy && (++spins & 0xFF) != 0) {
                    continue;
                }
                PerfWire.Control m = control.poll();
                if (m == null && !busy) {
                    if (control.connection().disconnected().isDone()) {
                        m = control.poll(); // a last message may have been polled for just before the DREQ
                        if (m == null) {
                            checkFinished();
                            return;
                        }
                    } else {
                        if (passive) {
                            control.block(BLOCK_NANOS); // nothing to do until the client speaks
                        } else {
                            host.progress();
                        }
                        if ((++spins & 0x3FF) == 0 && System.nanoTime() - heard > patience) {
                            throw new IllegalStateException("the client at " + peerName(control.connection())
                                    + " went quiet for " + patience / 1_000_000_000L + " s without disconnecting");
                        }
                        continue;
                    }
                }
                if (m != null) {
                    heard = System.nanoTime();
                    step(m);
                }
            }
        }

        /** The client disconnected: it must have finished its table, or it failed (or was stopped) on its way. */
        private void checkFinished() {
            int rows = spec.sizes().length;
            if (rowsDone < rows) {
                throw new IllegalStateException("the client at " + peerName(control.connection()) + " left after "
                        + rowsDone + " of its " + rows + " rows" + (size > 0 ? ", in the row of " + size + " bytes"
                        : "") + ": it failed or was stopped (see its output)");
            }
        }

        private void step(PerfWire.Control m) {
            switch (m.step()) {
                case ROW -> {
                    size = m.size();
                    if (size <= 0 || size > largest(spec)) {
                        throw new IllegalStateException("the client asked for a row of " + size + " bytes, outside "
                                + "its table");
                    }
                    pings = 0;
                    rowReceived = 0;
                    measuring = false;
                    if (pong != null) {
                        pong.sge(0).length(size);
                        pong.remoteAddr(clientAddr + size); // write latency: the second half of the client's buffer
                        last = e.buffer.get(2 * size - 1);
                    }
                    control.send(new PerfWire.Control(PerfWire.Step.READY, size));
                    if (flow != null) {
                        BandwidthResult mine = flow.bandwidth(size);
                        // the client's DONE follows, then its disconnect: an ACK of FLOW lost meanwhile is no error
                        control.sendAnswered(new PerfWire.Control(PerfWire.Step.FLOW, size, 0, new PerfWire.Result(
                                mine, null, 0)), PerfWire.Step.DONE);
                    }
                }
                case MEASURE -> {
                    awaitReceived(m.count(), "the client's warm-up"); // not counted
                    base = rowReceived;
                    received = 0;
                    marked = 0;
                    best = Double.MAX_VALUE;
                    control.send(new PerfWire.Control(PerfWire.Step.GO, size));
                    start = System.nanoTime();
                    lastReceive = start;
                    markNanos = start;
                    measuring = true;
                }
                case DONE -> done(m);
                default -> throw new IllegalStateException("the client said " + m.step() + ", which only a server "
                        + "says");
            }
        }

        private void done(PerfWire.Control m) {
            PerfWire.Result theirs = m.result();
            if (theirs == null) {
                throw new IllegalStateException("the client at " + peerName(control.connection()) + " ended a row "
                        + "without its results");
            }
            if (!spec.latency()) {
                BandwidthResult r = theirs.bandwidth();
                if (spec.test().needsReceives() && flow == null) {
                    // the last receives may trail the DONE (another QP, another engine thread)
                    // the client's measured messages and those of its margins (-D), which it sent as well
                    awaitReceived(base + r.iterations() + theirs.warmUp(), "the client's messages");
                    measuring = false;
                    r = BandwidthResult.of(size, received, lastReceive - start, best == Double.MAX_VALUE ? 0 : best);
                }
                table.row(r);
                reports.write(spec, dev, mtu, r, null);
            } else if (pong == null) {
                table.row(theirs.latency());
                reports.write(spec, dev, mtu, null, theirs.latency());
            } else {
                LatencyResult r = ownLatency(theirs);
                table.row(r);
                reports.write(spec, dev, mtu, null, r);
            }
            size = 0;
            rowsDone++;
        }

        /** A sample is the time from one ping's arrival to the next: one round trip, as the client's. */
        private LatencyResult ownLatency(PerfWire.Result theirs) {
            int firstPing = Math.max(1, theirs.warmUp());
            int k = (int) Math.min(theirs.latency().iterations(), pings - firstPing);
            if (k <= 0) {
                throw new IllegalStateException("the client at " + peerName(control.connection()) + " sent " + pings
                        + " pings, fewer than its warm-up of " + theirs.warmUp());
            }
            long[] samples = new long[k];
            for (int i = 0; i < k; i++) {
                samples[i] = arrivals[firstPing + i] - arrivals[firstPing + i - 1];
            }
            return LatencyResult.of(size, samples, k, 2);
        }

        /**
         * Reposts receives until the row has had {@code target} of them. RC delivers every message: it waits until
         * all have come (up to {@link Completions#DEADLINE_NANOS}); UC and UD lose some: it stops once none has come
         * for {@link #STRAGGLER_NANOS}.
         */
        private void awaitReceived(long target, String what) {
            long lastSeen = System.nanoTime();
            while (rowReceived < target && !flushed) {
                long now = System.nanoTime();
                if (repost() > 0) {
                    lastSeen = now;
                } else if (spec.transport() != Transport.RC && now - lastSeen > STRAGGLER_NANOS) {
                    return;
                } else if (now - lastSeen > Completions.DEADLINE_NANOS) {
                    throw new IllegalStateException("only " + rowReceived + " of " + target + " receives of "
                            + what + " arrived at " + e.device.name() + " within "
                            + Completions.DEADLINE_NANOS / 1_000_000_000L + " s");
                } else {
                    host.progress();
                }
            }
        }

        /** @return true if it did something: reposted receives, or answered a ping */
        private boolean dataStep() {
            if (pong != null) {
                return answer();
            }
            return spec.test().needsReceives() && repost() > 0;
        }

        /** @return receive completions polled and reposted on the QP they completed on (counted when measuring) */
        private int repost() {
            int k = e.recvCq.pollCq(wcs, wcs.length);
            for (int i = 0; i < k; i++) {
                if (wcs[i].status() != WcStatus.SUCCESS) {
                    if (wcs[i].status() == WcStatus.WR_FLUSH_ERR) {
                        flushed = true;
                        return 0;
                    }
                    Completions.check(wcs[i], "a receive on " + e.device.name());
                }
                qpOf(qps, wcs[i].qpNum()).postRecv(recv);
            }
            rowReceived += k;
            if (k > 0 && measuring) {
                // the peak over intervals of a CQ moderation's messages and at least PEAK_NANOS: receives are
                // polled in bursts, whose rate says nothing about the link
                long now = System.nanoTime();
                received = rowReceived - base;
                if (received - marked >= spec.cqModeration() && now - markNanos >= PEAK_NANOS) {
                    double perMessage = (now - markNanos) / (double) (received - marked);
                    if (perMessage < best) {
                        best = perMessage;
                    }
                    marked = received;
                    markNanos = now;
                }
                lastReceive = now;
            }
            return k;
        }

        /** SEND and WRITE latency: answers a ping if one has arrived, noting when. */
        private boolean answer() {
            if (spec.test() == PerfTest.WRITE) {
                byte v = e.buffer.get(2 * size - 1);
                if (v == last) {
                    VarHandle.acquireFence(); // re-read memory the network writes
                    return false;
                }
                last = v;
                e.buffer.put(size - 1, v);
            } else {
                if (!e.recvCq.pollCq(wc)) {
                    return false;
                }
                if (wc.status() != WcStatus.SUCCESS) {
                    if (wc.status() == WcStatus.WR_FLUSH_ERR) {
                        flushed = true;
                        return false;
                    }
                    Completions.check(wc, "a ping on " + e.device.name());
                }
                qps[0].postRecv(recv);
            }
            if (pings < arrivals.length) {
                arrivals[pings++] = System.nanoTime();
            }
            qps[0].postSend(pong);
            while (e.sendCq.pollCq(wc)) {
                Completions.check(wc, "a pong on " + e.device.name());
            }
            return true;
        }
    }

    private static QueuePair qpOf(QueuePair[] qps, int qpn) {
        for (QueuePair qp : qps) {
            if (qp.qpNum() == qpn) {
                return qp;
            }
        }
        throw new IllegalStateException("a receive completed on unknown QP 0x" + Integer.toHexString(qpn));
    }

    /** @return the peer's IP address (its GID on RoCEv2), as the user named it */
    private static String peerName(Connection c) {
        return ClientWait.address(c.remoteGid());
    }

    /** @return the peer's IP address, from its GID (RoCE) */
    private static InetAddress peerAddress(Connection c) {
        try {
            return InetAddress.getByAddress(c.remoteGid().toBytes());
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException("the client's GID " + c.remoteGid() + " is no IP address", e);
        }
    }

    private static QpOptions qpOptions(Endpoint e, PerfSpec spec) {
        return e.qpOptions(spec.transport().qpType(), PerfSizing.sendDepth(spec), PerfSizing.recvDepth(spec),
                sigType(spec));
    }

    private static SigType sigType(PerfSpec spec) {
        return spec.latency() ? SigType.SIGNAL_ALL_WR : SigType.SIGNAL_REQ_WR;
    }

    /** @return the largest size of the table's rows */
    static int largest(PerfSpec spec) {
        int largest = 0;
        for (int size : spec.sizes()) {
            largest = Math.max(largest, size);
        }
        return largest;
    }

    /** @return bytes a receive needs before the payload: a UD GRH's */
    private static int grh(PerfSpec spec) {
        return spec.transport() == Transport.UD ? Endpoint.GRH_BYTES : 0;
    }

    /** @return how long one side waits for the other's next step: a row may run {@code -D} long */
    private static long patience(PerfSpec spec) {
        return RemotePingPong.SERVER_PATIENCE.toNanos() + spec.durationNanos();
    }
}
