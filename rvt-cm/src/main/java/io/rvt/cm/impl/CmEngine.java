package io.rvt.cm.impl;

import io.rvt.api.AsyncEvent;
import io.rvt.api.AsyncEventType;
import io.rvt.api.Device;
import io.rvt.api.DeviceAttributes;
import io.rvt.api.DeviceClient;
import io.rvt.api.Errno;
import io.rvt.api.Gid;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.VerbsException;
import io.rvt.api.spi.TimerService;
import io.rvt.cm.CmConfig;
import io.rvt.cm.CmEvent;
import io.rvt.cm.CmEventListener;
import io.rvt.cm.CmEventType;
import io.rvt.cm.CmException;
import io.rvt.cm.CmState;
import io.rvt.cm.ConnectOptions;
import io.rvt.cm.ConnectRequest;
import io.rvt.cm.Connection;
import io.rvt.cm.ConnectionManager;
import io.rvt.cm.DatagramPeer;
import io.rvt.cm.QpOptions;
import io.rvt.cm.RejectReason;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The connection manager of one device: the tables of communication IDs (by local ID, by the peer's ID and by the
 * peer's QP), the operations applications call (connect, accept, reject, disconnect, close) and the shutdown. Its
 * parts: {@link GsiChannel} (the GSI QPs and their MAD slots), {@link CmStateMachine} (what each incoming MAD does
 * to an ID), {@link CmTimeouts} (the retransmission schedule), {@link ListenerTable}, {@link SidrResolver} (UD),
 * {@link QpSetup} (what the CM does to an application's QP) and {@link CmMessages} (the MADs it builds).
 * Everything runs under the engine's monitor, on whatever thread brings work: the GSI CQ's completion handler, a
 * timer, or an application call. Events, handler calls and future completions are queued under the monitor and run
 * after it is released, one at a time ({@link #drain()}), so that application code never runs with the lock held.
 */
final class CmEngine {
    private static final System.Logger LOG = System.getLogger(CmEngine.class.getName());

    /** The fewest nanoseconds an ID stays in timewait. */
    static final long MIN_TIMEWAIT_NANOS = 1_000_000L;
    final Device device;
    private final CmConfig config;
    /** The caller's timer service, else the device's ({@link TimerService#of(Device)}). */
    final TimerService timers;
    private final SplittableRandom random;
    private final long caGuid;
    private final DeviceAttributes attrs;

    final GsiChannel gsi;
    final ListenerTable listeners = new ListenerTable(this);
    final CmTimeouts timeouts = new CmTimeouts(this);
    final SidrResolver sidr = new SidrResolver(this);
    private final CmStateMachine machine = new CmStateMachine(this);
    final CmCounters counters = new CmCounters();
    private final CommIdAllocator ids;

    final Map<Integer, ConnId> byLocalId = new HashMap<>();
    final Map<RemoteKey, ConnId> byRemoteId = new HashMap<>();
    final Map<RemoteKey, ConnId> byRemoteQpn = new HashMap<>();
    private final List<CmEventListener> eventListeners = new CopyOnWriteArrayList<>();
    private final ConcurrentLinkedQueue<Runnable> deferred = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean dispatching = new AtomicBoolean();
    private final AtomicBoolean released = new AtomicBoolean();

    /** Handles on this engine; guarded by {@link CmRegistry}'s lock. */
    private int refs;
    private volatile boolean open = true;
    private long nextTid;
    /** Set once a flushed GSI QP on a live device was logged; under this monitor. */
    private boolean flushLogged;
    /**
     * The engine as its device's client ({@code cm_remove_one}): a removal ends the engine before it returns, on any
     * clock. Made at start; closed when the engine ends.
     */
    private volatile DeviceClient.Registration removalClient;

    private CmEngine(Device device, CmConfig config) {
        this.device = device;
        this.config = config;
        // no thread of rvt-cm's own: without a clock of the caller's the CM keeps its device's time, rvt-core's timer
        // agent (rvt-DEVICE-timer) on real time, a deterministic fabric's event loop on virtual time
        this.timers = config.timerService() != null ? config.timerService() : TimerService.of(device);
        this.random = config.isSeeded() ? new SplittableRandom(config.seed()) : new SplittableRandom();
        this.attrs = device.queryDevice();
        this.caGuid = attrs.nodeGuid();
        this.ids = newIdAllocator(config, random);
        this.nextTid = random.nextLong() & 0xFFFF_FFFFL;
        this.gsi = new GsiChannel(device, (port, sgid, slid, m) -> machine.dispatch(port, sgid, slid, m), counters);
    }

    /**
     * The IDs' key: from the system's strong entropy, so that a peer cannot predict them; from the seed when the CM
     * is seeded (a replaying clock: the same seed gives the same IDs).
     */
    private static CommIdAllocator newIdAllocator(CmConfig config, SplittableRandom random) {
        if (config.isSeeded()) {
            return new CommIdAllocator(new long[] {random.nextLong(), random.nextLong()}, random.nextInt());
        }
        java.security.SecureRandom strong = new java.security.SecureRandom();
        return new CommIdAllocator(new long[] {strong.nextLong(), strong.nextLong()}, strong.nextInt());
    }

    /**
     * Opens the CM of a device: a PD, one CQ, a registered buffer of receive and send slots, and the GSI QP of every
     * port, in RTS with Q_Key 0x80010000 and its receives posted.
     */
    static CmEngine open(Device device, CmConfig config) {
        CmEngine e = new CmEngine(device, config);
        try {
            e.start();
        } catch (RuntimeException ex) {
            e.deregisterClient();
            e.releaseResources();
            throw ex;
        }
        return e;
    }

    private void start() {
        try {
            removalClient = device.registerClient(d -> removeOne());
        } catch (VerbsException e) {
            if (e.errno() != Errno.ENODEV) {
                throw e;
            }
            throw new CmException(Errno.ENODEV, "device " + device.name() + " is gone", null, 0, 0, null, null, 0);
        }
        gsi.allocate(this::onCompletions, this::onAsyncEvent);
        synchronized (this) {
            gsi.openPorts(this::onAsyncEvent);
        }
        gsi.arm();
        onCompletions(); // anything that came before the CQ was armed
    }

    Device device() {
        return device;
    }

    CmConfig config() {
        return config;
    }

    boolean isOpen() {
        return open;
    }

    /** Takes a handle's reference; {@link CmRegistry}'s lock held (never this engine's: see {@link #releaseRef}). */
    void retain() {
        refs++;
    }

    /**
     * Drops a handle's reference; {@link CmRegistry}'s lock held. Not under this engine's monitor: the two locks are
     * never nested (an engine that ends tells the registry after it leaves its monitor).
     *
     * @return true if that was the last reference
     */
    boolean releaseRef() {
        return --refs == 0;
    }

    synchronized int idCount() {
        return byLocalId.size() + listeners.size();
    }

    void addEventListener(CmEventListener l) {
        if (l != null) {
            eventListeners.add(l);
        }
    }

    boolean removeEventListener(CmEventListener l) {
        return eventListeners.remove(l);
    }

    // ------------------------------------------------------------------ the GSI QPs

    /** The GSI CQ's handler: takes every completion, re-arms, and runs what it queued. */
    private void onCompletions() {
        synchronized (this) {
            if (!open) {
                return;
            }
            try {
                gsi.pollAll();
            } catch (VerbsException e) {
                if (!device.isAlive()) {
                    deviceGone();
                } else {
                    LOG.log(System.Logger.Level.WARNING, "rvt-cm: GSI CQ of " + device.name() + " failed", e);
                }
            }
            if (open && gsi.receivesFlushed()) {
                flushedGsi();
            }
        }
        drain();
    }

    /**
     * The GSI QP is in ERR. No removal in progress: a removal ends the engine, its device's client, before rvt-core
     * moves the device's QPs to ERR ({@link #removeOne}). A device found dead ends the engine all the same; on a live
     * one (the GSI CQ overflowed) the CM keeps its connections and logs it once. Under this monitor.
     */
    private void flushedGsi() {
        if (!device.isAlive()) {
            deviceGone();
        } else if (!flushLogged) {
            flushLogged = true;
            LOG.log(System.Logger.Level.WARNING, "rvt-cm: the GSI QP of " + device.name()
                    + " is in error on a live device; the CM keeps its connections");
        }
    }

    private void onAsyncEvent(AsyncEvent ev) {
        if (ev.type() == AsyncEventType.DEVICE_FATAL || ev.type() == AsyncEventType.DEVICE_REMOVAL
                || !device.isAlive()) {
            synchronized (this) {
                deviceGone();
            }
            drain();
        }
    }

    /** Sends a MAD from {@code port} to a peer's GSI QP; a MAD that cannot be posted is lost (and retried). */
    void send(GsiPort port, Gid dgid, int dlid, CmMad mad) {
        if (!gsi.send(port, dgid, dlid, mad) && !device.isAlive()) {
            deviceGone();
        }
    }

    /** Sends (and remembers for retransmission) a MAD of an ID. */
    void sendFor(ConnId id, CmMad mad) {
        id.lastSent = mad;
        send(id.port, id.remoteGid, id.remoteLid, mad);
    }

    /**
     * Sends an ID's peer a REJ of the message {@code what}; a TIMEOUT carries this CA's GUID as its additional
     * reject information, which is how ib_cm finds the ID it names ({@code cm_acquire_rejected_id}).
     */
    void sendRej(ConnId id, int remoteId, int what, RejectReason reason) {
        byte[] ari = reason == RejectReason.TIMEOUT
                ? java.nio.ByteBuffer.allocate(Long.BYTES).putLong(caGuid).array() : null;
        send(id.port, id.remoteGid, id.remoteLid, CmMessages.rej(id.localId, remoteId, id.tid, what, reason, ari,
                null));
    }

    /** Sends a REJ of a REQ or REP that has no ID here. */
    void sendRej(GsiPort port, Gid dgid, int dlid, CmMad m, int localId, int what, RejectReason reason,
            byte[] ari) {
        send(port, dgid, dlid, CmMessages.rej(localId, m.localCommId, m.tid, what, reason, ari, null));
    }

    // ------------------------------------------------------------------ deferred work

    void later(Runnable r) {
        deferred.add(r);
    }

    /** Runs the queued callbacks outside the monitor, one thread at a time (a nested call leaves them to the outer). */
    void drain() {
        while (!deferred.isEmpty()) {
            if (!dispatching.compareAndSet(false, true)) {
                return;
            }
            try {
                Runnable r;
                while ((r = deferred.poll()) != null) {
                    try {
                        r.run();
                    } catch (RuntimeException e) {
                        LOG.log(System.Logger.Level.WARNING, "rvt-cm: a callback failed", e);
                    }
                }
            } finally {
                dispatching.set(false);
            }
        }
    }

    void emit(ConnId id, CmEventType type, CmState prev, byte[] privateData, RejectReason reason,
            CmException error, int attempt, ConnectRequest request) {
        CmEvent ev = new CmEvent(type, prev, id.state, request == null ? id : null, request, id.remoteGid,
                id.cmPort, id.serviceId, privateData, reason, error, attempt, timers.nanoTime());
        later(() -> {
            for (CmEventListener l : eventListeners) {
                l.onEvent(ev);
            }
            for (CmEventListener l : id.listeners) {
                l.onEvent(ev);
            }
        });
    }

    /** Moves an ID to a state and reports it. */
    void transition(ConnId id, CmState next, CmEventType type, byte[] privateData, RejectReason reason,
            CmException error) {
        CmState prev = id.state;
        id.state = next;
        emit(id, type, prev, privateData, reason, error, 0, null);
    }

    // ------------------------------------------------------------------ IDs

    ConnId newId(ConnId.Kind kind, boolean active, GsiPort port, long serviceId, int cmPort) {
        ConnId id = new ConnId(this, kind, active, freeLocalId(), port, serviceId, cmPort);
        id.timer = timers.newTimer("rvt-cm id 0x" + Integer.toHexString(id.localId), () -> timeouts.onTimer(id));
        byLocalId.put(id.localId, id);
        return id;
    }

    /** @return a new local communication ID: unpredictable, never 0, unique among the live IDs */
    int freeLocalId() {
        return ids.next(byLocalId::containsKey);
    }

    long newTid() {
        return (nextTid++ & 0xFFFF_FFFFL) | ((long) (random.nextInt() & 0x7FFF_FFFF) << 32);
    }

    /** Removes an ID from every table and stops its timer. */
    void remove(ConnId id) {
        CmTimeouts.disarm(id);
        byLocalId.remove(id.localId, id);
        if (id.remoteGid != null) {
            byRemoteId.remove(new RemoteKey(id.remoteGid, id.remoteId), id);
            byRemoteQpn.remove(new RemoteKey(id.remoteGid, id.remoteQpn), id);
        }
    }

    /** Ends an attempt: the QP goes to ERR, the futures fail, the ID goes away. */
    void fail(ConnId id, CmException err, CmEventType type, RejectReason reason, byte[] privateData) {
        id.failure = err;
        QpSetup.toError(id);
        remove(id);
        transition(id, CmState.CLOSED, type, privateData, reason, err);
        CompletableFuture<Connection> f = id.established;
        later(() -> f.completeExceptionally(err));
        if (id.closedByUser) {
            QpSetup.destroy(id);
        }
    }

    void enterTimewait(ConnId id, CmEventType type, byte[] privateData) {
        QpSetup.toError(id);
        byRemoteQpn.remove(new RemoteKey(id.remoteGid, id.remoteQpn), id);
        transition(id, CmState.TIMEWAIT, type, privateData, null, null);
        if (type == CmEventType.DISCONNECTED) {
            CmEvent ev = new CmEvent(CmEventType.DISCONNECTED, CmState.ESTABLISHED, CmState.TIMEWAIT, id, null,
                    id.remoteGid, id.cmPort, id.serviceId, privateData, null, null, 0, timers.nanoTime());
            CompletableFuture<CmEvent> d = id.disconnected;
            later(() -> d.complete(ev));
        }
        if (!id.established.isDone()) {
            CmException err = new CmException(Errno.ECONNRESET, "the peer disconnected before the connection was "
                    + "established", id.remoteGid, id.cmPort, id.serviceId, null, privateData, 0);
            id.failure = err;
            CompletableFuture<Connection> f = id.established;
            later(() -> f.completeExceptionally(err));
        }
        timeouts.arm(id, timeouts.timewaitNanos(id));
    }

    // ------------------------------------------------------------------ checks

    /** @return the service ID of a CM port: RDMA_PS_UDP's for a datagram (SIDR) service, else RDMA_PS_TCP's */
    static long serviceIdChecked(int port, boolean datagram) {
        if (port < 0 || port > 0xFFFF) {
            throw new CmException(Errno.EINVAL, "CM port must be 0..65535, got " + port, null, port, 0, null, null,
                    0);
        }
        return datagram ? ConnectionManager.datagramServiceId(port) : ConnectionManager.serviceId(port);
    }

    void checkOpen(int port, long sid) {
        if (!open || !device.isAlive()) {
            throw new CmException(Errno.ENODEV, "connection manager of " + device.name() + " is closed", null, port,
                    sid, null, null, 0);
        }
    }

    static void checkPrivate(byte[] data, int max, String what, int port, long sid) {
        if (data != null && data.length > max) {
            throw new CmException(Errno.EINVAL, what + " private data is " + data.length + " bytes, at most " + max
                    + " fit", null, port, sid, null, null, 0);
        }
    }

    /** @return the private data of a REQ or SIDR_REQ: rdma_cm's IP CM header, then the caller's */
    byte[] withIpHeader(Gid src, Gid dst, ConnectOptions o) {
        int srcPort = o.sourcePort() >= 0 ? o.sourcePort() : 32768 + random.nextInt(28232);
        byte[] user = o.privateData();
        byte[] pdata = new byte[IpCmHeader.LENGTH + user.length];
        IpCmHeader.write(pdata, src, dst, srcPort);
        System.arraycopy(user, 0, pdata, IpCmHeader.LENGTH, user.length);
        return pdata;
    }

    // ------------------------------------------------------------------ active side

    Connection connect(ConnectOptions o) {
        long sid = serviceIdChecked(o.port(), false);
        Gid dst = o.destination();
        if (dst == null) {
            throw new CmException(Errno.EINVAL, "connect: no destination", null, o.port(), sid, null, null, 0);
        }
        QpOptions q = new QpOptions().copyFrom(o.qp());
        QpSetup.check(device, q, dst, o.port(), sid);
        checkPrivate(o.privateData(), ConnectionManager.MAX_REQ_PRIVATE_DATA, "REQ", o.port(), sid);
        ConnId id;
        synchronized (this) {
            checkOpen(o.port(), sid);
            GsiPort port = port(o.hcaPort(), dst, o.port(), sid);
            Gid src = device.queryGid(port.num, o.sgidIndex());
            QueuePair qp = QpSetup.create(q);
            try {
                QpSetup.toInit(qp, q, port.num);
            } catch (RuntimeException e) {
                QpSetup.quietly(qp::destroyQp);
                throw e;
            }
            id = newId(ConnId.Kind.CONNECT, true, port, sid, o.port());
            id.qp = qp;
            id.qpOptions = q;
            id.remoteGid = dst;
            id.sgidIndex = o.sgidIndex();
            id.recvPsn = random.nextInt() & 0xFF_FFFF; // the REQ's Starting PSN: what this QP expects first
            id.mtu = QpSetup.smaller(port.activeMtu(), q.pathMtu());
            id.responderResources = QpSetup.bound(q.responderResources(), attrs.maxQpRdAtom());
            id.initiatorDepth = QpSetup.bound(q.initiatorDepth(), attrs.maxQpInitRdAtom());
            id.localAckTimeout = q.localAckTimeout();
            id.retryCount = q.retryCount();
            id.flowLabel = o.flowLabel();
            id.trafficClass = o.trafficClass();
            id.hopLimit = o.hopLimit();
            id.sl = o.sl();
            int code = o.cmResponseTimeout() >= 0 ? o.cmResponseTimeout() : config.cmResponseTimeout();
            id.ownResponseTimeout = code;
            id.peerResponseTimeout = code;
            id.maxRetries = o.maxCmRetries() >= 0 ? o.maxCmRetries() : config.maxCmRetries();
            id.req = CmMessages.req(id, caGuid, attrs.localCaAckDelay(), src, withIpHeader(src, dst, o));
            sendReq(id);
        }
        drain();
        return id;
    }

    /** Sends (or resends, with a new ID after an MTU retry) the REQ of an active ID. */
    void sendReq(ConnId id) {
        id.tid = newTid();
        id.req.tid = id.tid;
        id.req.localCommId = id.localId;
        id.req.pathMtu = id.mtu.value();
        id.retries = 0;
        CmState prev = id.state;
        id.state = CmState.REQ_SENT;
        sendFor(id, id.req);
        emit(id, CmEventType.REQUEST_SENT, prev, null, null, null, 1, null);
        timeouts.armResponse(id);
    }

    GsiPort port(int hcaPort, Gid dst, int cmPort, long sid) {
        if (hcaPort < 1 || hcaPort > gsi.portCount()) {
            throw new CmException(Errno.EINVAL, "HCA port " + hcaPort + " does not exist on " + device.name()
                    + " (1.." + gsi.portCount() + ")", dst, cmPort, sid, null, null, 0);
        }
        return gsi.port(hcaPort);
    }

    // ------------------------------------------------------------------ passive side: accept, reject

    Connection accept(ConnId id, QpOptions options, byte[] privateData) {
        QpOptions q = new QpOptions().copyFrom(options);
        try {
            acceptLocked(id, q, privateData);
        } finally {
            drain();
        }
        return id;
    }

    private synchronized void acceptLocked(ConnId id, QpOptions q, byte[] privateData) {
        {
            checkOpen(id.cmPort, id.serviceId);
            answerable(id);
            QpSetup.check(device, q, id.remoteGid, id.cmPort, id.serviceId);
            checkPrivate(privateData, ConnectionManager.MAX_REP_PRIVATE_DATA, "REP", id.cmPort, id.serviceId);
            QpType want = id.request.qpType();
            if (q.type() != want) {
                throw new CmException(Errno.EINVAL, "the request is for a " + want + " QP, the options make a "
                        + q.type() + " QP", id.remoteGid, id.cmPort, id.serviceId, null, null, 0);
            }
            if (q.pathMtu() != null && q.pathMtu().value() < id.mtu.value()) {
                byte[] ari = {(byte) q.pathMtu().value()};
                rejectNow(id, RejectReason.INVALID_MTU, null, ari);
                throw new CmException(Errno.ECONNREFUSED, "the request's path MTU " + id.mtu + " is larger than "
                        + q.pathMtu() + ": rejected with the smaller MTU", id.remoteGid, id.cmPort, id.serviceId,
                        RejectReason.INVALID_MTU, null, 0);
            }
            Gid local = id.req.primaryRemoteGid;
            id.sgidIndex = QpSetup.sgidIndexOf(device, id.port, local);
            QueuePair qp;
            try {
                qp = QpSetup.create(q);
            } catch (VerbsException e) {
                rejectNow(id, RejectReason.NO_QP, null);
                throw e;
            }
            id.qp = qp;
            id.qpOptions = q;
            id.responderResources = Math.min(QpSetup.bound(q.responderResources(), attrs.maxQpRdAtom()),
                    id.req.initiatorDepth);
            id.initiatorDepth = Math.min(QpSetup.bound(q.initiatorDepth(), attrs.maxQpInitRdAtom()),
                    id.req.responderResources);
            id.recvPsn = random.nextInt() & 0xFF_FFFF; // the REP's Starting PSN: what this QP expects first
            try {
                QpSetup.toInit(qp, q, id.port.num);
                QpSetup.toRtr(id, id.remoteLid);
                QpSetup.toRts(id, id.req.rnrRetryCount, id.initiatorDepth);
            } catch (VerbsException e) {
                id.qp = null;
                QpSetup.quietly(qp::destroyQp);
                rejectNow(id, RejectReason.NO_RESOURCES, null);
                throw new CmException(Errno.EINVAL, "the QP could not take the request's parameters: "
                        + e.getMessage(), id.remoteGid, id.cmPort, id.serviceId, null, null, 0);
            }
            id.answered = true;
            id.listener.release(id);
            CmMad rep = CmMessages.rep(id, q, caGuid, attrs.localCaAckDelay(), privateData);
            id.retries = 0;
            CmState prev = id.state;
            id.state = CmState.REP_SENT;
            sendFor(id, rep);
            emit(id, CmEventType.REPLY_SENT, prev, null, null, null, 0, null);
            timeouts.armResponse(id);
        }
    }

    private void answerable(ConnId id) {
        if (id.active || id.answered || (id.state != CmState.REQ_RCVD && id.state != CmState.MRA_REQ_SENT)) {
            throw new CmException(Errno.EBUSY, "the connection request was already answered (state " + id.state
                    + ")", id.remoteGid, id.cmPort, id.serviceId, null, null, 0);
        }
    }

    void reject(ConnId id, RejectReason reason, byte[] privateData) {
        synchronized (this) {
            answerable(id);
            checkPrivate(privateData, ConnectionManager.MAX_REJ_PRIVATE_DATA, "REJ", id.cmPort, id.serviceId);
            rejectNow(id, reason == null ? RejectReason.CONSUMER_DEFINED : reason, privateData);
        }
        drain();
    }

    void rejectNow(ConnId id, RejectReason reason, byte[] privateData) {
        rejectNow(id, reason, privateData, null);
    }

    private void rejectNow(ConnId id, RejectReason reason, byte[] privateData, byte[] ari) {
        id.answered = true;
        if (id.listener != null) {
            id.listener.release(id);
        }
        send(id.port, id.remoteGid, id.remoteLid, CmMessages.rej(id.localId, id.remoteId, id.tid, CmMad.MSG_REQ,
                reason, ari, privateData));
        id.failure = new CmException(Errno.ECONNREFUSED, "rejected here", id.remoteGid, id.cmPort, id.serviceId,
                reason, privateData, 0);
        remove(id);
        transition(id, CmState.CLOSED, CmEventType.REJECTED, privateData, reason, id.failure);
        CompletableFuture<Connection> f = id.established;
        CmException err = id.failure;
        later(() -> f.completeExceptionally(err));
    }

    // ------------------------------------------------------------------ disconnect and close

    void disconnect(ConnId id, byte[] privateData) {
        checkPrivate(privateData, ConnectionManager.MAX_DREQ_PRIVATE_DATA, "DREQ", id.cmPort, id.serviceId);
        synchronized (this) {
            ConnId cur = id;
            if (open && cur.state == CmState.ESTABLISHED) {
                sendDreq(cur, privateData);
            } else if (open && (cur.state == CmState.REP_SENT || cur.state == CmState.MRA_REP_RCVD)) {
                sendDreq(cur, privateData); // the RTU may be lost: the peer may think it is connected
            }
        }
        drain();
    }

    void sendDreq(ConnId id, byte[] privateData) {
        QpSetup.toError(id);
        id.tid = newTid();
        id.retries = 0;
        sendFor(id, CmMessages.dreq(id, id.tid, privateData));
        transition(id, CmState.DREQ_SENT, CmEventType.DISCONNECT_REQUESTED, privateData, null, null);
        timeouts.armResponse(id);
    }

    void closeId(ConnId id) {
        synchronized (this) {
            ConnId cur = id;
            cur.closedByUser = true;
            id.closedByUser = true;
            if (open) {
                switch (cur.state) {
                    case ESTABLISHED:
                    case REP_SENT:
                    case MRA_REP_RCVD:
                        sendDreq(cur, null);
                        break;
                    case REQ_SENT:
                    case MRA_REQ_RCVD:
                        sendRej(cur, cur.remoteId, CmMad.MSG_REQ, RejectReason.TIMEOUT);
                        fail(cur, new CmException(Errno.ECONNRESET, "the connection was closed before it was "
                                + "established", cur.remoteGid, cur.cmPort, cur.serviceId, null, null, 0),
                                CmEventType.CONNECT_ERROR, null, null);
                        break;
                    case REQ_RCVD:
                    case MRA_REQ_SENT:
                        rejectNow(cur, RejectReason.CONSUMER_DEFINED, null);
                        break;
                    default:
                        break;
                }
            }
            QpSetup.destroy(cur);
        }
        drain();
    }

    // ------------------------------------------------------------------ shutdown

    /**
     * The device is being removed (the engine's {@link DeviceClient#remove}, as ib_cm's {@code cm_remove_one}): on the
     * removing thread, before rvt-core moves the device's QPs to ERR. The engine ends as on any removal it notices
     * ({@link #deviceGone}) and is gone from {@link CmRegistry} when this returns, whatever clock the CM runs on: a
     * deterministic fabric that never runs again after the unregister no longer keeps the engine, its device, driver
     * and fabric for the JVM's life.
     */
    private void removeOne() {
        synchronized (this) {
            deviceGone();
        }
        CmRegistry.remove(this); // after the monitor: the registry's lock is never taken inside an engine's
        drain();
    }

    /** The device went away: every ID and listener ends with ENODEV, and the engine closes. */
    void deviceGone() {
        if (!open) {
            return;
        }
        for (ConnId id : new ArrayList<>(byLocalId.values())) {
            CmException err = new CmException(Errno.ENODEV, "device " + device.name() + " went away",
                    id.remoteGid, id.cmPort, id.serviceId, null, null, 0);
            id.failure = err;
            remove(id);
            transition(id, CmState.CLOSED, CmEventType.DEVICE_REMOVAL, null, null, err);
            CompletableFuture<Connection> f = id.established;
            CompletableFuture<DatagramPeer> s = id.sidr;
            CmEvent gone = new CmEvent(CmEventType.DEVICE_REMOVAL, CmState.ESTABLISHED, CmState.CLOSED, id, null,
                    id.remoteGid, id.cmPort, id.serviceId, null, null, err, 0, timers.nanoTime());
            CompletableFuture<CmEvent> d = id.disconnected;
            later(() -> {
                f.completeExceptionally(err);
                d.complete(gone);
                if (s != null) {
                    s.completeExceptionally(err);
                }
            });
        }
        listeners.closeAll();
        open = false;
        deregisterClient();
        // outside the monitor, as the registry's lock is never taken inside an engine's (an acquire holds it while
        // it opens an engine); destroying the CQ waits for a completion handler that may be waiting for it
        later(() -> CmRegistry.remove(this));
        later(this::releaseResources);
    }

    private void deregisterClient() {
        DeviceClient.Registration r = removalClient;
        if (r != null) {
            r.close();
        }
    }

    /**
     * The empty polls of the GSI CQ a close makes at most while the MADs it posted leave (normally one: the poll's
     * progress sends them; 2^16 polls are tens of milliseconds on driver-jni, whose backstop sends within 10 ms).
     */
    private static final int CLOSE_SEND_POLLS = 1 << 16;

    /** The last handle went: connections are ended (DREQ sent, best effort), their QPs and the GSI QPs destroyed. */
    void close() {
        synchronized (this) {
            if (!open) {
                return;
            }
            for (ConnId id : new ArrayList<>(byLocalId.values())) {
                if (id.state == CmState.ESTABLISHED) {
                    sendDreq(id, null);
                } else if (id.state == CmState.REQ_RCVD || id.state == CmState.MRA_REQ_SENT) {
                    rejectNow(id, RejectReason.NO_RESOURCES, null);
                    continue;
                }
                CmException err = new CmException(Errno.ENODEV, "the connection manager was closed", id.remoteGid,
                        id.cmPort, id.serviceId, null, null, 0);
                if (id.failure == null) {
                    id.failure = err;
                }
                remove(id);
                QpSetup.toError(id);
                QpSetup.destroy(id);
                CmState prev = id.state;
                id.state = CmState.CLOSED;
                emit(id, CmEventType.DISCONNECTED, prev, null, null, err, 0, null);
                CompletableFuture<Connection> f = id.established;
                CompletableFuture<DatagramPeer> s = id.sidr;
                CmEvent ev = new CmEvent(CmEventType.DISCONNECTED, prev, CmState.CLOSED, id, null, id.remoteGid,
                        id.cmPort, id.serviceId, null, null, err, 0, timers.nanoTime());
                CompletableFuture<CmEvent> d = id.disconnected;
                later(() -> {
                    f.completeExceptionally(err);
                    d.complete(ev);
                    if (s != null) {
                        s.completeExceptionally(err);
                    }
                });
            }
            listeners.closeAll();
            open = false;
            deregisterClient();
        }
        awaitMadSends();
        drain();
        // outside the monitor: destroying the CQ waits for a completion handler that may be waiting for it
        releaseResources();
    }

    /** The DREQs and REJs the close sent leave before their GSI QPs go (at most {@link #CLOSE_SEND_POLLS} polls). */
    private void awaitMadSends() {
        if (timers.replaySeed().isPresent()) {
            // a replaying clock (driver-sim's deterministic fabric): polls here would run the fabric from whichever
            // thread closes (a component's deactivation), so the fabric's later trace would depend on thread timing
            return;
        }
        synchronized (this) {
            try {
                if (!gsi.awaitSends(CLOSE_SEND_POLLS)) {
                    LOG.log(System.Logger.Level.DEBUG, "rvt-cm: " + device.name()
                            + " closed with MAD sends still outstanding after " + CLOSE_SEND_POLLS + " empty polls");
                }
            } catch (VerbsException e) {
                // the device went away: nothing more leaves it
            }
        }
    }

    private void releaseResources() {
        if (!released.compareAndSet(false, true)) {
            return; // a close that found the device gone meanwhile: deviceGone queued the release already
        }
        gsi.release();
    }

    @Override
    public String toString() {
        return "CmEngine[" + device.name() + ", ids " + byLocalId.size() + ", listeners " + listeners.size() + "]";
    }

    /** @return the CM's counters by name ({@link ConnectionManager#counters()}) */
    synchronized Map<String, Long> counters() {
        return counters.snapshot();
    }

}
