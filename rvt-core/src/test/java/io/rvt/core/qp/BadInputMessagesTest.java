package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.AccessFlag;
import io.rvt.api.AhAttr;
import io.rvt.api.Errno;
import io.rvt.api.PortCounter;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.SrqAttrMask;
import io.rvt.api.SrqInitAttr;
import io.rvt.api.VerbsException;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.DriverValidationException;
import io.rvt.api.spi.engine.CallSend;
import io.rvt.api.spi.engine.SendWqe;
import io.rvt.core.LoopbackTestDriver;
import io.rvt.core.SetupWqeTestDriver;
import io.rvt.core.TestDriver;
import io.rvt.core.ah.RvtAh;
import io.rvt.core.mr.RvtMr;
import io.rvt.core.mr.RvtPd;
import io.rvt.core.srq.RvtSrq;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The bad inputs of issue 12 beyond {@link BadInputMatrixTest}: null arguments, errors that said too little, inputs
 * that were silently accepted. Each verb raises a {@link VerbsException} (never the JDK's NullPointerException,
 * ArrayIndexOutOfBoundsException or IllegalArgumentException) with the errno ibverbs users expect and a message
 * naming the parameter or field and the value; the QP, CQ and device counters are unchanged.
 */
class BadInputMessagesTest {
    /** A device with an RC and a UD QP in RTS, regions, an SRQ and an address handle whose path MTU is 4096. */
    private static final class Fx {
        final TestDriver driver = new SetupWqeTestDriver() {
            @Override
            public int setupWqe(DriverQp qp, SendWqe wqe, CallSend callSend) {
                // What hfi1 and rvt-transport refuse: a UD message longer than the path MTU.
                return qp.type() == QpType.UD && wqe.length() > 4096 ? -22 : 0;
            }
        };
        final QpEnv env;
        final RvtQp rc;
        final RvtQp ud;
        final RvtQp inInit;
        final RvtMr mr;
        final RvtMr big;
        final RvtMr fmr;
        final RvtPd otherPd;
        final RvtMr otherFmr;
        final RvtSrq srq;
        final RvtAh ah;

        Fx() {
            driver.params(LoopbackTestDriver.loopbackParams(1).build()).postParms(LoopbackTestDriver.operationTable())
                    .notifyNewAh((a, h) -> h.logPmtu(12));
            env = new QpEnv(driver);
            rc = env.rc();
            env.up(rc, rc.qpNum());
            ud = env.create(QpType.UD, 4, 4, 1);
            env.up(ud, 0);
            inInit = env.rc();
            env.toInit(inInit);
            mr = env.reg(64);
            big = env.reg(8192);
            fmr = (RvtMr) env.pd.allocMr(1);
            otherPd = (RvtPd) env.dev.allocPd();
            otherFmr = (RvtMr) otherPd.allocMr(1);
            srq = env.srq(8);
            ah = (RvtAh) env.pd.createAh(new AhAttr().dlid(env.lid()).portNum(1));
        }

        String snapshot() {
            return java.util.Arrays.toString(env.counters()) + " rc " + rc.sendQueue().head() + "/"
                    + rc.sendQueue().last() + " "
                    + rc.state() + " " + inInit.state() + " ud " + ud.sendQueue().head() + "/"
                    + ud.sendQueue().last() + " cq " + env.scq.head() + "/"
                    + env.scq.tail() + " " + env.rcq.head() + "/" + env.rcq.tail() + " mr " + mr.refCount() + " fmr "
                    + Integer.toHexString(fmr.lkey()) + " srq " + srq.rq().count(srq.rq().headAcquire(),
                            srq.rq().tail());
        }
    }

    private record Bad(String name, Consumer<Fx> call, Errno errno, String... words) {
    }

    static List<Bad> cases() {
        List<Bad> c = new ArrayList<>();
        // ---- null arguments
        c.add(new Bad("queryPort(1, null)", f -> f.env.dev.queryPort(1, null), Errno.EINVAL, "queryPort", "out"));
        c.add(new Bad("portCounter(1, null)", f -> f.env.dev.portCounter(1, null), Errno.EINVAL, "counter"));
        c.add(new Bad("deviceCounter(null)", f -> f.env.dev.deviceCounter(null), Errno.EINVAL, "counter"));
        c.add(new Bad("pollCq(null, 1)", f -> f.env.scq.pollCq(null, 1), Errno.EINVAL, "pollCq", "out"));
        c.add(new Bad("pollCq((WorkCompletion) null)", f -> f.env.scq.pollCq((WorkCompletion) null), Errno.EINVAL,
                "pollCq", "out"));
        c.add(new Bad("createQp(null)", f -> f.env.pd.createQp(null), Errno.EINVAL, "createQp", "init"));
        c.add(new Bad("modifyQp(null, STATE)", f -> f.rc.modifyQp(null, QpEnv.STATE), Errno.EINVAL, "modifyQp",
                "attr"));
        c.add(new Bad("postSend(null)", f -> f.rc.postSend(null), Errno.EINVAL, "postSend", "wr"));
        c.add(new Bad("postRecv(null)", f -> f.rc.postRecv(null), Errno.EINVAL, "postRecv", "wr"));
        c.add(new Bad("postSrqRecv(null)", f -> f.srq.postSrqRecv(null), Errno.EINVAL, "postSrqRecv", "wr"));
        c.add(new Bad("modifySrq(null, LIMIT)", f -> f.srq.modifySrq(null, SrqAttrMask.LIMIT.bit()), Errno.EINVAL,
                "modifySrq", "attr"));
        c.add(new Bad("createSrq(null)", f -> f.env.pd.createSrq(null), Errno.EINVAL, "createSrq", "init"));
        c.add(new Bad("attachMcast(null, lid)", f -> f.ud.attachMcast(null, 0xC001), Errno.EINVAL, "attachMcast",
                "gid"));
        c.add(new Bad("createAh(null)", f -> f.env.pd.createAh(null), Errno.EINVAL, "createAh", "attr"));
        c.add(new Bad("regMr(null, 0)", f -> f.env.pd.regMr(null, 0), Errno.EINVAL, "regMr", "buffer"));
        // ---- errors that said too little
        c.add(new Bad("AV with staticRate 99", f -> {
            QpAttr a = f.env.validAttr(1).qpState(QpState.RTR);
            a.ahAttr().staticRate(99);
            f.inInit.modifyQp(a, QpEnv.RTR_MASK_RC);
        }, Errno.EINVAL, "AV", "staticRate 99"));
        c.add(new Bad("UD SEND of 4097 B on a 4096 MTU", f -> f.ud.postSend(new SendWorkRequest(1)
                .opcode(WrOpcode.SEND).ah(f.ah).sge(f.big, 0, 4097)), Errno.EINVAL, "length 4097",
                "path MTU 4096"));
        c.add(new Bad("REG_MR changing the key's index bits", f -> f.rc.postSend(new SendWorkRequest(0)
                .opcode(WrOpcode.REG_MR).mr(f.fmr).key(f.fmr.lkey() ^ 0x100)), Errno.EINVAL, "REG_MR",
                "index bits"));
        c.add(new Bad("REG_MR of another PD's region", f -> f.rc.postSend(new SendWorkRequest(0)
                .opcode(WrOpcode.REG_MR).mr(f.otherFmr).key(f.otherFmr.lkey())), Errno.EACCES, "REG_MR",
                "another PD"));
        c.add(new Bad("REG_MR of a regMr region", f -> f.rc.postSend(new SendWorkRequest(0)
                .opcode(WrOpcode.REG_MR).mr(f.mr).key(f.mr.lkey())), Errno.EINVAL, "REG_MR",
                "not a fast-registration region"));
        c.add(new Bad("mapBuffer(null)", f -> f.fmr.mapBuffer(null, 0), Errno.EINVAL, "mapBuffer", "buffer is null"));
        c.add(new Bad("postSend after destroyQp", f -> {
            RvtQp q = f.env.rc();
            f.env.up(q, q.qpNum());
            q.destroyQp();
            q.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND));
        }, Errno.EINVAL, "destroyed"));
        c.add(new Bad("postRecv after destroyQp", f -> {
            RvtQp q = f.env.rc();
            q.destroyQp();
            q.postRecv(new RecvWorkRequest(0));
        }, Errno.EINVAL, "destroyed"));
        // ---- silently accepted before
        c.add(new Bad("regMr with ON_DEMAND", f -> f.env.pd.regMr(ByteBuffer.allocate(64),
                AccessFlag.ON_DEMAND.bit()), Errno.EOPNOTSUPP, "ON_DEMAND"));
        c.add(new Bad("allocMr(1 << 30)", f -> f.env.pd.allocMr(1 << 30), Errno.EINVAL, "allocMr",
                "maxNumSg " + (1 << 30)));
        c.add(new Bad("UD post with a destroyed address handle", f -> {
            RvtAh gone = (RvtAh) f.env.pd.createAh(new AhAttr().dlid(f.env.lid()).portNum(1));
            gone.destroyAh();
            f.ud.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).ah(gone));
        }, Errno.EINVAL, "address handle", "destroyed"));
        c.add(new Bad("createSrq with srqLimit above maxWr", f -> f.env.pd.createSrq(new SrqInitAttr().maxWr(8)
                .maxSge(1).srqLimit(9)), Errno.EINVAL, "srqLimit 9"));
        c.add(new Bad("modifyQp with unknown access bits", f -> f.rc.modifyQp(new QpAttr().qpState(QpState.RTS)
                .qpAccessFlags(1 << 20), QpEnv.STATE | QpAttrMask.ACCESS_FLAGS.bit()), Errno.EINVAL,
                "qpAccessFlags", "unknown bits 0x100000"));
        return c;
    }

    @TestFactory
    Stream<DynamicTest> shouldNameTheParameterAndChangeNothingWhenAVerbGetsBadInput() {
        return cases().stream().map(bad -> DynamicTest.dynamicTest(bad.name(), () -> {
            Fx f = new Fx();
            String before = f.snapshot();
            Throwable thrown = null;
            try {
                bad.call().accept(f);
            } catch (Throwable t) {
                thrown = t;
            }
            assertThat(thrown).as(bad.name()).isInstanceOf(VerbsException.class);
            VerbsException e = (VerbsException) thrown;
            assertThat(e.errno()).as("%s: %s", bad.name(), e.getMessage()).isEqualTo(bad.errno());
            assertThat(e.getMessage()).as(bad.name()).contains(bad.words());
            if (!bad.name().contains("destroyQp") && !bad.name().contains("destroyed address")) {
                assertThat(f.snapshot()).as("%s: nothing changed", bad.name()).isEqualTo(before);
            }
        }));
    }

    @Test
    void shouldKeepTheQueuedCompletionWhenPollCqGetsAnArrayOfNulls() {
        Fx f = new Fx();
        f.rc.postSend(new SendWorkRequest(0).opcode(WrOpcode.RDMA_WRITE).wrId(77).sendFlags(
                io.rvt.api.SendFlag.SIGNALED.bit()));
        f.rc.sendLock().lock();
        try {
            f.rc.sendQueue().completeSwqe(f.rc.sendQueue().swqe(f.rc.sendQueue().last()),
                    io.rvt.api.WcOpcode.RDMA_WRITE,
                    io.rvt.api.WcStatus.SUCCESS);
        } finally {
            f.rc.sendLock().unlock();
        }
        WorkCompletion[] nulls = new WorkCompletion[4];
        Throwable t = null;
        try {
            f.env.scq.pollCq(nulls, 4);
        } catch (Throwable e) {
            t = e;
        }
        assertThat(t).isInstanceOfSatisfying(VerbsException.class, e -> {
            assertThat(e.errno()).isEqualTo(Errno.EINVAL);
            assertThat(e.getMessage()).contains("out[0] is null");
        });
        assertThat(QpEnv.poll(f.env.scq)).extracting(WorkCompletion::wrId).containsExactly(77L);
    }

    @Test
    void shouldNameEveryZeroLimitTheDriversVerbsNeedWhenItRegisters() {
        TestDriver driver = new TestDriver().props(TestDriver.defaultProps().maxPd(0).maxCq(0).maxCqe(0)
                .maxSendSge(0).maxRecvSge(0).build());
        Throwable t = null;
        try {
            driver.register();
        } catch (Throwable e) {
            t = e;
        }
        assertThat(t).isInstanceOfSatisfying(DriverValidationException.class, e -> {
            assertThat(e.errno()).isEqualTo(Errno.EINVAL);
            assertThat(e.getMessage()).contains("max_pd", "max_cq", "max_cqe", "max_send_sge", "max_recv_sge")
                    .doesNotContain("max_qp_wr");
        });
        assertThat(new TestDriver().register().portCounter(1, PortCounter.PKT_DROPS)).isZero();
    }

    /**
     * Every method of the verbs interfaces that takes an object, called with null for each of them (numbers 0): it
     * returns or raises a VerbsException, never the JDK's NullPointerException, IllegalArgumentException or
     * ArrayIndexOutOfBoundsException from inside rvt-core.
     */
    @TestFactory
    Stream<DynamicTest> shouldRaiseAVerbsExceptionNotAJdkOneWhenAnyVerbGetsNulls() {
        List<DynamicTest> tests = new ArrayList<>();
        Class<?>[] apis = {io.rvt.api.Device.class, io.rvt.api.ProtectionDomain.class, io.rvt.api.QueuePair.class,
            io.rvt.api.CompletionQueue.class, io.rvt.api.SharedReceiveQueue.class, io.rvt.api.MemoryRegion.class,
            io.rvt.api.AddressHandle.class};
        for (Class<?> api : apis) {
            for (java.lang.reflect.Method m : api.getMethods()) {
                if (m.isDefault() || java.lang.reflect.Modifier.isStatic(m.getModifiers())
                        || Stream.of(m.getParameterTypes()).allMatch(Class::isPrimitive)) {
                    continue;
                }
                tests.add(DynamicTest.dynamicTest(api.getSimpleName() + "." + m.getName()
                        + java.util.Arrays.toString(m.getParameterTypes()), () -> {
                            Fx f = new Fx();
                            Object target = api == io.rvt.api.Device.class ? f.env.dev
                                    : api == io.rvt.api.ProtectionDomain.class ? f.env.pd
                                    : api == io.rvt.api.QueuePair.class ? f.ud
                                    : api == io.rvt.api.CompletionQueue.class ? f.env.scq
                                    : api == io.rvt.api.SharedReceiveQueue.class ? f.srq
                                    : api == io.rvt.api.MemoryRegion.class ? f.fmr : f.ah;
                            Object[] args = new Object[m.getParameterCount()];
                            Class<?>[] types = m.getParameterTypes();
                            for (int i = 0; i < args.length; i++) {
                                args[i] = !types[i].isPrimitive() ? null : types[i] == boolean.class ? false
                                        : types[i] == long.class ? 0L : types[i] == int.class ? (Object) 0 : null;
                            }
                            try {
                                m.invoke(target, args);
                            } catch (java.lang.reflect.InvocationTargetException e) {
                                assertThat(e.getCause()).as(m.toString()).isInstanceOf(VerbsException.class);
                            }
                        }));
            }
        }
        return tests.stream();
    }
}
