package io.rvt.cm.impl;

import io.rvt.api.Errno;
import io.rvt.api.Gid;
import io.rvt.api.PathMtu;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.spi.RvtTimer;
import io.rvt.cm.CmEvent;
import io.rvt.cm.CmEventListener;
import io.rvt.cm.CmException;
import io.rvt.cm.CmState;
import io.rvt.cm.ConnectRequest;
import io.rvt.cm.Connection;
import io.rvt.cm.DatagramPeer;
import io.rvt.cm.Listener;
import io.rvt.cm.QpOptions;
import io.rvt.cm.RejectReason;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One communication ID ({@code struct cm_id_private}): its state, both sides' IDs and QPs, the parameters the REQ
 * and REP agreed on, its retransmission timer and the last MAD it sent. The fields are guarded by the engine's lock;
 * the public methods take it.
 */
final class ConnId implements Connection {
    /** What the ID is for. */
    enum Kind { CONNECT, SIDR }

    final CmEngine engine;
    final Kind kind;
    final boolean active;
    /** This side's communication ID (a new one when a REQ is sent again with a smaller MTU). */
    int localId;
    final GsiPort port;
    final long serviceId;
    final int cmPort;

    CmState state = CmState.IDLE;
    int remoteId;
    Gid remoteGid;
    /** The peer's LID as its MADs came from (0 while unknown, and on RoCE). */
    int remoteLid;
    long tid;
    // the QP
    QueuePair qp;
    QpOptions qpOptions;
    int sgidIndex;
    int remoteQpn;
    /** This QP's first send PSN: the Starting PSN of the peer's REQ or REP (ib_cm's {@code sq_psn}). */
    int sendPsn;
    /** This QP's first expected PSN, chosen here and sent as the Starting PSN (ib_cm's {@code rq_psn}). */
    int recvPsn;
    PathMtu mtu;
    int initiatorDepth;
    int responderResources;
    int localAckTimeout;
    int retryCount;
    int flowLabel;
    int trafficClass;
    int hopLimit;
    int sl;
    // timing
    int peerResponseTimeout;
    int ownResponseTimeout;
    int maxRetries;
    int retries;
    long deadline;
    RvtTimer timer;
    /** The last MAD sent, resent on timeout or on a duplicate. */
    CmMad lastSent;
    // passive side
    CmMad req;
    InetSocketAddress remoteAddress;
    byte[] remotePrivate = new byte[0];
    ListenerImpl listener;
    /** The request holds a place in its listener's backlog. */
    boolean held;
    /** When the peer of an unanswered request stops retrying it, by its REQ's timeouts (timer nanos; 0: unset). */
    long holdUntil;
    boolean answered;
    boolean mtuRetried;
    // outcome
    final CompletableFuture<Connection> established = new CompletableFuture<>();
    final CompletableFuture<CmEvent> disconnected = new CompletableFuture<>();
    CompletableFuture<DatagramPeer> sidr;
    CmException failure;
    boolean closedByUser;
    final List<CmEventListener> listeners = new CopyOnWriteArrayList<>();
    final RequestView request = new RequestView();

    ConnId(CmEngine engine, Kind kind, boolean active, int localId, GsiPort port, long serviceId, int cmPort) {
        this.engine = engine;
        this.kind = kind;
        this.active = active;
        this.localId = localId;
        this.port = port;
        this.serviceId = serviceId;
        this.cmPort = cmPort;
    }

    // ------------------------------------------------------------------ Connection

    @Override
    public QueuePair qp() {
        return qp;
    }

    @Override
    public CmState state() {
        synchronized (engine) {
            return state;
        }
    }

    @Override
    public boolean isActiveSide() {
        return active;
    }

    @Override
    public Gid remoteGid() {
        return remoteGid;
    }

    @Override
    public int remoteQpn() {
        synchronized (engine) {
            return remoteQpn;
        }
    }

    @Override
    public int port() {
        return cmPort;
    }

    @Override
    public long serviceId() {
        return serviceId;
    }

    @Override
    public int localCommId() {
        synchronized (engine) {
            return localId;
        }
    }

    @Override
    public int remoteCommId() {
        synchronized (engine) {
            return remoteId;
        }
    }

    @Override
    public PathMtu pathMtu() {
        synchronized (engine) {
            return mtu;
        }
    }

    @Override
    public int initiatorDepth() {
        synchronized (engine) {
            return initiatorDepth;
        }
    }

    @Override
    public int responderResources() {
        synchronized (engine) {
            return responderResources;
        }
    }

    @Override
    public int sendPsn() {
        synchronized (engine) {
            return sendPsn;
        }
    }

    @Override
    public int receivePsn() {
        synchronized (engine) {
            return recvPsn;
        }
    }

    @Override
    public byte[] remotePrivateData() {
        synchronized (engine) {
            return remotePrivate.clone();
        }
    }

    @Override
    public CompletableFuture<Connection> established() {
        return established;
    }

    @Override
    public Connection awaitEstablished(Duration timeout) {
        await(established, timeout, "connection to " + remoteGid + " port " + cmPort + " not established");
        return this;
    }

    /** Waits for a future of the CM, turning its failures into the {@link CmException} that caused them. */
    <T> T await(CompletableFuture<T> f, Duration timeout, String what) {
        try {
            return f.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw rethrow(e.getCause());
        } catch (TimeoutException e) {
            throw new CmException(Errno.ETIMEDOUT, what + " within " + timeout.toMillis() + " ms", remoteGid, cmPort,
                    serviceId, null, null, 0);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CmException(Errno.ETIMEDOUT, what + ": interrupted", remoteGid, cmPort, serviceId, null, null,
                    0);
        }
    }

    /** Waits for {@code c} to be established; closes it if it is not. */
    static Connection awaitOrClose(Connection c, Duration timeout) {
        try {
            return c.awaitEstablished(timeout);
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    static RuntimeException rethrow(Throwable cause) {
        if (cause instanceof CmException) {
            CmException c = (CmException) cause;
            CmException copy = new CmException(c.errno(), stripSuffix(c.getMessage()), c.peer(), c.port(),
                    c.serviceId(), c.rejectReason(), c.rejectPrivateData(), c.retries());
            copy.initCause(c);
            return copy;
        }
        return cause instanceof RuntimeException ? (RuntimeException) cause : new IllegalStateException(cause);
    }

    /** The message without the " (peer ...) (ERRNO)" the constructors append, so that a copy does not repeat it. */
    private static String stripSuffix(String m) {
        int i = m.lastIndexOf(" (peer ");
        return i > 0 ? m.substring(0, i) : m;
    }

    @Override
    public CmException failure() {
        synchronized (engine) {
            return failure;
        }
    }

    @Override
    public CompletableFuture<CmEvent> disconnected() {
        return disconnected;
    }

    @Override
    public void disconnect() {
        disconnect(null);
    }

    @Override
    public void disconnect(byte[] privateData) {
        engine.disconnect(this, privateData);
    }

    @Override
    public void addEventListener(CmEventListener listener) {
        if (listener != null) {
            listeners.add(listener);
        }
    }

    @Override
    public void close() {
        engine.closeId(this);
    }

    @Override
    public String toString() {
        return "Connection[" + (active ? "active" : "passive") + " id 0x" + Integer.toHexString(localId) + " "
                + state + ", peer " + remoteGid + " port " + cmPort + ", qp " + (qp == null ? "-" : "0x"
                + Integer.toHexString(qp.qpNum())) + " -> 0x" + Integer.toHexString(remoteQpn) + "]";
    }

    // ------------------------------------------------------------------ the request, before it is answered

    /** The {@link ConnectRequest} face of a passive ID. */
    final class RequestView implements ConnectRequest {
        @Override
        public Listener listener() {
            return listener;
        }

        @Override
        public Gid remoteGid() {
            return remoteGid;
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return remoteAddress;
        }

        @Override
        public int remoteQpn() {
            return req.localQpn;
        }

        @Override
        public QpType qpType() {
            return req.transportType == CmMad.TRANSPORT_UC ? QpType.UC : QpType.RC;
        }

        @Override
        public long serviceId() {
            return serviceId;
        }

        @Override
        public int remoteCommId() {
            return remoteId;
        }

        @Override
        public PathMtu pathMtu() {
            return QpSetup.mtuOf(req.pathMtu);
        }

        @Override
        public int responderResources() {
            return req.responderResources;
        }

        @Override
        public int initiatorDepth() {
            return req.initiatorDepth;
        }

        @Override
        public byte[] privateData() {
            return remotePrivate.clone();
        }

        @Override
        public Connection acceptAsync(QpOptions qp, byte[] privateData) {
            return engine.accept(ConnId.this, qp, privateData);
        }

        @Override
        public Connection accept(QpOptions qp, byte[] privateData, Duration timeout) {
            return awaitOrClose(acceptAsync(qp, privateData), timeout);
        }

        @Override
        public void reject(byte[] privateData) {
            reject(RejectReason.CONSUMER_DEFINED, privateData);
        }

        @Override
        public void reject(RejectReason reason, byte[] privateData) {
            engine.reject(ConnId.this, reason, privateData);
        }

        @Override
        public String toString() {
            return "ConnectRequest[from " + remoteGid + (remoteAddress != null ? " (" + remoteAddress + ")" : "")
                    + ", qp 0x" + Integer.toHexString(req.localQpn) + ", port " + cmPort + "]";
        }
    }
}
