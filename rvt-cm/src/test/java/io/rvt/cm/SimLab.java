package io.rvt.cm;

import io.rvt.api.AccessFlag;
import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
import io.rvt.api.Gid;
import io.rvt.api.MemoryRegion;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.WorkCompletion;
import io.rvt.core.RvtDevice;
import io.rvt.driver.sim.SimDriver;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.driver.sim.fabric.FaultConfig;
import io.rvt.driver.sim.fabric.Partition;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

/**
 * Simulated HCAs on a deterministic fabric, each with a connection manager on the fabric's virtual time, and the
 * verbs objects a connection needs (PD, CQ, registered buffer). The test thread drives the fabric.
 */
public final class SimLab implements AutoCloseable {
    private static final AtomicInteger FABRICS = new AtomicInteger();
    /** Virtual-time budget of one wait: far above any retry schedule the tests use. */
    static final long BUDGET_NANOS = 600_000_000_000L;

    /** One HCA: its device, CM and verbs objects. */
    public static final class Host {
        public final Device device;
        public final ConnectionManager cm;
        public final ProtectionDomain pd;
        public final CompletionQueue cq;
        public final ByteBuffer buf;
        public final MemoryRegion mr;

        Host(Device device, ConnectionManager cm) {
            this.device = device;
            this.cm = cm;
            this.pd = device.allocPd();
            this.cq = device.createCq(256, 0, null, null);
            this.buf = ByteBuffer.allocateDirect(4096);
            this.mr = pd.regMr(buf, AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
                    AccessFlag.REMOTE_READ));
        }

        public Gid gid() {
            return device.queryGid(1, 0);
        }

        public QpOptions qp() {
            return new QpOptions().pd(pd).cq(cq);
        }
    }

    final long seed;
    public final Fabric fabric;
    private final List<RvtDevice> devices = new ArrayList<>();
    private final List<SimDriver> drivers = new ArrayList<>();
    final List<Host> hosts = new ArrayList<>();

    public SimLab(long seed) {
        this.seed = seed;
        this.fabric = Fabric.builder("cm-" + FABRICS.incrementAndGet()).deterministic(seed).build();
    }

    public Host host() {
        return host(b -> b, c -> c);
    }

    /**
     * @param driver changes to the HCA's builder
     * @param cm changes to the CM's configuration (on the fabric's timers, seeded, response timeout 16 = 268 ms)
     * @return a new HCA with its CM
     */
    public Host host(UnaryOperator<SimDriver.Builder> driver, UnaryOperator<CmConfig.Builder> cm) {
        SimDriver d = driver.apply(SimDriver.builder(fabric).name("hca" + devices.size())).build();
        RvtDevice dev = RvtDevice.register(d);
        devices.add(dev);
        drivers.add(d);
        ConnectionManager m = ConnectionManager.of(dev, cm.apply(CmConfig.builder()
                .timerService(fabric.timerService()).seed(seed + devices.size()).cmResponseTimeout(16)).build());
        Host h = new Host(dev, m);
        hosts.add(h);
        return h;
    }

    void loss(double loss, double duplication) {
        fabric.defaultFaults(FaultConfig.builder().loss(loss).duplication(duplication).build());
    }

    /** Runs the fabric until {@code condition} holds; fails with {@code what} if the virtual budget runs out. */
    public void runUntil(String what, BooleanSupplier condition) {
        if (!fabric.runUntil(condition, BUDGET_NANOS)) {
            throw new AssertionError("not within " + BUDGET_NANOS / 1_000_000 + " virtual ms: " + what + " (seed "
                    + seed + ")");
        }
    }

    public <T> T await(String what, CompletableFuture<T> f) {
        runUntil(what, f::isDone);
        return f.join();
    }

    /** Polls {@code cq} (driving the fabric) until a completion arrives. */
    public WorkCompletion poll(CompletionQueue cq) {
        WorkCompletion wc = new WorkCompletion();
        runUntil("a completion", () -> cq.pollCq(wc));
        return wc;
    }

    /** @return a registered simulated HCA with no connection manager (its GSI QP is free for a raw test peer) */
    public Device bareDevice() {
        SimDriver d = SimDriver.builder(fabric).name("raw" + devices.size()).build();
        RvtDevice dev = RvtDevice.register(d);
        devices.add(dev);
        drivers.add(d);
        hosts.add(null);
        return dev;
    }

    /** Cuts the link between two hosts both ways (heal the partition to restore it). */
    public Partition cut(Host a, Host b) {
        return fabric.partition(List.of(drivers.get(hosts.indexOf(a)).fabricPort(1)),
                List.of(drivers.get(hosts.indexOf(b)).fabricPort(1)));
    }

    /** @return the QPs alive on {@code h}'s device (the CM's GSI QP included) */
    int qpCount(Host h) {
        return devices.get(hosts.indexOf(h)).qpTable().size();
    }

    /** @return the device of {@code h} as rvt-core sees it */
    RvtDevice rvtDevice(Host h) {
        return devices.get(hosts.indexOf(h));
    }

    @Override
    public void close() {
        for (Host h : hosts) {
            if (h != null) {
                h.cm.close();
            }
        }
        for (RvtDevice d : devices) {
            d.unregister();
        }
        fabric.close();
    }
}
