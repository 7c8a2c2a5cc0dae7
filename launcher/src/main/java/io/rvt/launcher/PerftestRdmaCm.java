package io.rvt.launcher;

import io.rvt.api.Device;
import io.rvt.api.Errno;
import io.rvt.api.QueuePair;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.SigType;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.cm.CmException;
import io.rvt.cm.ConnectRequest;
import io.rvt.cm.DatagramPeer;
import io.rvt.cm.Connection;
import io.rvt.cm.Listener;
import io.rvt.cm.QpOptions;
import io.rvt.cm.RejectReason;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * perftest's channel with {@code -R} (perftest_communication.c {@code rdma_client_connect},
 * {@code rdma_server_connect}, {@code rdma_write_data}, {@code rdma_read_data}): an RC connection that rvt-cm makes to
 * CM port {@code -p} (18515) in rdma_cm's TCP port space, with no private data, one receive of
 * {@code sizeof(struct pingpong_dest)} (56 bytes) posted at a time on each side, and every exchange one signaled SEND
 * of at most that many bytes, lock-step as over TCP (the client sends first, the server answers). The QP data go in
 * {@link PerftestDest}'s binary form. The test's own QPs are connected through the same CM and port afterwards, between
 * two hand-shakes ({@code create_rdma_cm_connection}): the client connects {@code -q} of them ({@link #connectQps}),
 * the server accepts as many ({@link #acceptQps}); their PSNs, path MTU and RC parameters are the CM's, not the QP
 * data's. There is no closing {@code "done"}: the client disconnects the test's connections, then this one.
 */
final class PerftestRdmaCm extends PerftestComm {
    /** {@code sizeof(struct pingpong_dest)}: perftest's receive on this channel, so no exchange is larger. */
    static final int MESSAGE = PerftestDest.BINARY_SIZE;
    /** perftest's {@code SYNC_SPEC_ID}, the work request ID of the channel's SENDs and receives. */
    static final int SYNC_SPEC_ID = 5;
    /**
     * How long a client waits between connection attempts that found nobody listening: perftest's client retries its
     * test QPs' connection 10 times, 100 ms apart ({@code rdma_cm_client_connection}), because its server listens on
     * the port again only after the hand-shake that precedes it.
     */
    static final long RETRY_PAUSE_NANOS = 100_000_000L;
    /** How long a client waits for the DREP of each of its disconnects. */
    static final Duration GOODBYE = Duration.ofSeconds(5);
    /** How long a server waits for its client to disconnect before it disconnects itself. */
    static final Duration PEER_GOODBYE = Duration.ofSeconds(10);
    private static final int SEND_OFFSET = 64;

    private final Host host;
    private final Connector connector;
    private final Endpoint e;
    private final Connection control;
    private final Listener listener;
    private final InetAddress server;
    private final int port;
    private final int gidIndex;
    private final SendWorkRequest send;
    private final RecvWorkRequest recv;
    private final WorkCompletion wc = new WorkCompletion();
    private final List<Connection> tests = new ArrayList<>();
    /** Whether {@link #resolveQp} asks again after a SIDR_REP of status 1 (perftest's client does not). */
    private boolean sidrRetries = true;
    /** A receive has completed that no exchange has read yet ({@link #peerWaiting()} found it): it is in {@link #wc}. */
    private boolean pending;
    private long patienceNanos;
    /** The path MTU code the server's prologue agreed ({@link #accept}); 0 on a client. */
    private int mtu;

    private PerftestRdmaCm(boolean client, String peer, Host host, Connector connector, Endpoint e,
            Connection control, Listener listener, InetAddress server, int port, Duration patience) {
        super(client, peer);
        this.host = host;
        this.connector = connector;
        this.e = e;
        this.control = control;
        this.listener = listener;
        this.server = server;
        this.port = port;
        this.gidIndex = Math.max(0, e.link.gidIndex());
        this.send = new SendWorkRequest(SYNC_SPEC_ID).opcode(WrOpcode.SEND);
        this.recv = new RecvWorkRequest(SYNC_SPEC_ID).sge(e.mr, 0, MESSAGE);
        this.patienceNanos = patience.toNanos();
    }

    /** @return how rvt-cm builds the channel's QP: RC, one send and one receive at a time, as perftest's */
    private static QpOptions channelQp(Endpoint e) {
        return e.qpOptions(QpType.RC, 1, 1, SigType.SIGNAL_ALL_WR);
    }

    /**
     * Connects to a server's channel ({@code rdma_client_connect}), trying again while nobody listens on the port.
     *
     * @param host this process's host
     * @param dev its HCA
     * @param link the port, GID index and ACK timeout
     * @param server the server's address
     * @param port the CM port
     * @param patience how long to try, and how long each exchange may wait at set-up
     * @return the channel, its receive posted
     * @throws IllegalStateException if no connection is made
     */
    static PerftestRdmaCm connect(Host host, Device dev, LinkOptions link, InetAddress server, int port,
            Duration patience) {
        Connector connector = new Connector(host);
        Endpoint e = null;
        try {
            e = new Endpoint(dev, 2 * SEND_OFFSET, 4, link);
            Connection c = connect(connector, e, channelQp(e), server, port, patience);
            PerftestRdmaCm comm = new PerftestRdmaCm(true, server.getHostAddress(), host, connector, e, c, null,
                    server, port, patience);
            c.qp().postRecv(comm.recv);
            return comm;
        } catch (RuntimeException x) {
            close(connector, e);
            throw x;
        }
    }

    /**
     * Listens on the CM port and accepts the first client whose channel opens as perftest's does
     * ({@code rdma_server_connect}, then the opening exchanges of {@link #prologue}); the listener stays, for the
     * test's QPs. A client that connects and then sends what perftest would not (a message of another size, another
     * program's bytes) or leaves before the prologue is done is refused: its channel is disconnected and freed,
     * {@code refused} told who it was and why, and the server waits for the next, as its TCP exchange does.
     *
     * @param host this process's host
     * @param dev its HCA
     * @param link the port, GID index and ACK timeout
     * @param port the CM port
     * @param patience how long to wait for each client
     * @param opening how long each exchange of the prologue (and later ones) may wait for the client
     * @param mtuCode this side's path MTU, for the prologue
     * @param listening called once the port listens (the server's waiting line)
     * @param refused told the address of each client refused and why
     * @return the channel, its prologue done ({@link #mtu()}), its receive posted
     * @throws IllegalStateException if no client comes, or the port is taken
     */
    static PerftestRdmaCm accept(Host host, Device dev, LinkOptions link, int port, Duration patience,
            Duration opening, int mtuCode, Runnable listening, BiConsumer<String, String> refused) {
        Connector connector = new Connector(host);
        try {
            Listener l = connector.listen(dev, port);
            listening.run();
            while (true) {
                ConnectRequest req;
                try {
                    req = connector.request(l, patience);
                } catch (Connector.WaitTimeout x) {
                    throw new IllegalStateException("no client on CM port " + port + " within "
                            + patience.toSeconds() + " s", x);
                }
                PerftestRdmaCm comm = opened(host, dev, link, connector, l, req, port, opening, mtuCode, refused);
                if (comm != null) {
                    return comm;
                }
            }
        } catch (RuntimeException x) {
            connector.close();
            throw x;
        }
    }

    /** One client's channel accepted and its prologue run: the channel, or null if the client was refused. */
    private static PerftestRdmaCm opened(Host host, Device dev, LinkOptions link, Connector connector, Listener l,
            ConnectRequest req, int port, Duration opening, int mtuCode, BiConsumer<String, String> refused) {
        String from = ClientWait.address(req.remoteGid());
        Endpoint e = new Endpoint(dev, 2 * SEND_OFFSET, 4, link);
        PerftestRdmaCm comm = null;
        try {
            RecvWorkRequest first = new RecvWorkRequest(SYNC_SPEC_ID).sge(e.mr, 0, MESSAGE);
            // the client sends first, as soon as it is established: the receive goes before the REP
            Connection c = connector.accept(e, req, channelQp(e), null, qp -> qp.postRecv(first));
            comm = new PerftestRdmaCm(false, from, host, connector, e, c, l, null, port, opening);
            comm.mtu = comm.prologue(mtuCode);
            return comm;
        } catch (CmException | IllegalStateException x) {
            if (comm != null) {
                comm.control.disconnect();
            }
            e.close();
            refused.accept(from, x.getMessage());
            return null;
        }
    }

    /**
     * One rvt-cm connection to the server, tried again every {@link #RETRY_PAUSE_NANOS} while the server rejects it
     * because nobody listens on the port yet (rdma_cm's REJ, reason 8, invalid service ID).
     */
    private static Connection connect(Connector connector, Endpoint e, QpOptions qp, InetAddress server, int port,
            Duration patience) {
        long deadline = System.nanoTime() + patience.toNanos();
        while (true) {
            try {
                return connector.connect(e, qp, server, port, null);
            } catch (CmException x) {
                if (x.rejectReason() != RejectReason.INVALID_SERVICE_ID) {
                    throw new IllegalStateException("the server at " + server.getHostAddress() + " CM port " + port
                            + " refused the connection: " + x.getMessage(), x);
                }
                if (System.nanoTime() + RETRY_PAUSE_NANOS - deadline > 0) {
                    throw new IllegalStateException("nobody listens on CM port " + port + " of "
                            + server.getHostAddress() + " (rdma_cm's REJ: invalid service ID, for "
                            + patience.toSeconds() + " s): is the server running, with -R?", x);
                }
                LockSupport.parkNanos(RETRY_PAUSE_NANOS);
            }
        }
    }

    /**
     * The client's side of the test's connections ({@code rdma_cm_client_connection}): {@code n} QPs built by rvt-cm
     * from {@code qp} on the test's endpoint, connected to the server's port one after the other.
     *
     * @param at the test's endpoint (the connections are its, closed with it)
     * @param qp how to build each QP
     * @param n how many
     * @return the established connections
     */
    Connection[] connectQps(Endpoint at, QpOptions qp, int n) {
        Connection[] cs = new Connection[n];
        for (int i = 0; i < n; i++) {
            cs[i] = connect(connector, at, qp, server, port, RemotePerf.CONNECT_PATIENCE);
            tests.add(cs[i]);
        }
        return cs;
    }

    /**
     * The server's side of the test's connections ({@code rdma_cm_server_connection}): {@code n} requests on the
     * channel's port, each accepted with a QP built from {@code qp} on the test's endpoint.
     *
     * @param at the test's endpoint (the connections are its, closed with it)
     * @param qp how to build each QP
     * @param n how many
     * @param beforeEstablished runs on each new QP before its connection is established (post receives there)
     * @return the established connections
     */
    Connection[] acceptQps(Endpoint at, QpOptions qp, int n, Consumer<io.rvt.api.QueuePair> beforeEstablished) {
        Connection[] cs = new Connection[n];
        for (int i = 0; i < n; i++) {
            ConnectRequest req;
            try {
                req = connector.request(listener, RemotePerf.CONNECT_PATIENCE);
            } catch (Connector.WaitTimeout x) {
                throw new IllegalStateException("the client at " + peer + " connected " + i + " of its " + n
                        + " QPs within " + RemotePerf.CONNECT_PATIENCE.toSeconds() + " s", x);
            }
            cs[i] = connector.accept(at, req, qp, null, beforeEstablished);
            tests.add(cs[i]);
        }
        return cs;
    }

    /**
     * The client's side of a UD test's QP with {@code -R} ({@code rdma_cm_client_connection} in rdma_cm's UDP port
     * space): SIDR resolves the UD QP the server serves on the channel's CM port, tried again every
     * {@link #RETRY_PAUSE_NANOS} while the server answers that nobody serves it yet (SIDR status 1), as perftest's
     * client retries.
     *
     * @param at the test's endpoint
     * @return the server's UD QP: its GID, QPN and Q_Key
     */
    DatagramPeer resolveQp(Endpoint at) {
        long deadline = System.nanoTime() + RemotePerf.CONNECT_PATIENCE.toNanos();
        while (true) {
            try {
                return connector.resolveDatagram(at, server, port);
            } catch (CmException x) {
                if (!sidrRetries || x.errno() != Errno.ECONNREFUSED || !x.getMessage().contains("status 1")
                        || System.nanoTime() + RETRY_PAUSE_NANOS - deadline > 0) {
                    throw new IllegalStateException("the server at " + server.getHostAddress() + " CM port " + port
                            + " did not resolve its UD QP (SIDR): " + x.getMessage(), x);
                }
                LockSupport.parkNanos(RETRY_PAUSE_NANOS);
            }
        }
    }

    /**
     * Makes {@link #resolveQp} ask once, as perftest's client does: a SIDR_REP of status 1 (nobody serves the port
     * yet) fails the test instead of being asked again.
     *
     * @return this
     */
    PerftestRdmaCm sidrOnce() {
        sidrRetries = false;
        return this;
    }

    /**
     * The server's side of a UD test's QP with {@code -R} ({@code rdma_cm_server_connection}): SIDR answers with
     * {@code qp} on the channel's CM port until {@link #stopServing()}.
     *
     * @param qp the test's UD QP, its Q_Key rdma_cm's {@code RDMA_UDP_QKEY}
     */
    void serveQp(QueuePair qp) {
        connector.serveDatagram(e.device, port, qp);
    }

    /** Stops answering SIDR (and listening on the CM port): the UD test's QP is known to the client. */
    void stopServing() {
        connector.stopListening();
    }

    /**
     * Ends the test's connections before their QPs are destroyed: the client disconnects each and waits for its DREP
     * ({@code rdma_cm_disconnect_nodes}), the server waits for the client to do so (and disconnects what is left).
     */
    void disconnectTests() {
        endAll(tests);
        tests.clear();
    }

    private void endAll(List<Connection> cs) {
        if (client) {
            cs.forEach(Connection::disconnect);
        }
        for (Connection c : cs) {
            try {
                connector.await(c.disconnected(), "the disconnect of the connection to " + peer,
                        client ? GOODBYE : PEER_GOODBYE);
            } catch (RuntimeException x) {
                // a peer that has gone cannot answer; the server disconnects itself below
                c.disconnect();
            }
        }
    }

    @Override
    byte[] exchange(byte[] mine) {
        if (mine.length > MESSAGE) {
            throw new IllegalArgumentException("an exchange of " + mine.length + " bytes: perftest's rdma_cm channel "
                    + "takes at most " + MESSAGE);
        }
        if (client) {
            send(mine);
            return receive(mine.length);
        }
        byte[] theirs = receive(mine.length);
        send(mine);
        return theirs;
    }

    private void send(byte[] mine) {
        e.buffer.put(SEND_OFFSET, mine);
        send.sge(e.mr, SEND_OFFSET, mine.length);
        control.qp().postSend(send);
        await(e.sendCq, "a SEND to");
    }

    private byte[] receive(int n) {
        if (!pending) {
            await(e.recvCq, "a message from");
        }
        pending = false;
        if (wc.status() != WcStatus.SUCCESS) {
            throw new IllegalStateException("the channel to the peer at " + peer + " failed: " + wc.status()
                    + (wc.status() == WcStatus.WR_FLUSH_ERR ? " (the peer disconnected)" : ""));
        }
        if (wc.byteLen() != n) {
            throw new IllegalStateException("the peer at " + peer + " sent " + wc.byteLen() + " bytes where "
                    + "perftest's exchange has " + n + " (is it running the same test?)");
        }
        byte[] theirs = new byte[n];
        e.buffer.get(0, theirs);
        control.qp().postRecv(recv);
        return theirs;
    }

    /** Polls {@code cq} into {@link #wc} until a completion comes, the channel goes down, or the patience ends. */
    private void await(io.rvt.api.CompletionQueue cq, String what) {
        long start = System.nanoTime();
        int spins = 0;
        while (!cq.pollCq(wc)) {
            host.progress();
            if ((++spins & 0x3FF) == 0) {
                if (System.nanoTime() - start > patienceNanos) {
                    throw new IllegalStateException("the peer at " + peer + " said nothing for "
                            + Duration.ofNanos(patienceNanos).toSeconds() + " s");
                }
            }
        }
        if (cq == e.sendCq && wc.status() != WcStatus.SUCCESS) {
            throw new IllegalStateException(what + " the peer at " + peer + " failed: " + wc.status());
        }
    }

    @Override
    PerftestDest handShake(PerftestDest mine) {
        try {
            return PerftestDest.parseBinary(exchange(mine.toBinary(gidIndex)));
        } catch (IllegalArgumentException x) {
            throw new IllegalStateException(x.getMessage() + " (from " + peer + ")", x);
        }
    }

    /** @return the peer's GID, the channel's */
    io.rvt.api.Gid peerGid() {
        return control.remoteGid();
    }

    /** @return the path MTU code the prologue agreed, on a server's channel from {@link #accept} */
    int mtu() {
        return mtu;
    }

    @Override
    void done() {
        // with rdma_cm perftest writes no "done": the connections end when closed
    }

    @Override
    void patience(Duration patience) {
        patienceNanos = patience.toNanos();
    }

    @Override
    boolean peerWaiting() {
        if (!pending && e.recvCq.pollCq(wc)) {
            pending = true;
        }
        return pending;
    }

    /** Disconnects what is left (the client first, the server after its client), and frees the channel. */
    @Override
    public void close() {
        disconnectTests();
        endAll(List.of(control));
        close(connector, e);
    }

    /** The connector first (its disconnects, then the CM, as {@link RemotePingPong}), then the channel's QP. */
    private static void close(Connector connector, Endpoint e) {
        connector.close();
        if (e != null) {
            e.close();
        }
    }
}
