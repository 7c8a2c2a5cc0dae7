package io.rvt.core;

import io.rvt.api.AhAttr;
import io.rvt.api.DeviceAttributes;
import io.rvt.api.PathMtu;
import io.rvt.api.PortAttr;
import io.rvt.api.PortState;
import io.rvt.api.QpAttr;
import io.rvt.api.spi.Callback;
import io.rvt.api.spi.DriverAh;
import io.rvt.api.spi.DriverDevice;
import io.rvt.api.spi.DriverParams;
import io.rvt.api.spi.DriverPort;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.OperationTable;
import io.rvt.api.spi.RvtDriver;
import io.rvt.api.spi.TimerService;
import io.rvt.api.spi.GidLookup;
import io.rvt.api.spi.MtuConversion;
import io.rvt.api.spi.PortModify;
import io.rvt.api.spi.PortQuery;
import io.rvt.api.spi.QpPrivate;
import io.rvt.api.spi.QpQuiesce;
import io.rvt.api.spi.SendEngine;
import io.rvt.api.spi.Verb;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;
import java.util.function.ToIntFunction;

/**
 * A configurable driver for rvt-core unit tests: every required callback is a counted no-op, the optional ones it
 * implements ({@code check_ah}, {@code notify_new_ah}, {@code comp_vect_cpu_lookup}, {@code completionExecutor},
 * {@code timerService}) are driven by hooks. Configure it with the fluent setters before {@link #register()};
 * {@link #params}, {@link #postParms} and the callback set are read once, at registration.
 *
 * <p>It hands itself in as every callback group, except a group with a callback named in
 * {@link #without(Callback...)} (the C pointers NULL); a single optional callback named there does what the default
 * method does. Each call of a callback is counted ({@link #calls(Callback)}).
 */
public class TestDriver implements RvtDriver, SendEngine, MtuConversion, PortQuery, PortModify, GidLookup,
        QpPrivate, QpQuiesce {
    private final Map<Callback, AtomicInteger> calls = new EnumMap<>(Callback.class);
    private volatile String name = "test%d";
    private volatile DriverParams params = defaultParams().build();
    private volatile OperationTable postParms = OperationTable.standard();
    private volatile Set<Verb> unsupported = Set.of();
    private volatile Set<Callback> without = Set.of();
    private volatile TimerService timerService;
    private volatile IntFunction<Executor> completionExecutor = cpu -> null;
    private volatile IntUnaryOperator compVectCpu = v -> 0;
    private volatile ToIntFunction<AhAttr> checkAh = a -> 0;
    private volatile BiConsumer<AhAttr, DriverAh> notifyNewAh = (a, ah) -> {
    };
    private volatile PortState portState = PortState.ACTIVE;
    private volatile int gidTblLen = 4;
    private volatile int queryPortResult;

    public TestDriver() {
        for (Callback c : Callback.values()) {
            calls.put(c, new AtomicInteger());
        }
    }

    /** @return device attributes with small positive limits */
    public static DeviceAttributes.Builder defaultProps() {
        return DeviceAttributes.builder().maxQp(64).maxQpWr(256).maxSendSge(8).maxRecvSge(8).maxSgeRd(8)
                .maxCq(16).maxCqe(1024).maxPd(16).maxAh(16).maxSrq(8).maxSrqWr(256).maxSrqSge(8).maxMcastGrp(8)
                .maxMcastQpAttach(8).maxTotalMcastQpAttach(64).maxPkeys(16).maxQpRdAtom(16).maxQpInitRdAtom(16)
                .maxResRdAtom(16).maxMrSize(1L << 32).pageSizeCap(4096);
    }

    /** @return parameters with {@link #defaultProps()}, lkey table of 2^8, QP table of 16, one port */
    public static DriverParams.Builder defaultParams() {
        return DriverParams.builder().props(defaultProps().build()).lkeyTableSize(8).qpTableSize(16).nports(1)
                .npkeys(16).numCompVectors(1);
    }

    /** @return the device built from this driver (rdmavt {@code rvt_register_device}) */
    public RvtDevice register() {
        return RvtDevice.register(this);
    }

    // ------------------------------------------------------------------ configuration

    public TestDriver name(String v) {
        name = v;
        return this;
    }

    public TestDriver params(DriverParams v) {
        params = v;
        return this;
    }

    /** Replaces the props of the current parameters. */
    public TestDriver props(DeviceAttributes v) {
        params = params.toBuilder().props(v).build();
        return this;
    }

    public TestDriver postParms(OperationTable v) {
        postParms = v;
        return this;
    }

    public TestDriver unsupportedVerbs(Verb... v) {
        unsupported = v.length == 0 ? Set.of() : EnumSet.of(v[0], v);
        return this;
    }

    /**
     * Treats the given callbacks as not provided (the C pointer NULL), although this class implements them: their
     * groups are not handed in, and a single optional one behaves as {@link RvtDriver}'s default.
     */
    public TestDriver without(Callback... v) {
        without = v.length == 0 ? Set.of() : EnumSet.of(v[0], v);
        return this;
    }

    public TestDriver timerService(TimerService v) {
        timerService = v;
        return this;
    }

    /** @param v maps an executor index to the executor for CQ handlers (null: rvt's own threads) */
    public TestDriver completionExecutor(IntFunction<Executor> v) {
        completionExecutor = v;
        return this;
    }

    /** @param v maps a completion vector to an executor index ({@code comp_vect_cpu_lookup}) */
    public TestDriver compVectCpuLookup(IntUnaryOperator v) {
        compVectCpu = v;
        return this;
    }

    /** @param v the driver's {@code check_ah} verdict */
    public TestDriver checkAh(ToIntFunction<AhAttr> v) {
        checkAh = v;
        return this;
    }

    /** @param v what {@code notify_new_ah} does with the new handle */
    public TestDriver notifyNewAh(BiConsumer<AhAttr, DriverAh> v) {
        notifyNewAh = v;
        return this;
    }

    /** @param v the port state {@code query_port_state} reports */
    public TestDriver portState(PortState v) {
        portState = v;
        return this;
    }

    /** @param v the GID table length {@code query_port_state} reports */
    public TestDriver gidTblLen(int v) {
        gidTblLen = v;
        return this;
    }

    /** @param v what {@code query_port_state} returns (0 or a negative errno) */
    public TestDriver queryPortResult(int v) {
        queryPortResult = v;
        return this;
    }

    /**
     * @param c a callback
     * @return how often rvt called it on this driver
     */
    public int calls(Callback c) {
        return calls.get(c).get();
    }

    protected final void count(Callback c) {
        calls.get(c).incrementAndGet();
    }

    // ------------------------------------------------------------------ RvtDriver

    @Override
    public String name() {
        return name;
    }

    @Override
    public DriverParams params() {
        return params;
    }

    @Override
    public OperationTable postParms() {
        return postParms;
    }

    @Override
    public Set<Verb> unsupportedVerbs() {
        return unsupported;
    }

    /** @return this driver as the group of {@code c}, or null when one of the group's callbacks is left out */
    private <T> T group(Class<T> group) {
        for (Callback c : without) {
            if (c.group() == group) {
                return null;
            }
        }
        return group.cast(this);
    }

    @Override
    public SendEngine sendEngine() {
        return group(SendEngine.class);
    }

    @Override
    public MtuConversion mtuConversion() {
        return group(MtuConversion.class);
    }

    @Override
    public PortQuery portQuery() {
        return group(PortQuery.class);
    }

    @Override
    public PortModify portModify() {
        return group(PortModify.class);
    }

    @Override
    public GidLookup gidLookup() {
        return group(GidLookup.class);
    }

    @Override
    public QpPrivate qpPrivate() {
        return group(QpPrivate.class);
    }

    @Override
    public QpQuiesce qpQuiesce() {
        return group(QpQuiesce.class);
    }

    @Override
    public TimerService timerService() {
        return timerService;
    }

    @Override
    public Executor completionExecutor(int cpu) {
        return completionExecutor.apply(cpu);
    }

    @Override
    public Object qpPrivAlloc(DriverDevice rdi, DriverQp qp) {
        count(Callback.QP_PRIV_ALLOC);
        return null;
    }

    @Override
    public void qpPrivFree(DriverDevice rdi, DriverQp qp) {
        count(Callback.QP_PRIV_FREE);
    }

    @Override
    public void notifyQpReset(DriverQp qp) {
        count(Callback.NOTIFY_QP_RESET);
    }

    @Override
    public void notifyRestartRc(DriverQp qp, int psn, int wait) {
        count(Callback.NOTIFY_RESTART_RC);
    }

    @Override
    public boolean scheduleSend(DriverQp qp) {
        count(Callback.SCHEDULE_SEND);
        return true;
    }

    @Override
    public void doSend(DriverQp qp) {
        count(Callback.DO_SEND);
    }

    @Override
    public int getPmtuFromAttr(DriverDevice rdi, DriverQp qp, QpAttr attr) {
        count(Callback.GET_PMTU_FROM_ATTR);
        return attr.pathMtu().value();
    }

    @Override
    public void flushQpWaiters(DriverQp qp) {
        count(Callback.FLUSH_QP_WAITERS);
    }

    @Override
    public void stopSendQueue(DriverQp qp) {
        count(Callback.STOP_SEND_QUEUE);
    }

    @Override
    public void quiesceQp(DriverQp qp) {
        count(Callback.QUIESCE_QP);
    }

    @Override
    public void notifyErrorQp(DriverQp qp) {
        count(Callback.NOTIFY_ERROR_QP);
    }

    @Override
    public int mtuFromQp(DriverDevice rdi, DriverQp qp, int pmtu) {
        count(Callback.MTU_FROM_QP);
        return PathMtu.of(pmtu).bytes();
    }

    @Override
    public int mtuToPathMtu(int mtu) {
        count(Callback.MTU_TO_PATH_MTU);
        return PathMtu.ofBytes(mtu).value();
    }

    @Override
    public long getGuidBe(DriverDevice rdi, DriverPort port, int guidIndex) {
        count(Callback.GET_GUID_BE);
        return 0x0011_7500_0000_0000L | port.portNum();
    }

    @Override
    public int queryPortState(DriverDevice rdi, int portNum, PortAttr props) {
        count(Callback.QUERY_PORT_STATE);
        props.state(portState).gidTblLen(gidTblLen).maxMtu(PathMtu.MTU_4096).activeMtu(PathMtu.MTU_4096);
        return queryPortResult;
    }

    @Override
    public int shutDownPort(DriverDevice rdi, int portNum) {
        count(Callback.SHUT_DOWN_PORT);
        return 0;
    }

    @Override
    public void capMaskChg(DriverDevice rdi, int portNum) {
        count(Callback.CAP_MASK_CHG);
    }

    @Override
    public int checkAh(DriverDevice rdi, AhAttr attr) {
        if (without.contains(Callback.CHECK_AH)) {
            return RvtDriver.super.checkAh(rdi, attr);
        }
        count(Callback.CHECK_AH);
        return checkAh.applyAsInt(attr);
    }

    @Override
    public void notifyNewAh(DriverDevice rdi, AhAttr attr, DriverAh ah) {
        if (without.contains(Callback.NOTIFY_NEW_AH)) {
            return;
        }
        count(Callback.NOTIFY_NEW_AH);
        notifyNewAh.accept(attr, ah);
    }

    @Override
    public int compVectCpuLookup(DriverDevice rdi, int compVect) {
        if (without.contains(Callback.COMP_VECT_CPU_LOOKUP)) {
            return RvtDriver.super.compVectCpuLookup(rdi, compVect);
        }
        count(Callback.COMP_VECT_CPU_LOOKUP);
        return compVectCpu.applyAsInt(compVect);
    }

    @Override
    public String toString() {
        return "TestDriver{" + name + '}';
    }
}
