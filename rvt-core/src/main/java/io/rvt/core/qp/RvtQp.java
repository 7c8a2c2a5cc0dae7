package io.rvt.core.qp;

import static io.rvt.api.Errno.EINVAL;
import static io.rvt.api.Errno.ENOMEM;

import io.rvt.api.AhAttr;
import io.rvt.api.AsyncEvent;
import io.rvt.api.AsyncEventHandler;
import io.rvt.api.AsyncEventType;
import io.rvt.api.DeviceCounter;
import io.rvt.api.Errno;
import io.rvt.api.Gid;
import io.rvt.api.MigState;
import io.rvt.api.PathMtu;
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
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WorkRequestException;
import io.rvt.api.WrOpcode;
import io.rvt.api.AccessFlag;
import io.rvt.api.spi.AckQueue;
import io.rvt.api.spi.CallSend;
import io.rvt.api.spi.Callback;
import io.rvt.api.spi.DriverParams;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.OperationFlag;
import io.rvt.api.spi.OperationParams;
import io.rvt.api.spi.QpFlags;
import io.rvt.api.spi.RvtDriver;
import io.rvt.api.spi.Sge;
import io.rvt.api.spi.Timeouts;
import io.rvt.api.spi.TimerService;
import io.rvt.core.Errors;
import io.rvt.core.RvtDevice;
import io.rvt.core.RvtIbport;
import io.rvt.core.SpinningLock;
import io.rvt.core.ah.RvtAh;
import io.rvt.core.cq.RvtCq;
import io.rvt.core.mr.RvtMr;
import io.rvt.core.mr.RvtPd;
import io.rvt.core.srq.RvtRq;
import io.rvt.core.srq.RvtSrq;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A queue pair ({@code struct rvt_qp}): its identity, locks, references, attributes, and rdmavt's QP verbs that
 * concern it whole: create, modify (IBTA table plus rdmavt's checks), query, destroy, post send (table-driven, with
 * reserved WQEs), the error and reset transitions and the completion helpers. Its state lives in four objects, along
 * rdmavt's own seams: the send ring and its index protocol ({@link RvtSendQueue}), the requester with its credits and
 * timers ({@link RvtRequester}), the responder with the receive queue ({@link RvtResponder}), and RC's ack queue.
 *
 * <h2>Locks and ordering</h2>
 * {@code recvLock → postLock → sendLock}, as rdmavt's {@code r_lock → s_hlock → s_lock}. The send ring's two
 * cross-thread indices and the reserved count follow the protocol on {@link RvtSendQueue}.
 */
public final class RvtQp implements DriverQp {
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

    // ------------------------------------------------------------------ state objects
    private final RvtSendQueue sq;
    private final RvtRequester req;
    private final RvtResponder rsp;
    private final AckQueue ackQueue;
    private final RvtLoopback loopback;

    /** s_ssn: assigned at post, under postLock (s_next_psn is the requester's). */
    private int sendSsn = 1;
    private final CallSend callSend = new CallSend();
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
        this.sq = new RvtSendQueue(this, init.cap().maxSendWr(), sendMaxSge, p.reservedOperations());
        TimerService ts = dev.timerService();
        this.req = new RvtRequester(this, ts);
        this.rsp = new RvtResponder(this, srq, init.cap().maxRecvWr(), recvMaxSge);
        this.ackQueue = new AckQueue(type == QpType.RC ? p.maxAtomic() : 0);
        this.loopback = new RvtLoopback(this);
        this.timeoutTicks = Timeouts.usecsToTicks(4096L / 1000, ts.hz());
        if (init.sigType() == SigType.SIGNAL_REQ_WR) {
            req.flags = QpFlags.S_SIGNAL_REQ_WR;
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
                throw qpn == -EINVAL.value()
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
                throw Errors.of(r < 0 ? r : -EINVAL.value(), "createQp: driver qp_priv_init failed with " + r);
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
                qp.req.closeTimers();
                qp.rsp.freeRq();
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
        migState = MigState.MIGRATED;
        int last = type == QpType.RC ? RC_SEND_LAST : UC_SEND_LAST;
        req.init(last);
        rsp.init(last);
        sq.reset();
        ackQueue.reset(RC_ACKNOWLEDGE);
        sendSsn = 1;
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
            req.stopRcTimers();
            req.flags &= ~(QpFlags.S_TIMER | QpFlags.S_ANY_WAIT);
            unlockAll();
            try {
                driver.stopSendQueue(this);
                req.delTimersSync();
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
        driver.notifyErrorQp(this);
        if (sq.hasPosted()) {
            driver.scheduleSend(this);
        }
        clearMrRefs(false);
        return rsp.error(err);
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
                if ((req.flags & QpFlags.S_BUSY) == 0 || System.nanoTime() - deadline > 0) {
                    if ((req.flags & QpFlags.S_BUSY) != 0) {
                        System.getLogger(RvtQp.class.getName()).log(System.Logger.Level.WARNING,
                                "QP 0x" + Integer.toHexString(qpNum) + ": an engine kept S_BUSY for "
                                        + BUSY_WAIT_NANOS / 1_000_000_000L + " s after device removal; flushing");
                    }
                    sq.flushPosted(WcStatus.WR_FLUSH_ERR);
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
                    rsp.flags &= ~QpFlags.R_COMM_EST;
                    state = QpState.RTR;
                    break;
                case SQD:
                    sq.draining = sq.last() != req.cur;
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
            req.nextPsn = attr.sqPsn() & p.psnModifyMask();
            req.psn = req.nextPsn;
            req.sendingPsn = req.nextPsn;
            req.lastPsn = req.nextPsn - 1;
            req.sendingHpsn = req.lastPsn;
        }
        if (QpAttrMask.RQ_PSN.in(mask)) {
            rsp.psn = attr.rqPsn() & p.psnModifyMask();
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
            req.retry = retryCnt;
        }
        if (QpAttrMask.RNR_RETRY.in(mask)) {
            rnrRetryCnt = attr.rnrRetry();
            req.rnrRetry = rnrRetryCnt;
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
        out.pathMigState(migState).qkey(qkey).rqPsn(rsp.psn & psnMask).sqPsn(req.nextPsn & psnMask)
                .destQpNum(remoteQpn).qpAccessFlags(accessFlags);
        out.cap().maxSendWr(sq.maxSendWr()).maxRecvWr(rsp.maxRecvWr()).maxSendSge(sq.maxSge())
                .maxRecvSge(rsp.maxSge).maxInlineData(0);
        out.ahAttr().copyFrom(remoteAhAttr);
        out.altAhAttr().copyFrom(altAhAttr);
        out.pkeyIndex(pkeyIndex).altPkeyIndex(altPkeyIndex).enSqdAsyncNotify(false).sqDraining(sq.draining)
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
                .sigType((req.flags & QpFlags.S_SIGNAL_REQ_WR) != 0 ? SigType.SIGNAL_REQ_WR
                        : SigType.SIGNAL_ALL_WR)
                .portNum(portNum).createFlags(createFlags);
        out.cap().maxSendWr(sq.maxSendWr()).maxRecvWr(rsp.maxRecvWr()).maxSendSge(sq.maxSge())
                .maxRecvSge(rsp.maxSge).maxInlineData(0);
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
        req.closeTimers();
        rsp.freeRq();
        sendCq.removeUser();
        recvCq.removeUser();
        if (srq != null) {
            srq.removeUser();
        }
        pd.releaseUse();
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
            callSend.set(sq.emptyForPoster() && wr.next() == null);
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
            return fail(-EINVAL.value(), "opcode is null");
        }
        if (wr.numSge() > sq.maxSge()) {
            return fail(-EINVAL.value(), "numSge " + wr.numSge() + " exceeds the QP's maxSendSge " + sq.maxSge());
        }
        OperationParams params = dev.operationTable().get(op);
        if (params == null) {
            return fail(-EINVAL.value(), "opcode " + op + " is not supported by driver '" + driver.name() + "'");
        }
        if (!params.supports(type)) {
            return fail(-EINVAL.value(), "opcode " + op + " is not allowed on a " + type + " QP");
        }
        if (params.has(OperationFlag.PRIV) && pd.isUser()) {
            return fail(-EINVAL.value(), "opcode " + op + " is privileged and the QP's PD is a user PD");
        }
        if (params.has(OperationFlag.ATOMIC_SGE) && (wr.numSge() < 1 || wr.sge(0).length() < 8
                || (wr.sge(0).addr() & 7) != 0)) {
            return fail(-EINVAL.value(), "opcode " + op + " needs a first SGE of at least 8 bytes, 8-byte aligned");
        }
        if (params.has(OperationFlag.ATOMIC) && maxRdAtomic == 0) {
            return fail(-EINVAL.value(), "opcode " + op + " needs maxRdAtomic > 0 (set MAX_QP_RD_ATOMIC)");
        }
        boolean udLike = type.isUdLike();
        if (udLike) {
            if (!(wr.ah() instanceof RvtAh) || ((RvtAh) wr.ah()).rvtPd() != pd) {
                return fail(-EINVAL.value(), "a " + type + " send needs an address handle of the QP's PD, got "
                        + (wr.ah() == null ? "none" : "one of another PD"));
            }
            if (((RvtAh) wr.ah()).isDestroyed()) {
                return fail(-EINVAL.value(), "the address handle " + wr.ah() + " was destroyed");
            }
        }
        boolean local = params.has(OperationFlag.LOCAL);
        boolean deferred = false;
        if (local) {
            boolean signaled = SendFlag.SIGNALED.in(wr.sendFlags());
            if (op == WrOpcode.REG_MR) {
                if (!(wr.mr() instanceof RvtMr)) {
                    return fail(-EINVAL.value(), "REG_MR needs a memory region from allocMr, got "
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
                if (SendFlag.FENCE.in(wr.sendFlags()) || sq.localOpsPending() > 0) {
                    deferred = true;
                } else {
                    if (dev.lkeyTable().invalidateRkey(pd, wr.invalidateRkey()) < 0) {
                        return fail(-EINVAL.value(), "LOCAL_INV of rkey 0x" + Integer.toHexString(wr.invalidateRkey())
                                + " failed: no such key in the QP's PD");
                    }
                    if (!signaled) {
                        return 0;
                    }
                }
            } else {
                return fail(-EINVAL.value(), "opcode " + op + " is not a local operation");
            }
        }
        boolean reservedOp = params.has(OperationFlag.USE_RESERVE);
        if (!sq.isAvail(reservedOp)) {
            return fail(-ENOMEM.value(), reservedOp
                    ? "no reserved send slot left (reserved_operations " + sq.reserved() + " in use)"
                    : "send queue is full (" + sq.maxSendWr() + " WQEs outstanding)");
        }
        int head = sq.headForPoster();
        int next = sq.swqeIncr(head);
        RvtSwqe wqe = sq.swqe(head);
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
                return fail(-EINVAL.value(), "sge " + i + " (addr 0x" + Long.toHexString(s.addr()) + ", length "
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
                sq.localOpQueued();
            } else {
                wqe.sendFlags |= QpFlags.SEND_COMPLETION_ONLY;
            }
            wqe.ssn = 0;
            wqe.psn = 0;
            wqe.lpsn = 0;
        } else {
            wqe.ssn = sendSsn++;
            wqe.psn = req.nextPsn;
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
            req.nextPsn = wqe.lpsn + 1;
        }
        sq.publish(wqe, reservedOp, next);
        return 0;
    }

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
            if (rsp.sge.hasLkey(lkey) || sq.hasLkey(lkey) || req.rdmaReadSge.hasLkey(lkey) || ackQueue.hasLkey(lkey)) {
                lastWqe = errorQp(WcStatus.LOC_PROT_ERR);
            }
        } finally {
            unlockAll();
        }
        if (lastWqe) {
            event(AsyncEventType.QP_LAST_WQE_REACHED);
        }
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
