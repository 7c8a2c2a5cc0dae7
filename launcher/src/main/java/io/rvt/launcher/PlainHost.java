package io.rvt.launcher;

import io.rvt.api.Device;
import io.rvt.api.spi.DriverRegistry;
import io.rvt.api.spi.RvtDriver;
import io.rvt.api.spi.agent.Agent;
import io.rvt.api.spi.agent.AgentInvoker;
import io.rvt.api.spi.agent.AgentRunner;
import io.rvt.api.spi.agent.BusySpinIdleStrategy;
import io.rvt.api.spi.agent.CompositeAgent;
import io.rvt.api.spi.agent.IdleStrategy;
import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.driver.sim.SimDriver;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.driver.sim.fabric.FabricBuilder;
import io.rvt.driver.sim.fabric.FaultConfig;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Two simulated HCAs ({@code sim0}, {@code sim1}) on one fabric built from the fabric options, registered in a
 * plain-Java device registry ({@link DriverRegistry#create()}): no OSGi, and the fabric's counters in reach.
 *
 * <p>Threads: by default ({@link Threading#PROGRESS}) the fabric and both HCAs' send engines are one duty cycle that
 * the command's polls run through rvt-core's progress hook, and a backstop thread runs when they stop (a
 * deterministic fabric's event loop the same way: the same seed and command give the same trace). As overrides: in
 * real time the fabric's delivery agent and both HCAs' send engines run as one {@link CompositeAgent}:
 * with {@link Threading#SHARED} on a thread of its own (named {@value #NETWORK_THREAD} and the fabric's name), which
 * leaves the other core of a small machine to the command's thread; with {@link Threading#INVOKER} on the command's
 * thread, one duty cycle per {@link #progress()}, so that no packet's cache lines move between cores; with
 * {@link Threading#DEDICATED} each on a thread of its own (the fabric's and each HCA's, as driver-sim's Config Admin
 * {@code threading=dedicated}). A deterministic fabric (virtual time) has one event loop, which also runs the HCAs'
 * send engines and timers: with {@link Threading#DEDICATED} a thread of its own drives it while the command's thread
 * posts and polls (so where a post lands in virtual time depends on the two threads' timing); with
 * {@link Threading#INVOKER} the command's thread drives it, one event per {@link #progress()}, and the same seed and command give the same packet trace
 * ({@code trace_hash} in {@link #fabricCounters()}).
 */
public final class PlainHost implements Host {
    /** The start of the network thread's name; the fabric's name follows. */
    static final String NETWORK_THREAD = "rvt-network-";
    /** Fabric names are registered per JVM: a second host in one JVM (tests) takes the next free name. */
    private static final AtomicInteger HOSTS = new AtomicInteger();

    private final FabricOptions options;
    private final Threading threading;
    private final Fabric fabric;
    private final DriverRegistry registry;
    /** The network thread ({@link Threading#SHARED}), else null. */
    private final AgentRunner network;
    /** The network's agents, run by {@link #progress()} ({@link Threading#INVOKER} in real time), else null. */
    private final AgentInvoker invoker;
    /** Deterministic with {@link Threading#INVOKER}: {@link #progress()} runs the event loop's next event. */
    private final boolean drivesLoop;
    private final List<Device> devices;

    private PlainHost(FabricOptions options, Threading threading) {
        this.options = options;
        this.threading = threading;
        int n = HOSTS.getAndIncrement();
        String name = n == 0 ? "rvt" : "rvt-" + n;
        FaultConfig faults = FaultConfig.builder().loss(options.loss()).duplication(options.duplication())
                .reorder(options.reorder(), options.reorder() > 0 ? FabricOptions.MAX_REORDER_DELAY_NANOS : 0)
                .build();
        boolean progress = threading == Threading.PROGRESS;
        if (threading == Threading.SHARED && options.deterministic()) {
            throw new IllegalArgumentException("a deterministic fabric runs on its event loop's thread: dedicated, "
                    + "not shared");
        }
        if (progress) {
            // the progress hook: the command's polls run the fabric and both HCAs; a backstop that never spins
            FabricBuilder b = Fabric.builder(name).seed(options.seed()).threading(ThreadingMode.PROGRESS)
                    .faults(faults);
            fabric = (options.deterministic() ? b.deterministic(options.seed()) : b.realTime()).build();
        } else if (options.deterministic()) {
            fabric = Fabric.builder(name).deterministic(options.seed())
                    .threading(threading == Threading.INVOKER ? ThreadingMode.INVOKER : ThreadingMode.DEDICATED)
                    .idleStrategy(idle()).faults(faults).build();
        } else if (threading == Threading.DEDICATED) {
            // three engine threads and the command's on two cores: they back off when idle (driver-sim's default),
            // where three spinning ones left the command's thread and each other too little for RC's retry budget
            fabric = Fabric.builder(name).realTime().seed(options.seed()).threading(ThreadingMode.DEDICATED)
                    .faults(faults).build();
        } else {
            fabric = Fabric.builder(name).realTime().seed(options.seed()).threading(ThreadingMode.INVOKER)
                    .faults(faults).build();
        }
        SimDriver sim0 = driver("sim0");
        SimDriver sim1 = driver("sim1");
        registry = DriverRegistry.create();
        devices = List.of(registry.register(sim0), registry.register(sim1));
        Agent agents = options.deterministic() || progress || threading == Threading.DEDICATED ? null
                : new CompositeAgent(NETWORK_THREAD + name,
                List.of(fabric.agent(), sim0.sendAgent(), sim1.sendAgent()));
        invoker = threading == Threading.INVOKER && agents != null ? new AgentInvoker(agents) : null;
        drivesLoop = threading == Threading.INVOKER && options.deterministic();
        network = agents != null && invoker == null ? AgentRunner.start(agents, idle(),
                e -> System.getLogger(PlainHost.class.getName())
                        .log(System.Logger.Level.WARNING, "simulated network failed", e)) : null;
        if (invoker != null) {
            invoker.start(); // on the starting thread, as Aeron's AgentInvoker.start() does
        }
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
        SimDriver.Builder b = SimDriver.builder(fabric).name(name).ports(options.ports());
        if (threading == Threading.DEDICATED && !options.deterministic()) {
            return b.threading(ThreadingMode.DEDICATED).build(); // backing off when idle, as the fabric's thread
        }
        return (threading == Threading.PROGRESS ? b : b.threading(ThreadingMode.INVOKER)).build();
    }

    /**
     * Builds the fabric and its two HCAs and registers them; the command's polls run the network (the progress hook),
     * a backstop thread when they stop.
     *
     * @param options the fabric to build
     * @return the running host
     */
    public static PlainHost start(FabricOptions options) {
        return start(options, Threading.PROGRESS);
    }

    /**
     * Builds the fabric and its two HCAs and registers them.
     *
     * @param options the fabric to build
     * @param threading who runs the network: a thread of its own, or the caller of {@link #progress()}
     * @return the running host
     * @throws IllegalArgumentException for {@link Threading#SHARED} on a deterministic fabric
     */
    public static PlainHost start(FabricOptions options, Threading threading) {
        return new PlainHost(options, threading);
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
        return "driver-sim on fabric '" + fabric.name() + "' (" + options.describe()
                + (threading != Threading.PROGRESS ? "; --threading " + threading.option() : "") + ")";
    }

    @Override
    public Threading threading() {
        return threading;
    }

    /**
     * With {@link Threading#PROGRESS}: runs the fabric's progress hook on the calling thread, as an empty poll does
     * (so a wait that polls no CQ, e.g. for a connection, drives the network too, and a deterministic fabric replays).
     * With {@link Threading#INVOKER}: runs one duty cycle of the fabric's delivery agent and both HCAs' send agents on
     * the calling thread, or, in a deterministic fabric, the event loop's next event (spinning if there is none).
     * Otherwise spins, as {@link Host#progress()}.
     *
     * @throws IllegalStateException if an agent fails
     */
    @Override
    public void progress() {
        if (threading == Threading.PROGRESS) {
            if (fabric.progress(RvtDriver.POLL_BUDGET) == 0) {
                Thread.onSpinWait();
            }
        } else if (invoker != null) {
            invoker.invoke();
        } else if (!drivesLoop || !fabric.step()) {
            Thread.onSpinWait();
        }
    }

    /**
     * On a deterministic fabric the CMs run on its virtual time and draw from its seed, so that a connection's MADs
     * are part of the same reproducible trace.
     */
    @Override
    public io.rvt.cm.CmConfig cmConfig() {
        if (!options.deterministic()) {
            return Connector.realTime();
        }
        return io.rvt.cm.CmConfig.builder().timerService(fabric.timerService()).seed(options.seed())
                .cmResponseTimeout(Connector.CM_RESPONSE_TIMEOUT).build();
    }

    @Override
    public Map<String, Long> fabricCounters() {
        return fabric.counterMap(); // trace_hash: the same for the same seed and command
    }

    @Override
    public void close() {
        // the network thread first: it would otherwise run send engines of devices being torn down
        if (network != null) {
            network.close();
        }
        if (invoker != null) {
            invoker.close();
        }
        registry.close();
        fabric.close();
    }
}
