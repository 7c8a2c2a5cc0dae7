package io.rvt.cm.impl;

import io.rvt.api.AccessFlag;
import io.rvt.api.AddressHandle;
import io.rvt.api.AhAttr;
import io.rvt.api.AsyncEvent;
import io.rvt.api.AsyncEventType;
import io.rvt.api.CompletionQueue;
import io.rvt.api.CqNotify;
import io.rvt.api.Device;
import io.rvt.api.DeviceAttributes;
import io.rvt.api.Errno;
import io.rvt.api.Gid;
import io.rvt.api.MemoryRegion;
import io.rvt.api.PathMtu;
import io.rvt.api.PortAttr;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.VerbsException;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.TimerService;
import io.rvt.cm.CmConfig;
import io.rvt.cm.CmEvent;
import io.rvt.cm.CmEventListener;
import io.rvt.cm.CmEventType;
import io.rvt.cm.CmException;
import io.rvt.cm.CmState;
import io.rvt.cm.ConnectOptions;
import io.rvt.cm.ConnectRequest;
import io.rvt.cm.ConnectRequestHandler;
import io.rvt.cm.Connection;
import io.rvt.cm.ConnectionManager;
import io.rvt.cm.DatagramPeer;
import io.rvt.cm.Listener;
import io.rvt.cm.QpOptions;
import io.rvt.cm.RejectReason;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
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
 * The connection manager of one device: a GSI QP per port with its receive and send slots, the tables of
 * communication IDs (by local ID, by the peer's ID and by the peer's QP), the listeners, and the CM state machine
 * (IBTA vol 1 ch 12.9). Everything runs under the engine's monitor, on whatever thread brings work: the GSI CQ's
 * completion handler, a timer, or an application call. Events, handler calls and future completions are queued
 * under the monitor and run after it is released, one at a time ({@link #drain()}), so that application code never
 * runs with the lock held.
 */
final class CmEngine {
    private static final System.Logger LOG = System.getLogger(CmEngine.class.getName());

    /** Receive slots per port: a 40-byte GRH area and a 256-byte MAD each. */
    static final int RECV_SLOTS = 64;
    static final int RECV_SLOT_BYTES = 40 + CmMad.SIZE;
    /** Send slots shared by the ports; a MAD that finds none is dropped (and retransmitted like a lost one). */
    static final int SEND_SLOTS = 128;
    private static final long RECV_TAG = 1L << 40;
    /** The permissive LID, which RoCE puts in the CM's LID fields (it has no LIDs). */
    static final int PERMISSIVE_LID = 0xFFFF;
    /** IB_RATE_10_GBPS, the packet rate the REQ's path names. */
    private static final int PACKET_RATE_10G = 3;
    /** The fewest nanoseconds an ID stays in timewait. */
    private static final long MIN_TIMEWAIT_NANOS = 1_000_000L;

    /** One HCA port: its GSI QP and the address handles of the peers it talked to. */
    final class Port {
        final int num;
        final QueuePair gsi;
        final Gid gid;
        final int lid;
        final int pkey;
        final PathMtu activeMtu;
        final Map<RemoteKey, AddressHandle> ahs = new HashMap<>();
        final int recvBase;

        Port(int num, QueuePair gsi, PortAttr attr, Gid gid, int pkey, int recvBase) {
            this.num = num;
            this.gsi = gsi;
            this.gid = gid;
            this.lid = attr.lid();
            this.pkey = pkey;
            this.activeMtu = attr.activeMtu();
            this.recvBase = recvBase;
        }

        /** @return true on RoCE, which has no LIDs */
        boolean roce() {
            return lid == 0;
        }

        AddressHandle ah(Gid dgid, int dlid) {
            RemoteKey key = new RemoteKey(dgid, dlid);
            AddressHandle ah = ahs.get(key);
            if (ah == null) {
                if (ahs.size() >= 4096) {
                    destroyAhs(this); // a CM that talked to that many peers starts over
                }
                ah = pd.createAh(new AhAttr().dlid(dlid).portNum(num).global(true).dgid(dgid).hopLimit(64));
                ahs.put(key, ah);
            }
            return ah;
        }
    }

    /** A peer's ID or QP: (GID, number). */
    static final class RemoteKey {
        final Gid gid;
        final int value;

        RemoteKey(Gid gid, int value) {
            this.gid = gid;
            this.value = value;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof RemoteKey && ((RemoteKey) o).value == value && ((RemoteKey) o).gid.equals(gid);
        }

        @Override
        public int hashCode() {
            return gid.hashCode() * 31 + value;
        }
    }

    private final Device device;
    private final CmConfig config;
    private final TimerService timers;
    private final boolean sharedTimer;
    private final SplittableRandom random;
    private final long caGuid;
    private final DeviceAttributes attrs;

    private ProtectionDomain pd;
    private CompletionQueue cq;
    private ByteBuffer buf;
    private MemoryRegion mr;
    private Port[] ports;
    private int sendBase;
    private final ArrayDeque<Integer> freeSend = new ArrayDeque<>();
    private final SendWorkRequest swr = new SendWorkRequest(1);
    private final RecvWorkRequest rwr = new RecvWorkRequest(1);
    private final WorkCompletion wc = new WorkCompletion();
    private final CmMad rx = new CmMad();

    private final Map<Integer, ConnId> byLocalId = new HashMap<>();
    private final Map<RemoteKey, ConnId> byRemoteId = new HashMap<>();
    private final Map<RemoteKey, ConnId> byRemoteQpn = new HashMap<>();
    private final Map<Long, ListenerImpl> listeners = new HashMap<>();
    private final List<CmEventListener> eventListeners = new CopyOnWriteArrayList<>();
    private final ConcurrentLinkedQueue<Runnable> deferred = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean dispatching = new AtomicBoolean();
    private final AtomicBoolean released = new AtomicBoolean();

    /** Handles on this engine; guarded by {@link CmRegistry}'s lock. */
    private int refs;
    private volatile boolean open = true;
    private int nextLocalId;
    private long nextTid;
    // counters (guarded by the monitor)
    long madsSent;
    long madsReceived;
    long madsDropped;
    long sendsDropped;

    private CmEngine(Device device, CmConfig config) {
        this.device = device;
        this.config = config;
        this.sharedTimer = config.timerService() == null;
        this.timers = sharedTimer ? SharedTimer.acquire() : config.timerService();
        this.random = config.isSeeded() ? new SplittableRandom(config.seed()) : new SplittableRandom();
        this.attrs = device.queryDevice();
        this.caGuid = attrs.nodeGuid();
        this.nextLocalId = random.nextInt();
        this.nextTid = random.nextLong() & 0xFFFF_FFFFL;
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
            e.releaseResources();
            throw ex;
        }
        return e;
    }

    private void start() {
        int n = device.portCount();
        pd = device.allocPd();
        cq = device.createCq(n * (RECV_SLOTS + SEND_SLOTS) + SEND_SLOTS, 0, c -> onCompletions(),
                this::onAsyncEvent);
        sendBase = n * RECV_SLOTS * RECV_SLOT_BYTES;
        buf = ByteBuffer.allocateDirect(sendBase + SEND_SLOTS * CmMad.SIZE).order(ByteOrder.BIG_ENDIAN);
        mr = pd.regMr(buf, AccessFlag.LOCAL_WRITE.bit());
        for (int i = 0; i < SEND_SLOTS; i++) {
            freeSend.add(i);
        }
        ports = new Port[n];
        synchronized (this) {
            for (int p = 1; p <= n; p++) {
                QpInitAttr init = new QpInitAttr();
                init.cap().maxSendWr(SEND_SLOTS).maxRecvWr(RECV_SLOTS).maxSendSge(1).maxRecvSge(1);
                QueuePair gsi = pd.createQp(init.qpType(QpType.GSI).portNum(p).sendCq(cq).recvCq(cq)
                        .eventHandler(this::onAsyncEvent));
                gsi.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).qkey(ConnectionManager.GSI_QKEY),
                        QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.QKEY));
                gsi.modifyQp(new QpAttr().qpState(QpState.RTR), QpAttrMask.STATE.bit());
                gsi.modifyQp(new QpAttr().qpState(QpState.RTS).sqPsn(0),
                        QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.SQ_PSN));
                PortAttr pa = device.queryPort(p, new PortAttr());
                Port port = new Port(p, gsi, pa, device.queryGid(p, 0), device.queryPkey(p, 0),
                        (p - 1) * RECV_SLOTS * RECV_SLOT_BYTES);
                ports[p - 1] = port;
                for (int s = 0; s < RECV_SLOTS; s++) {
                    postRecv(port, s);
                }
            }
        }
        cq.reqNotifyCq(CqNotify.NEXT_COMP.bit());
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
     * Drops a handle's reference; {@link CmRegistry}'s lock held. Not under this engine's monitor: an engine that
     * finds its device gone takes the registry's lock inside its monitor, so the reverse order would deadlock.
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

    private void postRecv(Port port, int slot) {
        rwr.wrId(RECV_TAG | ((long) port.num << 16) | slot).next(null)
                .sge(mr, port.recvBase + slot * RECV_SLOT_BYTES, RECV_SLOT_BYTES);
        try {
            port.gsi.postRecv(rwr);
        } catch (VerbsException e) {
            LOG.log(System.Logger.Level.DEBUG, "rvt-cm: cannot repost a GSI receive on " + device.name() + " port "
                    + port.num + ": " + e.getMessage());
        }
    }

    /** The GSI CQ's handler: takes every completion, re-arms, and runs what it queued. */
    private void onCompletions() {
        synchronized (this) {
            if (!open) {
                return;
            }
            try {
                do {
                    while (cq.pollCq(wc)) {
                        onCompletion(wc);
                    }
                } while (cq.reqNotifyCq(CqNotify.NEXT_COMP.bit() | CqNotify.REPORT_MISSED_EVENTS.bit()) > 0);
            } catch (VerbsException e) {
                if (!device.isAlive()) {
                    deviceGone();
                } else {
                    LOG.log(System.Logger.Level.WARNING, "rvt-cm: GSI CQ of " + device.name() + " failed", e);
                }
            }
        }
        drain();
    }

    private void onCompletion(WorkCompletion c) {
        long id = c.wrId();
        if ((id & RECV_TAG) == 0) {
            freeSend.add((int) id);
            if (c.status() != WcStatus.SUCCESS && c.status() != WcStatus.WR_FLUSH_ERR) {
                sendsDropped++;
            }
            return;
        }
        int portNum = (int) (id >>> 16) & 0xFF;
        int slot = (int) id & 0xFFFF;
        Port port = portNum >= 1 && portNum <= ports.length ? ports[portNum - 1] : null;
        if (port == null || c.status() != WcStatus.SUCCESS) {
            return; // flushed: the QP is going away
        }
        int at = port.recvBase + slot * RECV_SLOT_BYTES;
        madsReceived++;
        if (c.opcode() != WcOpcode.RECV || c.byteLen() < RECV_SLOT_BYTES
                || !rx.decode(buf, at + 40, CmMad.SIZE)) {
            madsDropped++;
        } else {
            Gid sgid = Gid.read(buf, at + 8);
            try {
                dispatch(port, sgid, c.slid(), rx);
            } catch (RuntimeException e) {
                madsDropped++;
                LOG.log(System.Logger.Level.WARNING, "rvt-cm: " + CmMad.name(rx.attrId) + " from " + sgid
                        + " failed", e);
            }
        }
        postRecv(port, slot);
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
    private void send(Port port, Gid dgid, int dlid, CmMad mad) {
        Integer slot = freeSend.poll();
        if (slot == null) {
            sendsDropped++;
            return;
        }
        int off = sendBase + slot * CmMad.SIZE;
        mad.encode(buf, off);
        try {
            swr.wrId(slot).opcode(WrOpcode.SEND).sendFlags(SendFlag.SIGNALED.bit()).next(null)
                    .sge(mr, off, CmMad.SIZE).ah(port.ah(dgid, dlid)).remoteQpn(1)
                    .remoteQkey(ConnectionManager.GSI_QKEY).pkeyIndex(0);
            port.gsi.postSend(swr);
            madsSent++;
        } catch (VerbsException e) {
            freeSend.add(slot);
            sendsDropped++;
            if (!device.isAlive()) {
                deviceGone();
            }
        }
    }

    /** Sends (and remembers for retransmission) a MAD of an ID. */
    private void sendFor(ConnId id, CmMad mad) {
        id.lastSent = mad;
        send(id.port, id.remoteGid, id.remoteLid, mad);
    }

    private void destroyAhs(Port p) {
        for (AddressHandle ah : p.ahs.values()) {
            quietly(ah::destroyAh);
        }
        p.ahs.clear();
    }

    // ------------------------------------------------------------------ deferred work

    private void later(Runnable r) {
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

    private void emit(ConnId id, CmEventType type, CmState prev, byte[] privateData, RejectReason reason,
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
    private void transition(ConnId id, CmState next, CmEventType type, byte[] privateData, RejectReason reason,
            CmException error) {
        CmState prev = id.state;
        id.state = next;
        emit(id, type, prev, privateData, reason, error, 0, null);
    }

    // ------------------------------------------------------------------ IDs and timers

    private ConnId newId(ConnId.Kind kind, boolean active, Port port, long serviceId, int cmPort) {
        int lid;
        do {
            lid = nextLocalId++;
        } while (lid == 0 || byLocalId.containsKey(lid));
        ConnId id = new ConnId(this, kind, active, lid, port, serviceId, cmPort);
        id.timer = timers.newTimer("rvt-cm id 0x" + Integer.toHexString(lid), () -> onTimer(id));
        byLocalId.put(lid, id);
        return id;
    }

    private long newTid() {
        return (nextTid++ & 0xFFFF_FFFFL) | ((long) (random.nextInt() & 0x7FFF_FFFF) << 32);
    }

    static long codeNanos(int code) {
        return 4096L << Math.min(Math.max(code, 0), 31);
    }

    private void arm(ConnId id, long nanos) {
        id.deadline = timers.nanoTime() + nanos;
        id.timer.arm(nanos);
    }

    private static void disarm(ConnId id) {
        id.deadline = Long.MAX_VALUE;
        id.timer.cancel();
    }

    private long timewaitNanos(ConnId id) {
        return Math.max(MIN_TIMEWAIT_NANOS, codeNanos(id.localAckTimeout + 1));
    }

    private void onTimer(ConnId id) {
        synchronized (this) {
            if (!open || id.state == CmState.CLOSED) {
                return;
            }
            if (!device.isAlive()) {
                deviceGone();
            } else if (timers.nanoTime() >= id.deadline) {
                expire(id);
            }
        }
        drain();
    }

    /** A response timeout, the end of an unanswered request's wait, or the end of timewait. */
    private void expire(ConnId id) {
        id.deadline = Long.MAX_VALUE;
        switch (id.state) {
            case REQ_SENT:
            case MRA_REQ_RCVD:
                if (id.retries < id.maxRetries) {
                    id.retries++;
                    sendFor(id, id.lastSent);
                    id.state = CmState.REQ_SENT;
                    emit(id, CmEventType.REQUEST_SENT, CmState.REQ_SENT, null, null, null, id.retries + 1, null);
                    arm(id, codeNanos(id.peerResponseTimeout));
                } else {
                    sendRej(id.port, id.remoteGid, id.remoteLid, id.localId, 0, id.tid, CmMad.MSG_REQ,
                            RejectReason.TIMEOUT, null);
                    fail(id, timeout(id, "no answer to the connection request"), CmEventType.CONNECT_ERROR,
                            null, null);
                }
                break;
            case REP_SENT:
            case MRA_REP_RCVD:
                if (id.retries < id.maxRetries) {
                    id.retries++;
                    sendFor(id, id.lastSent);
                    id.state = CmState.REP_SENT;
                    arm(id, codeNanos(id.peerResponseTimeout));
                } else {
                    sendRej(id.port, id.remoteGid, id.remoteLid, id.localId, id.remoteId, id.tid, CmMad.MSG_REP,
                            RejectReason.TIMEOUT, null);
                    fail(id, timeout(id, "no ready-to-use for the reply"), CmEventType.CONNECT_ERROR, null, null);
                }
                break;
            case REQ_RCVD:
            case MRA_REQ_SENT:
                // the application never answered and the peer has given up by now
                sendRej(id.port, id.remoteGid, id.remoteLid, id.localId, id.remoteId, id.tid, CmMad.MSG_REQ,
                        RejectReason.TIMEOUT, null);
                id.listener.pending.remove(id);
                fail(id, timeout(id, "the connection request was never answered"), CmEventType.CONNECT_ERROR,
                        null, null);
                break;
            case DREQ_SENT:
                if (id.retries < id.maxRetries) {
                    id.retries++;
                    sendFor(id, id.lastSent);
                    arm(id, codeNanos(id.peerResponseTimeout));
                } else {
                    enterTimewait(id, CmEventType.DISCONNECTED, null);
                }
                break;
            case SIDR_REQ_SENT:
                if (id.retries < id.maxRetries) {
                    id.retries++;
                    sendFor(id, id.lastSent);
                    emit(id, CmEventType.REQUEST_SENT, id.state, null, null, null, id.retries + 1, null);
                    arm(id, codeNanos(id.peerResponseTimeout));
                } else {
                    CmException err = timeout(id, "no answer to the service ID resolution request");
                    CompletableFuture<DatagramPeer> f = id.sidr;
                    later(() -> f.completeExceptionally(err));
                    remove(id);
                    transition(id, CmState.CLOSED, CmEventType.CONNECT_ERROR, null, null, err);
                }
                break;
            case TIMEWAIT:
                remove(id);
                transition(id, CmState.CLOSED, CmEventType.TIMEWAIT_EXIT, null, null, null);
                break;
            default:
                break;
        }
    }

    private CmException timeout(ConnId id, String what) {
        return new CmException(Errno.ETIMEDOUT, what + ": timed out after " + id.retries + " retries of "
                + codeNanos(id.peerResponseTimeout) / 1000 + " us", id.remoteGid, id.cmPort, id.serviceId, null,
                null, id.retries);
    }

    /** Removes an ID from every table and stops its timer. */
    private void remove(ConnId id) {
        disarm(id);
        byLocalId.remove(id.localId, id);
        if (id.remoteGid != null) {
            byRemoteId.remove(new RemoteKey(id.remoteGid, id.remoteId), id);
            byRemoteQpn.remove(new RemoteKey(id.remoteGid, id.remoteQpn), id);
        }
    }

    /** Ends an attempt: the QP goes to ERR, the futures fail, the ID goes away. */
    private void fail(ConnId id, CmException err, CmEventType type, RejectReason reason, byte[] privateData) {
        id.failure = err;
        qpToError(id);
        remove(id);
        transition(id, CmState.CLOSED, type, privateData, reason, err);
        CompletableFuture<Connection> f = id.established;
        later(() -> f.completeExceptionally(err));
        if (id.closedByUser) {
            destroyQp(id);
        }
    }

    private void enterTimewait(ConnId id, CmEventType type, byte[] privateData) {
        qpToError(id);
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
        arm(id, timewaitNanos(id));
    }

    private void qpToError(ConnId id) {
        QueuePair qp = id.qp;
        if (qp != null && qp.state() != QpState.ERR && qp.state() != QpState.RESET) {
            quietly(() -> qp.modifyQp(new QpAttr().qpState(QpState.ERR), QpAttrMask.STATE.bit()));
        }
    }

    private void destroyQp(ConnId id) {
        QueuePair qp = id.qp;
        if (qp != null) {
            id.qp = null;
            quietly(qp::destroyQp);
        }
    }

    private static void quietly(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "rvt-cm: cleanup step failed: " + e.getMessage());
        }
    }

    // ------------------------------------------------------------------ listening

    Listener listen(int port, ConnectRequestHandler handler, QueuePair udQp, byte[] sidrPrivate) {
        long sid = serviceIdChecked(port);
        int qkey = 0;
        if (udQp != null) {
            if (udQp.type() != QpType.UD || udQp.device() != device) {
                throw new CmException(Errno.EINVAL, "listenDatagram needs a UD QP of " + device.name() + ", got "
                        + udQp.type() + " QP of " + udQp.device().name(), null, port, sid, null, null, 0);
            }
            qkey = udQp.queryQp(new QpAttr()).qkey();
            checkPrivate(sidrPrivate, ConnectionManager.MAX_SIDR_REP_PRIVATE_DATA, "SIDR_REP", port, sid);
        }
        synchronized (this) {
            checkOpen(port, sid);
            if (listeners.containsKey(sid)) {
                throw new CmException(Errno.EADDRINUSE, "port " + port + " of " + device.name()
                        + " already has a listener", null, port, sid, null, null, 0);
            }
            ListenerImpl l = new ListenerImpl(this, port, sid, handler, udQp, qkey,
                    sidrPrivate == null ? new byte[0] : sidrPrivate.clone());
            listeners.put(sid, l);
            return l;
        }
    }

    Listener listenDatagram(int port, QueuePair udQp, byte[] privateData) {
        if (udQp == null) {
            throw new CmException(Errno.EINVAL, "listenDatagram: the UD QP is null", null, port, 0, null, null, 0);
        }
        return listen(port, null, udQp, privateData);
    }

    CompletableFuture<ConnectRequest> nextRequest(ListenerImpl l) {
        CompletableFuture<ConnectRequest> f = new CompletableFuture<>();
        synchronized (this) {
            if (l.handler != null || l.udQp != null) {
                throw new CmException(Errno.EINVAL, "this listener hands its requests to a handler", null, l.port,
                        l.serviceId, null, null, 0);
            }
            if (!l.open) {
                f.completeExceptionally(new CmException(Errno.ENODEV, "the listener is closed", null, l.port,
                        l.serviceId, null, null, 0));
                return f;
            }
            ConnId id = l.pending.poll();
            if (id != null) {
                f.complete(id.request);
            } else {
                l.waiting.add(f);
            }
        }
        return f;
    }

    /** @return true if the waiter was still waiting (and is no longer) */
    synchronized boolean withdraw(ListenerImpl l, CompletableFuture<ConnectRequest> f) {
        return l.waiting.remove(f);
    }

    void closeListener(ListenerImpl l) {
        synchronized (this) {
            if (!l.open) {
                return;
            }
            l.open = false;
            listeners.remove(l.serviceId, l);
            for (ConnId id; (id = l.pending.poll()) != null; ) {
                rejectNow(id, RejectReason.INVALID_SERVICE_ID, null);
            }
            CmException err = new CmException(Errno.ENODEV, "the listener was closed", null, l.port, l.serviceId,
                    null, null, 0);
            for (CompletableFuture<ConnectRequest> f; (f = l.waiting.poll()) != null; ) {
                CompletableFuture<ConnectRequest> w = f;
                later(() -> w.completeExceptionally(err));
            }
        }
        drain();
    }

    private long serviceIdChecked(int port) {
        if (port < 0 || port > 0xFFFF) {
            throw new CmException(Errno.EINVAL, "CM port must be 0..65535, got " + port, null, port, 0, null, null,
                    0);
        }
        return ConnectionManager.serviceId(port);
    }

    private void checkOpen(int port, long sid) {
        if (!open || !device.isAlive()) {
            throw new CmException(Errno.ENODEV, "connection manager of " + device.name() + " is closed", null, port,
                    sid, null, null, 0);
        }
    }

    private static void checkPrivate(byte[] data, int max, String what, int port, long sid) {
        if (data != null && data.length > max) {
            throw new CmException(Errno.EINVAL, what + " private data is " + data.length + " bytes, at most " + max
                    + " fit", null, port, sid, null, null, 0);
        }
    }

    // ------------------------------------------------------------------ active side

    Connection connect(ConnectOptions o) {
        long sid = serviceIdChecked(o.port());
        Gid dst = o.destination();
        if (dst == null) {
            throw new CmException(Errno.EINVAL, "connect: no destination", null, o.port(), sid, null, null, 0);
        }
        QpOptions q = new QpOptions().copyFrom(o.qp());
        checkQpOptions(q, dst, o.port(), sid);
        checkPrivate(o.privateData(), ConnectionManager.MAX_REQ_PRIVATE_DATA, "REQ", o.port(), sid);
        ConnId id;
        synchronized (this) {
            checkOpen(o.port(), sid);
            Port port = port(o.hcaPort(), dst, o.port(), sid);
            Gid src = device.queryGid(port.num, o.sgidIndex());
            QueuePair qp = q.pd().createQp(initAttr(q, port.num));
            try {
                qp.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(port.num)
                        .qpAccessFlags(q.accessFlags()), QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX,
                        QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
            } catch (RuntimeException e) {
                quietly(qp::destroyQp);
                throw e;
            }
            id = newId(ConnId.Kind.CONNECT, true, port, sid, o.port());
            id.qp = qp;
            id.qpOptions = q;
            id.remoteGid = dst;
            id.sgidIndex = o.sgidIndex();
            id.sendPsn = random.nextInt() & 0xFF_FFFF;
            id.mtu = smaller(port.activeMtu, q.pathMtu());
            id.responderResources = bound(q.responderResources(), attrs.maxQpRdAtom());
            id.initiatorDepth = bound(q.initiatorDepth(), attrs.maxQpInitRdAtom());
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
            int srcPort = o.sourcePort() >= 0 ? o.sourcePort() : 32768 + random.nextInt(28232);
            byte[] user = o.privateData();
            byte[] pdata = new byte[IpCmHeader.LENGTH + user.length];
            IpCmHeader.write(pdata, src, dst, srcPort);
            System.arraycopy(user, 0, pdata, IpCmHeader.LENGTH, user.length);
            id.req = buildReq(id, src, pdata);
            sendReq(id);
        }
        drain();
        return id;
    }

    private CmMad buildReq(ConnId id, Gid src, byte[] pdata) {
        Port port = id.port;
        CmMad m = new CmMad();
        m.attrId = CmMad.REQ;
        m.localCommId = id.localId;
        m.serviceId = id.serviceId;
        m.localCaGuid = caGuid;
        m.localQpn = id.qp.qpNum();
        m.responderResources = id.responderResources;
        m.initiatorDepth = id.initiatorDepth;
        m.remoteCmResponseTimeout = id.peerResponseTimeout;
        m.transportType = id.qp.type() == QpType.UC ? CmMad.TRANSPORT_UC : CmMad.TRANSPORT_RC;
        m.e2eFlowControl = true;
        m.startingPsn = id.sendPsn;
        m.localCmResponseTimeout = id.ownResponseTimeout;
        m.retryCount = id.retryCount;
        m.pkey = port.pkey;
        m.rnrRetryCount = id.qpOptions.rnrRetryCount();
        m.maxCmRetries = id.maxRetries;
        m.srq = id.qpOptions.srq() != null;
        m.primaryLocalLid = port.roce() ? PERMISSIVE_LID : port.lid;
        m.primaryRemoteLid = port.roce() ? PERMISSIVE_LID : 0;
        m.primaryLocalGid = src;
        m.primaryRemoteGid = id.remoteGid;
        m.flowLabel = id.flowLabel;
        m.packetRate = PACKET_RATE_10G;
        m.trafficClass = id.trafficClass;
        m.hopLimit = id.hopLimit;
        m.sl = id.sl;
        m.subnetLocal = true;
        m.localAckTimeout = id.localAckTimeout;
        m.privateData(pdata, 0, pdata.length);
        return m;
    }

    /** Sends (or resends, with a new ID after an MTU retry) the REQ of an active ID. */
    private void sendReq(ConnId id) {
        id.tid = newTid();
        id.req.tid = id.tid;
        id.req.localCommId = id.localId;
        id.req.pathMtu = id.mtu.value();
        id.retries = 0;
        CmState prev = id.state;
        id.state = CmState.REQ_SENT;
        sendFor(id, id.req);
        emit(id, CmEventType.REQUEST_SENT, prev, null, null, null, 1, null);
        arm(id, codeNanos(id.peerResponseTimeout));
    }

    private Port port(int hcaPort, Gid dst, int cmPort, long sid) {
        if (hcaPort < 1 || hcaPort > ports.length) {
            throw new CmException(Errno.EINVAL, "HCA port " + hcaPort + " does not exist on " + device.name()
                    + " (1.." + ports.length + ")", dst, cmPort, sid, null, null, 0);
        }
        return ports[hcaPort - 1];
    }

    private void checkQpOptions(QpOptions q, Gid peer, int cmPort, long sid) {
        String bad = null;
        if (q.pd() == null) {
            bad = "no protection domain";
        } else if (q.pd().device() != device) {
            bad = "the protection domain belongs to " + q.pd().device().name() + ", not " + device.name();
        } else if (q.sendCq() == null || q.recvCq() == null) {
            bad = "a send and a receive CQ are needed";
        } else if (q.type() != QpType.RC && q.type() != QpType.UC) {
            bad = "a connection is RC or UC, not " + q.type();
        } else if (q.retryCount() < 0 || q.retryCount() > 7 || q.rnrRetryCount() < 0 || q.rnrRetryCount() > 7) {
            bad = "retry counts are 0..7, got " + q.retryCount() + " and " + q.rnrRetryCount();
        } else if (q.localAckTimeout() < 0 || q.localAckTimeout() > 31 || q.minRnrTimer() < 0
                || q.minRnrTimer() > 31) {
            bad = "timer codes are 0..31, got localAckTimeout " + q.localAckTimeout() + ", minRnrTimer "
                    + q.minRnrTimer();
        } else if (q.responderResources() > 255 || q.initiatorDepth() > 255) {
            bad = "responder resources and initiator depth are at most 255";
        }
        if (bad != null) {
            throw new CmException(Errno.EINVAL, "QP options: " + bad, peer, cmPort, sid, null, null, 0);
        }
    }

    private static QpInitAttr initAttr(QpOptions q, int hcaPort) {
        QpInitAttr init = new QpInitAttr().qpType(q.type()).sendCq(q.sendCq()).recvCq(q.recvCq()).srq(q.srq())
                .sigType(q.sigType()).eventHandler(q.eventHandler());
        init.cap().copyFrom(q.cap());
        return init;
    }

    private static int bound(int asked, int deviceMax) {
        return asked < 0 ? Math.min(deviceMax, 255) : Math.min(asked, deviceMax);
    }

    static PathMtu smaller(PathMtu a, PathMtu b) {
        return b == null || a.value() <= b.value() ? a : b;
    }

    static PathMtu mtuOf(int value) {
        try {
            return PathMtu.of(value);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    // ------------------------------------------------------------------ incoming MADs

    private void dispatch(Port port, Gid sgid, int slid, CmMad m) {
        switch (m.attrId) {
            case CmMad.REQ:
                onReq(port, sgid, slid, m);
                break;
            case CmMad.MRA:
                onMra(m);
                break;
            case CmMad.REJ:
                onRej(sgid, m);
                break;
            case CmMad.REP:
                onRep(port, sgid, slid, m);
                break;
            case CmMad.RTU:
                onRtu(m);
                break;
            case CmMad.DREQ:
                onDreq(port, sgid, slid, m);
                break;
            case CmMad.DREP:
                onDrep(m);
                break;
            case CmMad.SIDR_REQ:
                onSidrReq(port, sgid, slid, m);
                break;
            case CmMad.SIDR_REP:
                onSidrRep(slid, m);
                break;
            default:
                madsDropped++;
        }
    }

    /** The ID a response names (its remote comm ID field is our local ID), if the peer's ID matches. */
    private ConnId target(CmMad m, boolean remoteMayBeNew) {
        ConnId id = byLocalId.get(m.remoteCommId);
        if (id == null || id.kind != ConnId.Kind.CONNECT) {
            return null;
        }
        if (id.remoteId != 0 && id.remoteId != m.localCommId && !remoteMayBeNew) {
            return null;
        }
        return id;
    }

    private void onReq(Port port, Gid sgid, int slid, CmMad m) {
        ConnId dup = byRemoteId.get(new RemoteKey(sgid, m.localCommId));
        if (dup != null) {
            duplicateReq(dup);
            return;
        }
        ListenerImpl l = listeners.get(m.serviceId);
        if (l == null || l.udQp != null) {
            sendRej(port, sgid, slid, 0, m.localCommId, m.tid, CmMad.MSG_REQ, RejectReason.INVALID_SERVICE_ID,
                    null);
            return;
        }
        if (m.transportType != CmMad.TRANSPORT_RC && m.transportType != CmMad.TRANSPORT_UC) {
            sendRej(port, sgid, slid, 0, m.localCommId, m.tid, CmMad.MSG_REQ, RejectReason.INVALID_TRANSPORT_TYPE,
                    null);
            return;
        }
        ConnId stale = byRemoteQpn.get(new RemoteKey(sgid, m.localQpn));
        if (stale != null) {
            // the peer's QP is still part of a connection here: refuse the new one and end the old one
            sendRej(port, sgid, slid, 0, m.localCommId, m.tid, CmMad.MSG_REQ, RejectReason.STALE_CONN, null);
            if (stale.state == CmState.ESTABLISHED) {
                sendDreq(stale, null);
            }
            return;
        }
        PathMtu mtu = mtuOf(m.pathMtu);
        if (mtu == null || mtu.value() > port.activeMtu.value()) {
            byte[] ari = {(byte) port.activeMtu.value()};
            sendRej(port, sgid, slid, 0, m.localCommId, m.tid, CmMad.MSG_REQ, RejectReason.INVALID_MTU, ari);
            return;
        }
        ConnId id = newId(ConnId.Kind.CONNECT, false, port, m.serviceId, l.port);
        id.req = m.copy();
        id.remoteId = m.localCommId;
        id.remoteGid = sgid;
        id.remoteLid = slid;
        id.remoteQpn = m.localQpn;
        id.recvPsn = m.startingPsn;
        id.tid = m.tid;
        id.mtu = mtu;
        id.peerResponseTimeout = m.localCmResponseTimeout;
        id.ownResponseTimeout = m.remoteCmResponseTimeout;
        id.maxRetries = m.maxCmRetries;
        id.localAckTimeout = m.localAckTimeout;
        id.retryCount = m.retryCount;
        id.flowLabel = m.flowLabel;
        id.trafficClass = m.trafficClass;
        id.hopLimit = m.hopLimit;
        id.sl = m.sl;
        id.listener = l;
        byte[] pd = java.util.Arrays.copyOf(m.privateData, CmMad.REQ_PRIVATE);
        if (IpCmHeader.present(pd, pd.length)) {
            id.remoteAddress = IpCmHeader.address(pd, true);
            id.remotePrivate = java.util.Arrays.copyOfRange(pd, IpCmHeader.LENGTH, pd.length);
        } else {
            id.remotePrivate = pd;
        }
        byRemoteId.put(new RemoteKey(sgid, id.remoteId), id);
        byRemoteQpn.put(new RemoteKey(sgid, id.remoteQpn), id);
        id.state = CmState.REQ_RCVD;
        emit(id, CmEventType.CONNECT_REQUEST, CmState.IDLE, id.remotePrivate, null, null, 0, id.request);
        // the peer retries for at most (retries + 1) x (its timeout + our MRA's service timeout)
        arm(id, (id.maxRetries + 1L) * (codeNanos(id.peerResponseTimeout) + codeNanos(config.serviceTimeout())));
        if (l.handler != null) {
            ConnectRequestHandler h = l.handler;
            later(() -> h.onRequest(id.request));
        } else {
            CompletableFuture<ConnectRequest> w = l.waiting.poll();
            if (w != null) {
                later(() -> w.complete(id.request));
            } else {
                l.pending.add(id);
            }
        }
    }

    private void duplicateReq(ConnId id) {
        switch (id.state) {
            case REQ_RCVD:
                // the application is slow: ask the peer for more time (librdmacm's delayed MRA)
                id.state = CmState.MRA_REQ_SENT;
                sendMra(id, CmMad.MSG_REQ);
                emit(id, CmEventType.MRA_SENT, CmState.REQ_RCVD, null, null, null, 0, null);
                break;
            case MRA_REQ_SENT:
                sendMra(id, CmMad.MSG_REQ);
                break;
            case REP_SENT:
            case MRA_REP_RCVD:
                sendFor(id, id.lastSent); // our REP was lost
                break;
            case TIMEWAIT:
                sendRej(id.port, id.remoteGid, id.remoteLid, id.localId, id.remoteId, id.tid, CmMad.MSG_REQ,
                        RejectReason.STALE_CONN, null);
                break;
            default:
                break; // a late copy of a REQ already answered
        }
    }

    private void sendMra(ConnId id, int what) {
        CmMad m = new CmMad();
        m.attrId = CmMad.MRA;
        m.tid = id.tid;
        m.localCommId = id.localId;
        m.remoteCommId = id.remoteId;
        m.messageCode = what;
        m.serviceTimeout = config.serviceTimeout();
        send(id.port, id.remoteGid, id.remoteLid, m);
    }

    private void sendRej(Port port, Gid dgid, int dlid, int localId, int remoteId, long tid, int what,
            RejectReason reason, byte[] ari) {
        sendRej(port, dgid, dlid, localId, remoteId, tid, what, reason, ari, null);
    }

    private void sendRej(Port port, Gid dgid, int dlid, int localId, int remoteId, long tid, int what,
            RejectReason reason, byte[] ari, byte[] privateData) {
        CmMad m = new CmMad();
        m.attrId = CmMad.REJ;
        m.tid = tid;
        m.localCommId = localId;
        m.remoteCommId = remoteId;
        m.messageCode = what;
        m.reason = reason.code();
        if (ari != null) {
            m.ariLength = Math.min(ari.length, CmMad.REJ_ARI);
            System.arraycopy(ari, 0, m.ari, 0, m.ariLength);
        }
        if (privateData != null) {
            m.privateData(privateData, 0, privateData.length);
        }
        send(port, dgid, dlid, m);
    }

    private void onMra(CmMad m) {
        ConnId id = target(m, true);
        if (id == null) {
            return;
        }
        long extra = codeNanos(m.serviceTimeout) + codeNanos(id.peerResponseTimeout);
        if (m.messageCode == CmMad.MSG_REQ && id.state == CmState.REQ_SENT) {
            id.remoteId = m.localCommId;
            transition(id, CmState.MRA_REQ_RCVD, CmEventType.MRA_RECEIVED, null, null, null);
            arm(id, extra);
        } else if (m.messageCode == CmMad.MSG_REP && id.state == CmState.REP_SENT) {
            transition(id, CmState.MRA_REP_RCVD, CmEventType.MRA_RECEIVED, null, null, null);
            arm(id, extra);
        }
    }

    private void onRej(Gid sgid, CmMad m) {
        ConnId id = target(m, true);
        if (id == null || !sgid.equals(id.remoteGid)) {
            return;
        }
        RejectReason reason = RejectReason.of(m.reason);
        byte[] pd = java.util.Arrays.copyOf(m.privateData, CmMad.REJ_PRIVATE);
        switch (id.state) {
            case REQ_SENT:
            case MRA_REQ_RCVD:
            case REP_RCVD:
                if (reason == RejectReason.INVALID_MTU && m.ariLength >= 1 && !id.mtuRetried) {
                    PathMtu theirs = mtuOf(m.ari[0] & 0xFF);
                    if (theirs != null && theirs.value() < id.mtu.value()) {
                        // the passive side's port is smaller: try again once with its MTU, under a new ID
                        id.mtuRetried = true;
                        id.mtu = theirs;
                        byLocalId.remove(id.localId, id);
                        int nid;
                        do {
                            nid = nextLocalId++;
                        } while (nid == 0 || byLocalId.containsKey(nid));
                        id.localId = nid;
                        byLocalId.put(nid, id);
                        sendReq(id);
                        return;
                    }
                }
                fail(id, rejected(id, reason, pd, "the connection request was rejected"), CmEventType.REJECTED,
                        reason, pd);
                break;
            case REP_SENT:
            case MRA_REP_RCVD:
                fail(id, rejected(id, reason, pd, "the reply was rejected"), CmEventType.REJECTED, reason, pd);
                break;
            case ESTABLISHED:
            case DREQ_SENT:
                enterTimewait(id, CmEventType.DISCONNECTED, pd);
                break;
            default:
                break;
        }
    }

    private CmException rejected(ConnId id, RejectReason reason, byte[] pd, String what) {
        String r = reason == null ? "reason " : reason.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
        String detail;
        if (reason == RejectReason.INVALID_SERVICE_ID) {
            detail = "nobody listens on port " + id.cmPort;
        } else if (reason == RejectReason.CONSUMER_DEFINED) {
            detail = "the peer's application refused";
        } else if (reason == RejectReason.STALE_CONN) {
            detail = "stale connection";
        } else {
            detail = r;
        }
        return new CmException(Errno.ECONNREFUSED, what + ": " + detail, id.remoteGid, id.cmPort, id.serviceId,
                reason, pd, 0);
    }

    private void onRep(Port port, Gid sgid, int slid, CmMad m) {
        ConnId id = byLocalId.get(m.remoteCommId);
        if (id == null || id.kind != ConnId.Kind.CONNECT || !id.active) {
            sendRej(port, sgid, slid, 0, m.localCommId, m.tid, CmMad.MSG_REP, RejectReason.INVALID_COMM_ID, null);
            return;
        }
        if (!sgid.equals(id.remoteGid)) {
            return;
        }
        switch (id.state) {
            case ESTABLISHED:
                if (m.localCommId == id.remoteId) {
                    sendFor(id, id.lastSent); // our RTU was lost
                }
                return;
            case REQ_SENT:
            case MRA_REQ_RCVD:
                break;
            default:
                return;
        }
        ConnId stale = byRemoteQpn.get(new RemoteKey(sgid, m.localQpn));
        if (stale != null && stale != id) {
            sendRej(port, sgid, slid, id.localId, m.localCommId, m.tid, CmMad.MSG_REP, RejectReason.STALE_CONN,
                    null);
            fail(id, rejected(id, RejectReason.STALE_CONN, null, "the reply names a QP of another connection"),
                    CmEventType.REJECTED, RejectReason.STALE_CONN, null);
            return;
        }
        id.remoteId = m.localCommId;
        id.remoteLid = slid;
        id.remoteQpn = m.localQpn;
        id.recvPsn = m.startingPsn;
        id.remotePrivate = java.util.Arrays.copyOf(m.privateData, CmMad.REP_PRIVATE);
        int myDepth = Math.min(id.initiatorDepth, m.responderResources);
        transition(id, CmState.REP_RCVD, CmEventType.REPLY_RECEIVED, id.remotePrivate, null, null);
        try {
            toRtr(id, slid);
            toRts(id, m.rnrRetryCount, myDepth);
        } catch (VerbsException e) {
            sendRej(port, sgid, slid, id.localId, id.remoteId, m.tid, CmMad.MSG_REP, RejectReason.NO_RESOURCES,
                    null);
            fail(id, new CmException(Errno.EINVAL, "the QP could not take the reply's parameters: "
                    + e.getMessage(), id.remoteGid, id.cmPort, id.serviceId, null, null, 0),
                    CmEventType.CONNECT_ERROR, null, null);
            return;
        }
        id.initiatorDepth = myDepth;
        byRemoteId.put(new RemoteKey(sgid, id.remoteId), id);
        byRemoteQpn.put(new RemoteKey(sgid, id.remoteQpn), id);
        CmMad rtu = new CmMad();
        rtu.attrId = CmMad.RTU;
        rtu.tid = id.tid;
        rtu.localCommId = id.localId;
        rtu.remoteCommId = id.remoteId;
        disarm(id);
        sendFor(id, rtu);
        established(id);
    }

    private void established(ConnId id) {
        transition(id, CmState.ESTABLISHED, CmEventType.ESTABLISHED, null, null, null);
        CompletableFuture<Connection> f = id.established;
        later(() -> f.complete(id));
    }

    /** INIT to RTR with the peer's QPN, PSN and path. */
    private void toRtr(ConnId id, int dlid) {
        QpAttr a = new QpAttr().qpState(QpState.RTR).pathMtu(id.mtu).destQpNum(id.remoteQpn).rqPsn(id.recvPsn);
        a.ahAttr().dlid(id.port.roce() ? 0 : dlid).sl(id.sl).portNum(id.port.num).global(true).dgid(id.remoteGid)
                .sgidIndex(id.sgidIndex).flowLabel(id.flowLabel).hopLimit(id.hopLimit)
                .trafficClass(id.trafficClass);
        int mask = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                QpAttrMask.RQ_PSN);
        if (id.qp.type() == QpType.RC) {
            a.maxDestRdAtomic(id.responderResources).minRnrTimer(id.qpOptions.minRnrTimer());
            mask |= QpAttrMask.mask(QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER);
        }
        id.qp.modifyQp(a, mask);
    }

    /** RTR to RTS with this side's PSN and the agreed retry counts and depth. */
    private void toRts(ConnId id, int rnrRetry, int initiatorDepth) {
        QpAttr a = new QpAttr().qpState(QpState.RTS).sqPsn(id.sendPsn);
        int mask = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.SQ_PSN);
        if (id.qp.type() == QpType.RC) {
            a.timeout(id.localAckTimeout).retryCnt(id.retryCount).rnrRetry(rnrRetry).maxRdAtomic(initiatorDepth);
            mask |= QpAttrMask.mask(QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY,
                    QpAttrMask.MAX_QP_RD_ATOMIC);
        }
        id.qp.modifyQp(a, mask);
    }

    private void onRtu(CmMad m) {
        ConnId id = target(m, false);
        if (id == null || id.active) {
            return;
        }
        if (id.state == CmState.REP_SENT || id.state == CmState.MRA_REP_RCVD) {
            disarm(id);
            established(id);
        }
    }

    private void onDreq(Port port, Gid sgid, int slid, CmMad m) {
        ConnId id = target(m, false);
        if (id == null || !sgid.equals(id.remoteGid) || (id.qp != null && m.remoteQpn != id.qp.qpNum()
                && id.state != CmState.TIMEWAIT)) {
            // an ID long gone: answer so that the peer stops asking
            sendDrep(port, sgid, slid, m.remoteCommId, m.localCommId, m.tid);
            return;
        }
        switch (id.state) {
            case ESTABLISHED:
            case REP_SENT:
            case MRA_REP_RCVD:
            case DREQ_SENT: {
                byte[] pd = java.util.Arrays.copyOf(m.privateData, CmMad.DREQ_PRIVATE);
                disarm(id);
                qpToError(id);
                transition(id, CmState.DREQ_RCVD, CmEventType.DISCONNECT_RECEIVED, pd, null, null);
                sendDrep(port, sgid, slid, id.localId, id.remoteId, m.tid);
                enterTimewait(id, CmEventType.DISCONNECTED, pd);
                break;
            }
            case TIMEWAIT:
                sendDrep(port, sgid, slid, id.localId, id.remoteId, m.tid); // our DREP was lost
                break;
            default:
                break;
        }
    }

    private void sendDrep(Port port, Gid dgid, int dlid, int localId, int remoteId, long tid) {
        CmMad m = new CmMad();
        m.attrId = CmMad.DREP;
        m.tid = tid;
        m.localCommId = localId;
        m.remoteCommId = remoteId;
        send(port, dgid, dlid, m);
    }

    private void onDrep(CmMad m) {
        ConnId id = target(m, false);
        if (id != null && id.state == CmState.DREQ_SENT) {
            disarm(id);
            enterTimewait(id, CmEventType.DISCONNECTED, java.util.Arrays.copyOf(m.privateData, CmMad.DREP_PRIVATE));
        }
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
            checkQpOptions(q, id.remoteGid, id.cmPort, id.serviceId);
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
            id.sgidIndex = sgidIndexOf(id.port, local);
            QueuePair qp;
            try {
                qp = q.pd().createQp(initAttr(q, id.port.num));
            } catch (VerbsException e) {
                rejectNow(id, RejectReason.NO_QP, null);
                throw e;
            }
            id.qp = qp;
            id.qpOptions = q;
            id.responderResources = Math.min(bound(q.responderResources(), attrs.maxQpRdAtom()),
                    id.req.initiatorDepth);
            id.initiatorDepth = Math.min(bound(q.initiatorDepth(), attrs.maxQpInitRdAtom()),
                    id.req.responderResources);
            id.sendPsn = random.nextInt() & 0xFF_FFFF;
            try {
                qp.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(id.port.num)
                        .qpAccessFlags(q.accessFlags()), QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX,
                        QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
                toRtr(id, id.remoteLid);
                toRts(id, id.req.rnrRetryCount, id.initiatorDepth);
            } catch (VerbsException e) {
                id.qp = null;
                quietly(qp::destroyQp);
                rejectNow(id, RejectReason.NO_RESOURCES, null);
                throw new CmException(Errno.EINVAL, "the QP could not take the request's parameters: "
                        + e.getMessage(), id.remoteGid, id.cmPort, id.serviceId, null, null, 0);
            }
            id.answered = true;
            id.listener.pending.remove(id);
            CmMad rep = new CmMad();
            rep.attrId = CmMad.REP;
            rep.tid = id.tid;
            rep.localCommId = id.localId;
            rep.remoteCommId = id.remoteId;
            rep.localQpn = qp.qpNum();
            rep.startingPsn = id.sendPsn;
            rep.responderResources = id.responderResources;
            rep.initiatorDepth = id.initiatorDepth;
            rep.e2eFlowControl = true;
            rep.rnrRetryCount = q.rnrRetryCount();
            rep.srq = q.srq() != null;
            rep.localCaGuid = caGuid;
            if (privateData != null) {
                rep.privateData(privateData, 0, privateData.length);
            }
            id.retries = 0;
            CmState prev = id.state;
            id.state = CmState.REP_SENT;
            sendFor(id, rep);
            emit(id, CmEventType.REPLY_SENT, prev, null, null, null, 0, null);
            arm(id, codeNanos(id.peerResponseTimeout));
        }
    }

    private int sgidIndexOf(Port port, Gid gid) {
        PortAttr pa = device.queryPort(port.num, new PortAttr());
        for (int i = 0; i < Math.max(1, pa.gidTblLen()); i++) {
            try {
                if (device.queryGid(port.num, i).equals(gid)) {
                    return i;
                }
            } catch (VerbsException e) {
                break;
            }
        }
        return 0;
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

    private void rejectNow(ConnId id, RejectReason reason, byte[] privateData) {
        rejectNow(id, reason, privateData, null);
    }

    private void rejectNow(ConnId id, RejectReason reason, byte[] privateData, byte[] ari) {
        id.answered = true;
        if (id.listener != null) {
            id.listener.pending.remove(id);
        }
        sendRej(id.port, id.remoteGid, id.remoteLid, id.localId, id.remoteId, id.tid, CmMad.MSG_REQ, reason, ari,
                privateData);
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

    private void sendDreq(ConnId id, byte[] privateData) {
        qpToError(id);
        CmMad m = new CmMad();
        m.attrId = CmMad.DREQ;
        id.tid = newTid();
        m.tid = id.tid;
        m.localCommId = id.localId;
        m.remoteCommId = id.remoteId;
        m.remoteQpn = id.remoteQpn;
        if (privateData != null) {
            m.privateData(privateData, 0, privateData.length);
        }
        id.retries = 0;
        sendFor(id, m);
        transition(id, CmState.DREQ_SENT, CmEventType.DISCONNECT_REQUESTED, privateData, null, null);
        arm(id, codeNanos(id.peerResponseTimeout));
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
                        sendRej(cur.port, cur.remoteGid, cur.remoteLid, cur.localId, cur.remoteId, cur.tid,
                                CmMad.MSG_REQ, RejectReason.TIMEOUT, null);
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
            destroyQp(cur);
        }
        drain();
    }

    // ------------------------------------------------------------------ SIDR

    CompletableFuture<DatagramPeer> resolveDatagram(ConnectOptions o) {
        long sid = serviceIdChecked(o.port());
        Gid dst = o.destination();
        if (dst == null) {
            throw new CmException(Errno.EINVAL, "resolveDatagram: no destination", null, o.port(), sid, null, null,
                    0);
        }
        checkPrivate(o.privateData(), ConnectionManager.MAX_SIDR_REQ_PRIVATE_DATA, "SIDR_REQ", o.port(), sid);
        CompletableFuture<DatagramPeer> f = new CompletableFuture<>();
        synchronized (this) {
            checkOpen(o.port(), sid);
            Port port = port(o.hcaPort(), dst, o.port(), sid);
            Gid src = device.queryGid(port.num, o.sgidIndex());
            ConnId id = newId(ConnId.Kind.SIDR, true, port, sid, o.port());
            id.remoteGid = dst;
            id.sidr = f;
            int code = o.cmResponseTimeout() >= 0 ? o.cmResponseTimeout() : config.cmResponseTimeout();
            id.peerResponseTimeout = code;
            id.maxRetries = o.maxCmRetries() >= 0 ? o.maxCmRetries() : config.maxCmRetries();
            byte[] user = o.privateData();
            byte[] pdata = new byte[IpCmHeader.LENGTH + user.length];
            IpCmHeader.write(pdata, src, dst, o.sourcePort() >= 0 ? o.sourcePort() : 32768 + random.nextInt(28232));
            System.arraycopy(user, 0, pdata, IpCmHeader.LENGTH, user.length);
            CmMad m = new CmMad();
            m.attrId = CmMad.SIDR_REQ;
            id.tid = newTid();
            m.tid = id.tid;
            m.localCommId = id.localId;
            m.pkey = port.pkey;
            m.serviceId = sid;
            m.privateData(pdata, 0, pdata.length);
            id.state = CmState.SIDR_REQ_SENT;
            sendFor(id, m);
            emit(id, CmEventType.REQUEST_SENT, CmState.IDLE, null, null, null, 1, null);
            arm(id, codeNanos(code));
        }
        drain();
        return f;
    }

    private void onSidrReq(Port port, Gid sgid, int slid, CmMad m) {
        ListenerImpl l = listeners.get(m.serviceId);
        CmMad r = new CmMad();
        r.attrId = CmMad.SIDR_REP;
        r.tid = m.tid;
        r.localCommId = m.localCommId;
        r.serviceId = m.serviceId;
        if (l == null || l.udQp == null) {
            r.sidrStatus = 1; // IB_SIDR_UNSUPPORTED: no such service
        } else {
            r.remoteQpn = l.udQp.qpNum();
            r.qkey = l.udQkey;
            r.privateData(l.sidrPrivate, 0, l.sidrPrivate.length);
        }
        send(port, sgid, slid, r);
    }

    private void onSidrRep(int slid, CmMad m) {
        ConnId id = byLocalId.get(m.localCommId);
        if (id == null || id.kind != ConnId.Kind.SIDR || id.state != CmState.SIDR_REQ_SENT) {
            return;
        }
        CompletableFuture<DatagramPeer> f = id.sidr;
        remove(id);
        if (m.sidrStatus == 0) {
            DatagramPeer peer = new DatagramPeer(id.remoteGid, id.port.roce() ? 0 : slid, m.remoteQpn, m.qkey,
                    m.serviceId, java.util.Arrays.copyOf(m.privateData, CmMad.SIDR_REP_PRIVATE));
            transition(id, CmState.CLOSED, CmEventType.SIDR_RESOLVED, null, null, null);
            later(() -> f.complete(peer));
        } else {
            CmException err = new CmException(Errno.ECONNREFUSED, "the service ID resolution was refused (SIDR "
                    + "status " + m.sidrStatus + ")", id.remoteGid, id.cmPort, id.serviceId, null, null, 0);
            transition(id, CmState.CLOSED, CmEventType.REJECTED, null, null, err);
            later(() -> f.completeExceptionally(err));
        }
    }

    // ------------------------------------------------------------------ shutdown

    /** The device went away: every ID and listener ends with ENODEV, and the engine closes. */
    private void deviceGone() {
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
        closeListeners();
        open = false;
        CmRegistry.remove(this);
        // outside the monitor: destroying the CQ waits for a completion handler that may be waiting for it
        later(this::releaseResources);
    }

    private void closeListeners() {
        for (ListenerImpl l : new ArrayList<>(listeners.values())) {
            l.open = false;
            CmException err = new CmException(Errno.ENODEV, "the connection manager was closed", null, l.port,
                    l.serviceId, null, null, 0);
            for (CompletableFuture<ConnectRequest> f; (f = l.waiting.poll()) != null; ) {
                CompletableFuture<ConnectRequest> w = f;
                later(() -> w.completeExceptionally(err));
            }
            l.pending.clear();
        }
        listeners.clear();
    }

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
                qpToError(id);
                destroyQp(id);
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
            closeListeners();
            open = false;
        }
        drain();
        // outside the monitor: destroying the CQ waits for a completion handler that may be waiting for it
        releaseResources();
    }

    private void releaseResources() {
        if (!released.compareAndSet(false, true)) {
            return; // a close that found the device gone meanwhile: deviceGone queued the release already
        }
        if (ports != null) {
            for (Port p : ports) {
                if (p != null) {
                    destroyAhs(p);
                    quietly(p.gsi::destroyQp);
                }
            }
        }
        if (mr != null) {
            quietly(mr::deregMr);
        }
        if (cq != null) {
            quietly(cq::destroyCq);
        }
        if (pd != null) {
            quietly(pd::deallocPd);
        }
        if (sharedTimer) {
            SharedTimer.release();
        }
    }

    @Override
    public String toString() {
        return "CmEngine[" + device.name() + ", ids " + byLocalId.size() + ", listeners " + listeners.size() + "]";
    }

    /** For tests: the counters. */
    synchronized long[] counters() {
        return new long[] {madsSent, madsReceived, madsDropped, sendsDropped};
    }

}
