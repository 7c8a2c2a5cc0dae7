package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.AccessFlag;
import io.rvt.api.AhAttr;
import io.rvt.api.CompletionQueue;
import io.rvt.api.DeviceCounter;
import io.rvt.api.Errno;
import io.rvt.api.MigState;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.VerbsException;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WorkRequestException;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.Callback;
import io.rvt.core.LoopbackTestDriver;
import io.rvt.core.RvtDevice;
import io.rvt.core.TestDriver;
import io.rvt.core.ah.RvtAh;
import io.rvt.core.cq.RvtCq;
import io.rvt.core.mr.RvtMr;
import io.rvt.core.mr.RvtPd;
import io.rvt.core.srq.RvtSrq;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every verb with each class of invalid argument gets the errno rdmavt returns and leaves every object as it was
 * (semantics §4.5–§4.8, §5.2, §7.4, §7.5, §11.1 items 8–12, §11.3 items 28–29, §11.5 items 41, 46, 53–55): the QP's
 * query output, its ring indices and counters, the device counters, the CQs and the regions' references are compared
 * before and after.
 */
class BadInputMatrixTest {
    private static final int STATE = QpAttrMask.STATE.bit();

    /** A device with QPs of each kind in RTS and regions in two PDs. */
    private static final class Fx {
        final TestDriver driver = new TestDriver().params(LoopbackTestDriver.loopbackParams(1).build())
                .postParms(LoopbackTestDriver.operationTable());
        final QpEnv env = new QpEnv(driver);
        final RvtQp rc = env.create(QpType.RC, 4, 4, 2);
        final RvtQp uc = env.create(QpType.UC, 4, 4, 2);
        final RvtQp ud = env.create(QpType.UD, 4, 4, 2);
        final RvtQp rcNoRd = env.create(QpType.RC, 4, 4, 2);
        final RvtQp fresh = env.create(QpType.RC, 4, 4, 2);
        final RvtMr mr = env.reg(64);
        final RvtMr noLocalWrite = env.reg(64, AccessFlag.REMOTE_READ.bit());
        final RvtPd otherPd = (RvtPd) env.dev.allocPd();
        final RvtMr otherMr = (RvtMr) otherPd.regMr(ByteBuffer.allocate(64), QpEnv.ALL_ACCESS);
        final RvtMr fmr = (RvtMr) env.pd.allocMr(1);
        final RvtAh otherAh;

        Fx() {
            env.up(rc, rc.qpNum());
            env.up(uc, uc.qpNum());
            env.up(ud, 0);
            env.toInit(rcNoRd);
            env.toRtr(rcNoRd, rcNoRd.qpNum());
            rcNoRd.modifyQp(env.validAttr(0).maxRdAtomic(0).qpState(QpState.RTS), QpEnv.RTS_MASK_RC);
            AhAttr ah = new AhAttr().dlid(env.lid()).portNum(1);
            otherAh = (RvtAh) otherPd.createAh(ah);
        }

        private RvtQp inInit;
        private RvtQp inRtr;
        private RvtQp inSqd;
        private RvtQp gsi;

        RvtQp rcInInit() {
            if (inInit == null) {
                inInit = env.create(QpType.RC, 4, 4, 2);
                env.toInit(inInit);
            }
            return inInit;
        }

        RvtQp rcInRtr() {
            if (inRtr == null) {
                inRtr = env.create(QpType.RC, 4, 4, 2);
                env.toInit(inRtr);
                env.toRtr(inRtr, inRtr.qpNum());
            }
            return inRtr;
        }

        RvtQp rcInSqd() {
            if (inSqd == null) {
                inSqd = env.create(QpType.RC, 4, 4, 2);
                env.up(inSqd, inSqd.qpNum());
                inSqd.modifyQp(new QpAttr().qpState(QpState.SQD), STATE);
            }
            return inSqd;
        }

        RvtQp gsi() {
            if (gsi == null) {
                gsi = env.create(QpType.GSI, 4, 4, 2);
                env.toInit(gsi);
            }
            return gsi;
        }

        String snapshot(RvtQp qp) {
            QpAttr a = qp.queryQp(new QpAttr());
            QpInitAttr i = qp.queryInitAttr(new QpInitAttr());
            StringBuilder b = new StringBuilder();
            b.append("state=").append(a.qpState()).append(" mtu=").append(a.pathMtu()).append(" mig=")
                    .append(a.pathMigState()).append(" qkey=").append(a.qkey()).append(" rqPsn=").append(a.rqPsn())
                    .append(" sqPsn=").append(a.sqPsn()).append(" dest=").append(a.destQpNum()).append(" acc=")
                    .append(a.qpAccessFlags()).append(" cap=").append(a.cap()).append(" ah=").append(a.ahAttr())
                    .append(" alt=").append(a.altAhAttr()).append(" pkey=").append(a.pkeyIndex()).append('/')
                    .append(a.altPkeyIndex()).append(" draining=").append(a.sqDraining()).append(" rd=")
                    .append(a.maxRdAtomic()).append('/').append(a.maxDestRdAtomic()).append(" rnrTimer=")
                    .append(a.minRnrTimer()).append(" port=").append(a.portNum()).append(" timeout=")
                    .append(a.timeout()).append(" retry=").append(a.retryCnt()).append('/').append(a.rnrRetry())
                    .append(" altPort=").append(a.altPortNum()).append(" sig=").append(i.sigType());
            b.append(" | head=").append(qp.sendQueue().head()).append(" last=").append(qp.sendQueue().last())
                    .append(" cur=")
                    .append(qp.requester().cur).append(" tail=").append(qp.requester().tail).append(" avail=")
                    .append(qp.sendQueue().avail()).append(" reserved=").append(qp.sendQueue().reservedUsed())
                    .append(" nextPsn=")
                    .append(qp.requester().nextPsn).append(" localOps=")
                    .append(qp.sendQueue().localOpsPending()).append(" flags=")
                    .append(qp.requester().flags).append(" refs=").append(qp.refCount()).append(" mig=")
                    .append(qp.migState()).append(" pmtu=").append(qp.pmtu()).append(" timeoutTicks=")
                    .append(qp.timeoutTicks());
            if (qp.rq() != null) {
                b.append(" rq=").append(qp.rq().count(qp.rq().headAcquire(), qp.rq().tail()));
            }
            b.append(" | device=").append(Arrays.toString(env.counters()));
            for (RvtCq cq : new RvtCq[] {env.scq, env.rcq}) {
                b.append(" cq=").append(cq.head()).append('/').append(cq.tail());
            }
            for (RvtMr m : new RvtMr[] {mr, noLocalWrite, otherMr, fmr}) {
                b.append(" mr=").append(m.refCount()).append(m.isLkeyInvalid() ? "i" : "").append(':')
                        .append(Integer.toHexString(m.lkey()));
            }
            b.append(" calls do=").append(driver.calls(Callback.DO_SEND)).append(" sched=")
                    .append(driver.calls(Callback.SCHEDULE_SEND));
            return b.toString();
        }
    }

    private record Bad(String name, java.util.function.Function<Fx, RvtQp> target, Consumer<Fx> call, Errno errno,
            Integer badIndex) {
    }

    private static SendWorkRequest send() {
        return new SendWorkRequest(4).opcode(WrOpcode.SEND).wrId(1);
    }

    private static SendWorkRequest sge(SendWorkRequest w, long addr, int len, int lkey) {
        w.numSge(w.numSge() + 1).sge(w.numSge() - 1).set(addr, len, lkey);
        return w;
    }

    private static Bad post(String name, java.util.function.Function<Fx, RvtQp> qp,
            java.util.function.Function<Fx, SendWorkRequest> wr, Errno errno, int badIndex) {
        return new Bad("postSend: " + name, qp, f -> qp.apply(f).postSend(wr.apply(f)), errno, badIndex);
    }

    private static Bad modify(String name, java.util.function.Function<Fx, RvtQp> qp,
            java.util.function.Function<Fx, QpAttr> attr, int mask, Errno errno) {
        return new Bad("modifyQp: " + name, qp, f -> qp.apply(f).modifyQp(attr.apply(f), mask), errno, null);
    }

    private static QpAttr attr(Fx f, QpState next) {
        return f.env.validAttr(0x42).qpState(next);
    }

    static List<Bad> cases() {
        List<Bad> c = new ArrayList<>();
        int initMask = QpEnv.INIT_MASK_RC;
        int rtrMask = QpEnv.RTR_MASK_RC;
        // ---- post send
        c.add(post("state RESET", f -> f.fresh, f -> send(), Errno.EINVAL, WorkRequestException.NO_INDEX));
        c.add(post("state INIT", f -> f.rcInInit(), f -> send(), Errno.EINVAL, WorkRequestException.NO_INDEX));
        c.add(post("state RTR", f -> f.rcInRtr(), f -> send(), Errno.EINVAL, WorkRequestException.NO_INDEX));
        c.add(post("too many SGEs", f -> f.rc, f -> sge(sge(sge(send(), f.mr.addr(), 4, f.mr.lkey()), f.mr.addr(),
                4, f.mr.lkey()), f.mr.addr(), 4, f.mr.lkey()), Errno.EINVAL, 0));
        c.add(post("bad lkey", f -> f.rc, f -> sge(send(), f.mr.addr(), 8, f.mr.lkey() ^ 0x100), Errno.EINVAL, 0));
        c.add(post("unknown lkey slot", f -> f.rc, f -> sge(send(), f.mr.addr(), 8, 0x7F00_0100), Errno.EINVAL, 0));
        c.add(post("lkey 0 (no DMA region)", f -> f.rc, f -> sge(send(), 0x1000, 8, 0), Errno.EINVAL, 0));
        c.add(post("out of bounds (one byte past)", f -> f.rc, f -> sge(send(), f.mr.addr() + 1, 64, f.mr.lkey()),
                Errno.EINVAL, 0));
        c.add(post("out of bounds (below)", f -> f.rc, f -> sge(send(), f.mr.addr() - 1, 8, f.mr.lkey()),
                Errno.EINVAL, 0));
        c.add(post("second SGE bad, first released", f -> f.rc, f -> sge(sge(send(), f.mr.addr(), 8, f.mr.lkey()),
                f.mr.addr() + 60, 8, f.mr.lkey()), Errno.EINVAL, 0));
        c.add(post("region of another PD", f -> f.rc, f -> sge(send(), f.otherMr.addr(), 8, f.otherMr.lkey()),
                Errno.EINVAL, 0));
        c.add(post("RDMA_READ on UC", f -> f.uc, f -> send().opcode(WrOpcode.RDMA_READ), Errno.EINVAL, 0));
        c.add(post("FETCH_AND_ADD on UC", f -> f.uc, f -> sge(send().opcode(WrOpcode.ATOMIC_FETCH_AND_ADD),
                f.mr.addr(), 8, f.mr.lkey()), Errno.EINVAL, 0));
        c.add(post("SEND_WITH_INV on UC", f -> f.uc, f -> send().opcode(WrOpcode.SEND_WITH_INV), Errno.EINVAL, 0));
        c.add(post("RDMA_WRITE on UD", f -> f.ud, f -> send().opcode(WrOpcode.RDMA_WRITE).ah(f.otherAh),
                Errno.EINVAL, 0));
        c.add(post("reserved op on UC", f -> f.uc, f -> send().opcode(LoopbackTestDriver.OPFN), Errno.EINVAL, 0));
        for (WrOpcode op : new WrOpcode[] {WrOpcode.MASKED_ATOMIC_CMP_AND_SWP, WrOpcode.BIND_MW, WrOpcode.LSO,
            WrOpcode.RESERVED1, WrOpcode.RESERVED10, WrOpcode.RDMA_READ_WITH_INV}) {
            c.add(post("unsupported opcode " + op, f -> f.rc, f -> send().opcode(op), Errno.EINVAL, 0));
        }
        c.add(post("RDMA_READ without max_rd_atomic", f -> f.rcNoRd, f -> sge(send().opcode(WrOpcode.RDMA_READ),
                f.mr.addr(), 8, f.mr.lkey()), Errno.EINVAL, 0));
        c.add(post("CMP_AND_SWP without max_rd_atomic", f -> f.rcNoRd,
                f -> sge(send().opcode(WrOpcode.ATOMIC_CMP_AND_SWP), f.mr.addr(), 8, f.mr.lkey()), Errno.EINVAL, 0));
        c.add(post("atomic without SGE", f -> f.rc, f -> send().opcode(WrOpcode.ATOMIC_FETCH_AND_ADD),
                Errno.EINVAL, 0));
        c.add(post("atomic SGE of 4 bytes", f -> f.rc, f -> sge(send().opcode(WrOpcode.ATOMIC_FETCH_AND_ADD),
                f.mr.addr(), 4, f.mr.lkey()), Errno.EINVAL, 0));
        c.add(post("atomic SGE unaligned", f -> f.rc, f -> sge(send().opcode(WrOpcode.ATOMIC_CMP_AND_SWP),
                f.mr.addr() + 4, 8, f.mr.lkey()), Errno.EINVAL, 0));
        c.add(post("SEND_WITH_INV from a region without LOCAL_WRITE", f -> f.rc,
                f -> sge(send().opcode(WrOpcode.SEND_WITH_INV), f.noLocalWrite.addr(), 8, f.noLocalWrite.lkey()),
                Errno.EINVAL, 0));
        c.add(post("RDMA_READ into a region without LOCAL_WRITE", f -> f.rc,
                f -> sge(send().opcode(WrOpcode.RDMA_READ), f.noLocalWrite.addr(), 8, f.noLocalWrite.lkey()),
                Errno.EINVAL, 0));
        c.add(post("UD without address handle", f -> f.ud, f -> send(), Errno.EINVAL, 0));
        c.add(post("UD with another PD's address handle", f -> f.ud, f -> send().ah(f.otherAh), Errno.EINVAL, 0));
        c.add(post("REG_MR of a registered (not allocMr) region", f -> f.rc,
                f -> send().opcode(WrOpcode.REG_MR).mr(f.mr).key(f.mr.lkey()).sendFlags(SendFlag.SIGNALED.bit()),
                Errno.EINVAL, 0));
        c.add(post("REG_MR changing more than the low 8 key bits", f -> f.rc,
                f -> send().opcode(WrOpcode.REG_MR).mr(f.fmr).key(f.fmr.lkey() ^ 0x100), Errno.EINVAL, 0));
        c.add(post("LOCAL_INV of an unknown key", f -> f.rc,
                f -> send().opcode(WrOpcode.LOCAL_INV).invalidateRkey(0x7F00), Errno.EINVAL, 0));
        c.add(post("LOCAL_INV of another PD's key", f -> f.rc,
                f -> send().opcode(WrOpcode.LOCAL_INV).invalidateRkey(f.otherMr.rkey()), Errno.EINVAL, 0));
        // ---- post receive
        c.add(new Bad("postRecv: state RESET", f -> f.fresh, f -> f.fresh.postRecv(new RecvWorkRequest(0)),
                Errno.EINVAL, 0));
        c.add(new Bad("postRecv: too many SGEs", f -> f.rc, f -> f.rc.postRecv(new RecvWorkRequest(3).numSge(3)),
                Errno.EINVAL, 0));
        // ---- modify
        for (int bit : new int[] {21, 22, 24, 25, 30}) {
            c.add(modify("non-standard mask bit " + bit, f -> f.fresh, f -> attr(f, QpState.INIT),
                    initMask | 1 << bit, Errno.EOPNOTSUPP));
        }
        c.add(modify("RESET -> RTR", f -> f.fresh, f -> attr(f, QpState.RTR), STATE | rtrMask, Errno.EINVAL));
        c.add(modify("RESET -> ERR", f -> f.fresh, f -> attr(f, QpState.ERR), STATE, Errno.EINVAL));
        c.add(modify("RTS -> RTR", f -> f.rc, f -> attr(f, QpState.RTR), rtrMask, Errno.EINVAL));
        c.add(modify("RTS -> INIT", f -> f.rc, f -> attr(f, QpState.INIT), initMask, Errno.EINVAL));
        c.add(modify("RTS -> SQE for RC", f -> f.rc, f -> attr(f, QpState.SQE), STATE, Errno.EINVAL));
        c.add(modify("RTS -> SQE for UC (no such row)", f -> f.uc, f -> attr(f, QpState.SQE), STATE, Errno.EINVAL));
        c.add(modify("missing ACCESS_FLAGS", f -> f.fresh, f -> attr(f, QpState.INIT),
                initMask & ~QpAttrMask.ACCESS_FLAGS.bit(), Errno.EINVAL));
        c.add(modify("missing MIN_RNR_TIMER", f -> f.rcInInit(), f -> attr(f, QpState.RTR),
                rtrMask & ~QpAttrMask.MIN_RNR_TIMER.bit(), Errno.EINVAL));
        c.add(modify("extra SQ_PSN", f -> f.fresh, f -> attr(f, QpState.INIT), initMask | QpAttrMask.SQ_PSN.bit(),
                Errno.EINVAL));
        c.add(modify("extra CAP", f -> f.fresh, f -> attr(f, QpState.INIT), initMask | QpAttrMask.CAP.bit(),
                Errno.EINVAL));
        c.add(modify("extra QKEY on RC", f -> f.fresh, f -> attr(f, QpState.INIT), initMask | QpAttrMask.QKEY.bit(),
                Errno.EINVAL));
        c.add(modify("CUR_STATE from RTS -> ERR", f -> f.rc, f -> attr(f, QpState.ERR).curQpState(QpState.RTS),
                STATE | QpAttrMask.CUR_STATE.bit(), Errno.EINVAL));
        c.add(modify("CUR_STATE claiming INIT", f -> f.rc, f -> attr(f, QpState.INIT).curQpState(QpState.INIT),
                STATE | QpAttrMask.CUR_STATE.bit(), Errno.EINVAL));
        c.add(modify("retry count 8", f -> f.rcInRtr(), f -> attr(f, QpState.RTS).retryCnt(8), QpEnv.RTS_MASK_RC,
                Errno.EINVAL));
        c.add(modify("RNR retry 8", f -> f.rcInRtr(), f -> attr(f, QpState.RTS).rnrRetry(8), QpEnv.RTS_MASK_RC,
                Errno.EINVAL));
        c.add(modify("RNR timer 32", f -> f.rcInInit(), f -> attr(f, QpState.RTR).minRnrTimer(32), rtrMask,
                Errno.EINVAL));
        c.add(modify("dest QPN 0x1000000", f -> f.rcInInit(), f -> attr(f, QpState.RTR).destQpNum(0x1000000),
                rtrMask, Errno.EINVAL));
        c.add(modify("dest QPN -1", f -> f.rcInInit(), f -> attr(f, QpState.RTR).destQpNum(-1), rtrMask,
                Errno.EINVAL));
        c.add(modify("max_dest_rd_atomic 17 > max_rdma_atomic 16", f -> f.rcInInit(),
                f -> attr(f, QpState.RTR).maxDestRdAtomic(17), rtrMask, Errno.EINVAL));
        c.add(modify("multicast DLID 0xC000", f -> f.rcInInit(), f -> {
            QpAttr a = attr(f, QpState.RTR);
            a.ahAttr().dlid(0xC000);
            return a;
        }, rtrMask, Errno.EINVAL));
        c.add(modify("AV port 2 of 1", f -> f.rcInInit(), f -> {
            QpAttr a = attr(f, QpState.RTR);
            a.ahAttr().portNum(2);
            return a;
        }, rtrMask, Errno.EINVAL));
        c.add(modify("port 0", f -> f.fresh, f -> attr(f, QpState.INIT).portNum(0), initMask, Errno.EINVAL));
        c.add(modify("port 2 of 1", f -> f.fresh, f -> attr(f, QpState.INIT).portNum(2), initMask, Errno.EINVAL));
        c.add(modify("pkey index 16 of 16", f -> f.fresh, f -> attr(f, QpState.INIT).pkeyIndex(16), initMask,
                Errno.EINVAL));
        c.add(modify("alt pkey index 16 of 16", f -> f.rc, f -> {
            QpAttr a = attr(f, QpState.RTS).altPkeyIndex(16);
            a.altAhAttr().dlid(f.env.lid()).portNum(1);
            return a;
        }, STATE | QpAttrMask.ALT_PATH.bit(), Errno.EINVAL));
        c.add(modify("alt path multicast DLID", f -> f.rc, f -> {
            QpAttr a = attr(f, QpState.RTS);
            a.altAhAttr().dlid(0xFFFF).portNum(1);
            return a;
        }, STATE | QpAttrMask.ALT_PATH.bit(), Errno.EINVAL));
        c.add(new Bad("modifyQp: PORT on GSI", f -> f.gsi(), f -> f.gsi().modifyQp(attr(f, QpState.INIT),
                STATE | QpAttrMask.PKEY_INDEX.bit() | QpAttrMask.QKEY.bit() | QpAttrMask.PORT.bit()),
                Errno.EINVAL, null));
        c.add(modify("path migration ARMED requested", f -> f.rcInRtr(),
                f -> attr(f, QpState.RTS).pathMigState(MigState.ARMED),
                QpEnv.RTS_MASK_RC | QpAttrMask.PATH_MIG_STATE.bit(), Errno.EINVAL));
        c.add(modify("path migration REARM into SQD", f -> f.rcInSqd(),
                f -> attr(f, QpState.SQD).pathMigState(MigState.REARM), STATE | QpAttrMask.PATH_MIG_STATE.bit(),
                Errno.EINVAL));
        c.add(new Bad("modifyQp: destroyed QP", f -> f.fresh, f -> {
            RvtQp q = f.env.rc();
            q.destroyQp();
            q.modifyQp(attr(f, QpState.INIT), initMask);
        }, Errno.EINVAL, null));
        return c;
    }

    @TestFactory
    Stream<DynamicTest> shouldReturnTheErrnoAndChangeNothingWhenAVerbGetsBadInput() {
        return cases().stream().map(bad -> DynamicTest.dynamicTest(bad.name(), () -> {
            Fx f = new Fx();
            RvtQp qp = bad.target().apply(f);
            String before = f.snapshot(qp);
            Throwable thrown = catchAll(() -> bad.call().accept(f));
            assertThat(thrown).as(bad.name()).isInstanceOf(VerbsException.class);
            VerbsException e = (VerbsException) thrown;
            assertThat(e.errno()).as("%s: %s", bad.name(), e.getMessage()).isEqualTo(bad.errno());
            if (bad.badIndex() != null) {
                assertThat(e).as(bad.name()).isInstanceOf(WorkRequestException.class);
                assertThat(((WorkRequestException) e).badIndex()).as("%s: badIndex", bad.name())
                        .isEqualTo(bad.badIndex());
            }
            assertThat(f.snapshot(qp)).as("%s: nothing changed", bad.name()).isEqualTo(before);
            assertThat(e.getMessage()).as(bad.name()).isNotBlank();
        }));
    }

    private static Throwable catchAll(Runnable r) {
        try {
            r.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    // ------------------------------------------------------------------ posts that partly succeed

    @Test
    void shouldPostMaxSendWrAndRefuseTheNextWithEnomemAtItsIndexAndStillKickTheDriver() {
        Fx f = new Fx();
        int doSends = f.driver.calls(Callback.DO_SEND);
        int scheds = f.driver.calls(Callback.SCHEDULE_SEND);
        SendWorkRequest[] list = new SendWorkRequest[6];
        for (int i = 0; i < list.length; i++) {
            list[i] = send().wrId(100 + i);
            if (i > 0) {
                list[i - 1].next(list[i]);
            }
        }

        assertThatThrownBy(() -> f.rc.postSend(list[0])).isInstanceOfSatisfying(WorkRequestException.class, e -> {
            assertThat(e.errno()).isEqualTo(Errno.ENOMEM);
            assertThat(e.badIndex()).as("first WR not posted").isEqualTo(4);
        });

        assertThat(Math.floorMod(f.rc.sendQueue().head() - f.rc.sendQueue().last(), f.rc.sendQueue().size()))
                .as("4 posted").isEqualTo(4);
        for (int i = 0; i < 4; i++) {
            assertThat(f.rc.sendQueue().swqe(i).wrId()).isEqualTo(100 + i);
        }
        assertThat(f.driver.calls(Callback.DO_SEND)).isEqualTo(doSends);
        assertThat(f.driver.calls(Callback.SCHEDULE_SEND)).as("kicked once for the 4 posted").isEqualTo(scheds + 1);
        assertThatThrownBy(() -> f.rc.postSend(send())).isInstanceOfSatisfying(WorkRequestException.class,
                e -> assertThat(e.badIndex()).isZero());
        f.rc.postSend(send().opcode(LoopbackTestDriver.OPFN)); // the reserved slot is still free
    }

    @Test
    void shouldKeepEarlierWrsPostedWhenALaterWrOfTheListIsInvalid() {
        Fx f = new Fx();
        SendWorkRequest list = send().wrId(1).next(send().wrId(2).next(send().wrId(3).opcode(WrOpcode.LSO)));

        assertThatThrownBy(() -> f.rc.postSend(list)).isInstanceOfSatisfying(WorkRequestException.class, e -> {
            assertThat(e.errno()).isEqualTo(Errno.EINVAL);
            assertThat(e.badIndex()).isEqualTo(2);
        });
        assertThat(f.rc.sendQueue().head()).isEqualTo(2);
    }

    @Test
    void shouldAcceptSendFromARegionWithoutLocalWrite() {
        Fx f = new Fx();

        f.rc.postSend(sge(send(), f.noLocalWrite.addr(), 8, f.noLocalWrite.lkey()));
        f.rc.postSend(sge(send().opcode(WrOpcode.RDMA_WRITE), f.noLocalWrite.addr(), 8, f.noLocalWrite.lkey()));

        assertThat(f.rc.sendQueue().head()).isEqualTo(2);
    }

    @Test
    void shouldAcceptZeroLengthSgesWithBadKeysAndPostZeroSges() {
        Fx f = new Fx();
        SendWorkRequest w = sge(sge(send(), 0xBAD, 0, 0xBAD00), f.mr.addr(), 8, f.mr.lkey());

        f.rc.postSend(w);
        f.rc.postSend(send());

        assertThat(f.rc.sendQueue().swqe(0).numSge()).as("zero-length SGE skipped").isEqualTo(1);
        assertThat(f.rc.sendQueue().swqe(0).length()).isEqualTo(8);
        assertThat(f.rc.sendQueue().swqe(1).numSge()).isZero();
        assertThat(f.rc.sendQueue().swqe(1).lpsn()).isEqualTo(f.rc.sendQueue().swqe(1).psn());
    }

    @Test
    void shouldRefuseReceivePastCapacityWithEnomemAtItsIndex() {
        Fx f = new Fx();
        RecvWorkRequest[] list = new RecvWorkRequest[6];
        for (int i = 0; i < list.length; i++) {
            list[i] = new RecvWorkRequest(0).wrId(i);
            if (i > 0) {
                list[i - 1].next(list[i]);
            }
        }

        assertThatThrownBy(() -> f.rc.postRecv(list[0])).isInstanceOfSatisfying(WorkRequestException.class, e -> {
            assertThat(e.errno()).isEqualTo(Errno.ENOMEM);
            assertThat(e.badIndex()).isEqualTo(4);
        });
        assertThat(f.rc.rq().count(f.rc.rq().headAcquire(), f.rc.rq().tail())).isEqualTo(4);
    }

    @Test
    void shouldRefuseReceiveOnAQpThatUsesAnSrq() {
        Fx f = new Fx();
        RvtSrq srq = f.env.srq(8);
        RvtQp qp = f.env.create(f.env.init(QpType.RC, 4, 0, 1).srq(srq));
        f.env.up(qp, qp.qpNum());

        assertThatThrownBy(() -> qp.postRecv(new RecvWorkRequest(0))).isInstanceOfSatisfying(
                WorkRequestException.class, e -> {
                    assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                    assertThat(e.badIndex()).isZero();
                });
        assertThat(srq.rq().count(srq.rq().headAcquire(), srq.rq().tail())).isZero();
    }

    @Test
    void shouldFlushEachReceiveAtOnceWhenPostedInErr() {
        Fx f = new Fx();
        f.env.toErr(f.rc);
        QpEnv.poll(f.env.rcq);

        f.rc.postRecv(new RecvWorkRequest(0).wrId(7).next(new RecvWorkRequest(0).wrId(8)));

        List<WorkCompletion> wcs = QpEnv.poll(f.env.rcq);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(7L, 8L);
        assertThat(wcs).extracting(WorkCompletion::status).containsOnly(WcStatus.WR_FLUSH_ERR);
        assertThat(f.rc.rq().count(f.rc.rq().headAcquire(), f.rc.rq().tail())).as("nothing stored").isZero();
    }

    // ------------------------------------------------------------------ create

    private static void assertCreateFails(QpEnv env, TestDriver driver, QpInitAttr init, Errno errno) {
        long[] counters = env.counters();
        int pdUses = env.pd.useCount();
        int cqUsers = env.scq.userCount();
        int allocs = driver.calls(Callback.QP_PRIV_ALLOC);
        int frees = driver.calls(Callback.QP_PRIV_FREE);
        boolean[] used = new boolean[64];
        for (int q = 0; q < used.length; q++) {
            used[q] = env.dev.qpnTable().isUsed(q);
        }

        assertThatThrownBy(() -> env.pd.createQp(init)).as("%s", init.qpType())
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).as(e.getMessage())
                        .isEqualTo(errno));

        assertThat(env.counters()).isEqualTo(counters);
        assertThat(env.pd.useCount()).isEqualTo(pdUses);
        assertThat(env.scq.userCount()).isEqualTo(cqUsers);
        assertThat(driver.calls(Callback.QP_PRIV_ALLOC) - allocs).as("priv alloc/free balanced")
                .isEqualTo(driver.calls(Callback.QP_PRIV_FREE) - frees);
        for (int q = 0; q < used.length; q++) {
            assertThat(env.dev.qpnTable().isUsed(q)).as("QPN %d", q).isEqualTo(used[q]);
        }
    }

    @Test
    void shouldRefuseQpsOverTheDeviceLimitsWithEinval() {
        TestDriver driver = new TestDriver().params(LoopbackTestDriver.loopbackParams(1).build());
        QpEnv env = new QpEnv(driver);
        assertCreateFails(env, driver, env.init(QpType.RC, 257, 4, 1), Errno.EINVAL);
        assertCreateFails(env, driver, env.init(QpType.RC, 4, 257, 1), Errno.EINVAL);
        QpInitAttr sge = env.init(QpType.RC, 4, 4, 1);
        sge.cap().maxSendSge(9);
        assertCreateFails(env, driver, sge, Errno.EINVAL);
        QpInitAttr rsge = env.init(QpType.RC, 4, 4, 1);
        rsge.cap().maxRecvSge(9);
        assertCreateFails(env, driver, rsge, Errno.EINVAL);
        assertCreateFails(env, driver, env.init(QpType.RC, 0, 0, 0), Errno.EINVAL);
        assertCreateFails(env, driver, env.init(QpType.SMI, 4, 4, 1).portNum(0), Errno.EINVAL);
        assertCreateFails(env, driver, env.init(QpType.GSI, 4, 4, 1).portNum(2), Errno.EINVAL);
        RvtDevice other = new TestDriver().timerService(new io.rvt.testkit.ManualTimerService()).register();
        CompletionQueue foreign = other.createCq(4, 0, null, null);
        assertCreateFails(env, driver, env.init(QpType.RC, 4, 4, 1).sendCq(foreign), Errno.EINVAL);
    }

    @Test
    void shouldIgnoreReceiveCapsWhenAnSrqIsUsed() {
        TestDriver driver = new TestDriver().params(LoopbackTestDriver.loopbackParams(1).build());
        QpEnv env = new QpEnv(driver);
        QpInitAttr init = env.init(QpType.RC, 4, 100_000, 1).srq(env.srq(8));
        init.cap().maxRecvSge(1000);

        RvtQp qp = env.create(init);

        assertThat(qp.queryInitAttr(new QpInitAttr()).cap().maxRecvWr()).isZero();
    }

    @Test
    void shouldRefuseUnsupportedTypesAndFlagsWithEopnotsupp() {
        TestDriver driver = new TestDriver().params(LoopbackTestDriver.loopbackParams(1).build());
        QpEnv env = new QpEnv(driver);
        for (QpType t : new QpType[] {QpType.RAW_IPV6, QpType.RAW_ETHERTYPE, QpType.RAW_PACKET, QpType.XRC_INI,
            QpType.XRC_TGT}) {
            assertCreateFails(env, driver, env.init(t, 4, 4, 1), Errno.EOPNOTSUPP);
        }
        assertCreateFails(env, driver, env.init(QpType.RC, 4, 4, 1).createFlags(1 << 3), Errno.EOPNOTSUPP);
        assertCreateFails(env, driver, env.init(QpType.UD, 4, 4, 1).createFlags(QpInitAttr.CREATE_NETDEV_USE | 1),
                Errno.EOPNOTSUPP);
    }

    @Test
    void shouldNumberNetdevQpsFromTheAipBaseAndFreeTheirNumbers() {
        TestDriver driver = new TestDriver().params(LoopbackTestDriver.loopbackParams(1).build());
        QpEnv env = new QpEnv(driver);

        RvtQp aip = env.create(env.init(QpType.UD, 4, 4, 1).createFlags(QpInitAttr.CREATE_NETDEV_USE));

        assertThat(aip.qpNum() & 0xFF0000).isEqualTo(0x810000);
        int low = aip.qpNum() & 0xFFFF;
        assertThat(env.dev.qpnTable().isUsed(low)).isTrue();
        env.toInit(aip);
        assertThat(env.dev.lookupQpn(env.dev.port(1), aip.qpNum())).isSameAs(aip);
        aip.destroyQp();
        assertThat(env.dev.qpnTable().isUsed(low)).as("freed by its low 16 bits").isFalse();
    }

    @Test
    void shouldRefuseASecondGsiOnAPort() {
        TestDriver driver = new TestDriver().params(LoopbackTestDriver.loopbackParams(1).build());
        QpEnv env = new QpEnv(driver);
        RvtQp gsi = env.create(QpType.GSI, 4, 4, 1);
        assertThat(gsi.qpNum()).isEqualTo(1);

        assertCreateFails(env, driver, env.init(QpType.GSI, 4, 4, 1), Errno.EINVAL);

        gsi.destroyQp();
        assertThat(env.create(QpType.GSI, 4, 4, 1).qpNum()).as("again after destroy").isEqualTo(1);
    }

    @Test
    void shouldFailWithEnomemAfterQpnAllocationAndFreeTheQpnWhenMaxQpIsReached() {
        TestDriver driver = new TestDriver().params(LoopbackTestDriver.loopbackParams(1)
                .props(TestDriver.defaultProps().maxQp(3).build()).build());
        QpEnv env = new QpEnv(driver);
        List<RvtQp> qps = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            qps.add(env.rc());
        }
        int next = qps.get(2).qpNum() + 1;
        assertThat(env.dev.qpnTable().isUsed(next)).isFalse();

        assertCreateFails(env, driver, env.init(QpType.RC, 4, 4, 1), Errno.ENOMEM);
        assertThat(env.dev.qpnTable().isUsed(next)).as("QPN of the refused QP freed").isFalse();

        qps.get(0).destroyQp();
        RvtQp again = env.rc();
        assertThat(again.qpNum()).as("the allocator moved on past the freed QPN").isGreaterThan(qps.get(2).qpNum());
        assertThat(env.dev.deviceCounter(DeviceCounter.QPS_ALLOCATED)).isEqualTo(3);
    }
}
