package io.rvt.launcher;

import io.rvt.api.AddressHandle;
import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
import io.rvt.api.Gid;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.SigType;
import io.rvt.api.WorkCompletion;
import io.rvt.cm.Connection;
import java.io.PrintStream;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * Runs the rows of one {@link PerfSpec} between two devices: the requester (first device) posts, the responder
 * (second) receives or is the target of RDMA and atomics. Both sides are driven by the calling thread, as perftest's
 * client and server would be by their own processes; the network runs on its own thread, or with
 * {@code --threading invoker} on the calling thread whenever a loop finds nothing to poll ({@link Host#progress()}).
 *
 * <p>Everything is set up once per table: endpoints, QPs, work requests, completion arrays and the latency sample
 * array. The measurement loops then only patch fields of the reused work requests, post and busy-poll: they
 * allocate nothing. Bandwidth keeps up to {@code txDepth} work requests in flight per QP, posts them
 * {@link PerfSpec#postList()} at a time as one chained list, and asks for a completion every
 * {@link PerfSpec#cqModeration()} of them; a bidirectional table ({@code -b}) runs a second such
 * {@link BandwidthFlow} from the responder back to the requester at the same time, and its rows add both. Latency
 * runs one operation at a time with busy polling (SEND: a
 * ping-pong of messages; WRITE: a ping-pong of RDMA WRITEs, each side polling the last byte of its memory, as
 * perftest's write_lat; READ and atomics: one operation and its completion).
 *
 * <p>With {@code rvt perf HOST} the responder is another process ({@link RemotePerf}'s server): this runner then
 * drives the requester's side only, over the QPs of its connections, against the server's memory region from its REP.
 */
final class PerfRunner implements AutoCloseable {
    /** perftest's {@code DEF_IB_PORT2}: the second port of its dual-port mode ({@code -O}). */
    static final int DUAL_PORT = 2;
    /** The most latency samples one row keeps (a timed row stops when they are full). */
    private static final int MAX_SAMPLES = 1 << 20;
    /**
     * How long a bandwidth row waits for its first completion (a window of 8 MiB WRITEs on a slow machine) before it
     * gives up on a stuck fabric; later completions get {@link Completions#DEADLINE_NANOS}.
     */
    static final long FIRST_COMPLETION_NANOS = 6 * Completions.DEADLINE_NANOS;

    private final PerfSpec spec;
    /** Moves the network on whenever a loop finds nothing to poll. */
    private final Host host;
    /** {@link Host#progress()} as a hook (made once: the loops allocate nothing). */
    private final Runnable progressHook;
    private final Progress progress;
    /** Connected the QPs; closed last. */
    private final Connector connector;
    private final Endpoint requester;
    /** The responder's endpoint; null when the responder is another process ({@code rvt perf HOST}). */
    private final Endpoint responder;
    /** The responder's memory region: the target of RDMA and atomics. */
    private final long remoteAddr;
    private final int remoteRkey;
    /** Latency: the ping-pongs of the last row's warm-up. */
    private int warmedUp;
    /** Bandwidth: the messages of the last row's warm-up, every QP and flow. */
    private long warmUpMessages;
    /** Bandwidth: the messages completed in the margins of the rows so far ({@link PerfSpec#marginNanos()}). */
    private long unmeasuredMessages;
    /** Bandwidth: the messages of the last row completed in its margins. */
    private long lastRowUnmeasured;
    /** Bandwidth: the warm-up messages of the rows so far. */
    private long warmUpTotal;
    /** perftest's peak and average of each bandwidth row. */
    private final BandwidthMeter meter;
    /** True once a row warmed up until the JIT settled (the command's first local bandwidth row). */
    private boolean settled;
    /**
     * A bidirectional SEND table with the responder in another process: this side's receive for the peer's flow,
     * reposted on every completion (the caller posted the first ones); else null.
     */
    private RecvWorkRequest localRecv;
    /** The peer's messages {@link #repostLocal()} polled in the current row. */
    private long localReceived;
    private final QueuePair[] sendQps;
    /** Their QP numbers (another process's table only; else null). */
    private final int[] senderQpns;
    private final QueuePair[] recvQps;
    /** Per QP, the head of the requester's post list (latency: its one request). */
    private final SendWorkRequest[] wrs;
    /** Per QP, the head of the responder's post list (latency: its reply). */
    private final SendWorkRequest[] replies;
    private final RecvWorkRequest[] recvs;
    private final RecvWorkRequest[] replyRecvs;
    private final WorkCompletion[] wcs = new WorkCompletion[16];
    private final WorkCompletion wc = new WorkCompletion();
    /** The bandwidth flows: requester to responder, and back with {@code -b}. */
    private final BandwidthFlow[] flows;
    private final long[] samples;
    private final int dataOff;
    private final String hint;
    /** {@link #FIRST_COMPLETION_NANOS}; shorter in tests. */
    private long firstCompletionNanos = FIRST_COMPLETION_NANOS;
    /** What each wait is for, in errors; built once so that the loops allocate nothing. */
    private final String atRequester;
    private final String atResponder;
    private final String receiveAtRequester;
    private int stamp;
    /**
     * The peer is perftest's program (or rvt speaking its protocol): no warm-up where the peer would take it for the
     * test (SEND, WRITE latency), and write latency as {@code run_iter_lat_write}: this side's message goes to the
     * peer's address, the peer's lands at {@link #target} in this side's buffer, and the last byte counts.
     */
    private boolean perftest;
    /** With {@link #perftest}: where the peer's RDMA WRITEs land in this side's buffer. */
    private int target;
    /** perftest's {@code --latency_gap}: nanoseconds each side waits before each of its latency posts. */
    private long gapNanos;
    /** {@code --run_infinitely}'s rows after the first: measured whole, without margins. */
    private boolean noMargins;
    /** perftest's software rate limiter of the measured bandwidth rows; null for none. */
    private RateLimit rateLimit;
    /** The size of the rows' work requests ({@link #resize}). */
    private int size;
    /** perftest's {@code -C}, {@code -H}, {@code -U}. */
    private LatencyReport report = LatencyReport.DEFAULT;
    /** The last latency row's list of samples ({@code -H}, {@code -U}); empty unless asked. */
    private final StringBuilder listing = new StringBuilder();

    /**
     * Sets up both sides for every row of {@code spec}.
     *
     * @param host the devices' host, whose network progresses while the loops wait
     * @param a the requester's device
     * @param b the responder's device
     * @param spec the table
     * @param largest the largest size of its rows
     * @param progress where rows report their iterations
     */
    PerfRunner(Host host, Device a, Device b, PerfSpec spec, int largest, Progress progress) {
        this(host, a, b, spec, largest, progress, LinkOptions.DEFAULT, Options.DEFAULT_CM_PORT);
    }

    /**
     * Sets up both sides for every row of {@code spec} on the given port, path MTU and GID index.
     *
     * @param host the devices' host, whose network progresses while the loops wait
     * @param a the requester's device
     * @param b the responder's device
     * @param spec the table
     * @param largest the largest size of its rows
     * @param progress where rows report their iterations
     * @param link the port, path MTU and GID index of both sides
     * @param cmPort the CM port the responder listens on (UD: the first of one per QP)
     */
    PerfRunner(Host host, Device a, Device b, PerfSpec spec, int largest, Progress progress, LinkOptions link,
            int cmPort) {
        this(host, a, b, spec, largest, progress, link, cmPort, false);
    }

    /**
     * Sets up both sides for every row of {@code spec}, their CQs on completion channels with {@code events}.
     *
     * @param host the devices' host, whose network progresses while the loops wait
     * @param a the requester's device
     * @param b the responder's device
     * @param spec the table
     * @param largest the largest size of its rows
     * @param progress where rows report their iterations
     * @param link the port, path MTU and GID index of both sides
     * @param cmPort the CM port the responder listens on (UD: the first of one per QP)
     * @param events perftest's {@code -e}: a row with nothing to poll waits for a CQ's completion event instead of
     *               spinning (bandwidth: the requester's send CQ; latency: the CQ the ping-pong waits on, the
     *               receive CQs of SEND, the requester's send CQ of READ and atomic)
     */
    PerfRunner(Host host, Device a, Device b, PerfSpec spec, int largest, Progress progress, LinkOptions link,
            int cmPort, boolean events) {
        this(host, a, b, spec, largest, progress, link, cmPort, events, null, false);
    }

    /**
     * Sets up both sides for every row of {@code spec} as
     * {@link #PerfRunner(Host, Device, Device, PerfSpec, int, Progress, LinkOptions, int, boolean)} does, a UD
     * table's SENDs to multicast groups with {@code mcast} (perftest's {@code -g}): the responder's QP is attached to
     * the server's group and the requester sends to it; in a latency table the requester's QP is also attached to
     * the client's group, to which the responder answers. No SIDR then: a group needs no QPN.
     *
     * @param host the devices' host, whose network progresses while the loops wait
     * @param a the requester's device
     * @param b the responder's device
     * @param spec the table
     * @param largest the largest size of its rows
     * @param progress where rows report their iterations
     * @param link the port, path MTU and GID index of both sides
     * @param cmPort the CM port the responder listens on (UD: the first of one per QP)
     * @param events perftest's {@code -e}
     * @param mcast perftest's {@code -g} and {@code -M} (UD, one QP); null for none
     * @param dualPort perftest's {@code -O}: the second half of the table's QPs on both devices' port 2, the first
     *                 on {@code link}'s port, all on the same CQs and regions ({@code ctx_modify_qp_to_init}'s
     *                 {@code ib_port2})
     */
    PerfRunner(Host host, Device a, Device b, PerfSpec spec, int largest, Progress progress, LinkOptions link,
            int cmPort, boolean events, PerftestMcast mcast, boolean dualPort) {
        this.spec = spec;
        this.host = host;
        this.progressHook = host::progress;
        this.progress = progress;
        this.hint = Completions.lossHint(spec.transport());
        this.atRequester = "a work request on " + a.name();
        this.atResponder = "a receive on " + b.name();
        this.receiveAtRequester = "a receive on " + a.name();
        int qps = spec.latency() ? 1 : spec.qps();
        dataOff = spec.transport() == Transport.UD ? Endpoint.GRH_BYTES : 0;
        int depth = PerfSizing.sendDepth(spec);
        requester = new Endpoint(a, PerfSizing.bufferBytes(spec, largest), PerfSizing.cqDepth(spec), link, null,
                events);
        responder = new Endpoint(b, PerfSizing.bufferBytes(spec, largest), PerfSizing.cqDepth(spec), link, null,
                events);
        remoteAddr = responder.mr.addr();
        remoteRkey = responder.mr.rkey();
        SigType sig = spec.latency() ? SigType.SIGNAL_ALL_WR : SigType.SIGNAL_REQ_WR;
        sendQps = new QueuePair[qps];
        senderQpns = null;
        recvQps = new QueuePair[qps];
        wrs = new SendWorkRequest[qps];
        replies = new SendWorkRequest[qps];
        recvs = new RecvWorkRequest[qps];
        replyRecvs = new RecvWorkRequest[qps];
        int recvDepth = PerfSizing.recvDepth(spec);
        connector = new Connector(host);
        Endpoint requester2 = dualPort ? requester.onPort(DUAL_PORT) : null;
        Endpoint responder2 = dualPort ? responder.onPort(DUAL_PORT) : null;
        for (int q = 0; q < qps; q++) {
            // perftest's dual-port mode: the first half of the QPs on the first port, the second on the second
            boolean second = dualPort && q >= qps / 2;
            Endpoint req = second ? requester2 : requester;
            Endpoint resp = second ? responder2 : responder;
            QueuePair sq;
            QueuePair rq;
            AddressHandle toB = null;
            AddressHandle toA = null;
            int toBQpn;
            int toAQpn;
            if (spec.transport() == Transport.UD && mcast != null) {
                sq = req.createUdQp(depth, recvDepth, sig);
                rq = resp.createUdQp(depth, recvDepth, sig);
                Gid server = mcast.group(false);
                resp.attachMcast(rq, server, PerftestMcast.mlid(server));
                toB = req.addressHandle(PerftestMcast.address(server, 0, link.port(), link.gidIndex()));
                Gid client = mcast.group(true);
                if (spec.latency()) {
                    req.attachMcast(sq, client, PerftestMcast.mlid(client));
                }
                toA = resp.addressHandle(PerftestMcast.address(client, 0, link.port(), link.gidIndex()));
                toBQpn = PerftestMcast.QPNUM_MCAST;
                toAQpn = PerftestMcast.QPNUM_MCAST;
            } else if (spec.transport() == Transport.UD) {
                // one SIDR service per QP pair, on consecutive CM ports
                sq = req.createUdQp(depth, recvDepth, sig);
                rq = resp.createUdQp(depth, recvDepth, sig);
                connector.serveDatagram(b, cmPort + q, rq);
                connector.serveDatagram(a, cmPort + q, sq);
                toB = req.addressHandle(connector.resolveDatagram(req, resp.destination(), cmPort + q));
                toA = resp.addressHandle(connector.resolveDatagram(resp, req.destination(), cmPort + q));
                toBQpn = rq.qpNum();
                toAQpn = sq.qpNum();
            } else {
                Connection[] c = connector.pair(req, req.qpOptions(spec.transport().qpType(), depth,
                        recvDepth, sig), resp, resp.qpOptions(spec.transport().qpType(), depth, recvDepth,
                        sig), cmPort);
                sq = c[0].qp();
                rq = c[1].qp();
                toBQpn = rq.qpNum();
                toAQpn = sq.qpNum();
            }
            sendQps[q] = sq;
            recvQps[q] = rq;
            wrs[q] = postList(req, remoteAddr, remoteRkey, toB, toBQpn);
            replies[q] = postList(resp, req.mr.addr(), req.mr.rkey(), toA, toAQpn);
            recvs[q] = new RecvWorkRequest(1).sge(resp.mr, 0, dataOff + largest);
            replyRecvs[q] = new RecvWorkRequest(1).sge(req.mr, 0, dataOff + largest);
        }
        connector.stopListening();
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
        BandwidthFlow forward = new BandwidthFlow(spec, wcs, requester, responder, sendQps, recvQps, wrs, recvs);
        flows = spec.bidirectional() && !spec.latency()
                ? new BandwidthFlow[] {forward,
                    new BandwidthFlow(spec, wcs, responder, requester, recvQps, sendQps, replies, replyRecvs)}
                : new BandwidthFlow[] {forward};
        samples = spec.latency() ? new long[spec.iters() > 0 ? Math.max(spec.iters(), WarmUp.MAX_ITERATIONS) : MAX_SAMPLES]
                : null;
        meter = new BandwidthMeter(spec.txDepth() * qps * flows.length + 1);
        if (spec.test().needsReceives()) {
            // posted once; every receive completion is reposted, so each row starts with the queues full
            for (int q = 0; q < qps; q++) {
                for (int r = 0; r < PerfSizing.rxDepth(spec); r++) {
                    recvQps[q].postRecv(recvs[q]);
                    if (flows.length == 2) {
                        sendQps[q].postRecv(replyRecvs[q]);
                    }
                }
                if (spec.latency()) {
                    sendQps[q].postRecv(replyRecvs[q]);
                }
            }
        }
    }

    /**
     * Warms this process up for a bandwidth table whose other side is another process ({@link RemotePerf}), where no
     * message of the table may be a warm-up (perftest's server counts every one it receives): the table's first size
     * between two QPs of this process's own HCA, connected through its CM on {@code cmPort}, until the JIT has settled
     * ({@link WarmUp#untilSteady}, 1-2 s). Both processes run the requester's and the responder's code that way before
     * they meet, so the measured row is not the JIT's: without it the compiler threads took 54-60 % of each process's
     * CPU in the row's second and third seconds (64 B SEND, load 24).
     *
     * @param host this process's host
     * @param dev its HCA
     * @param spec the table (RC or UC; not UD, whose SIDR services would take one CM port twice)
     * @param link the port, path MTU and GID index
     * @param cmPort a CM port no one else uses on {@code dev}
     * @param err where a warm-up that fails says so (the table runs without it)
     * @return the warm-up's messages, 0 if it failed
     */
    static long warmUpLocally(Host host, Device dev, PerfSpec spec, LinkOptions link, int cmPort, PrintStream err) {
        int size = spec.sizes()[0];
        try (PerfRunner r = new PerfRunner(host, dev, dev, spec, size, new Progress(err, false), link, cmPort)) {
            r.resize(size);
            long[] messages = new long[1];
            WarmUp.untilSteady(size, n -> messages[0] += r.windowed(n, 0, false).iterations());
            return messages[0];
        } catch (RuntimeException e) {
            err.println("rvt perf: the warm-up on " + dev.name() + " failed, the table runs without it: "
                    + e.getMessage());
            return 0;
        }
    }

    /**
     * The requester's side of a table whose responder is another process ({@code rvt perf HOST}, or the server's own
     * flow of {@code -b}): one QP per connection the caller made ({@code -q}; UD: per QP served and resolved by SIDR),
     * whose peer runs {@link RemotePerf}'s server loop. This runner drives only its own side; it owns
     * {@code requester} and {@code connector} from here on and closes them.
     *
     * @param host this process's host
     * @param requester this side's endpoint ({@link PerfSizing#bufferBytes}, {@link PerfSizing#cqDepth})
     * @param connector the connector that made the QPs' connections, or null (perftest's exchange made them)
     * @param qps the QPs to the peer, one per QP of the table
     * @param peers UD: the address handle of each QP's peer; else null
     * @param peerQpns UD: each peer's QP number; else null
     * @param region the peer's memory region (its perftest QP data)
     * @param spec the table
     * @param progress where rows report their iterations
     * @param peer the peer's name, in errors
     */
    PerfRunner(Host host, Endpoint requester, Connector connector, QueuePair[] qps, AddressHandle[] peers,
            int[] peerQpns, PerfRegion region, PerfSpec spec, Progress progress, String peer) {
        this.spec = spec;
        this.host = host;
        this.progressHook = host::progress;
        this.progress = progress;
        this.hint = Completions.lossHint(spec.transport());
        this.atRequester = "a work request on " + requester.device.name();
        this.atResponder = "a receive at " + peer;
        this.receiveAtRequester = "a receive on " + requester.device.name();
        this.requester = requester;
        this.responder = null;
        this.connector = connector;
        this.remoteAddr = region.addr();
        this.remoteRkey = region.rkey();
        dataOff = 0; // sends start at the buffer's start; only receives leave a UD GRH's room
        int largest = 0;
        for (int size : spec.sizes()) {
            largest = Math.max(largest, size);
        }
        int grh = spec.transport() == Transport.UD ? Endpoint.GRH_BYTES : 0;
        int n = qps.length;
        sendQps = qps.clone();
        wrs = new SendWorkRequest[n];
        senderQpns = new int[n];
        for (int q = 0; q < n; q++) {
            senderQpns[q] = sendQps[q].qpNum();
            wrs[q] = postList(requester, remoteAddr, remoteRkey, peers == null ? null : peers[q],
                    peerQpns == null ? 0 : peerQpns[q]);
        }
        recvQps = new QueuePair[n];
        replies = new SendWorkRequest[n];
        recvs = new RecvWorkRequest[n];
        replyRecvs = new RecvWorkRequest[] {new RecvWorkRequest(1).sge(requester.mr, 0, grh + largest)};
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new WorkCompletion();
        }
        flows = new BandwidthFlow[] {new BandwidthFlow(spec, wcs, requester, null, sendQps, recvQps, wrs, recvs)};
        meter = new BandwidthMeter(spec.txDepth() * n + 1);
        samples = spec.latency()
                ? new long[spec.iters() > 0 ? Math.max(spec.iters(), WarmUp.MAX_ITERATIONS) : MAX_SAMPLES] : null;
        if (spec.latency() && spec.test().needsReceives()) {
            sendQps[0].postRecv(replyRecvs[0]);
        }
        if (spec.bidirectional() && spec.test().needsReceives() && !spec.latency()) {
            localRecv = new RecvWorkRequest(1).sge(requester.mr, 0, grh + largest);
        }
    }

    /**
     * The peer speaks perftest's protocol ({@link RemotePerf}): SEND rows and write latency run without warm-up,
     * which its side would count or answer as the test; write latency's RDMA WRITEs go to the peer's address and
     * the peer's land at {@code target}, each one's last byte the ping-pong's counter, the peer first, as perftest's
     * {@code run_iter_lat_write}.
     *
     * @param target where the peer's RDMA WRITEs land in this side's buffer
     * @return this
     */
    PerfRunner perftestPeer(int target) {
        this.perftest = true;
        this.target = target;
        return this;
    }

    /**
     * perftest's {@code --latency_gap}: each side busy-waits before each of its latency posts, inside the measured
     * time, as perftest's samples are the times between its posts ({@code run_iter_lat*}).
     *
     * @param nanos the gap; 0 for none
     * @return this
     */
    PerfRunner latencyGap(long nanos) {
        this.gapNanos = nanos;
        return this;
    }

    /**
     * perftest's software rate limiter ({@code --rate_limit}): each measured bandwidth row posts in bursts (warm-ups
     * are not limited).
     *
     * @param limit the limit; null for none
     * @return this
     */
    PerfRunner rateLimit(RateLimit limit) {
        this.rateLimit = limit;
        return this;
    }

    /**
     * perftest's {@code -C}, {@code -H}, {@code -U}: the latency rows' unit and lists of samples.
     *
     * @param r the variants
     * @return this
     */
    PerfRunner latencyReport(LatencyReport r) {
        this.report = r;
        return this;
    }

    /** @return the last latency row's lists of samples ({@code -U}, {@code -H}), then forgets them; "" if none */
    String takeListing() {
        String s = listing.toString();
        listing.setLength(0);
        return s;
    }

    /**
     * @param requested perftest's {@code -I}; 0 or less for none
     * @return the requester's answer to it ({@link Endpoint#inlineReport})
     */
    String inlineReport(int requested) {
        return requester.inlineReport(requested);
    }

    /** @return with perftest's {@code -e}, the completion events the requester's send CQ has given; else -1 */
    int sendEvents() {
        return requester.sendEvents == null ? -1 : requester.sendEvents.events();
    }

    /** @return with perftest's {@code -e}, the completion events the requester's receive CQ has given; else -1 */
    int recvEvents() {
        return requester.recvEvents == null ? -1 : requester.recvEvents.events();
    }

    /** @return whether rows run a warm-up first: not where a perftest peer would count it */
    private boolean warms() {
        return !perftest || !spec.test().needsReceives() && !(spec.latency() && spec.test() == PerfTest.WRITE);
    }

    /**
     * The responder in another process: one step of waiting for it, reposting the receives of its flow ({@code -b},
     * {@link #repostLocal()}) or, with none to repost, moving the network on.
     */
    void serveOnce() {
        if (repostLocal() == 0) {
            host.progress();
        }
    }

    /** @return receive completions of the peer's flow polled and reposted ({@link #localRecv}), 0 if none */
    private int repostLocal() {
        if (localRecv == null) {
            return 0;
        }
        int n = requester.recvCq.pollCq(wcs, wcs.length);
        for (int i = 0; i < n; i++) {
            Completions.check(wcs[i], receiveAtRequester);
            sendQps[BandwidthFlow.indexOf(senderQpns, wcs[i].qpNum())].postRecv(localRecv);
        }
        localReceived += n;
        return n;
    }

    /**
     * UD: the Q_Key this side's sends carry, where the peer's is not {@link Endpoint#QKEY} (perftest's {@code -R}:
     * the Q_Key SIDR resolved, rdma_cm's {@code RDMA_UDP_QKEY}).
     *
     * @param qkey the peer's Q_Key
     * @return this runner
     */
    PerfRunner remoteQkey(int qkey) {
        for (SendWorkRequest[] list : new SendWorkRequest[][] {wrs, replies}) {
            for (SendWorkRequest head : list) {
                for (SendWorkRequest wr = head; wr != null; wr = wr.next()) {
                    wr.remoteQkey(qkey);
                }
            }
        }
        return this;
    }

    /** @return the head of {@link PerfSpec#postList()} chained requests (one for latency) */
    private SendWorkRequest postList(Endpoint from, long toAddr, int toRkey, AddressHandle ah, int peerQpn) {
        int n = spec.latency() ? 1 : spec.postList();
        SendWorkRequest head = request(from, toAddr, toRkey, ah, peerQpn);
        SendWorkRequest tail = head;
        for (int i = 1; i < n; i++) {
            SendWorkRequest wr = request(from, toAddr, toRkey, ah, peerQpn);
            tail.next(wr);
            tail = wr;
        }
        return head;
    }

    private SendWorkRequest request(Endpoint from, long toAddr, int toRkey, AddressHandle ah, int peerQpn) {
        SendWorkRequest wr = new SendWorkRequest(1).opcode(spec.opcode()).sge(from.mr, dataOff, 1)
                .remoteAddr(toAddr).rkey(toRkey);
        if (spec.test() == PerfTest.ATOMIC && !spec.cmpAndSwap()) {
            wr.compareAdd(1); // perftest's add value; its CMP_AND_SWAP compares 0 and swaps in 0 (the WR's zeroes)
        }
        if (ah != null) {
            wr.ah(ah).remoteQpn(peerQpn).remoteQkey(Endpoint.QKEY);
        }
        return wr;
    }

    /** Sets every work request to {@code size} bytes (and write latency's target to the second half). */
    private void resize(int size) {
        this.size = size;
        boolean writeLat = spec.latency() && spec.test() == PerfTest.WRITE;
        for (int q = 0; q < wrs.length; q++) {
            for (SendWorkRequest wr = wrs[q]; wr != null; wr = wr.next()) {
                wr.sge(0).length(size);
            }
            for (SendWorkRequest wr = replies[q]; wr != null; wr = wr.next()) {
                wr.sge(0).length(size);
            }
            if (writeLat && !perftest) {
                wrs[q].remoteAddr(remoteAddr + size);
                if (replies[q] != null) {
                    replies[q].remoteAddr(requester.mr.addr() + size);
                }
            }
        }
    }

    /**
     * Measures one bandwidth row.
     *
     * @param size bytes per message
     * @return the row
     */
    BandwidthResult bandwidth(int size) {
        return bandwidth(size, null);
    }

    /**
     * Measures one bandwidth row, telling the peer process when its warm-up is over.
     *
     * @param size bytes per message
     * @param afterWarmUp runs between the warm-up (all of it complete) and the measured run; null in one process,
     *        where the first row warms up until the JIT has settled ({@link WarmUp#untilSteady})
     * @return the row
     */
    BandwidthResult bandwidth(int size, Runnable afterWarmUp) {
        resize(size);
        progress.row(spec.label() + " " + size + " B (warm-up)", 0);
        warmUpMessages = 0;
        if (!warms()) {
            // the peer would count these as the test's
        } else if (afterWarmUp == null && !settled) {
            settled = true;
            WarmUp.untilSteady(size, n -> warmUpMessages += windowed(n, 0, false).iterations());
        } else {
            WarmUp.run(size, n -> warmUpMessages += windowed(n, 0, false).iterations());
        }
        warmUpTotal += warmUpMessages;
        if (afterWarmUp != null) {
            afterWarmUp.run();
        }
        progress.row(spec.label() + " " + size + " B", (long) spec.iters() * wrs.length * flows.length);
        return windowed(spec.iters(), spec.durationNanos(), true).withSize(size);
    }

    /**
     * perftest's {@code --run_infinitely}: after the warm-up, one measured row of the table's duration after another,
     * with no margins (perftest prints the messages of each period), each handed to {@code row}; never returns unless
     * a row fails.
     *
     * @param size bytes per message
     * @param row takes each row as it ends
     */
    void infinitely(int size, java.util.function.Consumer<BandwidthResult> row) {
        infinitely(size, row, () -> false);
    }

    /**
     * {@link #infinitely(int, java.util.function.Consumer)} until {@code stop} says so at the end of a row (perftest's
     * {@code sigint_flag}, which its client's loop checks).
     *
     * @param size bytes per message
     * @param row takes each row as it ends
     * @param stop asked after every row: true ends the rows
     * @return the last row
     */
    BandwidthResult infinitely(int size, java.util.function.Consumer<BandwidthResult> row,
            java.util.function.BooleanSupplier stop) {
        BandwidthResult last = bandwidth(size);
        row.accept(last);
        noMargins = true;
        while (!stop.getAsBoolean()) {
            last = windowed(0, spec.durationNanos(), true).withSize(size);
            row.accept(last);
        }
        return last;
    }

    /** The result of a windowed run before its size is known to the caller. */
    private record Window(long iterations, long elapsedNanos, double bestNanosPerMessage) {
        BandwidthResult withSize(int size) {
            return BandwidthResult.of(size, iterations, elapsedNanos, bestNanosPerMessage);
        }
    }

    private Window windowed(int itersPerQp, long durationNanos, boolean report) {
        long target = itersPerQp > 0 ? itersPerQp : Long.MAX_VALUE;
        boolean receives = spec.test().needsReceives();
        // -b with the peer in another process: as perftest's run_iter_bi, a row of -n iterations ends only once the
        // peer's messages have all arrived too; a side that stopped reposting when its own sends were done left a
        // slower peer RNR-NAKed for good (rnr_retry 7), its sends never completing, while this side waited for its
        // report. A row of -D ends on time, as perftest's does.
        long peerMessages = localRecv != null && itersPerQp > 0 && durationNanos <= 0
                ? (long) itersPerQp * sendQps.length : 0;
        localReceived = 0;
        for (BandwidthFlow f : flows) {
            f.reset();
        }
        long start = System.nanoTime();
        boolean paced = report && rateLimit != null;
        if (paced) {
            long gap = rateLimit.gapNanos(size);
            for (BandwidthFlow f : flows) {
                f.pace(gap, rateLimit.burstSize(), start);
            }
        }
        long end = durationNanos > 0 ? start + durationNanos : Long.MAX_VALUE;
        meter.start(start, durationNanos, report && !noMargins ? spec.marginNanos() : 0);
        long last = start;
        long heard = start; // the last completion of either kind: the quiet deadline's start
        long done = 0;
        long posted = 0;
        boolean posting = true;
        boolean room = true; // the window may have room: at the start and after every poll that found completions
        int emptyPolls = 0;
        while (true) {
            if (posting && room) {
                long now = System.nanoTime();
                meter.tick(done, now);
                if (durationNanos > 0 && now - end >= 0) {
                    posting = false;
                } else {
                    long before = posted;
                    for (BandwidthFlow f : flows) {
                        posted += f.post(target);
                    }
                    if (posted > before) {
                        meter.posted(before, now);
                    }
                }
                room = paced; // a paced sender comes back for its next burst whether or not anything completed
            }
            long before = done;
            for (BandwidthFlow f : flows) {
                done += f.pollSends();
            }
            if (done > before) {
                long now = System.nanoTime();
                meter.tick(before, now);
                meter.completed(done, now);
                last = now;
                heard = now;
                room = true;
                if (report) {
                    progress.update(done);
                }
            } else if (requester.sendEvents != null) {
                // perftest's -e: nothing to poll, so wait for the send CQ's next completion event
                requester.sendEvents.awaitEvent(requester.sendCq, progressHook);
            } else {
                host.progress(); // nothing to poll: with --threading invoker this thread is the network
            }
            if (done == before) {
                // The first completion may take a whole window of large WRITEs: a longer wait, but not forever.
                long quiet = last == start ? firstCompletionNanos : Completions.DEADLINE_NANOS;
                // every 1024 spins, or every wait on the channel (each up to a millisecond)
                if ((++emptyPolls & 1023) == 0 || requester.sendEvents != null) {
                    long now = System.nanoTime();
                    meter.tick(done, now);
                    if (posting && durationNanos > 0 && now - end >= 0) {
                        posting = false;
                    }
                    if (now - heard > quiet) {
                        throw new IllegalStateException("no completion on " + requester.device.name() + " within "
                                + (quiet >= 1_000_000_000L ? quiet / 1_000_000_000L + " s" : quiet / 1_000_000L + " ms")
                                + (localReceived < peerMessages ? " (" + localReceived + " of the peer's "
                                        + peerMessages + " messages arrived)" : "") + hint);
                    }
                }
            }
            if (receives) {
                for (BandwidthFlow f : flows) {
                    f.repostReceives();
                }
                if (repostLocal() > 0) {
                    heard = System.nanoTime();
                }
            }
            if (finished(posting, target) && localReceived >= peerMessages) {
                break;
            }
        }
        if (receives) {
            // the last receive completions may trail the last send completion: repost them for the next row
            for (BandwidthFlow f : flows) {
                while (f.repostReceives() > 0) {
                    host.progress();
                }
            }
        }
        if (report) {
            lastRowUnmeasured = meter.unmeasured(done);
            unmeasuredMessages += lastRowUnmeasured;
        }
        return new Window(meter.iterations(done), meter.elapsedNanos(last), meter.bestNanosPerMessage());
    }

    private boolean finished(boolean posting, long target) {
        for (BandwidthFlow f : flows) {
            if (!f.finished(posting, target)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Measures one latency row.
     *
     * @param size bytes per message
     * @return the row
     */
    LatencyResult latency(int size) {
        resize(size);
        progress.row(spec.label() + " " + size + " B (warm-up)", 0);
        warmedUp = 0;
        if (warms()) {
            WarmUp.run(size, n -> warmedUp += sampleLatency(size, n, 0));
        }
        progress.row(spec.label() + " " + size + " B", spec.iters());
        int n = sampleLatency(size, spec.iters() > 0 ? spec.iters() : samples.length, spec.durationNanos());
        int rttFactor = spec.test() == PerfTest.READ || spec.test() == PerfTest.ATOMIC ? 1 : 2;
        listing.setLength(0);
        return LatencyResult.of(size, samples, n, rttFactor, report, listing);
    }

    private int sampleLatency(int size, int iters, long durationNanos) {
        QueuePair a = sendQps[0];
        QueuePair b = recvQps[0];
        SendWorkRequest ping = wrs[0];
        SendWorkRequest pong = replies[0];
        PerfTest test = spec.test();
        long end = durationNanos > 0 ? System.nanoTime() + durationNanos : Long.MAX_VALUE;
        // write latency: the last byte of the second half, or of the peer's message at the target
        int pollIndex = perftest ? target + size - 1 : 2 * size - 1;
        int i = 0;
        for (; i < iters; i++) {
            long t0 = System.nanoTime();
            if (responder == null) { // the responder is another process: this side's half of the ping-pong
                pingRemote(size, pollIndex, i);
            } else {
                switch (test) {
                    case SEND -> {
                        PerftestFlags.gap(gapNanos);
                        a.postSend(ping);
                        Completions.await(host, responder.recvCq, responder.recvEvents, wc, atResponder, hint);
                        b.postRecv(recvs[0]);
                        PerftestFlags.gap(gapNanos);
                        b.postSend(pong);
                        Completions.await(host, requester.recvCq, requester.recvEvents, wc, receiveAtRequester,
                                hint);
                        a.postRecv(replyRecvs[0]);
                        drain(requester.sendCq);
                        drain(responder.sendCq);
                    }
                    case WRITE -> {
                        byte s = nextStamp();
                        requester.buffer.put(size - 1, s);
                        PerftestFlags.gap(gapNanos);
                        a.postSend(ping);
                        awaitByte(responder.buffer, pollIndex, s, responder);
                        responder.buffer.put(size - 1, s);
                        PerftestFlags.gap(gapNanos);
                        b.postSend(pong);
                        awaitByte(requester.buffer, pollIndex, s, requester);
                        drain(requester.sendCq);
                        drain(responder.sendCq);
                    }
                    default -> { // READ, ATOMIC: one operation, its completion is its end
                        PerftestFlags.gap(gapNanos);
                        a.postSend(ping);
                        Completions.await(host, requester.sendCq, requester.sendEvents, wc, atRequester, hint);
                    }
                }
            }
            long t = System.nanoTime();
            samples[i] = t - t0;
            if ((i & 63) == 0) {
                progress.update(i);
            }
            if (t - end >= 0) {
                i++;
                break;
            }
        }
        return i;
    }

    /** One ping and its pong (SEND, WRITE) or one operation (READ, atomic) to a responder in another process. */
    private void pingRemote(int size, int pollIndex, int i) {
        QueuePair a = sendQps[0];
        switch (spec.test()) {
            case SEND -> {
                PerftestFlags.gap(gapNanos);
                a.postSend(wrs[0]);
                Completions.await(host, requester.recvCq, requester.recvEvents, wc, receiveAtRequester, hint);
                a.postRecv(replyRecvs[0]);
                drain(requester.sendCq);
            }
            case WRITE -> {
                if (perftest) {
                    // run_iter_lat_write: the server writes first; each side answers with the count it received
                    byte s = (byte) (i + 1);
                    awaitByte(requester.buffer, pollIndex, s, requester);
                    requester.buffer.put(size - 1, s);
                    PerftestFlags.gap(gapNanos);
                    a.postSend(wrs[0]);
                    drain(requester.sendCq);
                    return;
                }
                byte s = nextStamp();
                requester.buffer.put(size - 1, s);
                PerftestFlags.gap(gapNanos);
                a.postSend(wrs[0]);
                awaitByte(requester.buffer, pollIndex, s, requester);
                drain(requester.sendCq);
            }
            default -> {
                PerftestFlags.gap(gapNanos);
                a.postSend(wrs[0]);
                Completions.await(host, requester.sendCq, requester.sendEvents, wc, atRequester, hint);
            }
        }
    }

    private byte nextStamp() {
        stamp = stamp % 255 + 1; // 1..255: never the buffer's initial 0, never the previous stamp
        return (byte) stamp;
    }

    private void awaitByte(ByteBuffer buf, int index, byte value, Endpoint at) {
        long deadline = 0;
        int spins = 0;
        while (buf.get(index) != value) {
            VarHandle.acquireFence(); // re-read memory the network thread writes, every time round
            host.progress(); // with --threading invoker, the WRITE lands in this call
            if ((++spins & 0xFFF) == 0) {
                long now = System.nanoTime();
                if (deadline == 0) {
                    deadline = now + Completions.DEADLINE_NANOS;
                } else if (now - deadline > 0) {
                    throw new IllegalStateException("no RDMA WRITE arrived at " + at.device.name() + " within "
                            + Completions.DEADLINE_NANOS / 1_000_000_000L + " s" + hint);
                }
            }
        }
    }

    /** Consumes the send completions of a ping-pong (their ACKs may trail the replies). */
    private void drain(CompletionQueue cq) {
        while (cq.pollCq(wc)) {
            Completions.check(wc, atRequester);
        }
    }

    @Override
    public void close() {
        if (connector != null) {
            connector.disconnectAll();
        }
        requester.close();
        if (responder != null) {
            responder.close();
        }
        if (connector != null) {
            connector.close();
        }
    }

    /**
     * @return the messages of the bandwidth rows so far that completed in their margins ({@link PerfSpec#marginNanos()})
     *         and were not measured
     */
    long unmeasuredMessages() {
        return unmeasuredMessages;
    }

    /** @return the messages of the last bandwidth row that completed in its margins, not measured */
    long lastRowUnmeasured() {
        return lastRowUnmeasured;
    }

    /** @return the warm-up messages of the bandwidth rows so far (none of them measured) */
    long warmUpTotal() {
        return warmUpTotal;
    }

    /**
     * @return the line under a bandwidth table that counts what its rows did not measure: the warm-ups and, with
     *         {@code -D}, perftest's margins; e.g. {@code  Not measured    : 1024 warm-up messages; 66000 in the
     *         margins (the first and last 2 s of each row, perftest's --margin)}
     */
    String unmeasuredLine() {
        StringBuilder sb = new StringBuilder(" Not measured    : ").append(warmUpTotal).append(" warm-up messages");
        long margin = spec.marginNanos();
        if (margin > 0) {
            sb.append("; ").append(unmeasuredMessages).append(" in the margins (the first and last ")
                    .append(margin / 1_000_000_000L).append(" s of each row, perftest's --margin)");
        }
        return sb.toString();
    }

    /** @return the messages the last bandwidth row sent as its warm-up (complete before {@code afterWarmUp} runs) */
    long warmUpMessages() {
        return warmUpMessages;
    }

    /** @return the ping-pongs the last latency row ran as its warm-up */
    int warmedUp() {
        return warmedUp;
    }

    /**
     * @param nanos how long a bandwidth row waits for its first completion (tests of a stuck fabric)
     * @return this
     */
    PerfRunner firstCompletionWait(long nanos) {
        firstCompletionNanos = nanos;
        return this;
    }
}
