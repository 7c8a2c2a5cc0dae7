package io.rvt.launcher;

import io.rvt.api.Device;
import io.rvt.api.DeviceRegistry;
import io.rvt.api.Rvt;
import io.rvt.driver.sim.SimDriver;
import io.rvt.driver.sim.clock.AgentRunner;
import io.rvt.driver.sim.clock.BusySpinIdleStrategy;
import io.rvt.driver.sim.clock.CompositeAgent;
import io.rvt.driver.sim.clock.IdleStrategy;
import io.rvt.driver.sim.fabric.Counters;
import io.rvt.driver.sim.fabric.DropCause;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.driver.sim.fabric.FaultConfig;
import io.rvt.driver.sim.fabric.ThreadingMode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Two simulated HCAs ({@code sim0}, {@code sim1}) on one fabric built from the fabric options, registered in a
 * plain-Java device registry ({@link Rvt#create()}): no OSGi, and the fabric's counters in reach.
 *
 * <p>Threads: in real time the fabric's delivery agent and both HCAs' send engines run on one thread (a
 * {@link CompositeAgent}), which leaves the other core of a small machine to the command's thread. A deterministic
 * fabric (virtual time) is driven by one thread of its own that runs its event loop, which also runs the HCAs' send
 * engines and timers; the command's thread only posts and polls.
 */
public final class PlainHost implements Host {
    /** Fabric names are registered per JVM: a second host in one JVM (tests) takes the next free name. */
    private static final AtomicInteger HOSTS = new AtomicInteger();

    private final FabricOptions options;
    private final Fabric fabric;
    private final DeviceRegistry registry;
    private final AgentRunner network;
    private final List<Device> devices;

    private PlainHost(FabricOptions options) {
        this.options = options;
        int n = HOSTS.getAndIncrement();
        String name = n == 0 ? "rvt" : "rvt-" + n;
        FaultConfig faults = FaultConfig.builder().loss(options.loss()).duplication(options.duplication())
                .reorder(options.reorder(), options.reorder() > 0 ? FabricOptions.MAX_REORDER_DELAY_NANOS : 0)
                .build();
        if (options.deterministic()) {
            fabric = Fabric.builder(name).deterministic(options.seed()).threading(ThreadingMode.DEDICATED)
                    .idleStrategy(idle()).faults(faults).build();
        } else {
            fabric = Fabric.builder(name).realTime().seed(options.seed()).threading(ThreadingMode.INVOKER)
                    .faults(faults).build();
        }
        SimDriver sim0 = driver("sim0");
        SimDriver sim1 = driver("sim1");
        registry = Rvt.create();
        devices = List.of(registry.register(sim0), registry.register(sim1));
        network = options.deterministic() ? null
                : AgentRunner.start(new CompositeAgent("rvt-network-" + name,
                        List.of(fabric.agent(), sim0.sendAgent(), sim1.sendAgent())), idle(),
                        e -> System.getLogger(PlainHost.class.getName())
                                .log(System.Logger.Level.WARNING, "simulated network failed", e));
    }

    /**
     * The network thread busy-spins while idle, as a perftest process polls: a command's thread waits on it for
     * every message, and a parked thread wakes up to a millisecond late, which would be measured as latency. It
     * lives only as long as the command.
     */
    private static IdleStrategy idle() {
        return new BusySpinIdleStrategy();
    }

    private SimDriver driver(String name) {
        return SimDriver.builder(fabric).name(name).threading(ThreadingMode.INVOKER).build();
    }

    /**
     * Builds the fabric and its two HCAs and registers them.
     *
     * @param options the fabric to build
     * @return the running host
     */
    public static PlainHost start(FabricOptions options) {
        return new PlainHost(options);
    }

    /** @return the fabric the HCAs are attached to */
    public Fabric fabric() {
        return fabric;
    }

    @Override
    public List<Device> devices() {
        return devices;
    }

    @Override
    public DriverKind driver() {
        return DriverKind.SIM;
    }

    @Override
    public String description() {
        return "driver-sim on fabric '" + fabric.name() + "' (" + options.describe() + ")";
    }

    @Override
    public Map<String, Long> fabricCounters() {
        Counters c = fabric.counters();
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("tx_frames", c.txFrames());
        m.put("tx_bytes", c.txBytes());
        m.put("rx_frames", c.rxFrames());
        m.put("rx_bytes", c.rxBytes());
        for (DropCause cause : DropCause.values()) {
            m.put("drop." + cause.name().toLowerCase(Locale.ROOT), c.drops(cause));
        }
        m.put("duplicated", c.duplicated());
        m.put("reordered", c.reordered());
        m.put("corrupted", c.corrupted());
        return m;
    }

    @Override
    public void close() {
        // the network thread first: it would otherwise run send engines of devices being torn down
        if (network != null) {
            network.close();
        }
        registry.close();
        fabric.close();
    }
}
