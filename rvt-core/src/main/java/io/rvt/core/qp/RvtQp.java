package io.rvt.core.qp;

import io.rvt.api.AhAttr;
import io.rvt.api.AsyncEvent;
import io.rvt.api.AsyncEventHandler;
import io.rvt.api.AsyncEventType;
import io.rvt.api.DeviceCounter;
import io.rvt.api.Errno;
import io.rvt.api.Gid;
import io.rvt.api.MigState;
import io.rvt.api.PathMtu;
import io.rvt.api.PortCounter;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpState.Ops;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.ScatterGatherEntry;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.SigType;
import io.rvt.api.VerbsException;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WorkRequestException;
import io.rvt.api.WrOpcode;
import io.rvt.api.AccessFlag;
import io.rvt.api.spi.AckEntry;
import io.rvt.api.spi.Aeth;
import io.rvt.api.spi.CallSend;
import io.rvt.api.spi.Callback;
import io.rvt.api.spi.DriverAh;
import io.rvt.api.spi.DriverParams;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.OperationFlag;
import io.rvt.api.spi.OperationParams;
import io.rvt.api.spi.QpFlags;
import io.rvt.api.spi.RvtDriver;
import io.rvt.api.spi.RvtTimer;
import io.rvt.api.spi.SendWqe;
import io.rvt.api.spi.Seq24;
import io.rvt.api.spi.Sge;
import io.rvt.api.spi.SgeState;
import io.rvt.api.spi.Timeouts;
import io.rvt.api.spi.TimerService;
import io.rvt.core.Errnos;
import io.rvt.core.Errors;
import io.rvt.core.RvtDevice;
import io.rvt.core.RvtIbport;
import io.rvt.core.SpinningLock;
import io.rvt.core.ah.RvtAh;
import io.rvt.core.cq.RvtCq;
import io.rvt.core.mr.RvtMr;
import io.rvt.core.mr.RvtPd;
import io.rvt.core.srq.RvtRq;
import io.rvt.core.srq.RvtRwqe;
import io.rvt.core.srq.RvtSrq;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A queue pair ({@code struct rvt_qp}) and rdmavt's QP verbs and helpers: create, modify (IBTA table plus rdmavt's
 * checks), query, destroy, post send (table-driven, with reserved WQEs), post receive, receive-WQE consumption, the
 * error and reset transitions, completion helpers, credits and timers.
 *
 * <h2>Locks and ordering</h2>
 * {@code recvLock → postLock → sendLock}, as rdmavt's {@code r_lock → s_hlock → s_lock}. The send ring's two
 * cross-thread indices are published with release stores and read with acquire loads through {@link #SEND_HEAD}
 * and {@link #SEND_LAST}; the reserved count is an {@link AtomicInteger} whose decrement in
 * {@link #wqeUnreserve(int)} precedes the {@code sendLast} release, so that a poster that sees the new
 * {@code sendLast} also sees the count go down ({@code rvt_qp_is_avail} / {@code rvt_qp_wqe_unreserve}).
 */
public final class RvtQp implements DriverQp {
    private static final VarHandle SEND_HEAD;
    private static final VarHandle SEND_LAST;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            SEND_HEAD = l.findVarHandle(RvtQp.class, "sendHead", int.class);
            SEND_LAST = l.findVarHandle(RvtQp.class, "sendLast", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

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
    private final RvtDevice dev;
    private final RvtDriver driver;
    private final RvtPd pd;
    private final QpType type;
    private final RvtCq sendCq;
    private final RvtCq recvCq;
    private final RvtSrq srq;
    private final AsyncEventHandler eventHandler;
    private final int createFlags;
    private int qpNum;
    private Object priv;

    // ------------------------------------------------------------------ locks and references
    private final SpinningLock recvLock = new SpinningLock();
    private final SpinningLock postLock = new SpinningLock();
    private final SpinningLock sendLock = new SpinningLock();
    private final AtomicInteger refs = new AtomicInteger();
    private final ReentrantLock refLock = new ReentrantLock();
    private final Condition refsZero = refLock.newCondition();
    private volatile boolean destroyed;

    // ------------------------------------------------------------------ state and attributes (recv+send locks)
    private volatile QpState state = QpState.RESET;
    private volatile int portNum;
    private int remoteQpn;
    private int qkey;
    private int accessFlags;
    private final AhAttr remoteAhAttr = new AhAttr();
    private final AhAttr altAhAttr = new AhAttr();
    private int pkeyIndex;
    private int altPkeyIndex;
    private int pmtu = 256;
    private int logPmtu = 8;
    private int timeout;
    private long timeoutTicks;
    private int retryCnt;
    private int rnrRetryCnt;
    private int minRnrTimer;
    private int maxRdAtomic;
    private int maxDestRdAtomic;
    private MigState migState = MigState.MIGRATED;
    private int srate;
    private int srateMbps;

    // ------------------------------------------------------------------ send ring
    private final RvtSwqe[] ring;
    private final int sendSize;
    private final int sendMaxSge;
    private final int reserved;
    /** s_head: next slot to fill; written under postLock with setRelease (pairs with getAcquire in sendHead()). */
    @SuppressWarnings("unused")
    private int sendHead;
    /** s_last: oldest uncompleted slot; written only by completeSwqe/reset under sendLock with setRelease. */
    @SuppressWarnings("unused")
    private int sendLast;
    /** s_tail, s_cur, s_acked: send engine cursors, under sendLock. */
    private int sendTail;
    private int sendCur;
    private int sendAcked;
    /** s_avail: cached free ordinary slots; postLock only. */
    private int sendAvail;
    /** s_reserved_used: reserved slots in use; incremented by post, decremented by completion. */
    private final AtomicInteger sendReservedUsed = new AtomicInteger();
    /** Unreserves without a reserved WQE in flight, and s_avail recomputations past the bound (both: bugs). */
    private final AtomicInteger unbalancedUnreserves = new AtomicInteger();
    private final AtomicInteger availOvershoots = new AtomicInteger();
    /** local_ops_pending: deferred LOCAL_INVs queued; post increments, the engine decrements. */
    private final AtomicInteger localOpsPending = new AtomicInteger();
    /** s_next_psn, s_ssn: assigned at post, under postLock. */
    private int sendNextPsn;
    private int sendSsn = 1;
    /** Send-engine state, under sendLock. */
    private int sendFlags;
    private int sendPsn;
    private int sendLastPsn;
    private int sendSendingPsn;
    private int sendSendingHpsn;
    private int sendLsn;
    private int sendRetry;
    private int sendRnrRetry;
    private int sendState;
    private int sendAckState;
    private int sendNumRdAtomic;
    private boolean sendDraining;
    private final SgeState sendSge = new SgeState();
    private final SgeState sendRdmaReadSge = new SgeState();
    private final CallSend callSend = new CallSend();
    /** Completion scratch for completeSwqe (sendLock). */
    private final WorkCompletion sendWc = new WorkCompletion();

    // ------------------------------------------------------------------ responder ack queue (RC)
    private final AckEntry[] ackQueue;
    private int recvHeadAckQueue;
    private int sendTailAckQueue;
    private int sendAckedAckQueue;

    // ------------------------------------------------------------------ receive side (recvLock)
    private final RvtRq rq;
    private final int recvMaxSge;
    private int recvPsn;
    private int recvMsn;
    private int recvState;
    private int recvNakState;
    private int recvFlags;
    private final AtomicInteger recvAflags = new AtomicInteger();
    private long recvWrId;
    private int recvLen;
    private final SgeState recvSge = new SgeState();
    private final Sge[] recvSgList;
    private final RvtRwqe rwqeScratch;
    private final ScatterGatherEntry sgeScratch = new ScatterGatherEntry();
    /** Completion scratch for receive-side completions (recvLock). */
    private final WorkCompletion recvWc = new WorkCompletion();
    /** Completion scratch for post_recv flushes (the receive queue's producer lock). */
    private final WorkCompletion postRecvWc = new WorkCompletion();

    // ------------------------------------------------------------------ timers
    private final RvtTimer retryTimer;
    private final RvtTimer rnrTimer;
    private final RvtLoopback loopback;

    /** Why the last postOneWr failed (set on failure only, under postLock). */
    private String postError;

    private RvtQp(RvtDevice dev, RvtPd pd, QpInitAttr init, int sendMaxSge, int recvMaxSge) {
        this.dev = dev;
        this.driver = dev.driver();
        this.pd = pd;
        this.type = init.qpType();
        this.sendCq = (RvtCq) init.sendCq();
        this.recvCq = (RvtCq) init.recvCq();
        this.srq = (RvtSrq) init.srq();
        this.eventHandler = init.eventHandler();
        this.createFlags = init.createFlags();
        DriverParams p = dev.params();
        this.reserved = p.reservedOperations();
        this.sendSize = init.cap().maxSendWr() + 1 + reserved;
        this.sendMaxSge = sendMaxSge;
        this.ring = new RvtSwqe[sendSize];
        for (int i = 0; i < sendSize; i++) {
            ring[i] = new RvtSwqe(sendMaxSge);
        }
        this.sendAvail = init.cap().maxSendWr();
        this.ackQueue = new AckEntry[type == QpType.RC ? p.maxAtomic() : 0];
        for (int i = 0; i < ackQueue.length; i++) {
            ackQueue[i] = new AckEntry();
        }
        this.recvMaxSge = recvMaxSge;
        this.recvSgList = new Sge[Math.max(recvMaxSge, 1)];
        for (int i = 0; i < recvSgList.length; i++) {
            recvSgList[i] = new Sge();
        }
        this.rwqeScratch = new RvtRwqe(Math.max(recvMaxSge, 1));
        this.rq = srq == null ? new RvtRq(init.cap().maxRecvWr() + 1, recvMaxSge) : null;
        TimerService ts = dev.timerService();
        this.retryTimer = ts.newTimer("qp retry", this::rcTimeout);
        this.rnrTimer = ts.newTimer("qp rnr", this::rcRnrRetry);
        this.loopback = new RvtLoopback(this);
        this.timeoutTicks = Timeouts.usecsToTicks(4096L / 1000, ts.hz());
        if (init.sigType() == SigType.SIGNAL_REQ_WR) {
            this.sendFlags = QpFlags.S_SIGNAL_REQ_WR;
        }
    }

    // ================================================================== create

    /**
     * Mirrors {@code rvt_create_qp}: checks the request against the device limits, builds the send ring (with room
     * for the driver's reserved operations), the receive queue, the driver's private state and a QP number. The QP
     * starts in RESET, outside the QP table.
     *
     * @param dev the device
     * @param pd the PD
     * @param init the request; its {@code cap()} is updated with the sizes in effect
     * @return the QP
     */
    public static RvtQp create(RvtDevice dev, RvtPd pd, QpInitAttr init) {
        if (init == null) {
            throw Errors.inval("createQp: init is null");
        }
        dev.checkAlive();
        dev.checkVerb(io.rvt.api.spi.Verb.CREATE_QP);
        io.rvt.api.DeviceAttributes props = dev.props();
        if ((init.createFlags() & ~QpInitAttr.CREATE_NETDEV_USE) != 0) {
            throw Errors.notsupp("createQp: create flags 0x" + Integer.toHexString(init.createFlags())
                    + " are not supported (only NETDEV_USE)");
        }
        if (init.cap().maxSendSge() > props.maxSendSge()) {
            throw Errors.inval("createQp: maxSendSge " + init.cap().maxSendSge() + " exceeds the device's "
                    + props.maxSendSge());
        }
        if (init.cap().maxSendWr() > props.maxQpWr()) {
            throw Errors.inval("createQp: maxSendWr " + init.cap().maxSendWr() + " exceeds the device's "
                    + props.maxQpWr());
        }
        int recvMaxSge;
        if (init.srq() == null) {
            if (init.cap().maxRecvSge() > props.maxRecvSge()) {
                throw Errors.inval("createQp: maxRecvSge " + init.cap().maxRecvSge() + " exceeds the device's "
                        + props.maxRecvSge());
            }
            if (init.cap().maxRecvWr() > props.maxQpWr()) {
                throw Errors.inval("createQp: maxRecvWr " + init.cap().maxRecvWr() + " exceeds the device's "
                        + props.maxQpWr());
            }
            if (init.cap().maxSendSge() + init.cap().maxSendWr() + init.cap().maxRecvSge()
                    + init.cap().maxRecvWr() == 0) {
                throw Errors.inval("createQp: every queue size in cap is 0");
            }
            recvMaxSge = init.cap().maxRecvSge();
        } else {
            if (!(init.srq() instanceof RvtSrq) || ((RvtSrq) init.srq()).device() != dev) {
                throw Errors.inval("createQp: srq belongs to another device");
            }
            recvMaxSge = ((RvtSrq) init.srq()).rq().maxSge();
        }
        switch (init.qpType()) {
            case SMI:
            case GSI:
                if (init.portNum() < 1 || init.portNum() > dev.portCount()) {
                    throw Errors.inval("createQp: " + init.qpType() + " QP needs a port in 1.." + dev.portCount()
                            + ", got " + init.portNum());
                }
                break;
            case RC:
            case UC:
            case UD:
                break;
            default:
                throw Errors.notsupp("createQp: QP type " + init.qpType() + " is not supported");
        }
        if (!(init.sendCq() instanceof RvtCq) || ((RvtCq) init.sendCq()).device() != dev) {
            throw Errors.inval("createQp: sendCq is missing or belongs to another device");
        }
        if (!(init.recvCq() instanceof RvtCq) || ((RvtCq) init.recvCq()).device() != dev) {
            throw Errors.inval("createQp: recvCq is missing or belongs to another device");
        }

        // Every use is taken before anything else and given back on any failure (a deallocated PD, a destroyed CQ
        // or SRQ, a driver callback that fails or throws): a failed create leaves every count as it was.
        pd.retainUse();
        RvtQp qp = null;
        boolean privAllocated = false;
        int qpn = -1;
        int taken = 0; // 1: the QPN, 2: + QPS_ALLOCATED, 3: + sendCq, 4: + recvCq, 5: + srq
        try {
            qp = new RvtQp(dev, pd, init, init.cap().maxSendSge(), recvMaxSge);
            qp.priv = dev.driver().qpPrivAlloc(dev, qp);
            privAllocated = true;
            boolean aip = (init.createFlags() & QpInitAttr.CREATE_NETDEV_USE) != 0;
            qpn = dev.driver().allocQpn(dev, init.qpType(), init.portNum());
            if (qpn == RvtDriver.USE_CORE_QPN_ALLOCATOR) {
                qpn = dev.qpnTable().alloc(init.qpType(), init.portNum(), aip);
            }
            if (qpn < 0) {
                throw qpn == Errnos.EINVAL
                        ? Errors.inval("createQp: port " + init.portNum() + " already has its " + init.qpType()
                                + " QP")
                        : Errors.of(qpn, "createQp: no QP number available (alloc_qpn gave " + qpn + ")");
            }
            taken = 1;
            qp.qpNum = aip ? (qpn | QpnTable.AIP_QP_BASE) : qpn;
            qp.portNum = init.qpType() == QpType.SMI || init.qpType() == QpType.GSI ? init.portNum() : 0;
            qp.initQp();
            int r = dev.driver().qpPrivInit(dev, qp, init);
            if (r != 0) {
                // rdmavt leaks the QPN here ([quirk]); rvt frees it.
                throw Errors.of(r < 0 ? r : Errnos.EINVAL, "createQp: driver qp_priv_init failed with " + r);
            }
            if (!dev.tryCount(DeviceCounter.QPS_ALLOCATED, props.maxQp())) {
                throw Errors.nomem("createQp: the device's limit of " + props.maxQp() + " QPs is reached");
            }
            taken = 2;
            qp.sendCq.addUser();
            taken = 3;
            qp.recvCq.addUser();
            taken = 4;
            if (qp.srq != null) {
                qp.srq.addUser();
            }
            taken = 5;
        } catch (RuntimeException e) {
            if (taken >= 4) {
                qp.recvCq.removeUser();
            }
            if (taken >= 3) {
                qp.sendCq.removeUser();
            }
            if (taken >= 2) {
                dev.uncount(DeviceCounter.QPS_ALLOCATED);
            }
            if (taken >= 1 && qpn >= 0) {
                dev.qpnTable().free(qpn, init.qpType(), init.portNum());
            }
            if (privAllocated) {
                dev.driver().qpPrivFree(dev, qp);
            }
            if (qp != null) {
                qp.closeTimers();
                qp.freeRq();
            }
            pd.releaseUse();
            throw e;
        }
        if (qp.type == QpType.RC) {
            dev.countRcQp(1);
        }
        init.cap().maxInlineData(0);
        if (qp.srq != null) {
            init.cap().maxRecvWr(0);
        }
        return qp;
    }

    // ================================================================== init / reset / error

    /** Mirrors {@code rvt_init_qp}: the fields every create and reset sets. Locks held (or not yet shared). */
    private void initQp() {
        remoteQpn = 0;
        qkey = 0;
        accessFlags = 0;
        sendFlags &= QpFlags.S_SIGNAL_REQ_WR;
        sendDraining = false;
        sendNextPsn = 0;
        sendLastPsn = 0;
        sendSendingPsn = 0;
        sendSendingHpsn = 0;
        sendPsn = 0;
        recvPsn = 0;
        recvMsn = 0;
        int last = type == QpType.RC ? RC_SEND_LAST : UC_SEND_LAST;
        sendState = last;
        recvState = last;
        sendAckState = RC_ACKNOWLEDGE;
        recvNakState = 0;
        recvAflags.set(0);
        recvFlags = 0;
        SEND_HEAD.setRelease(this, 0);
        sendTail = 0;
        sendCur = 0;
        sendAcked = 0;
        SEND_LAST.setRelease(this, 0);
        sendSsn = 1;
        sendLsn = 0;
        migState = MigState.MIGRATED;
        recvHeadAckQueue = 0;
        sendTailAckQueue = 0;
        sendAckedAckQueue = 0;
        sendNumRdAtomic = 0;
        recvSge.clear();
        sendReservedUsed.set(0);
    }

    private void lockAll() {
        recvLock.lock();
        postLock.lock();
        sendLock.lock();
    }

    private void unlockAll() {
        sendLock.unlock();
        postLock.unlock();
        recvLock.unlock();
    }

    /**
     * Mirrors {@code _rvt_reset_qp}: entered and left with the three locks held (once each); drops them in the
     * middle to stop the send engine and the timers and to leave the QP table.
     */
    private void resetLocked() {
        if (state != QpState.RESET) {
            state = QpState.RESET;
            driver.flushQpWaiters(this);
            if ((sendFlags & (QpFlags.S_TIMER | QpFlags.S_WAIT_RNR)) != 0) {
                sendFlags &= ~(QpFlags.S_TIMER | QpFlags.S_WAIT_RNR);
                retryTimer.cancel();
                rnrTimer.cancel();
            }
            sendFlags &= ~(QpFlags.S_TIMER | QpFlags.S_ANY_WAIT);
            unlockAll();
            try {
                driver.stopSendQueue(this);
                delTimersSync();
                driver.quiesceQp(this);
                dev.qpTable().remove(this);
            } finally {
                lockAll();
            }
            clearMrRefs(true);
            driver.notifyQpReset(this);
        }
        initQp();
    }

    /**
     * Mirrors {@code rvt_clear_mr_refs}: drops the region references the QP holds; with {@code clearSends} also
     * those of every posted send WQE (advancing {@code sendLast}, no completions).
     */
    private void clearMrRefs(boolean clearSends) {
        if (testAndClearRecvAflags(QpFlags.RA_REWIND_SGE)) {
            sendRdmaReadSge.putSs();
        }
        recvSge.putSs();
        if (clearSends) {
            int last = (int) SEND_LAST.getAcquire(this);
            int head = (int) SEND_HEAD.getAcquire(this);
            while (last != head) {
                putSwqe(ring[last]);
                last = swqeIncr(last);
                SEND_LAST.setRelease(this, last); // release: pairs with getAcquire in isAvail()
            }
        }
        for (AckEntry e : ackQueue) {
            e.rdmaSge().release();
        }
    }

    @Override
    public boolean errorQp(WcStatus err) {
        if (state == QpState.ERR || state == QpState.RESET) {
            return false;
        }
        state = QpState.ERR;
        if ((sendFlags & (QpFlags.S_TIMER | QpFlags.S_WAIT_RNR)) != 0) {
            sendFlags &= ~(QpFlags.S_TIMER | QpFlags.S_WAIT_RNR);
            retryTimer.cancel();
            // rdmavt leaves the RNR timer running ([quirk]): its expiry only clears WAIT_RNR and reschedules.
        }
        sendFlags &= ~QpFlags.S_ANY_WAIT_SEND;
        driver.notifyErrorQp(this);
        if ((int) SEND_LAST.getAcquire(this) != (int) SEND_HEAD.getAcquire(this)) {
            driver.scheduleSend(this);
        }
        clearMrRefs(false);
        if (testAndClearRecvAflags(QpFlags.RA_WRID_VALID)) {
            recvWc.clear().wrId(recvWrId).status(err).opcode(WcOpcode.RECV).qpNum(qpNum);
            recvCq.enter(recvWc, true);
        }
        if (rq != null) {
            flushRecvQueue();
            return false;
        }
        return true;
    }

    /** Completes every posted receive WQE of the own queue with WR_FLUSH_ERR (step 9 of rvt_error_qp). */
    private void flushRecvQueue() {
        // Both locks, in RvtRq's order: no post between the last take and the end of the flush (see postRecv).
        rq.producerLock().lock();
        rq.consumerLock().lock();
        try {
            while (rq.take(rwqeScratch)) {
                recvWc.clear().wrId(rwqeScratch.wrId()).status(WcStatus.WR_FLUSH_ERR).opcode(WcOpcode.RECV)
                        .qpNum(qpNum);
                recvCq.enter(recvWc, true);
            }
        } finally {
            rq.consumerLock().unlock();
            rq.producerLock().unlock();
        }
    }

    @Override
    public void rcError(WcStatus err) {
        boolean lastWqe;
        sendLock.lock();
        try {
            lastWqe = errorQp(err);
        } finally {
            sendLock.unlock();
        }
        if (lastWqe) {
            event(AsyncEventType.QP_LAST_WQE_REACHED);
        }
    }

    /**
     * Moves the QP to ERR taking its locks (device removal), raising {@code QP_LAST_WQE_REACHED} if due.
     */
    public void moveToError() {
        boolean lastWqe;
        recvLock.lock();
        sendLock.lock();
        try {
            lastWqe = errorQp(WcStatus.WR_FLUSH_ERR);
        } finally {
            sendLock.unlock();
            recvLock.unlock();
        }
        if (lastWqe) {
            event(AsyncEventType.QP_LAST_WQE_REACHED);
        }
    }

    /**
     * Completes every posted send WQE with {@code WR_FLUSH_ERR} in order (what a driver's engine does in ERR); rvt
     * uses it when a device goes away, since the driver's engine is gone. It holds all three locks, so no post can
     * publish a WQE behind it (a post checks the device under {@code postLock}), and it waits while another engine
     * holds {@code S_BUSY}: that engine (e.g. the loopback on an application's thread) has read a WQE it is about to
     * complete, and in ERR it flushes the rest itself. rdmavt's flush ignores {@code S_BUSY} ([deviation]: there a
     * WQE could complete twice).
     */
    public void flushSendQueue() {
        long deadline = System.nanoTime() + BUSY_WAIT_NANOS;
        while (true) {
            lockAll();
            try {
                if (!state.can(Ops.FLUSH_SEND)) {
                    return;
                }
                if ((sendFlags & QpFlags.S_BUSY) == 0 || System.nanoTime() - deadline > 0) {
                    if ((sendFlags & QpFlags.S_BUSY) != 0) {
                        System.getLogger(RvtQp.class.getName()).log(System.Logger.Level.WARNING,
                                "QP 0x" + Integer.toHexString(qpNum) + ": an engine kept S_BUSY for "
                                        + BUSY_WAIT_NANOS / 1_000_000_000L + " s after device removal; flushing");
                    }
                    int head = (int) SEND_HEAD.getAcquire(this);
                    while ((int) SEND_LAST.getAcquire(this) != head) {
                        sendComplete(ring[(int) SEND_LAST.getAcquire(this)], WcStatus.WR_FLUSH_ERR);
                    }
                    return;
                }
            } finally {
                unlockAll();
            }
            Thread.yield(); // the busy engine needs recvLock and sendLock to finish
        }
    }

    private void event(AsyncEventType t) {
        dev.dispatch(AsyncEvent.ofQp(t, this), eventHandler);
    }

    // ================================================================== modify / query / destroy

    @Override
    public void modifyQp(QpAttr attr, int mask) {
        if (attr == null) {
            throw Errors.inval("modifyQp: attr is null");
        }
        checkNotDestroyed();
        dev.checkAlive();
        dev.checkVerb(io.rvt.api.spi.Verb.MODIFY_QP);
        if ((mask & ~QpAttrMask.STANDARD_BITS) != 0) {
            throw Errors.notsupp("modifyQp: attribute mask bits 0x"
                    + Integer.toHexString(mask & ~QpAttrMask.STANDARD_BITS) + " are not supported");
        }
        boolean lastWqe = false;
        boolean mig = false;
        QpState cur;
        QpState next;
        lockAll();
        try {
            // CUR_STATE asserts the state the caller believes the QP is in: a wrong belief is refused ([deviation]:
            // rdmavt takes attr->cur_qp_state as the current state and could move an INIT QP as if it were RTS).
            if (QpAttrMask.CUR_STATE.in(mask) && attr.curQpState() != state) {
                throw Errors.inval("modifyQp on QP 0x" + Integer.toHexString(qpNum) + ": curQpState "
                        + attr.curQpState() + " does not match the QP's state " + state);
            }
            cur = state;
            next = QpAttrMask.STATE.in(mask) ? attr.qpState() : cur;
            String why = QpTransitions.check(cur, next, type, mask);
            if (why != null) {
                throw Errors.inval("modifyQp on QP 0x" + Integer.toHexString(qpNum) + ": " + why);
            }
            if (dev.provides(Callback.CHECK_MODIFY_QP) && driver.checkModifyQp(this, attr, mask) != 0) {
                throw Errors.inval("modifyQp on QP 0x" + Integer.toHexString(qpNum) + ": refused by the driver");
            }
            int mcastBase = (dev.params().coreCapFlags() & DriverParams.CORE_CAP_OPA_AH) != 0
                    ? OPA_MULTICAST_BASE : IB_MULTICAST_LID_BASE;
            if (QpAttrMask.AV.in(mask)) {
                checkPath("AV", attr.ahAttr(), mcastBase);
            }
            if (QpAttrMask.ALT_PATH.in(mask)) {
                checkPath("ALT_PATH", attr.altAhAttr(), mcastBase);
                if (attr.altPkeyIndex() >= dev.params().npkeys()) {
                    throw Errors.inval("modifyQp: altPkeyIndex " + attr.altPkeyIndex() + " is outside the table of "
                            + dev.params().npkeys());
                }
            }
            if (QpAttrMask.PKEY_INDEX.in(mask) && attr.pkeyIndex() >= dev.params().npkeys()) {
                throw Errors.inval("modifyQp: pkeyIndex " + attr.pkeyIndex() + " is outside the table of "
                        + dev.params().npkeys());
            }
            if (QpAttrMask.ACCESS_FLAGS.in(mask) && (attr.qpAccessFlags() & ~AccessFlag.ALL) != 0) {
                throw Errors.inval("modifyQp: qpAccessFlags 0x" + Integer.toHexString(attr.qpAccessFlags())
                        + " has unknown bits 0x" + Integer.toHexString(attr.qpAccessFlags() & ~AccessFlag.ALL));
            }
            if (QpAttrMask.MIN_RNR_TIMER.in(mask) && attr.minRnrTimer() > 31) {
                throw Errors.inval("modifyQp: minRnrTimer " + attr.minRnrTimer() + " exceeds 31");
            }
            if (QpAttrMask.PORT.in(mask)) {
                if (type == QpType.SMI || type == QpType.GSI) {
                    throw Errors.inval("modifyQp: PORT cannot be changed on a " + type + " QP");
                }
                if (attr.portNum() < 1 || attr.portNum() > dev.portCount()) {
                    throw Errors.inval("modifyQp: port " + attr.portNum() + " is outside 1.." + dev.portCount());
                }
            }
            if (QpAttrMask.DEST_QPN.in(mask) && (attr.destQpNum() & ~0xFFFFFF) != 0) {
                throw Errors.inval("modifyQp: destQpNum 0x" + Integer.toHexString(attr.destQpNum())
                        + " exceeds 0xFFFFFF");
            }
            if (QpAttrMask.RETRY_CNT.in(mask) && attr.retryCnt() > 7) {
                throw Errors.inval("modifyQp: retryCnt " + attr.retryCnt() + " exceeds 7");
            }
            if (QpAttrMask.RNR_RETRY.in(mask) && attr.rnrRetry() > 7) {
                throw Errors.inval("modifyQp: rnrRetry " + attr.rnrRetry() + " exceeds 7");
            }
            int pmtuEnum = 0;
            if (QpAttrMask.PATH_MTU.in(mask)) {
                pmtuEnum = driver.getPmtuFromAttr(dev, this, attr);
                if (pmtuEnum < 0) {
                    throw Errors.inval("modifyQp: path MTU " + attr.pathMtu() + " refused by the driver");
                }
            }
            if (QpAttrMask.PATH_MIG_STATE.in(mask)) {
                MigState want = attr.pathMigState();
                if (want == MigState.REARM) {
                    if (migState == MigState.ARMED || next != QpState.RTS) {
                        throw Errors.inval("modifyQp: path migration state REARM needs a QP not ARMED moving to RTS");
                    }
                } else if (want == MigState.MIGRATED) {
                    if (migState == MigState.REARM || (next != QpState.RTS && next != QpState.SQD)) {
                        throw Errors.inval("modifyQp: path migration state MIGRATED needs a QP not in REARM"
                                + " moving to RTS or SQD");
                    }
                    mig = migState == MigState.ARMED;
                } else {
                    throw Errors.inval("modifyQp: path migration state " + want + " cannot be requested");
                }
            }
            if (QpAttrMask.MAX_DEST_RD_ATOMIC.in(mask) && attr.maxDestRdAtomic() > dev.params().maxRdmaAtomic()) {
                throw Errors.inval("modifyQp: maxDestRdAtomic " + attr.maxDestRdAtomic() + " exceeds the device's "
                        + dev.params().maxRdmaAtomic());
            }
            if (next == QpState.SQE && type == QpType.RC) {
                throw Errors.inval("modifyQp: an RC QP cannot enter SQE");
            }

            // State action (nothing above modified the QP).
            switch (next) {
                case RESET:
                    if (state != QpState.RESET) {
                        resetLocked();
                    }
                    break;
                case RTR:
                    recvFlags &= ~QpFlags.R_COMM_EST;
                    state = QpState.RTR;
                    break;
                case SQD:
                    sendDraining = (int) SEND_LAST.getAcquire(this) != sendCur;
                    state = QpState.SQD;
                    break;
                case SQE:
                    state = QpState.SQE;
                    break;
                case ERR:
                    lastWqe = errorQp(WcStatus.WR_FLUSH_ERR);
                    break;
                default:
                    state = next;
                    break;
            }
            applyAttributes(attr, mask, mig, pmtuEnum);
            if (dev.provides(Callback.MODIFY_QP)) {
                driver.modifyQp(this, attr, mask);
            }
        } finally {
            unlockAll();
        }
        if (cur == QpState.RESET && next == QpState.INIT) {
            dev.qpTable().insert(this);
        }
        if (lastWqe) {
            event(AsyncEventType.QP_LAST_WQE_REACHED);
        }
        if (mig) {
            event(AsyncEventType.PATH_MIG);
        }
    }

    private void checkPath(String which, AhAttr ah, int mcastBase) {
        if (Integer.compareUnsigned(ah.dlid(), mcastBase) >= 0) {
            throw Errors.inval("modifyQp: " + which + " dlid 0x" + Integer.toHexString(ah.dlid())
                    + " is a multicast LID (unicast is below 0x" + Integer.toHexString(mcastBase) + ")");
        }
        String why = RvtAh.whyInvalid(dev, ah);
        if (why != null) {
            throw Errors.inval("modifyQp: " + which + " address is invalid: " + why);
        }
    }

    /** Step 7.5.4: attributes in rdmavt's order, all three locks held. */
    private void applyAttributes(QpAttr attr, int mask, boolean mig, int pmtuEnum) {
        DriverParams p = dev.params();
        if (QpAttrMask.PKEY_INDEX.in(mask)) {
            pkeyIndex = attr.pkeyIndex();
        }
        if (QpAttrMask.PORT.in(mask)) {
            portNum = attr.portNum();
        }
        if (QpAttrMask.DEST_QPN.in(mask)) {
            remoteQpn = attr.destQpNum();
        }
        if (QpAttrMask.SQ_PSN.in(mask)) {
            sendNextPsn = attr.sqPsn() & p.psnModifyMask();
            sendPsn = sendNextPsn;
            sendSendingPsn = sendNextPsn;
            sendLastPsn = sendNextPsn - 1;
            sendSendingHpsn = sendLastPsn;
        }
        if (QpAttrMask.RQ_PSN.in(mask)) {
            recvPsn = attr.rqPsn() & p.psnModifyMask();
        }
        if (QpAttrMask.ACCESS_FLAGS.in(mask)) {
            accessFlags = attr.qpAccessFlags();
        }
        if (QpAttrMask.AV.in(mask)) {
            remoteAhAttr.copyFrom(attr.ahAttr());
            srate = attr.ahAttr().staticRate();
            srateMbps = AhAttr.rateToMbps(srate);
        }
        if (QpAttrMask.ALT_PATH.in(mask)) {
            altAhAttr.copyFrom(attr.altAhAttr());
            altPkeyIndex = attr.altPkeyIndex();
        }
        if (QpAttrMask.PATH_MIG_STATE.in(mask)) {
            migState = attr.pathMigState();
            if (mig) {
                remoteAhAttr.copyFrom(altAhAttr);
                portNum = altAhAttr.portNum();
                pkeyIndex = altPkeyIndex;
            }
        }
        if (QpAttrMask.PATH_MTU.in(mask)) {
            pmtu = driver.mtuFromQp(dev, this, pmtuEnum);
            logPmtu = 31 - Integer.numberOfLeadingZeros(pmtu);
        }
        if (QpAttrMask.RETRY_CNT.in(mask)) {
            retryCnt = attr.retryCnt();
            sendRetry = retryCnt;
        }
        if (QpAttrMask.RNR_RETRY.in(mask)) {
            rnrRetryCnt = attr.rnrRetry();
            sendRnrRetry = rnrRetryCnt;
        }
        if (QpAttrMask.MIN_RNR_TIMER.in(mask)) {
            minRnrTimer = attr.minRnrTimer();
        }
        if (QpAttrMask.TIMEOUT.in(mask)) {
            timeout = attr.timeout();
            timeoutTicks = Timeouts.timeoutToTicks(timeout, dev.timerService().hz());
        }
        if (QpAttrMask.QKEY.in(mask)) {
            qkey = attr.qkey();
        }
        if (QpAttrMask.MAX_DEST_RD_ATOMIC.in(mask)) {
            maxDestRdAtomic = attr.maxDestRdAtomic();
        }
        if (QpAttrMask.MAX_QP_RD_ATOMIC.in(mask)) {
            maxRdAtomic = attr.maxRdAtomic();
        }
    }

    @Override
    public QpAttr queryQp(QpAttr out) {
        if (out == null) {
            throw Errors.inval("queryQp: out is null");
        }
        checkNotDestroyed();
        int psnMask = dev.params().psnMask();
        out.qpState(state).curQpState(state);
        out.pathMtu(PathMtu.of(driver.mtuToPathMtu(pmtu)));
        out.pathMigState(migState).qkey(qkey).rqPsn(recvPsn & psnMask).sqPsn(sendNextPsn & psnMask)
                .destQpNum(remoteQpn).qpAccessFlags(accessFlags);
        out.cap().maxSendWr(sendSize - 1 - reserved).maxRecvWr(rq == null ? 0 : rq.size() - 1)
                .maxSendSge(sendMaxSge).maxRecvSge(recvMaxSge).maxInlineData(0);
        out.ahAttr().copyFrom(remoteAhAttr);
        out.altAhAttr().copyFrom(altAhAttr);
        out.pkeyIndex(pkeyIndex).altPkeyIndex(altPkeyIndex).enSqdAsyncNotify(false).sqDraining(sendDraining)
                .maxRdAtomic(maxRdAtomic).maxDestRdAtomic(maxDestRdAtomic).minRnrTimer(minRnrTimer)
                .portNum(portNum).timeout(timeout).retryCnt(retryCnt).rnrRetry(rnrRetryCnt)
                .altPortNum(altAhAttr.portNum()).altTimeout(0);
        return out;
    }

    @Override
    public QpInitAttr queryInitAttr(QpInitAttr out) {
        if (out == null) {
            throw Errors.inval("queryInitAttr: out is null");
        }
        checkNotDestroyed();
        out.qpType(type).sendCq(sendCq).recvCq(recvCq).srq(srq).eventHandler(eventHandler)
                .sigType((sendFlags & QpFlags.S_SIGNAL_REQ_WR) != 0 ? SigType.SIGNAL_REQ_WR : SigType.SIGNAL_ALL_WR)
                .portNum(portNum).createFlags(createFlags);
        out.cap().maxSendWr(sendSize - 1 - reserved).maxRecvWr(rq == null ? 0 : rq.size() - 1)
                .maxSendSge(sendMaxSge).maxRecvSge(recvMaxSge).maxInlineData(0);
        return out;
    }

    @Override
    public void destroyQp() {
        checkNotDestroyed();
        dev.checkVerb(io.rvt.api.spi.Verb.DESTROY_QP);
        RvtIbport port = iport();
        if (port != null && port.mcastTable().attachmentCount(this) > 0) {
            throw Errors.busy("destroyQp: QP 0x" + Integer.toHexString(qpNum) + " is still attached to "
                    + port.mcastTable().attachmentCount(this) + " multicast group(s)");
        }
        lockAll();
        try {
            if (destroyed) {
                throw Errors.inval("destroyQp: QP 0x" + Integer.toHexString(qpNum) + " was already destroyed");
            }
            destroyed = true;
            resetLocked();
        } finally {
            unlockAll();
        }
        awaitNoReferences();
        dev.qpnTable().free(qpNum, type, portNum);
        dev.uncount(DeviceCounter.QPS_ALLOCATED);
        if (type == QpType.RC) {
            dev.countRcQp(-1);
        }
        driver.qpPrivFree(dev, this);
        closeTimers();
        freeRq();
        sendCq.removeUser();
        recvCq.removeUser();
        if (srq != null) {
            srq.removeUser();
        }
        pd.releaseUse();
    }

    /** rvt_free_rq on the own receive queue (create failure, destroy). */
    private void freeRq() {
        if (rq != null) {
            rq.free();
        }
    }

    private void closeTimers() {
        retryTimer.cancel();
        rnrTimer.cancel();
    }

    private void awaitNoReferences() {
        refLock.lock();
        try {
            while (refs.get() > 0) {
                refsZero.awaitUninterruptibly();
            }
        } finally {
            refLock.unlock();
        }
    }

    private void checkNotDestroyed() {
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
            refLock.lock();
            try {
                refsZero.signalAll();
            } finally {
                refLock.unlock();
            }
        }
    }

    @Override
    public int refCount() {
        return refs.get();
    }

    // ================================================================== post send

    @Override
    public void postSend(SendWorkRequest wr) {
        if (wr == null) {
            throw new WorkRequestException(Errno.EINVAL, WorkRequestException.NO_INDEX, "postSend: wr is null");
        }
        checkPostable("postSend");
        dev.checkVerb(io.rvt.api.spi.Verb.POST_SEND);
        int nreq = 0;
        int err = 0;
        boolean doSendNow;
        postLock.lock();
        try {
            // Under postLock, which the removal's flush also takes: a post either publishes before that flush
            // (which completes its WQEs) or sees the device gone. rdmavt's check is outside the lock.
            if (!dev.isAlive()) {
                throw new WorkRequestException(Errno.ENODEV, WorkRequestException.NO_INDEX,
                        "postSend: device " + dev.name() + " was removed");
            }
            QpState s = state;
            if (!s.can(Ops.POST_SEND_OK)) {
                // rdmavt returns -EINVAL without setting bad_wr here.
                throw new WorkRequestException(Errno.EINVAL, WorkRequestException.NO_INDEX,
                        "postSend: QP 0x" + Integer.toHexString(qpNum) + " is in state " + s
                                + ", which does not accept sends");
            }
            callSend.set((int) SEND_HEAD.get(this) == (int) SEND_LAST.getOpaque(this) && wr.next() == null);
            for (SendWorkRequest w = wr; w != null; w = w.next()) {
                err = postOneWr(w);
                if (err != 0) {
                    break;
                }
                nreq++;
            }
            doSendNow = nreq == 1 && callSend.get();
        } finally {
            postLock.unlock();
        }
        if (nreq > 0) {
            if (doSendNow) {
                driver.doSend(this);
            } else {
                driver.scheduleSendNoLock(this);
            }
        }
        if (err != 0) {
            throw new WorkRequestException(err, nreq, postError);
        }
    }

    /** A post to a destroyed QP: EINVAL saying so (its state reads RESET, which would mislead). */
    private void checkPostable(String verb) {
        if (destroyed) {
            throw new WorkRequestException(Errno.EINVAL, WorkRequestException.NO_INDEX, verb + ": QP 0x"
                    + Integer.toHexString(qpNum) + " was destroyed");
        }
    }

    private int fail(int errno, String why) {
        postError = why;
        return errno;
    }

    /** Mirrors {@code rvt_post_one_wr} (postLock held); returns 0 or a negative errno with {@link #postError} set. */
    private int postOneWr(SendWorkRequest wr) {
        WrOpcode op = wr.opcode();
        if (op == null) {
            return fail(Errnos.EINVAL, "opcode is null");
        }
        if (wr.numSge() > sendMaxSge) {
            return fail(Errnos.EINVAL, "numSge " + wr.numSge() + " exceeds the QP's maxSendSge " + sendMaxSge);
        }
        OperationParams params = dev.operationTable().get(op);
        if (params == null) {
            return fail(Errnos.EINVAL, "opcode " + op + " is not supported by driver '" + driver.name() + "'");
        }
        if (!params.supports(type)) {
            return fail(Errnos.EINVAL, "opcode " + op + " is not allowed on a " + type + " QP");
        }
        if (params.has(OperationFlag.PRIV) && pd.isUser()) {
            return fail(Errnos.EINVAL, "opcode " + op + " is privileged and the QP's PD is a user PD");
        }
        if (params.has(OperationFlag.ATOMIC_SGE) && (wr.numSge() < 1 || wr.sge(0).length() < 8
                || (wr.sge(0).addr() & 7) != 0)) {
            return fail(Errnos.EINVAL, "opcode " + op + " needs a first SGE of at least 8 bytes, 8-byte aligned");
        }
        if (params.has(OperationFlag.ATOMIC) && maxRdAtomic == 0) {
            return fail(Errnos.EINVAL, "opcode " + op + " needs maxRdAtomic > 0 (set MAX_QP_RD_ATOMIC)");
        }
        boolean udLike = type.isUdLike();
        if (udLike) {
            if (!(wr.ah() instanceof RvtAh) || ((RvtAh) wr.ah()).rvtPd() != pd) {
                return fail(Errnos.EINVAL, "a " + type + " send needs an address handle of the QP's PD, got "
                        + (wr.ah() == null ? "none" : "one of another PD"));
            }
            if (((RvtAh) wr.ah()).isDestroyed()) {
                return fail(Errnos.EINVAL, "the address handle " + wr.ah() + " was destroyed");
            }
        }
        boolean local = params.has(OperationFlag.LOCAL);
        boolean deferred = false;
        if (local) {
            boolean signaled = SendFlag.SIGNALED.in(wr.sendFlags());
            if (op == WrOpcode.REG_MR) {
                if (!(wr.mr() instanceof RvtMr)) {
                    return fail(Errnos.EINVAL, "REG_MR needs a memory region from allocMr, got "
                            + (wr.mr() == null ? "none" : wr.mr().getClass().getName()));
                }
                RvtMr fr = (RvtMr) wr.mr();
                int r = dev.lkeyTable().fastRegMr(pd, fr, wr.key(), wr.access());
                if (r < 0) {
                    return fail(r, "REG_MR of key 0x" + Integer.toHexString(wr.key()) + " failed: "
                            + regMrProblem(fr, wr.key()));
                }
                if (!signaled) {
                    return 0;
                }
            } else if (op == WrOpcode.LOCAL_INV) {
                if (SendFlag.FENCE.in(wr.sendFlags()) || localOpsPending.get() > 0) {
                    deferred = true;
                } else {
                    if (dev.lkeyTable().invalidateRkey(pd, wr.invalidateRkey()) < 0) {
                        return fail(Errnos.EINVAL, "LOCAL_INV of rkey 0x" + Integer.toHexString(wr.invalidateRkey())
                                + " failed: no such key in the QP's PD");
                    }
                    if (!signaled) {
                        return 0;
                    }
                }
            } else {
                return fail(Errnos.EINVAL, "opcode " + op + " is not a local operation");
            }
        }
        boolean reservedOp = params.has(OperationFlag.USE_RESERVE);
        if (!isAvail(reservedOp)) {
            return fail(Errnos.ENOMEM, reservedOp
                    ? "no reserved send slot left (reserved_operations " + reserved + " in use)"
                    : "send queue is full (" + (sendSize - 1 - reserved) + " WQEs outstanding)");
        }
        int head = (int) SEND_HEAD.get(this);
        int next = swqeIncr(head);
        RvtSwqe wqe = ring[head];
        wqe.fill(wr, params.shape(), udLike);

        // SGE validation and merge (rvt_lkey_ok); the access check uses the numeric opcode [quirk].
        int acc = op.value() >= WrOpcode.RDMA_READ.value() ? AccessFlag.LOCAL_WRITE.bit() : 0;
        int length = 0;
        int j = 0;
        Sge lastSge = null;
        for (int i = 0; i < wr.numSge(); i++) {
            ScatterGatherEntry s = wr.sge(i);
            if (s.length() == 0) {
                continue;
            }
            int r = dev.lkeyTable().lkeyOk(pd, wqe.sge(j), lastSge, s, acc);
            if (r < 0) {
                for (int k = 0; k < j; k++) {
                    wqe.sge(k).release();
                }
                wqe.numSge = 0;
                return fail(Errnos.EINVAL, "sge " + i + " (addr 0x" + Long.toHexString(s.addr()) + ", length "
                        + s.length() + ", lkey 0x" + Integer.toHexString(s.lkey()) + ") failed the lkey check"
                        + (acc != 0 ? " (LOCAL_WRITE needed)" : ""));
            }
            length += s.length();
            if (r == 1) {
                lastSge = wqe.sge(j);
            }
            j += r;
        }
        wqe.numSge = j;
        wqe.length = length;
        int lp = logPmtu;
        if (udLike) {
            RvtAh ah = (RvtAh) wr.ah();
            lp = ah.logPmtu();
            wqe.ahAttrCache().copyFrom(ah.attr());
        }
        if (local) {
            if (deferred) {
                localOpsPending.incrementAndGet();
            } else {
                wqe.sendFlags |= QpFlags.SEND_COMPLETION_ONLY;
            }
            wqe.ssn = 0;
            wqe.psn = 0;
            wqe.lpsn = 0;
        } else {
            wqe.ssn = sendSsn++;
            wqe.psn = sendNextPsn;
            wqe.lpsn = wqe.psn + (length != 0 ? (length - 1) >>> lp : 0);
        }
        if (dev.provides(Callback.SETUP_WQE)) {
            int r = driver.setupWqe(this, wqe, callSend);
            if (r < 0) {
                if (udLike) {
                    wqe.clearAh();
                }
                wqe.putMrs();
                wqe.numSge = 0;
                // The usual reason, said when it applies (the check is the driver's, as in rdmavt and hfi1).
                String mtu = udLike && lp > 0 && Integer.toUnsignedLong(length) > 1L << lp
                        ? " exceeds the path MTU " + (1 << lp) + " of its address handle" : "";
                return fail(r, "the driver's setup_wqe refused the work request (opcode " + op + ", length "
                        + Integer.toUnsignedString(length) + mtu + ", returned " + r + ")");
            }
        }
        if (!local) {
            sendNextPsn = wqe.lpsn + 1;
        }
        if (reservedOp) {
            wqe.sendFlags |= QpFlags.SEND_RESERVE_USED;
            wqeReserve(wqe);
        } else {
            wqe.sendFlags &= ~QpFlags.SEND_RESERVE_USED;
            sendAvail--;
        }
        // release: the WQE is complete before it is reachable; pairs with getAcquire in sendHead().
        SEND_HEAD.setRelease(this, next);
        return 0;
    }

    /**
     * Mirrors {@code rvt_qp_is_avail}, with two changes ([deviation], semantics §4.3): a reserved post also needs the
     * ring not to be physically full (the slot after {@code sendHead} is not {@code sendLast}), and the cached
     * {@code sendAvail} never exceeds {@code sendSize - 1 - R}. rdmavt checks only the reserved count, which a
     * completion lowers before it publishes {@code s_last}: a reserved post in that window took the empty-marker
     * slot and the next ordinary post overwrote the WQE being retired. The count is compared unsigned, as rdmavt's
     * {@code u32}: a count an unbalanced unreserve drove below zero fails closed.
     */
    /** Says which of {@code RvtLkeyTable.fastRegMr}'s checks refused a REG_MR. */
    private String regMrProblem(RvtMr mr, int key) {
        if (mr.rvtPd() != pd) {
            return "the region (lkey 0x" + Integer.toHexString(mr.lkey()) + ") belongs to another PD than the QP's";
        }
        if (!mr.isFastReg() || mr.lkey() == 0) {
            return "the region (lkey 0x" + Integer.toHexString(mr.lkey()) + ") is not a fast-registration region"
                    + " (allocMr)";
        }
        if ((key & 0xFFFF_FF00) != (mr.lkey() & 0xFFFF_FF00)) {
            return "the new key changes the index bits of the region's key 0x" + Integer.toHexString(mr.lkey())
                    + " (only the low 8 bits may change)";
        }
        return "the access asks for write on a read-only region";
    }

    @Override
    public boolean isAvail(boolean reservedOp) {
        if (reservedOp) {
            // volatile read: sees every decrement that wqeUnreserve made before its fence
            if (Integer.compareUnsigned(sendReservedUsed.get(), reserved) >= 0) {
                return false;
            }
            // acquire: the retiring slot counts as taken until completeSwqe has published s_last past it
            return swqeIncr((int) SEND_HEAD.get(this)) != (int) SEND_LAST.getAcquire(this);
        }
        if (sendAvail != 0) {
            return true; // the cached lower bound: no cross-thread state is read on this path
        }
        VarHandle.fullFence(); // pairs with the fence in wqeUnreserve (rdmavt's smp_mb__before_atomic)
        // acquire: pairs with the setRelease in completeSwqe; read s_last before the reserved count.
        int last = (int) SEND_LAST.getAcquire(this);
        int head = (int) SEND_HEAD.get(this);
        int slots = head >= last ? sendSize - (head - last) : last - head;
        int used = sendReservedUsed.get();
        int avail = slots - 1 - (reserved - used);
        if (avail <= 0) {
            return false;
        }
        int bound = sendSize - 1 - reserved;
        if (avail > bound) {
            availOvershoots.incrementAndGet();
            System.getLogger(RvtQp.class.getName()).log(System.Logger.Level.WARNING,
                    "QP 0x" + Integer.toHexString(qpNum) + ": s_avail " + avail + " exceeds " + bound
                            + "; clamped");
            avail = bound;
        }
        sendAvail = avail;
        return true;
    }

    /**
     * Mirrors {@code rvt_qp_wqe_reserve}: one more reserved WQE in flight (the caller flags the WQE with
     * {@code SEND_RESERVE_USED}).
     *
     * @param wqe the WQE being posted
     */
    @Override
    public void wqeReserve(SendWqe wqe) {
        sendReservedUsed.incrementAndGet();
    }

    /**
     * Mirrors {@code rvt_qp_wqe_unreserve}: a WQE flagged {@code SEND_RESERVE_USED} is retired, the reserved count
     * drops. An unreserve that finds no reserved WQE in flight (a driver bug) is counted
     * ({@link #unbalancedUnreserves()}) and logged once per QP; the count still drops, as in rdmavt, and the unsigned
     * comparison in {@link #isAvail(boolean)} then refuses reserved posts.
     *
     * @param flags the retired WQE's send flags
     */
    @Override
    public void wqeUnreserve(int flags) {
        if ((flags & QpFlags.SEND_RESERVE_USED) != 0) {
            if (sendReservedUsed.getAndDecrement() <= 0 && unbalancedUnreserves.getAndIncrement() == 0) {
                System.getLogger(RvtQp.class.getName()).log(System.Logger.Level.WARNING,
                        "QP 0x" + Integer.toHexString(qpNum) + ": wqe_unreserve without a reserved WQE in flight"
                                + " (reserved count now " + sendReservedUsed.get() + "); reserved posts now fail");
            }
            // Must precede the sendLast update: a poster that sees the new s_last sees the smaller count.
            VarHandle.fullFence();
        }
    }

    /** @return how many unreserves found no reserved WQE in flight (driver bugs; logged once) */
    public int unbalancedUnreserves() {
        return unbalancedUnreserves.get();
    }

    /** @return how many times the recomputed {@code s_avail} exceeded its bound and was clamped (should be 0) */
    public int availOvershoots() {
        return availOvershoots.get();
    }

    @Override
    public int completeSwqe(SendWqe w, WcOpcode opcode, WcStatus status) {
        RvtSwqe wqe = (RvtSwqe) w;
        int flags = wqe.sendFlags;
        wqeUnreserve(flags);
        putSwqe(wqe);
        boolean needCompletion = (flags & QpFlags.SEND_RESERVE_USED) == 0
                && ((sendFlags & QpFlags.S_SIGNAL_REQ_WR) == 0 || SendFlag.SIGNALED.in(flags)
                        || status != WcStatus.SUCCESS);
        long wrId = 0;
        int byteLen = 0;
        if (needCompletion) {
            // Capture before the release: afterwards a poster may reuse the slot.
            wrId = wqe.wrId;
            byteLen = wqe.length;
        }
        int last = swqeIncr((int) SEND_LAST.get(this));
        // release: pairs with getAcquire in isAvail(); wqeUnreserve above came first.
        SEND_LAST.setRelease(this, last);
        if (needCompletion) {
            sendWc.clear().wrId(wrId).status(status).opcode(opcode).qpNum(qpNum).byteLen(byteLen);
            sendCq(sendWc, status != WcStatus.SUCCESS);
        }
        return last;
    }

    @Override
    public void sendComplete(SendWqe wqe, WcStatus status) {
        if (!state.can(Ops.PROCESS_OR_FLUSH_SEND)) {
            return;
        }
        int old = (int) SEND_LAST.get(this);
        OperationParams p = wqe.opcode() == null ? null : dev.operationTable().get(wqe.opcode());
        WcOpcode wcOp = p == null || p.wcOpcode() == null ? WcOpcode.SEND : p.wcOpcode();
        int last = completeSwqe(wqe, wcOp, status);
        if (sendAcked == old) {
            sendAcked = last;
        }
        if (sendCur == old) {
            sendCur = last;
        }
        if (sendTail == old) {
            sendTail = last;
        }
        if (state == QpState.SQD && last == sendCur) {
            sendDraining = false;
        }
    }

    @Override
    public void putSwqe(SendWqe w) {
        RvtSwqe wqe = (RvtSwqe) w;
        wqe.putMrs();
        wqe.numSge = 0;
        if (type.isUdLike()) {
            wqe.clearAh();
        }
    }

    @Override
    public boolean sendCq(WorkCompletion wc, boolean solicited) {
        if (sendCq.enter(wc, solicited)) {
            return true;
        }
        errorOnOverflow();
        return false;
    }

    @Override
    public boolean recvCq(WorkCompletion wc, boolean solicited) {
        if (recvCq.enter(wc, solicited)) {
            return true;
        }
        errorOnOverflow();
        return false;
    }

    /**
     * rvt_send_cq/rvt_recv_cq on overflow: QP to ERR with LOC_QP_OP_ERR. rdmavt requires r_lock and s_lock here; a
     * Java caller may hold only one of them, and taking recvLock under sendLock would invert the lock order, so the
     * missing lock is taken only if that is safe, else the transition runs on another thread in lock order.
     */
    private void errorOnOverflow() {
        boolean haveRecv = recvLock.isHeldByCurrentThread();
        boolean haveSend = sendLock.isHeldByCurrentThread();
        if (haveRecv && haveSend) {
            errorQp(WcStatus.LOC_QP_OP_ERR);
        } else if (haveRecv) {
            sendLock.lock();
            try {
                errorQp(WcStatus.LOC_QP_OP_ERR);
            } finally {
                sendLock.unlock();
            }
        } else if (!haveSend) {
            recvLock.lock();
            sendLock.lock();
            try {
                errorQp(WcStatus.LOC_QP_OP_ERR);
            } finally {
                sendLock.unlock();
                recvLock.unlock();
            }
        } else if (recvLock.tryLock()) {
            try {
                errorQp(WcStatus.LOC_QP_OP_ERR);
            } finally {
                recvLock.unlock();
            }
        } else {
            Thread t = new Thread(() -> moveToErrorWithStatus(WcStatus.LOC_QP_OP_ERR), "rvt-qp-error");
            t.setDaemon(true);
            t.start();
        }
    }

    private void moveToErrorWithStatus(WcStatus err) {
        recvLock.lock();
        sendLock.lock();
        try {
            errorQp(err);
        } finally {
            sendLock.unlock();
            recvLock.unlock();
        }
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
        QpState s = state;
        if (!s.can(Ops.POST_RECV_OK) || rq == null) {
            throw new WorkRequestException(Errno.EINVAL, 0, "postRecv: QP 0x" + Integer.toHexString(qpNum)
                    + (rq == null ? " receives through an SRQ" : " is in state " + s + ", which does not accept"
                            + " receives"));
        }
        int n = 0;
        for (RecvWorkRequest w = wr; w != null; w = w.next(), n++) {
            if (w.numSge() > rq.maxSge()) {
                throw new WorkRequestException(Errno.EINVAL, n, "numSge " + w.numSge()
                        + " exceeds the QP's maxRecvSge " + rq.maxSge());
            }
            rq.producerLock().lock();
            try {
                if (rq.isFull()) {
                    throw new WorkRequestException(Errno.ENOMEM, n, "receive queue is full ("
                            + (rq.size() - 1) + " WQEs outstanding)");
                }
                // The state read again under the producer lock, which flushRecvQueue also holds: a receive posted
                // while another thread moves the QP to ERR is either queued before the flush (which completes it) or
                // sees ERR and completes here. rdmavt reads the state once, before the loop, and can leave one behind.
                if (state.can(Ops.FLUSH_RECV) && srq == null) {
                    postRecvWc.clear().wrId(w.wrId()).status(WcStatus.WR_FLUSH_ERR).opcode(WcOpcode.RECV)
                            .qpNum(qpNum);
                    recvCq.enter(postRecvWc, true);
                } else {
                    rq.post(w);
                }
            } finally {
                rq.producerLock().unlock();
            }
        }
    }

    @Override
    public int getRwqe(boolean wrIdOnly) {
        RvtRq q = srq != null ? srq.rq() : rq;
        boolean limitEvent = false;
        q.consumerLock().lock();
        try {
            if (!state.can(Ops.PROCESS_RECV_OK)) {
                return 0;
            }
            if (!q.take(rwqeScratch)) {
                return 0;
            }
            if (!wrIdOnly && !initSge(rwqeScratch)) {
                return -1;
            }
            recvWrId = rwqeScratch.wrId();
            setRecvAflags(QpFlags.RA_WRID_VALID);
            if (srq != null) {
                limitEvent = srq.checkLimitLocked();
            }
        } finally {
            q.consumerLock().unlock();
        }
        if (limitEvent) {
            srq.raiseLimitEvent();
        }
        return 1;
    }

    /** Mirrors {@code init_sge}: validates the RWQE's SGEs into {@link #recvSge}; on failure completes it. */
    private boolean initSge(RvtRwqe wqe) {
        RvtPd recvPd = srq != null ? srq.pd() : pd;
        int j = 0;
        int len = 0;
        for (int i = 0; i < wqe.numSge(); i++) {
            if (wqe.length(i) == 0) {
                continue;
            }
            sgeScratch.set(wqe.addr(i), wqe.length(i), wqe.lkey(i));
            if (dev.lkeyTable().lkeyOk(recvPd, recvSgList[j], null, sgeScratch, AccessFlag.LOCAL_WRITE.bit()) < 0) {
                for (int k = 0; k < j; k++) {
                    recvSgList[k].release();
                }
                recvSge.clear();
                recvWc.clear().wrId(wqe.wrId()).status(WcStatus.LOC_PROT_ERR).opcode(WcOpcode.RECV).qpNum(qpNum);
                recvCq.enter(recvWc, true);
                return false;
            }
            len += wqe.length(i);
            j++;
        }
        recvLen = len;
        recvSge.init(recvSgList, 0, j, len);
        return true;
    }

    @Override
    public int rqCount(int head, int tail) {
        return rq == null ? 0 : rq.count(head, tail);
    }

    @Override
    public void commEst() {
        recvFlags |= QpFlags.R_COMM_EST;
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

    @Override
    public boolean rcCreditAvail(SendWqe wqe) {
        if ((sendFlags & QpFlags.S_UNLIMITED_CREDIT) == 0 && Seq24.cmpMsn(wqe.ssn(), sendLsn + 1) > 0) {
            sendFlags |= QpFlags.S_WAIT_SSN_CREDIT;
            iport().addCounter(PortCounter.RC_CRWAITS, 1);
            return false;
        }
        return true;
    }

    @Override
    public void getCredit(int aeth) {
        int code = Aeth.code(aeth);
        if (code == Aeth.CREDIT_INVAL) {
            if ((sendFlags & QpFlags.S_UNLIMITED_CREDIT) == 0) {
                sendFlags |= QpFlags.S_UNLIMITED_CREDIT;
                if ((sendFlags & QpFlags.S_WAIT_SSN_CREDIT) != 0) {
                    sendFlags &= ~QpFlags.S_WAIT_SSN_CREDIT;
                    driver.scheduleSend(this);
                }
            }
        } else if ((sendFlags & QpFlags.S_UNLIMITED_CREDIT) == 0) {
            int newLsn = (aeth + Aeth.credits(code)) & Seq24.MASK;
            if (Seq24.cmpMsn(newLsn, sendLsn) > 0) {
                sendLsn = newLsn;
                if ((sendFlags & QpFlags.S_WAIT_SSN_CREDIT) != 0) {
                    sendFlags &= ~QpFlags.S_WAIT_SSN_CREDIT;
                    driver.scheduleSend(this);
                }
            }
        }
    }

    @Override
    public int computeAeth() {
        int aeth = recvMsn & Seq24.MASK;
        if (srq != null) {
            return aeth | (Aeth.CREDIT_INVAL << Aeth.CREDIT_SHIFT);
        }
        int credits = rq.approxCount();
        if (credits == 0) {
            credits = rq.count(rq.headAcquire(), rq.tail());
        }
        return aeth | (Aeth.creditCode(credits) << Aeth.CREDIT_SHIFT);
    }

    // ================================================================== timers

    private long ticksToNanos(long ticks) {
        return Timeouts.ticksToNanos(ticks, dev.timerService().hz());
    }

    @Override
    public void addRetryTimer() {
        addRetryTimerExt(0);
    }

    @Override
    public void addRetryTimerExt(int shift) {
        sendFlags |= QpFlags.S_TIMER;
        retryTimer.arm(ticksToNanos(dev.busyTicks() + (timeoutTicks << shift)));
    }

    @Override
    public void modRetryTimer() {
        modRetryTimerExt(0);
    }

    @Override
    public void modRetryTimerExt(int shift) {
        sendFlags |= QpFlags.S_TIMER;
        retryTimer.arm(ticksToNanos(dev.busyTicks() + (timeoutTicks << shift)));
    }

    @Override
    public void addRnrTimer(int aeth) {
        sendFlags |= QpFlags.S_WAIT_RNR;
        rnrTimer.arm(Timeouts.rnrTableToMicros(Aeth.code(aeth)) * 1000L);
    }

    @Override
    public void stopRcTimers() {
        if ((sendFlags & (QpFlags.S_TIMER | QpFlags.S_WAIT_RNR)) != 0) {
            sendFlags &= ~(QpFlags.S_TIMER | QpFlags.S_WAIT_RNR);
            retryTimer.cancel();
            rnrTimer.cancel();
        }
    }

    @Override
    public void delTimersSync() {
        retryTimer.cancelSync();
        rnrTimer.cancelSync();
    }

    /** Mirrors {@code rvt_rc_timeout}: the retry timer expired. */
    private void rcTimeout() {
        recvLock.lock();
        sendLock.lock();
        try {
            if ((sendFlags & QpFlags.S_TIMER) != 0) {
                sendFlags &= ~QpFlags.S_TIMER;
                RvtIbport port = iport();
                if (port != null) {
                    port.addCounter(PortCounter.RC_TIMEOUTS, 1);
                }
                driver.notifyRestartRc(this, sendLastPsn + 1, 1);
                driver.scheduleSend(this);
            }
        } finally {
            sendLock.unlock();
            recvLock.unlock();
        }
    }

    /** Mirrors {@code rvt_rc_rnr_retry}: the RNR timer expired. */
    private void rcRnrRetry() {
        sendLock.lock();
        try {
            sendFlags &= ~QpFlags.S_WAIT_RNR;
            driver.scheduleSend(this);
        } finally {
            sendLock.unlock();
        }
    }

    // ================================================================== keys, loopback, multicast, MR clean-up

    @Override
    public boolean rkeyOk(Sge sge, int len, long vaddr, int rkey, int acc) {
        return dev.lkeyTable().rkeyOk(pd, sge, len, vaddr, rkey, acc);
    }

    @Override
    public int invalidateRkey(int rkey) {
        return dev.lkeyTable().invalidateRkey(pd, rkey);
    }

    @Override
    public void rucLoopback() {
        loopback.run();
    }

    @Override
    public void attachMcast(Gid gid, int lid) {
        checkNotDestroyed();
        dev.checkAlive();
        checkMcastAddress("attachMcast", gid, lid);
        if (type != QpType.UD) {
            throw Errors.inval("attachMcast: QP 0x" + Integer.toHexString(qpNum) + " is " + type + ", not UD");
        }
        RvtIbport port = iport();
        if (port == null) {
            throw Errors.inval("attachMcast: QP 0x" + Integer.toHexString(qpNum) + " has no port (state " + state
                    + ")");
        }
        if (!port.mcastTable().attach(this, gid, lid)) {
            return; // attached already: nothing changes, the driver was told before
        }
        try {
            driver.notifyMcastAttach(dev, port, gid, lid);
        } catch (RuntimeException e) {
            port.mcastTable().detach(this, gid, lid); // the driver refused: as if nothing happened
            throw new VerbsException(Errno.EINVAL, "attachMcast: driver '" + driver.name() + "' refused group " + gid
                    + " (LID 0x" + Integer.toHexString(lid) + ") for QP 0x" + Integer.toHexString(qpNum) + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * {@code ib_attach_mcast}'s address checks, done before anything changes: a multicast GID (IPv6 {@code ff00::/8}
     * or IPv4-mapped {@code 224.0.0.0/4}, {@code rdma_is_multicast_addr}) and a multicast LID ({@code 0xC000..0xFFFE},
     * on OPA from {@code 0xF0000000}, the permissive LID excluded).
     */
    private void checkMcastAddress(String verb, Gid gid, int lid) {
        if (gid == null) {
            throw Errors.inval(verb + ": gid is null");
        }
        boolean v4Mapped = gid.subnetPrefix() == 0 && (gid.interfaceId() >>> 32) == 0xFFFF
                && ((gid.interfaceId() >>> 28) & 0xF) == 0xE;
        if (!gid.isMulticast() && !v4Mapped) {
            throw Errors.inval(verb + ": gid " + gid + " is not a multicast GID (ff00::/8 or IPv4-mapped 224.0.0.0/4)");
        }
        boolean opa = (dev.params().coreCapFlags() & DriverParams.CORE_CAP_OPA_AH) != 0;
        boolean ok = opa ? Integer.compareUnsigned(lid, OPA_MULTICAST_BASE) >= 0 && lid != -1
                : lid >= IB_MULTICAST_LID_BASE && lid < 0xFFFF;
        if (!ok) {
            throw Errors.inval(verb + ": lid 0x" + Integer.toHexString(lid) + " is not a multicast LID ("
                    + (opa ? "0xf0000000..0xfffffffe" : "0xc000..0xfffe") + ")");
        }
    }

    @Override
    public void detachMcast(Gid gid, int lid) {
        checkNotDestroyed();
        if (gid == null) {
            throw Errors.inval("detachMcast: gid is null");
        }
        RvtIbport port = iport();
        if (port == null) {
            throw Errors.inval("detachMcast: QP 0x" + Integer.toHexString(qpNum) + " has no port");
        }
        port.mcastTable().detach(this, gid, lid);
        io.rvt.api.spi.McastGroup left = port.mcastTable().find(gid, lid);
        if (left == null) {
            driver.notifyMcastDetach(dev, port, gid, lid);
        } else {
            left.release();
        }
    }

    /**
     * Mirrors {@code rvt_qp_mr_clean}: if posted or in-progress work of this QP references {@code lkey}, moves the
     * QP to ERR with {@code LOC_PROT_ERR} (called for every QP of the PD when a region is deregistered).
     *
     * @param lkey the region's key
     */
    public void mrClean(int lkey) {
        if (type == QpType.SMI || type == QpType.GSI) {
            return;
        }
        boolean lastWqe = false;
        lockAll();
        try {
            if (state == QpState.ERR || state == QpState.RESET) {
                return;
            }
            if (recvSge.hasLkey(lkey) || sendHasLkey(lkey) || ackQueueHasLkey(lkey)) {
                lastWqe = errorQp(WcStatus.LOC_PROT_ERR);
            }
        } finally {
            unlockAll();
        }
        if (lastWqe) {
            event(AsyncEventType.QP_LAST_WQE_REACHED);
        }
    }

    private boolean sendHasLkey(int lkey) {
        int head = (int) SEND_HEAD.get(this);
        for (int i = (int) SEND_LAST.get(this); i != head; i = swqeIncr(i)) {
            RvtSwqe w = ring[i];
            for (int k = 0; k < w.numSge; k++) {
                Sge s = w.sge(k);
                if (s.mr() != null && s.mr().lkey() == lkey) {
                    return true;
                }
            }
        }
        return sendRdmaReadSge.hasLkey(lkey);
    }

    private boolean ackQueueHasLkey(int lkey) {
        for (AckEntry e : ackQueue) {
            if (e.rdmaSge().mr() != null && e.rdmaSge().mr().lkey() == lkey) {
                return true;
            }
        }
        return false;
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
    public int sendSize() {
        return sendSize;
    }

    @Override
    public int sendMaxSge() {
        return sendMaxSge;
    }

    @Override
    public int sendTail() {
        return sendTail;
    }

    @Override
    public void sendTail(int v) {
        sendTail = v;
    }

    @Override
    public int sendCur() {
        return sendCur;
    }

    @Override
    public void sendCur(int v) {
        sendCur = v;
    }

    @Override
    public int sendAcked() {
        return sendAcked;
    }

    @Override
    public void sendAcked(int v) {
        sendAcked = v;
    }

    @Override
    public int sendAvail() {
        return sendAvail;
    }

    @Override
    public int sendFlags() {
        return sendFlags;
    }

    @Override
    public void sendFlags(int v) {
        sendFlags = v;
    }

    @Override
    public boolean sendDraining() {
        return sendDraining;
    }

    @Override
    public int sendNextPsn() {
        return sendNextPsn;
    }

    @Override
    public void sendNextPsn(int v) {
        sendNextPsn = v;
    }

    @Override
    public int sendPsn() {
        return sendPsn;
    }

    @Override
    public void sendPsn(int v) {
        sendPsn = v;
    }

    @Override
    public int sendLastPsn() {
        return sendLastPsn;
    }

    @Override
    public void sendLastPsn(int v) {
        sendLastPsn = v;
    }

    @Override
    public int sendSendingPsn() {
        return sendSendingPsn;
    }

    @Override
    public void sendSendingPsn(int v) {
        sendSendingPsn = v;
    }

    @Override
    public int sendSendingHpsn() {
        return sendSendingHpsn;
    }

    @Override
    public void sendSendingHpsn(int v) {
        sendSendingHpsn = v;
    }

    @Override
    public int sendLsn() {
        return sendLsn;
    }

    @Override
    public int sendRetry() {
        return sendRetry;
    }

    @Override
    public void sendRetry(int v) {
        sendRetry = v;
    }

    @Override
    public int sendRnrRetry() {
        return sendRnrRetry;
    }

    @Override
    public void sendRnrRetry(int v) {
        sendRnrRetry = v;
    }

    @Override
    public int sendState() {
        return sendState;
    }

    @Override
    public void sendState(int v) {
        sendState = v;
    }

    @Override
    public int sendAckState() {
        return sendAckState;
    }

    @Override
    public void sendAckState(int v) {
        sendAckState = v;
    }

    @Override
    public int sendNumRdAtomic() {
        return sendNumRdAtomic;
    }

    @Override
    public void sendNumRdAtomic(int v) {
        sendNumRdAtomic = v;
    }

    @Override
    public SgeState sendSge() {
        return sendSge;
    }

    @Override
    public SgeState sendRdmaReadSge() {
        return sendRdmaReadSge;
    }

    @Override
    public int recvHeadAckQueue() {
        return recvHeadAckQueue;
    }

    @Override
    public void recvHeadAckQueue(int v) {
        recvHeadAckQueue = v;
    }

    @Override
    public int sendTailAckQueue() {
        return sendTailAckQueue;
    }

    @Override
    public void sendTailAckQueue(int v) {
        sendTailAckQueue = v;
    }

    @Override
    public int recvPsn() {
        return recvPsn;
    }

    @Override
    public void recvPsn(int v) {
        recvPsn = v;
    }

    @Override
    public int recvMsn() {
        return recvMsn;
    }

    @Override
    public void recvMsn(int v) {
        recvMsn = v;
    }

    @Override
    public int recvState() {
        return recvState;
    }

    @Override
    public void recvState(int v) {
        recvState = v;
    }

    @Override
    public int recvNakState() {
        return recvNakState;
    }

    @Override
    public void recvNakState(int v) {
        recvNakState = v;
    }

    @Override
    public int recvFlags() {
        return recvFlags;
    }

    @Override
    public void recvFlags(int v) {
        recvFlags = v;
    }

    @Override
    public long recvWrId() {
        return recvWrId;
    }

    @Override
    public int recvLen() {
        return recvLen;
    }

    @Override
    public void recvLen(int v) {
        recvLen = v;
    }

    @Override
    public SgeState recvSge() {
        return recvSge;
    }

    @Override
    public Object priv() {
        return priv;
    }

    @Override
    public RvtDevice device() {
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

    @Override
    public boolean hasSrq() {
        return srq != null;
    }

    /** @return the SRQ, or null */
    public RvtSrq srq() {
        return srq;
    }

    /** @return the own receive queue, or null with an SRQ */
    public RvtRq rq() {
        return rq;
    }

    @Override
    public int sendHead() {
        return (int) SEND_HEAD.getAcquire(this); // acquire: pairs with the setRelease in postOneWr
    }

    @Override
    public int sendLast() {
        return (int) SEND_LAST.getAcquire(this); // acquire: pairs with the setRelease in completeSwqe
    }

    @Override
    public RvtSwqe swqe(int index) {
        return ring[index];
    }

    @Override
    public int swqeIncr(int index) {
        return index + 1 == sendSize ? 0 : index + 1;
    }

    @Override
    public int sendReservedUsed() {
        return sendReservedUsed.get();
    }

    @Override
    public int localOpsPending() {
        return localOpsPending.get();
    }

    @Override
    public void localOpDone() {
        localOpsPending.decrementAndGet();
    }

    @Override
    public int ackQueueSize() {
        return ackQueue.length;
    }

    @Override
    public AckEntry ackQueue(int i) {
        return ackQueue[i];
    }

    @Override
    public int recvAflags() {
        return recvAflags.get();
    }

    @Override
    public void setRecvAflags(int bits) {
        while (true) {
            int v = recvAflags.get();
            if ((v & bits) == bits || recvAflags.compareAndSet(v, v | bits)) {
                return;
            }
        }
    }

    @Override
    public boolean testAndClearRecvAflags(int bits) {
        while (true) {
            int v = recvAflags.get();
            if ((v & bits) == 0) {
                return false;
            }
            if (recvAflags.compareAndSet(v, v & ~bits)) {
                return true;
            }
        }
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
