package io.rvt.core;

import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.WcStatus;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.DriverDevice;
import io.rvt.api.spi.DriverParams;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.OperationFlag;
import io.rvt.api.spi.OperationTable;
import io.rvt.api.spi.WrShape;
import io.rvt.api.spi.engine.EngineQp;
import io.rvt.api.spi.engine.QpFlags;
import io.rvt.api.spi.engine.SendWqe;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link TestDriver} with a send engine: rvt's software loopback ({@link DriverQp#rucLoopback()}), as hfi1 and qib
 * use it for RC/UC QPs whose destination is the local port. For QP tests that need data to move.
 *
 * <h2>When the engine runs</h2>
 * {@link #doSend} runs it synchronously in the poster's thread (rdmavt calls {@code do_send} with no lock held).
 * {@link #scheduleSend} (called with {@code sendLock}, often also {@code recvLock}, held) and
 * {@link #scheduleSendNoLock} only queue the QP, like hfi1 queueing its work item; the test then runs the queued QPs
 * in its own thread with {@link #drain()}. Everything is deterministic: no engine thread exists. Retry and RNR
 * timers need a {@link io.rvt.testkit.ManualTimerService} ({@link #timerService}); their expiry calls
 * {@code scheduleSend}, so a {@code drain()} after {@code advance(..)} processes the retry.
 *
 * <h2>The driver-defined reserved operation</h2>
 * The operation table is {@link OperationTable#standard()} plus {@link #OPFN} ({@link WrOpcode#RESERVED3}, hfi1's
 * {@code IB_WR_OPFN}): shape ATOMIC, RC only, {@link OperationFlag#USE_RESERVE}, no completion opcode. rdmavt's
 * loopback does not know such an opcode (its switch sends it to "default: LOC_QP_OP_ERR", failing the QP), and hfi1
 * never hands one to it: OPFN is a driver-internal operation. So this engine handles it itself: before running the
 * loopback it completes every {@code OPFN} WQE at {@code sendLast} with {@link DriverQp#sendComplete} and status
 * SUCCESS, holding {@code recvLock} then {@code sendLock} (the reserved count drops, no work completion is produced),
 * and then calls {@code rucLoopback()} for what follows.
 *
 * <p>Limitation (checked): the loopback processes the whole queue, so an {@code OPFN} WQE queued <em>behind</em> an
 * ordinary WQE the loopback has not processed yet would reach its opcode switch. The engine refuses to start the
 * loopback then ({@link IllegalStateException}); tests post reserved operations on an idle queue (or at the front of
 * a list), e.g. after {@link #drain()}. In a flushing state (SQE/ERR) the loopback flushes reserved WQEs silently and
 * the check does not apply.
 */
public class LoopbackTestDriver extends TestDriver {
    /** The driver-defined reserved operation (hfi1's OPFN). */
    public static final WrOpcode OPFN = WrOpcode.RESERVED3;

    private final Set<DriverQp> queued = new LinkedHashSet<>();
    private final AtomicLong engineRuns = new AtomicLong();
    private final AtomicLong reservedCompleted = new AtomicLong();
    private volatile int lid = 0x11;

    public LoopbackTestDriver() {
        params(loopbackParams(1).build());
        postParms(operationTable());
    }

    /** @return {@link OperationTable#standard()} plus {@link #OPFN} (ATOMIC shape, RC only, USE_RESERVE) */
    public static OperationTable operationTable() {
        return OperationTable.standard().toBuilder()
                .op(OPFN, WrShape.ATOMIC, QpType.RC.bit(), OperationFlag.USE_RESERVE, null)
                .build();
    }

    /**
     * {@link TestDriver#defaultParams()} with {@code reserved_operations = reserved}, and {@code qpn_start = 1} so
     * that the first QP gets QPN 2 (with rdmavt's allocator, start 0 and increment 1 hand out QPN 1 first, the slot of
     * the port's QP1).
     *
     * @param reserved {@code reserved_operations}
     * @return the parameters
     */
    public static DriverParams.Builder loopbackParams(int reserved) {
        return defaultParams().qpnStart(1).reservedOperations(reserved);
    }

    /** @param v the LID every port gets at registration (a loopback AV's DLID) */
    public LoopbackTestDriver lid(int v) {
        lid = v;
        return this;
    }

    /** @return the LID of every port */
    public int lid() {
        return lid;
    }

    @Override
    public void registered(DriverDevice device) {
        for (int p = 1; p <= device.portCount(); p++) {
            device.port(p).lid(lid);
        }
    }

    // ------------------------------------------------------------------ send engine

    @Override
    public void doSend(DriverQp qp) {
        super.doSend(qp);
        runEngine(qp);
    }

    @Override
    public boolean scheduleSend(DriverQp qp) {
        super.scheduleSend(qp);
        synchronized (queued) {
            queued.add(qp);
        }
        return true;
    }

    @Override
    public boolean scheduleSendNoLock(DriverQp qp) {
        count(io.rvt.api.spi.Callback.SCHEDULE_SEND_NO_LOCK);
        synchronized (queued) {
            queued.add(qp);
        }
        return true;
    }

    /**
     * Runs the engine for every queued QP, in the caller's thread, until none is queued (running one may queue
     * others, e.g. an error transition queues the QP again to flush).
     *
     * @return how many engine runs it made
     */
    public int drain() {
        int runs = 0;
        while (true) {
            DriverQp qp;
            synchronized (queued) {
                Iterator<DriverQp> it = queued.iterator();
                if (!it.hasNext()) {
                    return runs;
                }
                qp = it.next();
                it.remove();
            }
            runEngine(qp);
            if (++runs > 10_000_000) {
                throw new IllegalStateException("drain: the engine does not settle");
            }
        }
    }

    /** @return the QPs queued and not yet run */
    public List<DriverQp> queued() {
        synchronized (queued) {
            return new ArrayList<>(queued);
        }
    }

    /** @return engine runs so far (doSend and drain) */
    public long engineRuns() {
        return engineRuns.get();
    }

    /** @return reserved ({@link #OPFN}) WQEs this engine completed */
    public long reservedCompleted() {
        return reservedCompleted.get();
    }

    /**
     * One pass of the send engine: reserved operations at {@code sendLast} first, then the loopback.
     *
     * @param qp the QP
     */
    public void runEngine(DriverQp qp) {
        engineRuns.incrementAndGet();
        if (!completeLeadingReserved(qp)) {
            return;
        }
        qp.rucLoopback();
    }

    /** @return false if the engine must not run the loopback now (another engine holds the QP) */
    private boolean completeLeadingReserved(DriverQp driverQp) {
        EngineQp qp = EngineQp.of(driverQp);
        qp.recvLock().lock();
        qp.sendLock().lock();
        try {
            if ((qp.requester().flags & QpFlags.S_BUSY) != 0) {
                return false;
            }
            if (!qp.state().can(QpState.Ops.PROCESS_NEXT_SEND_OK)) {
                return true; // RESET..RTR: loopback does nothing; SQD stops; SQE/ERR: loopback flushes silently
            }
            int head = qp.sendQueue().head();
            int last = qp.sendQueue().last();
            while (last != head && qp.sendQueue().swqe(last).opcode() == OPFN) {
                qp.sendQueue().sendComplete(qp.sendQueue().swqe(last), WcStatus.SUCCESS);
                reservedCompleted.incrementAndGet();
                last = qp.sendQueue().last();
            }
            for (int i = last; i != head; i = qp.sendQueue().swqeIncr(i)) {
                SendWqe w = qp.sendQueue().swqe(i);
                if (w.opcode() == OPFN) {
                    throw new IllegalStateException("test driver: a reserved operation (wrId " + w.wrId()
                            + ") is queued behind ordinary WQEs the loopback has not processed; post reserved"
                            + " operations on an idle send queue (see LoopbackTestDriver)");
                }
            }
            return true;
        } finally {
            qp.sendLock().unlock();
            qp.recvLock().unlock();
        }
    }
}
