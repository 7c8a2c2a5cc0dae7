package io.rvt.core;

import io.rvt.api.AhAttr;
import io.rvt.api.AsyncEvent;
import io.rvt.api.AsyncEventHandler;
import io.rvt.api.AsyncEventType;
import io.rvt.api.CompletionChannel;
import io.rvt.api.CompletionHandler;
import io.rvt.api.CompletionQueue;
import io.rvt.api.DeviceAttributes;
import io.rvt.api.DeviceCounter;
import io.rvt.api.Errno;
import io.rvt.api.Gid;
import io.rvt.api.PortAttr;
import io.rvt.api.PortCounter;
import io.rvt.api.PortModifyFlag;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QpInitAttr;
import io.rvt.api.ScatterGatherEntry;
import io.rvt.api.SrqInitAttr;
import io.rvt.api.VerbsException;
import io.rvt.api.spi.Callback;
import io.rvt.api.spi.DriverParams;
import io.rvt.api.spi.DriverPort;
import io.rvt.api.spi.GidLookup;
import io.rvt.api.spi.MtuConversion;
import io.rvt.api.spi.OperationTable;
import io.rvt.api.spi.QpCallback;
import io.rvt.api.spi.QpIter;
import io.rvt.api.spi.QpPrivate;
import io.rvt.api.spi.QpQuiesce;
import io.rvt.api.spi.RvtDriver;
import io.rvt.api.spi.SendEngine;
import io.rvt.api.spi.Sge;
import io.rvt.api.spi.TimerService;
import io.rvt.api.spi.Verb;
import io.rvt.core.ah.RvtAh;
import io.rvt.core.base.Errors;
import io.rvt.core.cq.RvtCompChannel;
import io.rvt.core.cq.RvtCq;
import io.rvt.core.mr.RvtLkeyTable;
import io.rvt.core.mr.RvtPd;
import io.rvt.core.qp.QpDevice;
import io.rvt.core.qp.QpnTable;
import io.rvt.core.qp.RvtIbport;
import io.rvt.core.qp.RvtQp;
import io.rvt.core.qp.RvtQpTable;
import io.rvt.core.srq.RvtSrq;
import io.rvt.core.timer.AgentExecutor;
import io.rvt.core.timer.SystemTimerService;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One rvt device ({@code struct rvt_dev_info}): a validated driver, its ports, the QP table and QPN allocator, the
 * lkey table, object counters, completion executors and the timer service. Built by {@link #register(RvtDriver)}
 * (rdmavt: {@code rvt_alloc_device} + {@code rvt_init_port} + {@code rvt_register_device}), removed by
 * {@link #unregister()}.
 */
public final class RvtDevice implements QpDevice {
    private static final System.Logger LOG = System.getLogger(RvtDevice.class.getName());
    /** The live device of each registered driver instance (by identity); its names are the ones taken. */
    private static final java.util.Map<RvtDriver, RvtDevice> REGISTERED = new java.util.IdentityHashMap<>();

    /** {@code RC_QP_SCALING_INTERVAL}: one busy tick per this many RC QPs. */
    public static final int RC_QP_SCALING_INTERVAL = 5;

    private final RvtDriver driver;
    private final String name;
    private final DriverParams params;
    private final DeviceAttributes props;
    private final OperationTable operationTable;
    private final DriverGroups groups;
    private final Set<Verb> unsupported;
    private final RvtIbport[] ports;
    private final RvtQpTable qpTable;
    private final QpnTable qpnTable;
    private final RvtLkeyTable lkeyTable;
    private final TimerService timers;
    private final SystemTimerService ownTimers;
    private final AtomicLongArray counts = new AtomicLongArray(DeviceCounter.values().length);
    /** rvt's completion threads, made on first use; guarded by the array's monitor, as is {@link #compClosed}. */
    private final AgentExecutor[] compExecutors;
    /** Set once the device's removal closed its completion threads: none is made after that. */
    private boolean compClosed;
    private final Object rcQpLock = new Object();
    private volatile int busyTicks;
    private volatile AsyncEventHandler eventHandler;
    private volatile boolean alive = true;
    private final DeviceClients clients = new DeviceClients(this);

    private RvtDevice(RvtDriver driver, String name, DriverParams params, OperationTable ops,
            DriverGroups groups) {
        this.driver = driver;
        this.params = params;
        this.operationTable = ops;
        this.groups = groups;
        Set<Verb> declined = driver.unsupportedVerbs();
        this.unsupported = declined == null ? Set.of() : Set.copyOf(declined);
        this.name = name;
        int bits = Math.min(params.lkeyTableSize(), RvtLkeyTable.MAX_LKEY_TABLE_BITS);
        if (params.lkeyTableSize() > RvtLkeyTable.MAX_LKEY_TABLE_BITS) {
            LOG.log(System.Logger.Level.WARNING, () -> "driver '" + driver.name() + "': lkey_table_size " + params.lkeyTableSize()
                    + " clamped to " + RvtLkeyTable.MAX_LKEY_TABLE_BITS);
        }
        long caps = params.props().deviceCapFlags();
        if (ops.get(io.rvt.api.WrOpcode.BIND_MW) != null) {
            // Memory windows, type 1 and 2B, as rxe reports them (rvt goes beyond rdmavt here).
            caps |= DeviceAttributes.DEVICE_MEM_WINDOW | DeviceAttributes.DEVICE_MEM_WINDOW_TYPE_2B;
        }
        if (ops.get(io.rvt.api.WrOpcode.ATOMIC_WRITE) != null) {
            caps |= DeviceAttributes.DEVICE_ATOMIC_WRITE; // IBTA 1.5, as rxe since Linux 6.2
        }
        if (ops.get(io.rvt.api.WrOpcode.FLUSH) != null) {
            caps |= DeviceAttributes.DEVICE_FLUSH_GLOBAL; // not FLUSH_PERSISTENT: no persistent memory
        }
        this.props = params.props().toBuilder().maxMr(1 << bits).deviceCapFlags(caps).build();
        this.ports = new RvtIbport[params.nports()];
        for (int i = 0; i < ports.length; i++) {
            ports[i] = new RvtIbport(this, i + 1, params.npkeys(), driver.initialPkeys(i + 1));
        }
        this.qpTable = new RvtQpTable(this, params.qpTableSize());
        this.qpnTable = new QpnTable(params);
        this.lkeyTable = new RvtLkeyTable(this, bits);
        TimerService ts = driver.timerService();
        if (ts == null) {
            ownTimers = new SystemTimerService("rvt-" + name + "-timer");
            timers = ownTimers;
        } else {
            ownTimers = null;
            timers = ts;
        }
        this.compExecutors = new AgentExecutor[Math.max(1, params.numCompVectors())];
    }

    /**
     * Validates {@code driver} and builds its device (rdmavt: {@code rvt_register_device}). Nothing is allocated for a
     * driver that fails validation.
     *
     * @param driver the driver
     * @return the registered device
     * @throws io.rvt.api.spi.DriverValidationException naming the driver and the verb and callback, or the
     *                                                  parameter, that failed
     * @throws VerbsException EBUSY if this driver instance is registered already (naming its device); ENFILE if the
     *                        driver's fixed name is another device's; EINVAL if it is not a usable name or pattern
     *                        (see {@link RvtDriver#name()})
     */
    public static RvtDevice register(RvtDriver driver) {
        DriverValidator.Result ok = DriverValidator.validate(driver);
        RvtDevice dev;
        synchronized (REGISTERED) {
            RvtDevice existing = REGISTERED.get(driver);
            if (existing != null) {
                // rdmavt cannot see this (one rvt_dev_info per driver instance); two devices would share the
                // driver's per-device state, and removing one would close the other's ports.
                throw new VerbsException(Errno.EBUSY, "driver '" + driver.name() + "' is already registered as "
                        + existing.name() + "; unregister that device first");
            }
            List<String> taken = new ArrayList<>(REGISTERED.size());
            for (RvtDevice d : REGISTERED.values()) {
                taken.add(d.name);
            }
            dev = new RvtDevice(driver, DeviceNames.assign(driver.name(), taken), ok.params(),
                    ok.operationTable(), ok.groups());
            REGISTERED.put(driver, dev);
        }
        try {
            for (int i = 0; i < dev.ports.length; i++) {
                driver.notifyCreateMadAgent(dev, i);
            }
            driver.registered(dev);
        } catch (RuntimeException e) {
            synchronized (REGISTERED) {
                REGISTERED.remove(driver, dev);
            }
            throw e;
        }
        return dev;
    }

    /**
     * Removes the device (rdmavt: {@code rvt_unregister_device}, which calls {@code ib_unregister_device} first): the
     * device's {@link io.rvt.api.DeviceClient clients} are told, newest first, while the device still works
     * ({@code disable_device}'s clients' {@code remove}); then every QP moves to ERR (its posted work flushes through
     * the driver), applications get {@link AsyncEventType#DEVICE_REMOVAL}, the driver is told to stop, and every
     * later verb fails with {@code ENODEV}. Idempotent: a second call returns at once, even while the first still
     * runs.
     */
    public void unregister() {
        if (!alive || !clients.removeAll()) {
            return;
        }
        List<RvtQp> qps = new ArrayList<>();
        qpTable.forEach(qps::add);
        for (RvtQp qp : qps) {
            qp.moveToError();
        }
        dispatch(AsyncEvent.ofDevice(AsyncEventType.DEVICE_REMOVAL, this), null);
        alive = false;
        // A QP that entered the table meanwhile (its modifyQp to INIT checked the device before) joins the flush.
        Set<RvtQp> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        seen.addAll(qps);
        qpTable.forEach(qp -> {
            if (seen.add(qp)) {
                qp.moveToError();
                qps.add(qp);
            }
        });
        for (int i = 0; i < ports.length; i++) {
            driver.notifyFreeMadAgent(this, i);
        }
        try {
            driver.unregistering(this);
        } finally {
            // The driver's send engine is gone: complete what is still posted with WR_FLUSH_ERR ourselves.
            for (RvtQp qp : qps) {
                qp.flushSendQueue();
            }
            closeCompletionExecutors();
            if (ownTimers != null) {
                ownTimers.close();
            }
            synchronized (REGISTERED) {
                REGISTERED.remove(driver, this);
            }
        }
    }

    // ------------------------------------------------------------------ CoreDevice, MrDevice, QpDevice

    @Override
    public void checkAlive() {
        if (!alive) {
            throw new VerbsException(Errno.ENODEV, "device " + name + " was removed");
        }
    }

    @Override
    public boolean provides(Callback c) {
        return groups.provides(c);
    }

    @Override
    public SendEngine sendEngine() {
        return groups.sendEngine();
    }

    @Override
    public MtuConversion mtuConversion() {
        return groups.mtuConversion();
    }

    @Override
    public GidLookup gidLookup() {
        return groups.gidLookup();
    }

    @Override
    public QpPrivate qpPrivate() {
        return groups.qpPrivate();
    }

    @Override
    public QpQuiesce qpQuiesce() {
        return groups.qpQuiesce();
    }

    @Override
    public void checkVerb(Verb verb) {
        if (unsupported.contains(verb)) {
            throw new VerbsException(Errno.EOPNOTSUPP, "driver '" + driver.name() + "' does not support " + verb);
        }
    }

    @Override
    public boolean tryCount(DeviceCounter c, long max) {
        int i = c.ordinal();
        while (true) {
            long n = counts.get(i);
            if (n >= max) {
                return false;
            }
            if (counts.compareAndSet(i, n, n + 1)) {
                return true;
            }
        }
    }

    @Override
    public void uncount(DeviceCounter c) {
        counts.decrementAndGet(c.ordinal());
    }

    @Override
    public void countRcQp(int delta) {
        synchronized (rcQpLock) {
            long n = counts.addAndGet(DeviceCounter.RC_QPS.ordinal(), delta);
            busyTicks = (int) (n / RC_QP_SCALING_INTERVAL);
        }
    }

    @Override
    public void dispatch(AsyncEvent event, AsyncEventHandler objectHandler) {
        AsyncEventHandler h = objectHandler != null ? objectHandler : eventHandler;
        if (h == null) {
            return;
        }
        try {
            h.onEvent(event);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "event handler failed on " + event, e);
        }
    }

    /**
     * The executor for completion handlers of a CQ whose vector maps to {@code cpu}: the driver's, or one of rvt's
     * completion threads ({@link AgentExecutor}s on the agent runtime, one per completion vector, made on first use
     * and stopped by the device's removal).
     */
    @Override
    public Executor completionExecutor(int cpu) {
        Executor own = driver.completionExecutor(cpu);
        if (own != null) {
            return own;
        }
        int i = Math.floorMod(cpu, compExecutors.length);
        synchronized (compExecutors) {
            if (compClosed) {
                return CLOSED_EXECUTOR;
            }
            if (compExecutors[i] == null) {
                compExecutors[i] = new AgentExecutor(name + "-comp-" + i);
            }
            return compExecutors[i];
        }
    }

    /** What {@link #completionExecutor} gives once the device is gone: it refuses, as a closed executor does. */
    private static final Executor CLOSED_EXECUTOR = task -> {
        throw new RejectedExecutionException("the device was unregistered");
    };

    /** Runs what the completion threads have queued and stops them (at most 5 s each before an interrupt). */
    private void closeCompletionExecutors() {
        synchronized (compExecutors) {
            compClosed = true;
        }
        for (AgentExecutor e : compExecutors) {
            if (e != null) {
                e.close();
            }
        }
    }

    @Override
    public RvtLkeyTable lkeyTable() {
        return lkeyTable;
    }

    @Override
    public RvtQpTable qpTable() {
        return qpTable;
    }

    @Override
    public QpnTable qpnTable() {
        return qpnTable;
    }

    @Override
    public RvtIbport checkedPort(int portNum) {
        if (portNum < 1 || portNum > ports.length) {
            throw Errors.inval("port " + portNum + " does not exist (device " + name + " has " + ports.length
                    + " port" + (ports.length == 1 ? "" : "s") + ")");
        }
        return ports[portNum - 1];
    }

    @Override
    public DeviceAttributes props() {
        return props;
    }

    @Override
    public RvtQp createQp(RvtPd pd, QpInitAttr init) {
        return RvtQp.create(this, pd, init);
    }

    @Override
    public RvtSrq createSrq(RvtPd pd, SrqInitAttr init) {
        return RvtSrq.create(this, pd, init);
    }

    @Override
    public RvtAh createAh(RvtPd pd, AhAttr attr) {
        return RvtAh.create(this, pd, attr);
    }

    @Override
    public void deregCleanQps(RvtPd pd, int lkey) {
        qpTable.forEachRetained(qp -> {
            if (qp.pd() == pd) {
                qp.mrClean(lkey);
            }
        });
    }

    // ------------------------------------------------------------------ Device

    @Override
    public String name() {
        return name;
    }

    @Override
    public String driverName() {
        return driver.name();
    }

    @Override
    public DeviceAttributes queryDevice() {
        checkAlive();
        return props;
    }

    @Override
    public int portCount() {
        return ports.length;
    }

    @Override
    public PortAttr queryPort(int portNum, PortAttr out) {
        if (out == null) {
            throw Errors.inval("queryPort: out is null");
        }
        checkAlive();
        checkVerb(Verb.QUERY_PORT);
        RvtIbport p = checkedPort(portNum);
        out.smLid(p.smLid()).smSl(p.smSl()).portCapFlags(p.portCapFlags()).maxMsgSz(0x8000_0000L)
                .pkeyTblLen(params.npkeys()).badPkeyCntr((int) p.counter(PortCounter.PKEY_VIOLATIONS))
                .qkeyViolCntr((int) p.counter(PortCounter.QKEY_VIOLATIONS)).subnetTimeout(p.subnetTimeout())
                .initTypeReply(0).lid(p.lid()).lmc(p.lmc());
        int r = groups.portQuery().queryPortState(this, portNum, out);
        if (r < 0) {
            throw Errors.of(r, "driver '" + driver.name() + "' query_port_state failed for port " + portNum);
        }
        return out;
    }

    @Override
    public void modifyPort(int portNum, int flags, int setPortCapMask, int clrPortCapMask) {
        checkAlive();
        checkVerb(Verb.MODIFY_PORT);
        RvtIbport p = checkedPort(portNum);
        if (PortModifyFlag.OPA_MASK_CHG.in(flags)) {
            p.changeCap3Flags(setPortCapMask, clrPortCapMask);
        } else {
            p.changeCapFlags(setPortCapMask, clrPortCapMask);
        }
        if (setPortCapMask != 0 || clrPortCapMask != 0) {
            groups.portModify().capMaskChg(this, portNum);
        }
        int r = 0;
        if (PortModifyFlag.SHUTDOWN.in(flags)) {
            r = groups.portModify().shutDownPort(this, portNum);
        }
        if (PortModifyFlag.RESET_QKEY_CNTR.in(flags)) {
            p.resetCounter(PortCounter.QKEY_VIOLATIONS);
        }
        if (r < 0) {
            throw Errors.of(r, "driver '" + driver.name() + "' shut_down_port failed for port " + portNum);
        }
    }

    @Override
    public Gid queryGid(int portNum, int index) {
        checkAlive();
        checkVerb(Verb.QUERY_GID);
        RvtIbport p = checkedPort(portNum);
        if (index < 0) {
            throw Errors.inval("gid index " + index + " is negative");
        }
        return Gid.of(p.gidPrefix(), groups.gidLookup().getGuidBe(this, p, index));
    }

    @Override
    public int queryPkey(int portNum, int index) {
        checkAlive();
        RvtIbport p = checkedPort(portNum);
        if (index < 0 || index >= params.npkeys()) {
            throw Errors.inval("pkey index " + index + " is outside the table of " + params.npkeys());
        }
        return p.pkey(index);
    }

    @Override
    public ProtectionDomain allocPd() {
        checkAlive();
        return RvtPd.alloc(this, false);
    }

    @Override
    public CompletionQueue createCq(int cqe, int compVector, CompletionHandler handler,
            AsyncEventHandler cqEventHandler) {
        checkAlive();
        return RvtCq.create(this, cqe, compVector, handler, cqEventHandler);
    }

    @Override
    public CompletionQueue createCq(int cqe, int compVector, CompletionChannel channel, CompletionHandler handler,
            AsyncEventHandler cqEventHandler) {
        checkAlive();
        return RvtCq.create(this, cqe, compVector, channel, handler, cqEventHandler);
    }

    @Override
    public CompletionChannel createCompChannel() {
        checkAlive();
        return RvtCompChannel.create(this);
    }

    @Override
    public void setAsyncEventHandler(AsyncEventHandler handler) {
        this.eventHandler = handler;
    }

    @Override
    public long portCounter(int portNum, PortCounter counter) {
        if (counter == null) {
            throw Errors.inval("portCounter: counter is null");
        }
        return checkedPort(portNum).counter(counter);
    }

    @Override
    public long deviceCounter(DeviceCounter counter) {
        if (counter == null) {
            throw Errors.inval("deviceCounter: counter is null");
        }
        return counts.get(counter.ordinal());
    }

    @Override
    public boolean isAlive() {
        return alive;
    }

    @Override
    public io.rvt.api.DeviceClient.Registration registerClient(io.rvt.api.DeviceClient client) {
        return clients.register(client);
    }

    /** @return how many of this device's clients threw from their {@code remove} (each logged; the removal went on) */
    public long clientFailures() {
        return clients.failures();
    }

    /** @return the clients registered on this device and not yet called or deregistered */
    public int clientCount() {
        return clients.size();
    }

    // ------------------------------------------------------------------ DriverDevice

    @Override
    public RvtDriver driver() {
        return driver;
    }

    @Override
    public DriverParams params() {
        return params;
    }

    @Override
    public OperationTable operationTable() {
        return operationTable;
    }

    @Override
    public RvtIbport port(int portNum) {
        if (portNum < 1 || portNum > ports.length) {
            throw new IllegalArgumentException("port " + portNum + " does not exist on " + name);
        }
        return ports[portNum - 1];
    }

    @Override
    public RvtQp lookupQpn(DriverPort port, int qpn) {
        return qpTable.lookup((RvtIbport) port, qpn);
    }

    @Override
    public RvtQp lookupQpnAndRetain(DriverPort port, int qpn) {
        return qpTable.lookupAndRetain((RvtIbport) port, qpn);
    }

    @Override
    public QpIter qpIter() {
        return qpTable.iter();
    }

    @Override
    public void forEachQp(long v, QpCallback cb) {
        qpTable.forEachRetained(qp -> cb.accept(qp, v));
    }

    @Override
    public int lkeyOk(ProtectionDomain pd, Sge isge, Sge lastSge, ScatterGatherEntry sge, int acc) {
        return lkeyTable.lkeyOk((RvtPd) pd, isge, lastSge, sge, acc);
    }

    @Override
    public TimerService timerService() {
        return timers;
    }

    @Override
    public int busyTicks() {
        return busyTicks;
    }

    @Override
    public String toString() {
        return "RvtDevice{" + name + ", driver=" + driver.name() + ", ports=" + ports.length + '}';
    }
}
