package io.rvt.launcher;

import io.rvt.api.AddressHandle;
import io.rvt.api.AhAttr;
import io.rvt.api.Device;
import io.rvt.api.Gid;
import io.rvt.api.PathMtu;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.SigType;
import io.rvt.api.WcFlag;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code rvt perf --server} and {@code rvt perf HOST}: perftest's server and client as two processes, speaking
 * perftest's protocol (perftest_communication.c), so that either end may be perftest itself ({@code ib_send_bw},
 * {@code ib_write_bw}, {@code ib_read_bw}, {@code ib_atomic_bw} and their {@code _lat}s). Over a TCP connection to
 * port {@code -p} (18515) the two exchange, lock-step ({@link PerftestComm}): the versions, page and cache line sizes,
 * the MTU (both use the smaller), each QP's {@link PerftestDest} (QPN, PSN, rkey, address, GID), then the same number
 * of hand-shakes as the perftest program of the test, before, between and after its rows, the bandwidth reports, and
 * {@code "done"}. The QPs are brought to RTS from the peer's data as perftest's {@code ctx_connect} does (path MTU,
 * minimum RNR timer 12, ACK timeout {@code -u} (14), 7 retries and RNR retries, hop limit 255, UD Q_Key
 * 0x11111111). What each side prints is what perftest's prints:
 * <ul>
 * <li>SEND bandwidth: the client its sends, the server what it received and at what rate (over UC and UD the
 * messages that arrived); no warm-up messages, which perftest's server would count;</li>
 * <li>RDMA WRITE, READ and atomic bandwidth: the client its row; the server, passive, the client's last row from its
 * report;</li>
 * <li>SEND and RDMA WRITE latency: both sides their own side of the same ping-pongs (the WRITE's last byte a counter,
 * the server's first); READ and atomic latency: the client alone (perftest's server prints no row);</li>
 * <li>{@code -b}: both sides send and receive at once and exchange their reports; both print the sum.</li>
 * </ul>
 * With perftest's {@code --reversed} on both ends the server and the client swap these rows (perftest's
 * {@code machine}), the exchange keeping its order. Both ends must be given the same test options, as perftest's must:
 * neither can see the other's.
 */
final class RemotePerf {
    /** How long a client waits for the TCP connection, and each side for the other's next exchange at set-up. */
    static final Duration CONNECT_PATIENCE = Duration.ofSeconds(60);
    /** perftest's hop limit on the path ({@code ctx_modify_qp_to_rtr}). */
    static final int HOP_LIMIT = 0xFF;
    /** perftest's {@code MIN_RNR_TIMER}. */
    static final int MIN_RNR_TIMER = 12;
    private static final SecureRandom PSN = new SecureRandom();
    /** The warm-up's CM port on this HCA, above {@code -p} ({@link #warmUp}). */
    static final int WARM_UP_CM_PORT_OFFSET = 1000;
    private long warmUpMessages;

    private final PrintStream out;
    private final PrintStream err;
    private final LinkOptions link;
    private final int port;
    private final boolean gbits;
    private final Reports reports;
    private final boolean rdmaCm;
    private PerftestFlags flags = PerftestFlags.DEFAULT;
    /** perftest's software rate limiter ({@code --rate_limit}) of the client's bandwidth rows; null for none. */
    private RateLimit rateLimit;
    private LatencyReport latencyReport = LatencyReport.DEFAULT;
    private int inlineSize;
    /** perftest's {@code -e}: the session's CQs on completion channels, waited on where nothing is to poll. */
    private boolean events;
    /** With {@code -e}, the completion events the last session's CQs gave (send and receive); -1 without. */
    private int eventsTaken = -1;
    /** perftest's {@code --use-srq}: the server's QPs of a SEND bandwidth test share a receive queue. */
    private boolean useSrq;
    /** {@link #sidrOnce()}: one SIDR_REQ, no second one after status 1. */
    private boolean sidrOnce;
    private int tos;
    /** perftest's {@code -g} and {@code -M}: UD SENDs to multicast groups; null for none. */
    private PerftestMcast mcast;
    /** perftest's {@code --reversed}: the server sends and the client receives. */
    private boolean reversed;
    /** perftest's {@code --run_infinitely}: asked after every row whether to stop; null for a table of rows. */
    private java.util.function.BooleanSupplier infinitely;
    /** How long a side of {@code --run_infinitely} waits for its peer's next exchange: as perftest's, for ever. */
    static final Duration FOREVER = Duration.ofMillis(Integer.MAX_VALUE);

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
     * @param link the port, path MTU, GID index and ACK timeout
     * @param port the TCP port ({@code -p})
     * @param gbits bandwidth in Gb/s ({@code --report_gbits})
     * @param reports writes the JSON files
     */
    RemotePerf(PrintStream out, PrintStream err, LinkOptions link, int port, boolean gbits, Reports reports) {
        this(out, err, link, port, gbits, reports, false);
    }

    /**
     * @param out where the table goes
     * @param err where the client's progress line goes
     * @param link the port, path MTU, GID index and ACK timeout
     * @param port the TCP port, or with {@code rdmaCm} the CM port ({@code -p})
     * @param gbits bandwidth in Gb/s ({@code --report_gbits})
     * @param reports writes the JSON files
     * @param rdmaCm perftest's {@code -R}: the channel and the test's QPs connected through rvt-cm
     *        ({@link PerftestRdmaCm}) instead of the TCP exchange
     */
    RemotePerf(PrintStream out, PrintStream err, LinkOptions link, int port, boolean gbits, Reports reports,
            boolean rdmaCm) {
        this.out = out;
        this.err = err;
        this.link = link;
        this.port = port;
        this.gbits = gbits;
        this.reports = reports;
        this.rdmaCm = rdmaCm;
    }

    /**
     * @param typeOfService perftest's {@code -T} with {@code -R}: the traffic class of the test's connections
     * @return this
     */
    RemotePerf tos(int typeOfService) {
        this.tos = typeOfService;
        return this;
    }

    /**
     * @param groups perftest's {@code -g} (and {@code -M}): over UD the receiving side's QP (the server's; in a latency
     *               test both sides') is attached to its multicast group and advertised as the group's MGID, MLID and
     *               QPN {@link PerftestMcast#QPNUM_MCAST}, and the sender addresses the group; null for none
     * @return this
     */
    RemotePerf multicast(PerftestMcast groups) {
        this.mcast = groups;
        return this;
    }

    /**
     * @param bytes perftest's {@code -I}: the inline data asked of the QPs; 0 for none
     * @return this
     */
    RemotePerf inlineSize(int bytes) {
        this.inlineSize = bytes;
        return this;
    }

    /**
     * @param r perftest's {@code -C}, {@code -H}, {@code -U}: the latency rows' unit and lists of samples
     * @return this
     */
    RemotePerf latencyReport(LatencyReport r) {
        this.latencyReport = r;
        return this;
    }

    /**
     * @param perftest perftest's flags beyond the table ({@code -N}, {@code -S}, {@code -L}, {@code --tclass},
     *                 {@code --flow_label}, {@code -o}, {@code -r}, {@code --wait_destroy})
     * @return this
     */
    RemotePerf flags(PerftestFlags perftest) {
        this.flags = perftest;
        return this;
    }

    /**
     * @param limit perftest's software rate limiter ({@code --rate_limit}) of the sending side's bandwidth rows; null
     *              for none
     * @return this
     */
    RemotePerf rateLimit(RateLimit limit) {
        this.rateLimit = limit;
        return this;
    }

    /**
     * @param events perftest's {@code -e}: a row that finds nothing to poll waits for its CQ's completion event
     *               (bandwidth: the client's send CQ, a SEND test's server its receive CQ; latency: each side's
     *               receive CQ in SEND, the client's send CQ in READ and atomic; WRITE has none, perftest's rule)
     * @return this
     */
    RemotePerf events(boolean events) {
        this.events = events;
        return this;
    }

    /**
     * @param reverse perftest's {@code --reversed} ({@code is_reversed}, which swaps its {@code machine}): the server
     *                (no HOST) runs the sending side's rows and the client the receiving side's, each printing what
     *                that side of perftest's program prints; the exchange keeps its roles (the client connects and
     *                writes first)
     * @return this
     */
    RemotePerf reversed(boolean reverse) {
        this.reversed = reverse;
        return this;
    }

    /**
     * perftest's {@code --run_infinitely} ({@code run_iter_bw_infinitely}, {@code run_iter_bw_infinitely_server}):
     * the sending side prints a row every {@code -D} until {@code stop} says so at the end of a row (perftest's
     * SIGINT, which its WRITE, READ and atomic clients catch: then {@code " User stopped traffic"}, the closing
     * exchanges, and the receiving side prints {@code " Client closed connection"}); a SEND sender that stops leaves
     * without a word, as perftest's, which dies of the signal. The receiving side of a SEND test prints a row of
     * what arrived every {@code -D}, also after the sender has gone (rows of 0), until {@code stop}; of WRITE, READ
     * and atomic it waits for the sender's closing exchanges for ever, failing if the sender's connection ends first.
     *
     * @param stop asked after every row; true ends this side's rows
     * @return this
     */
    RemotePerf runInfinitely(java.util.function.BooleanSupplier stop) {
        this.infinitely = stop;
        return this;
    }

    /**
     * @param shared perftest's {@code --use-srq}: the receiving side's QPs share one receive queue
     * @return this
     */
    RemotePerf useSrq(boolean shared) {
        this.useSrq = shared;
        return this;
    }

    /**
     * With {@code -R} over UD, resolves the server's QP with one SIDR_REQ as perftest's client does, failing on a
     * reply that nobody serves the port yet, instead of asking again (a test's stand-in for perftest's client).
     *
     * @return this
     */
    RemotePerf sidrOnce() {
        this.sidrOnce = true;
        return this;
    }

    /**
     * Connects to the server, runs the table's rows with it and closes.
     *
     * @param host this process's host (one HCA)
     * @param server the server's address
     * @param spec the table
     */
    void client(Host host, InetAddress server, PerfSpec spec) {
        Device dev = Main.requireDevices(host, 1, "perf").get(0);
        link.check(dev);
        warmUp(host, dev, spec);
        if (rdmaCm) {
            try (PerftestRdmaCm comm = PerftestRdmaCm.connect(host, dev, link, server, port, CONNECT_PATIENCE)) {
                if (sidrOnce) {
                    comm.sidrOnce();
                }
                int mtu = comm.prologue(link.pathMtu(dev).value());
                new Session(host, dev, spec, comm, mtu).run();
            }
            return;
        }
        try (PerftestComm.Tcp comm = PerftestComm.Tcp.connect(server, port, CONNECT_PATIENCE)) {
            int mtu = comm.prologue(link.pathMtu(dev).value());
            checkMulticastPeer(comm);
            new Session(host, dev, spec, comm, mtu).run();
        }
    }

    /**
     * Listens on the TCP port (with {@code -R} the CM port), takes one client, runs the table with it and prints its
     * rows. A client that does not speak perftest's protocol, or leaves before its opening exchanges are done, is
     * refused with one line, and the server waits for the next.
     *
     * @param host this process's host (one HCA)
     * @param spec the table, from this side's command line (perftest's server has no other)
     */
    void server(Host host, PerfSpec spec) {
        Device dev = Main.requireDevices(host, 1, "perf").get(0);
        link.check(dev);
        warmUp(host, dev, spec);
        if (rdmaCm) {
            try (PerftestRdmaCm comm = PerftestRdmaCm.accept(host, dev, link, port, RemotePingPong.SERVER_PATIENCE,
                    CONNECT_PATIENCE, link.pathMtu(dev).value(),
                    () -> out.printf("rvt perf: waiting for a client on %s, CM port %d (rdma_cm)%n", dev.name(),
                            port),
                    (peer, why) -> out.printf("rvt perf: refused the client at %s: %s; waiting for the next client%n",
                            peer, why))) {
                new Session(host, dev, spec, comm, comm.mtu()).run();
            }
            return;
        }
        try (ServerSocket listen = new ServerSocket()) {
            listen.setReuseAddress(true);
            listen.bind(new InetSocketAddress(port), 1);
            out.printf("rvt perf: waiting for a client on %s, TCP port %d%n", dev.name(), port);
            while (true) {
                PerftestComm.Tcp comm = PerftestComm.Tcp.accept(listen, RemotePingPong.SERVER_PATIENCE);
                int mtu;
                try {
                    comm.patience(CONNECT_PATIENCE);
                    mtu = comm.prologue(link.pathMtu(dev).value());
                    checkMulticastPeer(comm);
                } catch (IllegalStateException e) {
                    comm.close();
                    out.printf("rvt perf: refused the client at %s: %s; waiting for the next client%n", comm.peer,
                            e.getMessage());
                    continue;
                }
                try (comm) {
                    new Session(host, dev, spec, comm, mtu).run();
                }
                return;
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot listen on TCP port " + port + ": " + e.getMessage(), e);
        }
    }

    /**
     * With {@code -g}, refuses a peer that is not rvt (its version buffer carried no {@link PerftestComm#RVT_MARK}):
     * driver-jni sends a multicast SEND as one unicast copy to each peer in its HCA's peer table, while Linux's rxe
     * finds a multicast packet's group by its IP destination ({@code rxe_rcv_mcast_pkt}), which such a copy does not
     * carry, and receives at a group's IP address only what its IP stack has joined (rxe's {@code rxe_mcast_add}
     * joins none); docs/interop.md.
     *
     * @param comm the channel, after {@link PerftestComm#prologue}
     * @throws IllegalStateException with one line naming why, if multicast was asked for and the peer is not rvt
     */
    private void checkMulticastPeer(PerftestComm comm) {
        if (mcast != null && !comm.peerIsRvt) {
            throw new IllegalStateException("-g (multicast) with the peer at " + comm.peer + ", which is perftest, "
                    + "not rvt: driver-jni sends a group's SENDs as unicast copies, and a Linux RDMA device takes "
                    + "multicast only at the group's IP multicast address; run -g between two rvt processes");
        }
    }

    /**
     * A bandwidth table over RC or UC warms this process up on its own HCA before it meets the peer
     * ({@link PerfRunner#warmUpLocally}): the rows themselves carry no warm-up, which perftest's server would count.
     * The CM port is {@link #WARM_UP_CM_PORT_OFFSET} above {@code -p}, so as not to take the one {@code -R} listens on.
     */
    private void warmUp(Host host, Device dev, PerfSpec spec) {
        if (spec.latency() || spec.transport() == Transport.UD) {
            return;
        }
        warmUpMessages = PerfRunner.warmUpLocally(host, dev, spec, link, (port + WARM_UP_CM_PORT_OFFSET) & 0xFFFF,
                err);
        if (warmUpMessages > 0 && flags.output() == null) {
            out.printf(" Warm-up         : %d messages between two QPs of %s before meeting the peer (it saw none)%n",
                    warmUpMessages, dev.name());
        }
    }

    /** @return with {@code -e}, the completion events the last test's CQs gave (its send and receive CQ); else -1 */
    int completionEvents() {
        return eventsTaken;
    }

    /** @return the messages this process's warm-up ran on its own HCA (0: none, or not yet) */
    long warmUpMessages() {
        return warmUpMessages;
    }

    /**
     * @param spec the table
     * @param reversed perftest's {@code --reversed}: the server sends, the client receives
     * @return what the receiving side's rows are, for its closing line
     */
    static String whose(PerfSpec spec, boolean reversed) {
        String sender = reversed ? "server" : "client";
        if (spec.bidirectional()) {
            return "its own flow and the " + sender + "'s, added (both reports)";
        }
        if (spec.latency()) {
            return spec.test() == PerfTest.SEND || spec.test() == PerfTest.WRITE
                    ? "measured here, from one ping's arrival to the next"
                    : "none: the " + sender + " measures, perftest's " + (reversed ? "client" : "server")
                    + " prints no row";
        }
        return spec.test().needsReceives() ? "measured here: the messages received and at what rate"
                : "the " + sender + "'s measurement, from its report";
    }

    /** One test with one peer: the QPs, the exchanges of perftest's program, the rows. */
    private final class Session {
        /** UC and UD: how long the server waits for a message that may have been lost, before it counts without. */
        private static final long STRAGGLER_NANOS = 200_000_000;
        /** How often a server progressing the network asks whether the client has reached its next exchange. */
        private static final long PEER_LOOK_NANOS = 1_000_000;
        /**
         * The passive server's pause between its progress calls ({@link #progressUntilTheClientEnds()}): well inside
         * the backstop's quiet period (1 ms), so the backstop stays parked.
         */
        private static final long PASSIVE_PAUSE_NANOS = 50_000;
        private final Host host;
        private final Device dev;
        private final PerfSpec spec;
        private final PerftestComm comm;
        /** The channel with {@code -R}, which also connects the test's QPs; null over TCP. */
        private final PerftestRdmaCm cm;
        /** This side opened the exchange (perftest's {@code servername}): it connects and writes first. */
        private final boolean client;
        /** This side sends (perftest's {@code machine == CLIENT}): the client, or with {@code --reversed} the server. */
        private final boolean sender;
        private PathMtu mtu;
        private final int n;
        private final boolean ud;
        private final int largest;
        /** Where the peer's RDMA WRITEs land in this side's buffer: after the source of this side's own. */
        private final int target;
        private final Endpoint e;
        private final QueuePair[] qps;
        private final PerftestDest[] mine;
        private final PerftestDest[] theirs;
        private final AddressHandle[] ahs;
        private final int[] peerQpns;
        /** UD: the Q_Key of the peer's QPs ({@code RDMA_UDP_QKEY} with {@code -R}). */
        private int remoteQkey = Endpoint.QKEY;
        private final RecvWorkRequest recv;
        private final WorkCompletion wc = new WorkCompletion();
        private final WorkCompletion[] wcs = new WorkCompletion[16];
        private String peer;
        private PerfTable table;

        Session(Host host, Device dev, PerfSpec spec, PerftestComm comm, int mtuCode) {
            this.host = host;
            this.dev = dev;
            this.spec = spec;
            this.comm = comm;
            this.cm = comm instanceof PerftestRdmaCm c ? c : null;
            this.client = comm.client;
            this.sender = comm.client != reversed;
            this.peer = comm.peer;
            this.mtu = PathMtu.of(mtuCode);
            this.n = spec.latency() ? 1 : spec.qps();
            this.ud = spec.transport() == Transport.UD;
            this.largest = largest(spec);
            int grh = ud ? Endpoint.GRH_BYTES : 0;
            this.target = targetOffset(grh + largest);
            this.e = new Endpoint(dev, target + targetBytes(grh + largest, comm.cycleBuffer),
                    PerfSizing.cqDepth(spec), link, null, events).trafficClass(tos);
            if (useSrq && !sender) {
                // perftest's --use-srq: the receiving side's QPs share one receive queue, room for every QP's -r
                e.useSrq(n * Math.max(PerfSizing.rxDepth(spec), flags.rxDepth()));
            }
            this.qps = new QueuePair[n];
            this.mine = new PerftestDest[n];
            this.theirs = new PerftestDest[n];
            this.ahs = ud ? new AddressHandle[n] : null;
            this.peerQpns = new int[n];
            this.recv = new RecvWorkRequest(1).sge(e.mr, 0, grh + largest);
            for (int i = 0; i < wcs.length; i++) {
                wcs[i] = new WorkCompletion();
            }
        }

        void run() {
            try {
                setUp();
                rows();
                if (!spec.latency()) {
                    flags.waitBeforeDestroy();
                }
            } finally {
                if (cm != null) {
                    cm.disconnectTests();
                }
                if (e.sendEvents != null) {
                    eventsTaken = e.sendEvents.events() + e.recvEvents.events();
                }
                e.close();
            }
        }

        /** Creates the QPs, exchanges their data, connects them and synchronises as perftest's program does. */
        private void setUp() {
            SigType sig = spec.latency() ? SigType.SIGNAL_ALL_WR : SigType.SIGNAL_REQ_WR;
            if (cm != null) {
                connectThroughTheCm(sig);
            }
            for (int q = 0; q < n && cm == null; q++) {
                int psn;
                if (ud) {
                    qps[q] = e.createUdQp(PerfSizing.sendDepth(spec), recvDepth(), sig);
                    psn = e.udPsn(qps[q]);
                } else {
                    qps[q] = e.createQp(spec.transport().qpType(), PerfSizing.sendDepth(spec),
                            recvDepth(), sig);
                    psn = PSN.nextInt(1 << 24);
                }
                // perftest's vaddr: where the peer targets (its RDMA WRITEs, READs and atomics)
                mine[q] = new PerftestDest(e.lid(), outReads(), qps[q].qpNum(), psn, e.mr.rkey(),
                        e.mr.addr() + target, e.gid, 0);
                if (ud && mcast != null && (!client || spec.latency())) {
                    // send_set_up_connection: the QP joins this side's group, whose MGID, MLID and QPN go out instead
                    Gid group = mcast.group(client);
                    int mlid = PerftestMcast.mlid(group);
                    e.attachMcast(qps[q], group, mlid);
                    mine[q] = new PerftestDest(e.lid() != 0 ? mlid : 0, outReads(), PerftestMcast.QPNUM_MCAST, psn,
                            e.mr.rkey(), e.mr.addr() + target, group, 0);
                }
            }
            // receives first: a peer may send as soon as it has this side's data and its QP is in RTS
            if (spec.test().needsReceives() && (!sender || spec.bidirectional())) {
                int depth = spec.latency() ? 1 : flags.rxDepth() > 0 ? flags.rxDepth() : PerfSizing.rxDepth(spec);
                for (QueuePair qp : qps) {
                    for (int i = 0; i < depth; i++) {
                        e.postRecv(qp, recv);
                    }
                }
            }
            for (int q = 0; q < n; q++) {
                theirs[q] = comm.handShake(mine[q]);
            }
            if (!client && theirs[0].lid() == 0 && !theirs[0].gid().isMulticast()) {
                // a RoCE peer: named by its RDMA address, its GID, not the TCP connection's (which may be another)
                peer = ClientWait.address(theirs[0].gid());
                comm.peer = peer;
            }
            if (cm == null) {
                // with -R perftest checks no GIDs and connects nothing here: the CM has
                if (mcast == null) {
                    checkGids(); // a group's MGID is no address of an IP version
                }
                for (int q = 0; q < n; q++) {
                    connect(q);
                }
            }
            int extra = n + 1 + (spec.latency() && spec.test() != PerfTest.SEND ? 1 : 0);
            for (int i = 0; i < extra; i++) {
                comm.handShake(mine[0]);
            }
        }

        /**
         * perftest's {@code create_rdma_cm_connection}: a hand-shake, the test's QPs connected through the CM on the
         * channel's port (the client connects, the server accepts), a hand-shake; each QP's PSN is the CM's and its
         * path MTU what the CM agreed. Both hand-shakes carry a zeroed {@code struct pingpong_dest}, as perftest's.
         */
        private void connectThroughTheCm(SigType sig) {
            PerftestDest blank = new PerftestDest(0, 0, 0, 0, 0, 0, Gid.ZERO, 0);
            if (ud && !client) {
                // served before the hand-shake that lets the client resolve it: perftest's client fails on the first
                // SIDR_REP of status 1 (RDMA_CM_EVENT_UNREACHABLE), it does not try again
                serveThroughTheCm(sig);
            }
            comm.handShake(blank);
            if (ud) {
                if (client) {
                    resolveThroughTheCm(sig);
                } else {
                    awaitClientQpn();
                }
                comm.handShake(blank);
                if (!client) {
                    cm.stopServing();
                }
                mine[0] = new PerftestDest(e.lid(), outReads(), qps[0].qpNum(), e.udPsn(qps[0]), e.mr.rkey(),
                        e.mr.addr() + target, e.gid, 0);
                return;
            }
            io.rvt.cm.QpOptions options = e.qpOptions(spec.transport().qpType(), PerfSizing.sendDepth(spec),
                    recvDepth(), sig);
            io.rvt.cm.Connection[] cs = client ? cm.connectQps(e, options, n) : cm.acceptQps(e, options, n, qp -> { });
            comm.handShake(blank);
            for (int q = 0; q < n; q++) {
                qps[q] = cs[q].qp();
                mine[q] = new PerftestDest(e.lid(), outReads(), qps[q].qpNum(), cs[q].sendPsn(), e.mr.rkey(),
                        e.mr.addr() + target, e.gid, 0);
                peerQpns[q] = cs[q].remoteQpn();
            }
            mtu = cs[0].pathMtu();
        }

        /**
         * UD with {@code -R}, perftest's {@code rdma_cm_client_connection} in rdma_cm's UDP port space: the client
         * resolves the UD QP the server serves on the channel's CM port by SIDR, taking the QPN and Q_Key from the
         * SIDR_REP. Where the server sends too (latency, {@code -b}) it cannot know the client's QP from SIDR: the
         * client sends it one SEND_WITH_IMM of 4 bytes, its QPN the immediate data
         * ({@code rdma_cm_send_ud_connection_parameters}).
         */
        private void resolveThroughTheCm(SigType sig) {
            qps[0] = e.createUdQp(PerfSizing.sendDepth(spec), recvDepth(), sig,
                    io.rvt.cm.ConnectionManager.RDMA_UDP_QKEY);
            io.rvt.cm.DatagramPeer server = cm.resolveQp(e);
            ahs[0] = e.addressHandle(server);
            peerQpns[0] = server.qpn();
            remoteQkey = server.qkey();
            if (answers()) {
                SendWorkRequest imm = new SendWorkRequest(1).opcode(WrOpcode.SEND_WITH_IMM)
                        .sge(e.mr, 0, Integer.BYTES).immData(qps[0].qpNum())
                        .sendFlags(SendFlag.SIGNALED.bit());
                imm.ah(ahs[0]).remoteQpn(peerQpns[0]).remoteQkey(remoteQkey);
                qps[0].postSend(imm);
                WorkCompletion done = awaitCompletion(e.sendCq, "the SEND_WITH_IMM of this side's QPN");
                if (done.status() != WcStatus.SUCCESS) {
                    throw new IllegalStateException("the SEND_WITH_IMM of this side's QPN to the peer at " + peer
                            + " failed: " + done.status());
                }
            }
        }

        /**
         * UD with {@code -R}, perftest's {@code rdma_cm_server_connection} in rdma_cm's UDP port space: SIDR answers
         * with the test's UD QP (Q_Key {@code RDMA_UDP_QKEY}) on the channel's CM port from before the hand-shake
         * after which the client asks, with a receive posted for the client's QPN where this side sends too
         * ({@code rdma_cm_request_ud_connection_parameters}).
         */
        private void serveThroughTheCm(SigType sig) {
            int qkey = io.rvt.cm.ConnectionManager.RDMA_UDP_QKEY;
            qps[0] = e.createUdQp(PerfSizing.sendDepth(spec), recvDepth(), sig, qkey);
            remoteQkey = qkey;
            if (answers()) {
                qps[0].postRecv(new RecvWorkRequest(1).sge(e.mr, 0, Endpoint.GRH_BYTES + Integer.BYTES));
            }
            cm.serveQp(qps[0]);
        }

        /** The server's half after SIDR: where it sends too, the client's QPN from its SEND_WITH_IMM. */
        private void awaitClientQpn() {
            if (!answers()) {
                return;
            }
            WorkCompletion got = awaitCompletion(e.recvCq, "the client's QPN (its SEND_WITH_IMM)");
            if (got.status() != WcStatus.SUCCESS || !WcFlag.WITH_IMM.in(got.wcFlags())) {
                throw new IllegalStateException("the peer at " + peer + " sent no QPN in a SEND_WITH_IMM after "
                        + "resolving this side's UD QP (" + got + ")");
            }
            peerQpns[0] = got.immData();
            ahs[0] = e.addressHandle(new io.rvt.cm.DatagramPeer(cm.peerGid(), got.slid(), peerQpns[0], remoteQkey, 0,
                    new byte[0]));
        }

        /** @return whether the UD server sends too (latency, {@code -b}), so needs the client's QPN */
        private boolean answers() {
            return spec.latency() || spec.bidirectional();
        }

        /** Polls {@code cq} until one completion comes, the host progressing, within the set-up's patience. */
        private WorkCompletion awaitCompletion(io.rvt.api.CompletionQueue cq, String what) {
            long deadline = System.nanoTime() + CONNECT_PATIENCE.toNanos();
            while (!cq.pollCq(wc)) {
                host.progress();
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("gave up waiting for " + what + " after "
                            + CONNECT_PATIENCE.toSeconds() + " s (the peer at " + peer + ")");
                }
            }
            return wc;
        }

        /** @return receive queue entries per QP: room for {@code -r}'s receives */
        private int recvDepth() {
            return Math.max(PerfSizing.recvDepth(spec), flags.rxDepth());
        }

        /** @return the outstanding reads and atomics this side's QPs take as responders: {@code -o}, at most rvt's */
        private int outReads() {
            return flags.outReads() > 0 ? Math.min(flags.outReads(), Endpoint.RD_ATOMIC) : Endpoint.RD_ATOMIC;
        }

        /** {@code ctx_check_gid_compatibility}: both GIDs IPv4-mapped, or neither. */
        private void checkGids() {
            boolean v4 = isV4Mapped(mine[0].gid());
            if (v4 != isV4Mapped(theirs[0].gid())) {
                throw new IllegalStateException("the peer at " + peer + " uses an " + (v4 ? "IPv6" : "IPv4")
                        + " GID (" + theirs[0].gid() + "), this side an " + (v4 ? "IPv4" : "IPv6") + " one ("
                        + mine[0].gid() + "): give both sides the same IP version (perftest's --ipv6, rvt's -x)");
            }
        }

        /** perftest's {@code ctx_connect}: RTR and RTS toward the peer's QP (UD: an address handle). */
        private void connect(int q) {
            PerftestDest r = theirs[q];
            if (ud && mcast != null && r.gid().isMulticast()) {
                // the peer's group: a GRH to its MGID, the LRH to its MLID (a RoCE peer's 0: derived from the MGID)
                peerQpns[q] = r.qpn();
                ahs[q] = e.addressHandle(PerftestMcast.address(r.gid(), r.lid(), link.port(), link.gidIndex()));
                return;
            }
            AhAttr av = new AhAttr().dlid(r.lid()).sl(flags.sl()).srcPathBits(0).portNum(link.port());
            if (e.global() || r.lid() == 0) {
                av.global(true).hopLimit(flags.hopLimit()).trafficClass(flags.trafficClass())
                        .flowLabel(flags.flowLabel()).dgid(r.gid()).sgidIndex(Math.max(0, link.gidIndex()));
            }
            peerQpns[q] = r.qpn();
            if (ud) {
                ahs[q] = e.addressHandle(av);
                return;
            }
            QueuePair qp = qps[q];
            QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(mtu).destQpNum(r.qpn()).rqPsn(r.psn());
            rtr.ahAttr().copyFrom(av);
            int rtrMask = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                    QpAttrMask.RQ_PSN);
            boolean rc = spec.transport() == Transport.RC;
            if (rc) {
                rtr.maxDestRdAtomic(outReads()).minRnrTimer(MIN_RNR_TIMER);
                rtrMask |= QpAttrMask.mask(QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER);
            }
            qp.modifyQp(rtr, rtrMask);
            QpAttr rts = new QpAttr().qpState(QpState.RTS).sqPsn(mine[q].psn());
            int rtsMask = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.SQ_PSN);
            if (rc) {
                rts.timeout(link.qpTimeout()).retryCnt(link.retryCount()).rnrRetry(7)
                        .maxRdAtomic(Math.max(1, Math.min(r.outReads(), outReads())));
                rtsMask |= QpAttrMask.mask(QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY,
                        QpAttrMask.MAX_QP_RD_ATOMIC);
            }
            qp.modifyQp(rts, rtsMask);
        }

        private void header() {
            table = new PerfTable(out, spec.latency(), gbits, flags.output()).cycles(latencyReport.cycles())
                    .srq(useSrq).multicast(mcast != null);
            StringBuilder addresses = new StringBuilder();
            boolean rdma = spec.test() != PerfTest.SEND;
            boolean read = spec.test() == PerfTest.READ || spec.test() == PerfTest.ATOMIC;
            for (PerftestDest d : mine) {
                addresses.append(d.describe("local", rdma, read)).append(System.lineSeparator());
            }
            for (PerftestDest d : theirs) {
                addresses.append(d.describe("remote", rdma, read)).append(System.lineSeparator());
            }
            out.print(e.inlineReport(inlineSize));
            String from = sender ? dev.name() : peer;
            String to = sender ? peer : dev.name();
            table.header(spec, from, to, mtu.bytes(), host, link, cm != null ? PerfCommand.DATA_EXCHANGE
                    : PerfCommand.TCP_EXCHANGE, addresses.toString());
        }

        private void rows() {
            boolean sweep = spec.sizes().length > 1 && spec.test() != PerfTest.ATOMIC;
            if (sender) {
                try (Progress progress = new Progress(err, err == System.err && System.console() != null)) {
                    PerfRunner runner = new PerfRunner(host, e, null, qps, ahs, ud ? peerQpns : null,
                            new PerfRegion(theirs[0].vaddr(), theirs[0].rkey()), spec, progress, peer)
                            .perftestPeer(target).latencyGap(flags.latencyGapMicros() * 1000L)
                            .rateLimit(rateLimit).latencyReport(latencyReport)
                            .remoteQkey(remoteQkey);
                    progress.printQuietly(this::header);
                    clientRows(runner, progress, sweep);
                }
            } else {
                header();
                serverRows(sweep);
            }
        }

        private void clientRows(PerfRunner runner, Progress progress, boolean sweep) {
            PerfTest test = spec.test();
            if (infinitely != null) {
                sendInfinitely(runner, progress);
                return;
            }
            BandwidthResult last = null;
            for (int size : spec.sizes()) {
                if (spec.latency()) {
                    if (test == PerfTest.SEND) {
                        comm.handShake(mine[0]);
                    }
                    LatencyResult r = runner.latency(size);
                    String listing = runner.takeListing();
                    progress.printQuietly(() -> {
                        table.samples(listing);
                        table.row(r);
                    });
                    reports.write(spec, dev, mtu.bytes(), null, r);
                    continue;
                }
                if (test == PerfTest.SEND || spec.bidirectional()) {
                    comm.handShake(mine[0]);
                }
                BandwidthResult r = runner.bandwidth(size, () -> { });
                if (spec.bidirectional()) {
                    if (sweep && test != PerfTest.SEND) {
                        comm.handShake(mine[0]);
                    }
                    r = RemotePerf.sum(r, theirs(comm.reports(r)));
                }
                if (test == PerfTest.SEND && sweep) {
                    comm.handShake(mine[0]);
                }
                BandwidthResult row = flags.shown(r);
                progress.printQuietly(() -> table.row(row));
                reports.write(spec, dev, mtu.bytes(), row, null);
                last = r;
            }
            if (!spec.latency() && test != PerfTest.SEND && !spec.bidirectional()) {
                comm.handShake(mine[0]);
                comm.reports(last);
            }
            progress.printQuietly(table::footer);
            if (!spec.latency() && table.full()) {
                String line = runner.unmeasuredLine();
                progress.printQuietly(() -> out.println(line));
            }
            closeConnection();
        }

        /**
         * {@code --run_infinitely}, the sending side ({@code run_iter_bw_infinitely}): the one size's rows, each
         * {@code -D}, until {@link #infinitely} says stop; then WRITE, READ and atomic close as their table does, a
         * SEND test leaves without its closing exchange (perftest's SEND client dies of the SIGINT it does not catch).
         */
        private void sendInfinitely(PerfRunner runner, Progress progress) {
            int size = spec.sizes()[0];
            boolean send = spec.test() == PerfTest.SEND;
            if (send) {
                comm.handShake(mine[0]);
            }
            BandwidthResult last = runner.infinitely(size, r -> {
                BandwidthResult row = flags.shown(r);
                progress.printQuietly(() -> table.row(row));
                out.flush();
                reports.write(spec, dev, mtu.bytes(), row, null);
            }, infinitely);
            if (send) {
                return;
            }
            progress.printQuietly(() -> {
                out.println();
                out.println(" User stopped traffic");
                table.footer();
            });
            comm.handShake(mine[0]);
            comm.reports(last);
            closeConnection();
        }

        /**
         * {@code --run_infinitely}, the receiving side: a SEND test's {@code run_iter_bw_infinitely_server}, a row of
         * what arrived every {@code -D} (rows of 0 once the sender has gone) until {@link #infinitely} says stop,
         * which leaves without a closing exchange; WRITE, READ and atomic wait for the sender's closing exchanges for
         * ever and print {@code " Client closed connection"} instead of its report.
         */
        private void receiveInfinitely() {
            if (spec.test() != PerfTest.SEND) {
                comm.patience(FOREVER);
                comm.handShake(mine[0]);
                comm.reports(new BandwidthResult(largest, 0, 0, 0, 0));
                out.println(" Client closed connection");
                comm.closeConnection(mine[0]);
                table.footer();
                return;
            }
            comm.patience(waitForTheClient());
            comm.handShake(mine[0]);
            int size = spec.sizes()[0];
            do {
                BandwidthResult r = flags.shown(countFor(size, spec.durationNanos()));
                table.row(r);
                out.flush();
                reports.write(spec, dev, mtu.bytes(), r, null);
            } while (!infinitely.getAsBoolean());
        }

        /**
         * @return the messages received in {@code nanos}, every receive reposted, and their rate over that time
         *         (perftest's rows of {@code --run_infinitely}: the messages since the last row)
         */
        private BandwidthResult countFor(int size, long nanos) {
            long start = System.nanoTime();
            long end = start + nanos;
            long received = 0;
            long now = start;
            while (now - end < 0) {
                int k = e.recvCq.pollCq(wcs, wcs.length);
                for (int i = 0; i < k; i++) {
                    Completions.check(wcs[i], "a receive on " + dev.name());
                    e.postRecv(qpOf(wcs[i].qpNum()), recv);
                }
                received += k;
                if (k == 0) {
                    host.progress();
                }
                now = System.nanoTime();
            }
            return BandwidthResult.of(size, received, now - start, 0);
        }

        /**
         * perftest's {@code ctx_close_connection} at the end, a hand-shake and {@code "done"}: every program but
         * write_lat, which destroys its resources straight after its rows (write_lat.c has no closing exchange, and
         * a peer waiting for one reads the end of the connection instead).
         */
        private void closeConnection() {
            if (!(spec.latency() && spec.test() == PerfTest.WRITE)) {
                comm.closeConnection(mine[0]);
            }
        }

        private void serverRows(boolean sweep) {
            PerfTest test = spec.test();
            if (infinitely != null) {
                receiveInfinitely();
                return;
            }
            if (spec.latency() && (test == PerfTest.READ || test == PerfTest.ATOMIC)) {
                comm.patience(waitForTheClient());
                comm.closeConnection(mine[0]);
                table.footer();
                serverLine();
                return;
            }
            if (!spec.latency() && test != PerfTest.SEND && !spec.bidirectional()) {
                comm.patience(waitForTheClient());
                progressUntilTheClientEnds();
                comm.handShake(mine[0]);
                BandwidthResult theirs = flags.shown(theirs(comm.reports(new BandwidthResult(largest, 0, 0, 0, 0))));
                table.row(theirs);
                reports.write(spec, dev, mtu.bytes(), theirs, null);
                comm.closeConnection(mine[0]);
                table.footer();
                serverLine();
                return;
            }
            comm.patience(waitForTheClient());
            PerfRunner flow = spec.bidirectional() ? new PerfRunner(host, e, null, qps, ahs, ud ? peerQpns : null,
                    new PerfRegion(theirs[0].vaddr(), theirs[0].rkey()), spec, new Progress(err, false), peer)
                    .perftestPeer(target).rateLimit(rateLimit).remoteQkey(remoteQkey)
                    : null; // not closed: the endpoint is the session's
            for (int size : spec.sizes()) {
                if (spec.latency()) {
                    if (test == PerfTest.SEND) {
                        comm.handShake(mine[0]);
                    }
                    LatencyResult r = test == PerfTest.SEND ? answerSends(size) : answerWrites(size);
                    table.row(r);
                    reports.write(spec, dev, mtu.bytes(), null, r);
                    continue;
                }
                comm.handShake(mine[0]);
                BandwidthResult r;
                if (flow != null) {
                    r = flow.bandwidth(size, () -> { });
                    if (sweep && test != PerfTest.SEND) {
                        comm.handShake(mine[0]);
                    }
                    r = RemotePerf.sum(r, theirs(comm.reports(r)));
                } else {
                    r = countReceives(size);
                }
                if (test == PerfTest.SEND && sweep) {
                    comm.handShake(mine[0]);
                }
                r = flags.shown(r);
                table.row(r);
                reports.write(spec, dev, mtu.bytes(), r, null);
            }
            closeConnection();
            table.footer();
            serverLine();
        }

        /**
         * Says under the receiving side's table whose rows it printed (not with {@code --output}: the figures only):
         * the server's, or with {@code --reversed} the client's.
         */
        private void serverLine() {
            if (table.full()) {
                out.println((reversed ? "(client, receiving with --reversed: " : "(server: ") + whose(spec, reversed)
                        + ")");
            }
        }

        /** @return the peer's report, which must be a row here */
        private BandwidthResult theirs(BandwidthResult report) {
            if (report == null) {
                throw new IllegalStateException("the peer at " + peer + " sent a report that is no row (is it "
                        + "running the same test?)");
            }
            return report;
        }

        /**
         * The passive server's wait for the client's rows (RDMA WRITE, READ and atomic bandwidth), which end with a
         * hand-shake and the client's reports: perftest's server posts and polls nothing meanwhile, its HCA does the
         * work. Here the command's thread runs the network (the progress hook) until the client reaches that
         * hand-shake, where it blocked in the exchange's read and left driver-jni's port engine to its backstop,
         * which was woken by the first datagram of each burst and spun ten empty receives after it: 0.8-2.1
         * wake-ups of the server and as many context switches of the client per 64 KiB WRITE between two processes
         * (issue 30). It pauses {@value #PASSIVE_PAUSE_NANOS} ns between its progress calls: no completion is
         * coming to it, and a burst that has arrived meanwhile is received in one batch (polling without the pause
         * spun the driver's poller wait, 20 empty receives a message). With the network's own threads the read
         * blocks as before.
         */
        private void progressUntilTheClientEnds() {
            if (host.threading().ownThreads() || client) {
                // with --reversed the passive side is the client, which writes first in the hand-shake: the peer
                // (the sender) reads first and so never waits here; the client's read blocks as before
                return;
            }
            Duration patience = waitForTheClient();
            long deadline = System.nanoTime() + patience.toNanos();
            long nextLook = System.nanoTime();
            while (true) {
                host.progress();
                LockSupport.parkNanos(PASSIVE_PAUSE_NANOS);
                long now = System.nanoTime();
                if (now - nextLook < 0) {
                    continue;
                }
                if (comm.peerWaiting()) {
                    return;
                }
                if (now - deadline > 0) {
                    throw new IllegalStateException("the peer at " + peer + " said nothing for "
                            + patience.toSeconds() + " s");
                }
                nextLook = now + PEER_LOOK_NANOS;
            }
        }

        /** @return how long the server may wait for the client's next exchange: its whole table may run first */
        private Duration waitForTheClient() {
            long perRow = RemotePingPong.SERVER_PATIENCE.toNanos() + spec.durationNanos();
            return Duration.ofNanos(perRow * Math.min(spec.sizes().length, 8));
        }

        /**
         * SEND bandwidth, the server's side of a row: reposts every receive and counts them, until RC has had the
         * client's {@code -n} of every QP, or (UC, UD, {@code -D}) the client has reached its next exchange and no
         * message came for a while.
         *
         * @return what arrived and at what rate
         */
        private BandwidthResult countReceives(int size) {
            long expected = spec.iters() > 0 ? (long) spec.iters() * n : Long.MAX_VALUE;
            boolean lossy = spec.transport() != Transport.RC || spec.iters() == 0;
            long received = 0;
            long first = 0;
            long lastReceive = 0;
            long lastSeen = System.nanoTime();
            int spins = 0;
            while (received < expected) {
                int k = e.recvCq.pollCq(wcs, wcs.length);
                long now = System.nanoTime();
                for (int i = 0; i < k; i++) {
                    Completions.check(wcs[i], "a receive on " + dev.name());
                    e.postRecv(qpOf(wcs[i].qpNum()), recv);
                }
                if (k > 0) {
                    if (received == 0) {
                        first = now;
                    }
                    received += k;
                    lastReceive = now;
                    lastSeen = now;
                    continue;
                }
                if (e.recvEvents != null) {
                    // perftest's -e: wait for the receive CQ's next completion event (up to a millisecond)
                    e.recvEvents.awaitEvent(e.recvCq, host::progress);
                } else {
                    host.progress();
                    if ((++spins & 0x3FF) != 0) {
                        continue;
                    }
                }
                if (lossy && now - lastSeen > STRAGGLER_NANOS && comm.peerWaiting()) {
                    break; // the client is done and nothing more came
                }
                if (now - lastSeen > Completions.DEADLINE_NANOS + spec.durationNanos()) {
                    throw new IllegalStateException("only " + received + " of " + expected + " messages from the "
                            + "client at " + peer + " arrived at " + dev.name() + " (nothing for "
                            + (Completions.DEADLINE_NANOS + spec.durationNanos()) / 1_000_000_000L + " s)");
                }
            }
            // from the first receive to the last: the first message's own time is not seen, as perftest's server
            return BandwidthResult.of(size, received, lastReceive - first, 0);
        }

        private QueuePair qpOf(int qpn) {
            for (QueuePair qp : qps) {
                if (qp.qpNum() == qpn) {
                    return qp;
                }
            }
            throw new IllegalStateException("a receive completed on unknown QP 0x" + Integer.toHexString(qpn));
        }

        /**
         * SEND latency, the server's side ({@code run_iter_lat_send}): waits for each ping, reposts its receive and
         * answers it; a sample is the time from one ping's arrival to the next.
         */
        private LatencyResult answerSends(int size) {
            int iters = spec.iters() > 0 ? spec.iters() : Integer.MAX_VALUE;
            SendWorkRequest pong = new SendWorkRequest(1).opcode(WrOpcode.SEND).sge(e.mr, 0, size);
            if (ud) {
                pong.ah(ahs[0]).remoteQpn(peerQpns[0]).remoteQkey(remoteQkey);
            }
            long[] arrivals = new long[Math.min(iters, 1 << 20)];
            int pings = 0;
            int outstanding = 0;
            long lastSeen = System.nanoTime();
            int spins = 0;
            while (pings < iters) {
                if (!e.recvCq.pollCq(wc)) {
                    if (e.recvEvents != null) {
                        // perftest's -e: wait for the receive CQ's next completion event (up to a millisecond)
                        e.recvEvents.awaitEvent(e.recvCq, host::progress);
                        spins = 0x3FF;
                    } else {
                        host.progress();
                    }
                    if ((++spins & 0x3FF) == 0) {
                        long now = System.nanoTime();
                        if (spec.iters() == 0 && comm.peerWaiting()) {
                            break;
                        }
                        if (now - lastSeen > Completions.DEADLINE_NANOS) {
                            throw new IllegalStateException("ping " + (pings + 1) + " of the client at " + peer
                                    + " did not arrive within " + Completions.DEADLINE_NANOS / 1_000_000_000L + " s"
                                    + Completions.lossHint(spec.transport()));
                        }
                    }
                    continue;
                }
                long now = System.nanoTime();
                lastSeen = now;
                Completions.check(wc, "a ping on " + dev.name());
                qps[0].postRecv(recv);
                if (pings < arrivals.length) {
                    arrivals[pings] = now;
                }
                pings++;
                flags.latencyGap();
                qps[0].postSend(pong);
                outstanding++;
                while (e.sendCq.pollCq(wc)) {
                    Completions.check(wc, "a pong on " + dev.name());
                    outstanding--;
                }
            }
            awaitSends(outstanding);
            return ownLatency(size, arrivals, Math.min(pings, arrivals.length));
        }

        /**
         * RDMA WRITE latency, the server's side ({@code run_iter_lat_write}): it writes first; then waits for the
         * client's write of the same counter (the message's last byte) and writes the next.
         */
        private LatencyResult answerWrites(int size) {
            int iters = spec.iters() > 0 ? spec.iters() : Integer.MAX_VALUE;
            SendWorkRequest ping = new SendWorkRequest(1).opcode(WrOpcode.RDMA_WRITE).sge(e.mr, 0, size)
                    .remoteAddr(theirs[0].vaddr()).rkey(theirs[0].rkey());
            long[] arrivals = new long[Math.min(iters, 1 << 20)];
            int poll = target + size - 1;
            int got = 0;
            int outstanding = 0;
            for (int i = 1; i <= iters; i++) {
                if (i > 1) {
                    if (!awaitByte(poll, (byte) (i - 1), spec.iters() == 0)) {
                        break;
                    }
                    if (got < arrivals.length) {
                        arrivals[got] = System.nanoTime();
                    }
                    got++;
                }
                e.buffer.put(size - 1, (byte) i);
                flags.latencyGap();
                qps[0].postSend(ping);
                outstanding++;
                while (e.sendCq.pollCq(wc)) {
                    Completions.check(wc, "an RDMA WRITE on " + dev.name());
                    outstanding--;
                }
            }
            if (spec.iters() > 0 && awaitByte(poll, (byte) iters, false)) {
                if (got < arrivals.length) {
                    arrivals[got] = System.nanoTime();
                }
                got++;
            }
            awaitSends(outstanding);
            return ownLatency(size, arrivals, Math.min(got, arrivals.length));
        }

        /** @return true once the byte is there; false if {@code untilPeer} and the client reached its next exchange */
        private boolean awaitByte(int index, byte value, boolean untilPeer) {
            long deadline = System.nanoTime() + Completions.DEADLINE_NANOS;
            int spins = 0;
            while (e.buffer.get(index) != value) {
                VarHandle.acquireFence();
                host.progress();
                if ((++spins & 0xFFF) == 0) {
                    if (untilPeer && comm.peerWaiting()) {
                        return false;
                    }
                    if (System.nanoTime() - deadline > 0) {
                        throw new IllegalStateException("no RDMA WRITE of the client at " + peer + " arrived at "
                                + dev.name() + " within " + Completions.DEADLINE_NANOS / 1_000_000_000L + " s");
                    }
                }
            }
            return true;
        }

        /** Waits until the last answers have completed (their ACKs may trail the client's last ping). */
        private void awaitSends(int outstanding) {
            for (int i = 0; i < outstanding; i++) {
                Completions.await(host, e.sendCq, wc, "an answer on " + dev.name(), Completions.lossHint(
                        spec.transport()));
            }
        }

        private LatencyResult ownLatency(int size, long[] arrivals, int got) {
            int k = got - 1;
            if (k <= 0) {
                throw new IllegalStateException("the client at " + peer + " ran " + got + " ping-pongs of " + size
                        + " bytes: too few to measure");
            }
            long[] samples = new long[k];
            for (int i = 0; i < k; i++) {
                samples[i] = arrivals[i + 1] - arrivals[i];
            }
            StringBuilder listing = new StringBuilder();
            LatencyResult r = LatencyResult.of(size, samples, k, 2, latencyReport, listing);
            table.samples(listing.toString());
            // got ping-pongs, as perftest counts them; their k intervals are the samples
            return new LatencyResult(size, got, r.min(), r.max(), r.typical(), r.average(), r.stdev(), r.p99(),
                    r.p999());
        }
    }

    /**
     * @return both directions of a bidirectional row added, as perftest's {@code -b} reports them
     *         ({@code print_full_bw_report}): the rates added, the iterations this side's own
     */
    static BandwidthResult sum(BandwidthResult a, BandwidthResult b) {
        return new BandwidthResult(a.size(), a.iterations(), a.peakMiBps() + b.peakMiBps(),
                a.averageMiBps() + b.averageMiBps(), a.messageRateMpps() + b.messageRateMpps());
    }

    /** @return whether a GID is an IPv4-mapped address ({@code ::ffff:a.b.c.d}) */
    static boolean isV4Mapped(Gid gid) {
        return gid.subnetPrefix() == 0 && gid.interfaceId() >>> 32 == 0xFFFFL;
    }

    /**
     * Where the peer's RDMA WRITEs, READs and atomics land in the region: after this side's own buffer (its sends and
     * receives), on a cache line as perftest's buffers are.
     *
     * @param own the bytes of this side's buffer (the largest message, and a UD receive's GRH)
     * @return the offset of the target in the region
     */
    static int targetOffset(int own) {
        return roundUp(Math.max(own, PerfTest.ATOMIC_SIZE), PerftestComm.CACHE_LINE);
    }

    /**
     * The target's bytes: perftest's client steps its remote address by the message size rounded up to a cache line
     * through {@code cycle_buffer} bytes when a message is at most half of it ({@code increase_rem_addr}, the peer's
     * buffer being {@code BUFF_SIZE(size, cycle_buffer)} rounded up to a cache line), so an 8-byte atomic targets
     * 64 addresses of a 4 KiB page, not one.
     *
     * @param own the bytes of this side's buffer (at least the largest message)
     * @param cycleBuffer perftest's {@code cycle_buffer} both sides use ({@link PerftestComm#cycleBuffer})
     * @return the bytes at the target
     */
    static int targetBytes(int own, int cycleBuffer) {
        return roundUp(Math.max(Math.max(own, PerfTest.ATOMIC_SIZE), cycleBuffer), PerftestComm.CACHE_LINE);
    }

    private static int roundUp(int bytes, int unit) {
        return (bytes + unit - 1) / unit * unit;
    }

    /** @return the largest size of the table's rows */
    static int largest(PerfSpec spec) {
        int largest = 0;
        for (int size : spec.sizes()) {
            largest = Math.max(largest, size);
        }
        return largest;
    }
}
