package io.rvt.core.qp;

import io.rvt.api.AhAttr;
import io.rvt.api.AsyncEvent;
import io.rvt.api.AsyncEventHandler;
import io.rvt.api.AsyncEventType;
import io.rvt.api.Errno;
import io.rvt.api.Gid;
import io.rvt.api.MemoryWindow;
import io.rvt.api.MigState;
import io.rvt.api.MwBind;
import io.rvt.api.MwType;
import io.rvt.api.QpAttr;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.SigType;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WorkRequestException;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.DriverParams;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.QpPrivate;
import io.rvt.api.spi.QpQuiesce;
import io.rvt.api.spi.RvtDriver;
import io.rvt.api.spi.SendEngine;
import io.rvt.api.spi.Sge;
import io.rvt.api.spi.Timeouts;
import io.rvt.api.spi.TimerService;
import io.rvt.api.spi.engine.AckQueue;
import io.rvt.api.spi.engine.CallSend;
import io.rvt.api.spi.engine.EngineQp;
import io.rvt.api.spi.engine.QpFlags;
import io.rvt.core.base.Errors;
import io.rvt.core.base.SpinningLock;
import io.rvt.core.cq.RvtCq;
import io.rvt.core.mr.RvtMw;
import io.rvt.core.mr.RvtPd;
import io.rvt.core.srq.RvtRq;
import io.rvt.core.srq.RvtSrq;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A queue pair ({@code struct rvt_qp}): its identity, locks, references, attributes, and rdmavt's QP verbs that
 * concern it whole: create and destroy (in {@code QpLifecycle}), modify (IBTA table plus rdmavt's checks), query,
 * post send (table-driven, with reserved WQEs), the error and reset transitions and the completion helpers. Its state lives in four objects, along
 * rdmavt's own seams: the send ring and its index protocol ({@link RvtSendQueue}), the requester with its credits and
 * timers ({@link RvtRequester}), the responder with the receive queue ({@link RvtResponder}), and RC's ack queue.
 *
 * <h2>Locks and ordering</h2>
 * {@code recvLock → postLock → sendLock}, as rdmavt's {@code r_lock → s_hlock → s_lock}. The send ring's two
 * cross-thread indices and the reserved count follow the protocol on {@link RvtSendQueue}.
 */
public final class RvtQp implements EngineQp, QueuePair {
    /** The ack queue of a QP that has none (not RC, or not yet out of RESET): size 0, never written. */
    static final AckQueue NO_ACK_QUEUE = new AckQueue(0);
    /** How long a device removal waits for an engine that holds {@code S_BUSY} before it flushes anyway. */
    static final long BUSY_WAIT_NANOS = 10_000_000_000L;
    /** {@code IB_MULTICAST_LID_BASE}: IB unicast DLIDs are below it. */
    static final int IB_MULTICAST_LID_BASE = 0xC000;
    /** {@code opa_get_mcast_base(OPA_MCAST_NR)}: OPA unicast DLIDs are below it (unsigned). */
    static final int OPA_MULTICAST_BASE = 0xF000_0000;
    /** {@code IB_OPCODE_RC_SEND_LAST}. */
    static final int RC_SEND_LAST = 0x02;
    /** {@code IB_OPCODE_UC_SEND_LAST}. */
    static final int UC_SEND_LAST = 0x22;
    /** {@code IB_OPCODE_RC_ACKNOWLEDGE}. */
    static final int RC_ACKNOWLEDGE = 0x11;

    // ------------------------------------------------------------------ identity (final after create)
    final QpDevice dev;
    final RvtDriver driver;
    /** The driver's groups (null where it handed in none), read from the device once. */
    final SendEngine send;
    final QpPrivate qpPrivate;
    final QpQuiesce quiesce;
    final RvtPd pd;
    final QpType type;
    final RvtCq sendCq;
    final RvtCq recvCq;
    final RvtSrq srq;
    final AsyncEventHandler eventHandler;
    final int createFlags;
    int qpNum;
    Object priv;

    // ------------------------------------------------------------------ locks and references
    final SpinningLock recvLock = new SpinningLock();
    final SpinningLock postLock = new SpinningLock();
    final SpinningLock sendLock = new SpinningLock();
    /** The reference count; also the monitor destroy waits on for it to reach 0 (no lock object of its own). */
    final AtomicInteger refs = new AtomicInteger();
    volatile boolean destroyed;

    // ------------------------------------------------------------------ state and attributes (recv+send locks)
    volatile QpState state = QpState.RESET;
    volatile int portNum;
    int remoteQpn;
    int qkey;
    int accessFlags;
    final AhAttr remoteAhAttr = new AhAttr();
    final AhAttr altAhAttr = new AhAttr();
    int pkeyIndex;
    int altPkeyIndex;
    int pmtu = 256;
    int logPmtu = 8;
    int timeout;
    long timeoutTicks;
    int retryCnt;
    int rnrRetryCnt;
    int minRnrTimer;
    int maxRdAtomic;
    int maxDestRdAtomic;
    MigState migState = MigState.MIGRATED;
    int srate;
    int srateMbps;

    // ------------------------------------------------------------------ state objects
    final RvtSendQueue sq;
    final RvtRequester req;
    final RvtResponder rsp;
    /** RC's ack queue: {@link #NO_ACK_QUEUE} until the QP first leaves RESET (written with every lock held). */
    AckQueue ackQueue;
    /** The software loopback's scratch: null until the QP first leaves RESET (written with every lock held). */
    RvtLoopback loopback;

    /** s_ssn: assigned at post, under postLock (s_next_psn is the requester's). */
    int sendSsn = 1;
    final CallSend callSend = new CallSend();
    /** Why the last postOneWr failed (set on failure only, under postLock). */
    String postError;

    RvtQp(QpDevice dev, RvtPd pd, QpInitAttr init, int sendMaxSge, int recvMaxSge) {
        this.dev = dev;
        this.driver = dev.driver();
        this.send = dev.sendEngine();
        this.qpPrivate = dev.qpPrivate();
        this.quiesce = dev.qpQuiesce();
        this.pd = pd;
        this.type = init.qpType();
        this.sendCq = (RvtCq) init.sendCq();
        this.recvCq = (RvtCq) init.recvCq();
        this.srq = (RvtSrq) init.srq();
        this.eventHandler = init.eventHandler();
        this.createFlags = init.createFlags();
        DriverParams p = dev.params();
        this.sq = new RvtSendQueue(this, init.cap().maxSendWr(), sendMaxSge, p.reservedOperations());
        TimerService ts = dev.timerService();
        this.req = new RvtRequester(this, ts);
        this.rsp = new RvtResponder(this, srq, init.cap().maxRecvWr(), recvMaxSge);
        this.ackQueue = NO_ACK_QUEUE;
        this.timeoutTicks = Timeouts.usecsToTicks(4096L / 1000, ts.hz());
        if (init.sigType() == SigType.SIGNAL_REQ_WR) {
            req.flags = QpFlags.S_SIGNAL_REQ_WR;
        }
    }

    // ================================================================== create

    /**
     * Mirrors {@code rvt_create_qp}: checks the request against the device limits, builds the send ring, the receive
     * queue, the driver's private state and a QP number; a failed create leaves every count as it was. The QP
     * starts in RESET, outside the QP table.
     *
     * @param dev the device
     * @param pd the PD
     * @param init the request; its {@code cap()} is updated with the sizes in effect
     * @return the QP
     */
    public static RvtQp create(QpDevice dev, RvtPd pd, QpInitAttr init) {
        return QpLifecycle.create(dev, pd, init);
    }

    // ================================================================== init / reset / error

    /**
     * Allocates the protocol state an idle QP does not need, on its first way out of RESET (to INIT, every lock
     * held): RC's ack queue, the send ring's WQE slots, the receive queue and the responder's scratch, the
     * RC timers, the loopback's scratch. A QP in RESET accepts no post and is not in the QP table, so nothing reads them before; a QP that
     * returns to RESET keeps them. rdmavt allocates all of it in {@code rvt_create_qp}; rvt does so later to keep a
     * pool of idle QPs small ([deviation]: an allocation failure surfaces from {@code modify_qp}).
     */
    void allocateProtocolState() {
        if (type == QpType.RC && ackQueue == NO_ACK_QUEUE) {
            AckQueue q = new AckQueue(dev.params().maxAtomic());
            q.reset(RC_ACKNOWLEDGE);
            ackQueue = q;
        }
        sq.allocate();
        rsp.allocate();
        if (loopback == null) {
            loopback = new RvtLoopback(this);
        }
    }

    /** Mirrors {@code rvt_init_qp}: the fields every create and reset sets. Locks held (or not yet shared). */
    void initQp() {
        remoteQpn = 0;
        qkey = 0;
        accessFlags = 0;
        migState = MigState.MIGRATED;
        int last = type == QpType.RC ? RC_SEND_LAST : UC_SEND_LAST;
        req.init(last);
        rsp.init(last);
        sq.reset();
        if (ackQueue != NO_ACK_QUEUE) {
            ackQueue.reset(RC_ACKNOWLEDGE);
        }
        sendSsn = 1;
    }

    void lockAll() {
        recvLock.lock();
        postLock.lock();
        sendLock.lock();
    }

    void unlockAll() {
        sendLock.unlock();
        postLock.unlock();
        recvLock.unlock();
    }

    /**
     * Mirrors {@code _rvt_reset_qp}: entered and left with the three locks held (once each); drops them in the
     * middle to stop the send engine and the timers and to leave the QP table.
     */
    void resetLocked() {
        if (state != QpState.RESET) {
            state = QpState.RESET;
            if (quiesce != null) {
                quiesce.flushQpWaiters(this);
            }
            req.stopRcTimers();
            req.flags &= ~(QpFlags.S_TIMER | QpFlags.S_ANY_WAIT);
            unlockAll();
            try {
                if (quiesce != null) {
                    quiesce.stopSendQueue(this);
                }
                req.delTimersSync();
                if (quiesce != null) {
                    quiesce.quiesceQp(this);
                }
                dev.qpTable().remove(this);
            } finally {
                lockAll();
            }
            clearMrRefs(true);
            if (qpPrivate != null) {
                qpPrivate.notifyQpReset(this);
            }
        }
        initQp();
    }

    /**
     * Mirrors {@code rvt_clear_mr_refs}: drops the region references the QP holds; with {@code clearSends} also
     * those of every posted send WQE (advancing {@code sendLast}, no completions).
     */
    void clearMrRefs(boolean clearSends) {
        if (rsp.testAndClearAflags(QpFlags.RA_REWIND_SGE)) {
            req.rdmaReadSge.putSs();
        }
        rsp.sge.putSs();
        if (clearSends) {
            sq.clearPosted();
        }
        ackQueue.releaseReferences();
    }

    @Override
    public boolean errorQp(WcStatus err) {
        if (state == QpState.ERR || state == QpState.RESET) {
            return false;
        }
        state = QpState.ERR;
        req.stopRetryTimerOnError();
        if (quiesce != null) {
            quiesce.notifyErrorQp(this);
        }
        if (sq.hasPosted() && send != null) {
            send.scheduleSend(this);
        }
        clearMrRefs(false);
        return rsp.error(err);
    }

    void event(AsyncEventType t) {
        dev.dispatch(AsyncEvent.ofQp(t, this), eventHandler);
    }

    // ================================================================== modify / query / destroy

    @Override
    public void destroyQp() {
        QpLifecycle.destroy(this);
    }

    void checkNotDestroyed() {
        if (destroyed) {
            throw Errors.inval("QP 0x" + Integer.toHexString(qpNum) + " was destroyed");
        }
    }

    // ================================================================== references

    @Override
    public void retain() {
        refs.incrementAndGet();
    }

    /**
     * Takes a reference only if the QP still holds one (it is in the table or otherwise referenced).
     *
     * @return true if a reference was taken
     */
    public boolean tryRetain() {
        while (true) {
            int n = refs.get();
            if (n <= 0) {
                return false;
            }
            if (refs.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    @Override
    public void release() {
        if (refs.decrementAndGet() == 0) {
            synchronized (refs) {
                refs.notifyAll();
            }
        }
    }

    @Override
    public int refCount() {
        return refs.get();
    }

    // ================================================================== post send

    /** A post to a destroyed QP: EINVAL saying so (its state reads RESET, which would mislead). */
    void checkPostable(String verb) {
        if (destroyed) {
            throw new WorkRequestException(Errno.EINVAL, WorkRequestException.NO_INDEX, verb + ": QP 0x"
                    + Integer.toHexString(qpNum) + " was destroyed");
        }
    }

    @Override
    public boolean sendCq(WorkCompletion wc, boolean solicited) {
        if (sendCq.enter(wc, solicited)) {
            return true;
        }
        QpErrors.errorOnOverflow(this);
        return false;
    }

    @Override
    public boolean recvCq(WorkCompletion wc, boolean solicited) {
        if (recvCq.enter(wc, solicited)) {
            return true;
        }
        QpErrors.errorOnOverflow(this);
        return false;
    }

    // ================================================================== receive side

    @Override
    public void postRecv(RecvWorkRequest wr) {
        if (wr == null) {
            throw new WorkRequestException(Errno.EINVAL, WorkRequestException.NO_INDEX, "postRecv: wr is null");
        }
        checkPostable("postRecv");
        if (!dev.isAlive()) {
            throw new WorkRequestException(Errno.ENODEV, 0, "postRecv: device " + dev.name() + " was removed");
        }
        rsp.postRecv(wr);
    }

    @Override
    public void commEst() {
        rsp.flags |= QpFlags.R_COMM_EST;
        event(AsyncEventType.COMM_EST);
    }

    // ================================================================== MTU, credits, AETH

    @Override
    public int divRoundUpMtu(int len) {
        return (len + pmtu - 1) >>> logPmtu;
    }

    @Override
    public int divMtu(int len) {
        return len >>> logPmtu;
    }

    // ================================================================== keys, loopback, multicast, MR clean-up

    @Override
    public boolean rkeyOk(Sge sge, int len, long vaddr, int rkey, int acc) {
        return dev.lkeyTable().rkeyOk(this, pd, sge, len, vaddr, rkey, acc);
    }

    @Override
    public int invalidateRkey(int rkey) {
        return dev.lkeyTable().invalidateRkey(pd, rkey);
    }

    @Override
    public void rucLoopback() {
        loopback.run();
    }

    // ================================================================== verbs kept in their own classes

    @Override
    public void modifyQp(QpAttr attr, int mask) {
        QpModify.modifyQp(this, attr, mask);
    }

    @Override
    public QpAttr queryQp(QpAttr out) {
        return QpModify.queryQp(this, out);
    }

    @Override
    public QpInitAttr queryInitAttr(QpInitAttr out) {
        return QpModify.queryInitAttr(this, out);
    }

    @Override
    public void postSend(SendWorkRequest wr) {
        QpPostSend.postSend(this, wr);
    }

    /**
     * Binds a type 1 window as libibverbs' {@code ibv_bind_mw} and rxe's provider do: a BIND_MW work request with the
     * window's next rkey ({@code ibv_inc_rkey}) posted on this QP.
     */
    @Override
    public int bindMw(MemoryWindow mw, MwBind bind) {
        if (!(mw instanceof RvtMw)) {
            throw Errors.inval("bindMw: the window is " + (mw == null ? "null" : "not one of rvt's: " + mw));
        }
        if (bind == null) {
            throw Errors.inval("bindMw: bind is null");
        }
        if (mw.type() != MwType.TYPE_1) {
            throw Errors.inval("bindMw: bindMw (ibv_bind_mw) binds type 1 windows; rkey 0x"
                    + Integer.toHexString(mw.rkey()) + " is " + mw.type() + " (post a BIND_MW work request)");
        }
        if (bind.bindInfo().mr() != null && bind.bindInfo().mr().pd() != mw.pd()) {
            throw Errors.of(Errno.EPERM.value(), "bindMw: the region (lkey 0x"
                    + Integer.toHexString(bind.bindInfo().mr().lkey()) + ") belongs to another PD than window rkey 0x"
                    + Integer.toHexString(mw.rkey()));
        }
        int r = mw.rkey();
        SendWorkRequest w = new SendWorkRequest(0).opcode(WrOpcode.BIND_MW).wrId(bind.wrId())
                .sendFlags(bind.sendFlags()).mw(mw).key((r & 0xFFFF_FF00) | ((r + 1) & 0xFF));
        w.bindInfo().set(bind.bindInfo());
        QpPostSend.postSend(this, w, true);
        return mw.rkey();
    }

    @Override
    public void attachMcast(Gid gid, int lid) {
        QpMcast.attachMcast(this, gid, lid);
    }

    @Override
    public void detachMcast(Gid gid, int lid) {
        QpMcast.detachMcast(this, gid, lid);
    }

    @Override
    public void rcError(WcStatus err) {
        QpErrors.rcError(this, err);
    }

    /** Moves the QP to ERR taking its locks (device removal), raising {@code QP_LAST_WQE_REACHED} if due. */
    public void moveToError() {
        QpErrors.moveToError(this);
    }

    /** Completes every posted send WQE with {@code WR_FLUSH_ERR} in order, for a device that went away. */
    public void flushSendQueue() {
        QpErrors.flushSendQueue(this);
    }

    /**
     * Mirrors {@code rvt_qp_mr_clean}: moves the QP to ERR if its work references the region with {@code lkey}.
     *
     * @param lkey the region's key
     */
    public void mrClean(int lkey) {
        QpErrors.mrClean(this, lkey);
    }

    // ================================================================== accessors

    @Override
    public int remoteQpn() {
        return remoteQpn;
    }

    @Override
    public int qkey() {
        return qkey;
    }

    @Override
    public int accessFlags() {
        return accessFlags;
    }

    @Override
    public AhAttr remoteAhAttr() {
        return remoteAhAttr;
    }

    @Override
    public AhAttr altAhAttr() {
        return altAhAttr;
    }

    @Override
    public int pkeyIndex() {
        return pkeyIndex;
    }

    @Override
    public int pmtu() {
        return pmtu;
    }

    @Override
    public int logPmtu() {
        return logPmtu;
    }

    @Override
    public int timeout() {
        return timeout;
    }

    @Override
    public long timeoutTicks() {
        return timeoutTicks;
    }

    @Override
    public int retryCnt() {
        return retryCnt;
    }

    @Override
    public int rnrRetryCnt() {
        return rnrRetryCnt;
    }

    @Override
    public int minRnrTimer() {
        return minRnrTimer;
    }

    @Override
    public int maxRdAtomic() {
        return maxRdAtomic;
    }

    @Override
    public int maxDestRdAtomic() {
        return maxDestRdAtomic;
    }

    @Override
    public MigState migState() {
        return migState;
    }

    @Override
    public Object priv() {
        return priv;
    }

    @Override
    public QpDevice device() {
        return dev;
    }

    @Override
    public int qpNum() {
        return qpNum;
    }

    @Override
    public QpType type() {
        return type;
    }

    @Override
    public QpState state() {
        return state;
    }

    @Override
    public RvtIbport iport() {
        int p = portNum;
        return p >= 1 && p <= dev.portCount() ? dev.port(p) : null;
    }

    @Override
    public int portNum() {
        return portNum;
    }

    @Override
    public RvtPd pd() {
        return pd;
    }

    @Override
    public boolean isUserQp() {
        return false;
    }

    @Override
    public SpinningLock recvLock() {
        return recvLock;
    }

    @Override
    public SpinningLock postLock() {
        return postLock;
    }

    @Override
    public SpinningLock sendLock() {
        return sendLock;
    }

    @Override
    public RvtCq sendCompletionQueue() {
        return sendCq;
    }

    @Override
    public RvtCq recvCompletionQueue() {
        return recvCq;
    }

    /** @return the SRQ, or null */
    public RvtSrq srq() {
        return srq;
    }

    /** @return the own receive queue, or null with an SRQ */
    public RvtRq rq() {
        return rsp.rq;
    }

    @Override
    public RvtSendQueue sendQueue() {
        return sq;
    }

    @Override
    public RvtRequester requester() {
        return req;
    }

    @Override
    public RvtResponder responder() {
        return rsp;
    }

    @Override
    public AckQueue ackQueue() {
        return ackQueue;
    }

    /** @return whether SQD is still draining ({@code s_draining}) */
    public boolean sendDraining() {
        return sq.draining;
    }

    /** Mirrors {@code rvt_del_timers_sync}: cancels both timers and waits for running callbacks (no QP lock held). */
    public void delTimersSync() {
        req.delTimersSync();
    }

    /** @return the QP's event handler, or null */
    public AsyncEventHandler eventHandler() {
        return eventHandler;
    }

    /** @return {@code s_srate} in Mb/s ({@code srate_mbps}) */
    public int srateMbps() {
        return srateMbps;
    }

    @Override
    public String toString() {
        return "RvtQp{qpn=0x" + Integer.toHexString(qpNum) + ", type=" + type + ", state=" + state + '}';
    }
}
