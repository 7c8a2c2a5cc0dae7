package io.rvt.driver.sim.fabric;

import io.rvt.api.Gid;
import io.rvt.api.spi.TimerService;
import io.rvt.api.spi.agent.Agent;
import io.rvt.api.spi.agent.BackoffIdleStrategy;
import io.rvt.api.spi.agent.IdleStrategy;
import io.rvt.api.spi.agent.ProgressEngine;
import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.driver.sim.clock.EventLoop;
import io.rvt.driver.sim.clock.NanoClock;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A named in-JVM network: a switch that forwards {@link Frame}s between attached {@link FabricPort}s by destination
 * LID — to one port (unicast, 0x0001..0xBFFF) or to every port that joined a multicast LID (0xC000..0xFFFE, never back
 * to the sender) — over links with bandwidth, latency and seeded faults; frames to unknown destinations are dropped
 * and counted. Fabrics are registered by name: {@link #named(String)} returns the same instance for the same name
 * until it is {@link #close() closed}; two names are two isolated networks.
 *
 * <p>Modes ({@link FabricMode}): deterministic — virtual time on an {@link EventLoop}, driven by the caller
 * ({@link #runUntilIdle()}, {@link #runFor(long)}, {@link #step()}, {@link #runUntil(BooleanSupplier, long)}) or by
 * one thread; the loop also provides a {@link TimerService} and an {@link Executor} on the same time, and the same
 * seed and program give the same {@link #trace()} and {@link #traceHash()}. Real-time — a delivery agent holds
 * frames until due on {@link System#nanoTime()} and delivers them on its thread, run by a dedicated thread with the
 * configured {@link IdleStrategy} or by the caller.
 *
 * <pre>{@code
 * Fabric lab = Fabric.builder("lab").deterministic(42)
 *         .defaultLink(LinkModel.of(100_000_000_000L, 500))
 *         .faults(FaultConfig.builder().loss(0.01).build()).build();
 * FabricPort a = lab.newPort().attach();
 * FabricPort b = lab.newPort().handler(frame -> { ...; frame.release(); }).attach();
 * a.send(b.lid(), ByteBuffer.wrap(bytes));
 * lab.runUntilIdle();                                   // b's handler runs at virtual time 1000 + serialisation
 * }</pre>
 *
 * <p>Threading: every method may be called from any thread. Frame handling runs on one thread at a time.
 */
public final class Fabric implements AutoCloseable {
    /** The first unicast LID. */
    public static final int UNICAST_FIRST = 0x0001;
    /** The last unicast LID. */
    public static final int UNICAST_LAST = 0xBFFF;
    /** The first multicast LID. */
    public static final int MULTICAST_FIRST = 0xC000;
    /** The last multicast LID (0xFFFF is the permissive LID, which the fabric does not route). */
    public static final int MULTICAST_LAST = 0xFFFE;
    /** The default GID prefix: the link-local prefix 0xFE80::/64. */
    public static final long DEFAULT_GID_PREFIX = 0xFE80_0000_0000_0000L;
    /** The seed of a fabric built without one. */
    public static final long DEFAULT_SEED = 0x5EED_0F_FAB_21CL;
    /** High bits of the GUIDs the fabric assigns; the low 32 bits count ports. */
    public static final long GUID_BASE = 0x0052_5654_0000_0000L;

    private static final System.Logger LOG = System.getLogger(Fabric.class.getName());
    /** The registry; guarded by itself. */
    static final Map<String, Fabric> REGISTRY = new HashMap<>();

    private final String name;
    private final FabricMode mode;
    private final ThreadingMode threading;
    private final long seed;
    private final long gidPrefix;
    private final int maxFrameSize;
    private final LinkModel defaultLink;
    private volatile FaultConfig defaultFaults;
    /** A test's precise fault, or null ({@link #dropRule(DropRule)}). */
    private volatile DropRule dropRule;
    private final Counters counters = new Counters();
    private final Trace trace;
    /** Bursts may be built at all: real time, no trace, not turned off ({@link FabricBuilder#bursts}). */
    private final boolean bursts;
    /** Bumped by every change {@link #burstLimit} depends on: faults, handlers, ports attached or detached. */
    private final java.util.concurrent.atomic.AtomicInteger burstEpoch = new java.util.concurrent.atomic.AtomicInteger();
    private final Forwarder forwarder;
    private final Engine engine;
    private final EventLoop loop;
    /** Deterministic mode: the loop's timers with the fabric's seed as their replay seed; null in real time. */
    private final TimerService timers;
    private final DutyCycle cycle;

    /** The ports' tables; its lock guards attach/detach, joins, partitions, the generator and closing. */
    private final Topology topology = new Topology(this);
    /** Splits a generator per link, in attach order; under the topology's lock. */
    private final SplittableRandom random;
    private int portCount;
    private volatile boolean closed;

    Fabric(FabricBuilder b) {
        this.name = b.name;
        this.mode = b.mode;
        this.threading = b.threading;
        this.seed = b.seed;
        this.gidPrefix = b.gidPrefix;
        this.maxFrameSize = b.maxFrameSize;
        this.defaultLink = b.defaultLink;
        this.defaultFaults = b.faults;
        this.random = new SplittableRandom(b.seed);
        boolean traced = b.trace != null ? b.trace : mode == FabricMode.DETERMINISTIC;
        this.trace = traced ? new Trace(b.traceCapacity) : null;
        this.bursts = b.bursts && !traced && mode == FabricMode.REAL_TIME;
        Consumer<Throwable> errors = b.errorHandler != null ? b.errorHandler
                : mode == FabricMode.DETERMINISTIC ? Fabric::rethrow : this::log;
        this.forwarder = new Forwarder(this, counters, trace, errors, b.copyPoolFrames, b.maxFrameSize);
        String role = "rvt-sim-fabric-" + name;
        if (mode == FabricMode.DETERMINISTIC) {
            this.loop = b.loop != null ? b.loop : new EventLoop();
            this.engine = new DeterministicEngine(forwarder, loop);
            this.timers = new ReplayTimerService(loop.timerService(), b.seed, name);
        } else {
            this.loop = null;
            this.timers = null;
            this.engine = new RealTimeEngine(forwarder, b.clock, role, errors, b.taskCapacity);
        }
        forwarder.engine(engine);
        // Virtual time moves only when driven: a deterministic fabric's backstop steps in only after a long silence
        // of the callers, so a program that keeps polling replays exactly.
        long quiet = mode == FabricMode.DETERMINISTIC ? DETERMINISTIC_QUIET_NANOS : b.quietNanos;
        this.cycle = new DutyCycle(engine.agent(), role, threading, b.idleStrategy, quiet, errors);
    }

    /**
     * How long the application must not have polled a deterministic fabric with {@link ThreadingMode#PROGRESS}
     * before its backstop drives the loop: long, since a backstop step lands events at virtual times that depend on
     * thread timing.
     */
    public static final long DETERMINISTIC_QUIET_NANOS = 2_000_000_000L;

    /**
     * The most work one progress call does on a deterministic fabric (a real-time one takes the caller's budget,
     * {@code RvtDriver.POLL_BUDGET}): with 256, Felix's {@code rvt stat --deterministic} timed out its own connection
     * request in virtual time before accepting it; 32 replays.
     */
    public static final int DETERMINISTIC_POLL_BUDGET = 32;

    /**
     * The fabric registered under {@code name}, created with the defaults (real-time, a dedicated thread with a
     * {@link BackoffIdleStrategy}, ideal links, no faults, {@link #DEFAULT_SEED}) if there is none.
     *
     * @param name the name
     * @return the fabric
     */
    public static Fabric named(String name) {
        synchronized (REGISTRY) {
            Fabric f = REGISTRY.get(name);
            return f != null ? f : builder(name).build();
        }
    }

    /**
     * @param name the name
     * @return the fabric registered under {@code name}, if any
     */
    public static Optional<Fabric> find(String name) {
        synchronized (REGISTRY) {
            return Optional.ofNullable(REGISTRY.get(name));
        }
    }

    /** @return the names of the registered fabrics, sorted */
    public static List<String> names() {
        synchronized (REGISTRY) {
            return List.copyOf(new TreeSet<>(REGISTRY.keySet()));
        }
    }

    /**
     * @param name the name to register the fabric under
     * @return a builder with the defaults of {@link #named(String)}
     */
    public static FabricBuilder builder(String name) {
        return new FabricBuilder(name);
    }

    /** @return the name */
    public String name() {
        return name;
    }

    /** @return the mode */
    public FabricMode mode() {
        return mode;
    }

    /** @return who drives the fabric */
    public ThreadingMode threading() {
        return threading;
    }

    /** @return the seed every fault draw derives from */
    public long seed() {
        return seed;
    }

    /** @return the clock: the loop's virtual clock, or the real-time clock */
    public NanoClock clock() {
        return engine.clock();
    }

    /** @return the current time on {@link #clock()} in ns */
    public long nanoTime() {
        return engine.clock().nanoTime();
    }

    /**
     * @return the event loop
     * @throws IllegalStateException in real-time mode
     */
    public EventLoop loop() {
        if (loop == null) {
            throw new IllegalStateException("fabric '" + name + "' is real-time: it has no event loop");
        }
        return loop;
    }

    /**
     * The loop's timer service (rvt-core's RC retry and RNR timers on virtual time), whose
     * {@link TimerService#replaySeed()} is this fabric's seed: what the fabric's devices report as theirs
     * ({@link TimerService#of(io.rvt.api.Device)}), so that rvt-cm's {@code ConnectionManager.of(device)} runs on it.
     *
     * @return the timer service (the same one each time)
     * @throws IllegalStateException in real-time mode (use rvt-core's real-time one)
     */
    public TimerService timerService() {
        loop(); // throws in real time
        return timers;
    }

    /**
     * An executor on the fabric's delivery thread: tasks are events at the current virtual time in deterministic
     * mode, and run by the delivery agent between frames in real-time mode (where a full task queue throws
     * {@link java.util.concurrent.RejectedExecutionException}).
     *
     * @return the executor
     */
    public Executor executor() {
        return engine.executor();
    }

    /**
     * The fabric's duty-cycle agent. With {@link ThreadingMode#INVOKER} call its {@code doWork()} to make progress
     * (from one thread at a time); with {@link ThreadingMode#DEDICATED} the fabric's thread does, with
     * {@link ThreadingMode#PROGRESS} {@link #progress(int)} and the backstop.
     *
     * @return the agent
     */
    public Agent agent() {
        return cycle.agent();
    }

    /** @return the fabric's thread (the backstop with {@link ThreadingMode#PROGRESS}), or null with INVOKER */
    public Thread thread() {
        return cycle.thread();
    }

    /**
     * The progress hook of the fabric's HCAs ({@code RvtDriver.progress}): with {@link ThreadingMode#PROGRESS} runs
     * the fabric (deliveries, or the event loop's next events) and the send engines of its HCAs on the calling
     * thread, if no other thread is running them; otherwise does nothing.
     *
     * On a deterministic fabric the budget is at most {@link #DETERMINISTIC_POLL_BUDGET}: each unit can move virtual
     * time on, which the caller does not see pass, so a large one lets timers of the application's own (rvt-cm's
     * response timeouts on the fabric's clock) expire between two of its steps.
     *
     * @param budget the work after which to return (at least one duty cycle runs)
     * @return the work done; 0 when idle, when another thread runs the fabric, or without PROGRESS
     */
    public int progress(int budget) {
        return cycle.progress(mode == FabricMode.DETERMINISTIC ? Math.min(budget, DETERMINISTIC_POLL_BUDGET) : budget);
    }

    /** @return the engine that runs the fabric with {@link ThreadingMode#PROGRESS}, else null */
    public ProgressEngine progressEngine() {
        return cycle.progressEngine();
    }

    /**
     * With {@link ThreadingMode#PROGRESS}: an HCA's send engine joins the fabric's duty cycle (run by whoever
     * progresses the fabric); otherwise nothing.
     *
     * @param engine the agent
     */
    public void addEngine(Agent engine) {
        cycle.addEngine(engine);
    }

    /**
     * With {@link ThreadingMode#PROGRESS}: takes an HCA's send engine out of the fabric's duty cycle; once this
     * returns no thread runs it.
     *
     * @param engine the agent
     */
    public void removeEngine(Agent engine) {
        cycle.removeEngine(engine);
    }

    /**
     * Deterministic mode: runs the loop until idle ({@link EventLoop#runUntilIdle()}). This and the other
     * {@code run}/{@code step} methods throw {@link IllegalStateException} in real-time mode or with
     * {@link ThreadingMode#DEDICATED}.
     *
     * <p>They also throw it when the loop runs out of events while a sender waits for a frame of an empty pool
     * ({@link FramePool#isRefillArmed()}): with no event left, no frame can come back, so the run could never make
     * progress. The message names each such port, its pool and who waits (the QPs of a simulated HCA). Frames are
     * then held outside the fabric: by a frame handler that did not release them, or by the application.
     *
     * @return the number of events run
     */
    public long runUntilIdle() {
        long n = drivenLoop().runUntilIdle();
        checkProgressPossible();
        return n;
    }

    /**
     * Deterministic mode: runs {@code nanos} of virtual time ({@link EventLoop#runFor(long)}).
     *
     * @param nanos how long
     * @return the number of events run
     * @throws IllegalStateException if no event is left and a sender waits for a frame ({@link #runUntilIdle()})
     */
    public long runFor(long nanos) {
        EventLoop l = drivenLoop();
        long n = l.runFor(nanos);
        if (l.pending() == 0) {
            checkProgressPossible();
        }
        return n;
    }

    /**
     * Deterministic mode: runs one event ({@link EventLoop#step()}).
     *
     * @return false if there was none
     * @throws IllegalStateException if no event is left and a sender waits for a frame ({@link #runUntilIdle()})
     */
    public boolean step() {
        if (drivenLoop().step()) {
            return true;
        }
        checkProgressPossible();
        return false;
    }

    /**
     * Deterministic mode: runs until {@code condition} holds or {@code maxVirtualNanos} pass
     * ({@link EventLoop#runUntil(BooleanSupplier, long)}).
     *
     * @param condition what to wait for
     * @param maxVirtualNanos the virtual-time budget
     * @return true if {@code condition} held
     * @throws IllegalStateException if no event is left and a sender waits for a frame ({@link #runUntilIdle()})
     */
    public boolean runUntil(BooleanSupplier condition, long maxVirtualNanos) {
        EventLoop l = drivenLoop();
        boolean held = l.runUntil(condition, maxVirtualNanos);
        if (!held && l.pending() == 0) {
            checkProgressPossible();
        }
        return held;
    }

    /** The loop is idle: if a sender waits for a frame, nothing can ever return one. */
    private void checkProgressPossible() {
        StringBuilder stuck = null;
        for (FabricPort p : ports()) {
            FramePool pool = p.pool();
            if (!pool.isRefillArmed()) {
                continue;
            }
            if (stuck == null) {
                stuck = new StringBuilder("fabric '").append(name).append("' cannot make progress at virtual time ")
                        .append(nanoTime()).append(" ns: no event is left, but senders wait for a frame to come back");
            }
            stuck.append("; port ").append(p.name()).append(" has no frame (").append(pool.available()).append(" of ")
                    .append(pool.frames()).append(" free: the others are held outside the fabric, by a frame handler"
                            + " or the application), ").append(pool.refillListener());
        }
        if (stuck != null) {
            throw new IllegalStateException(stuck.toString());
        }
    }

    /** The loop, for a caller that drives it: not while the fabric's own thread does. */
    private EventLoop drivenLoop() {
        EventLoop l = loop();
        if (threading == ThreadingMode.DEDICATED) {
            throw new IllegalStateException("fabric '" + name + "' is driven by its own thread (DEDICATED)");
        }
        return l;
    }

    /** @return the link model of ports that do not set their own */
    public LinkModel defaultLink() {
        return defaultLink;
    }

    /** @return the faults of links that do not set their own */
    public FaultConfig defaultFaults() {
        return defaultFaults;
    }

    /**
     * @param faults the faults of links that do not set their own, from now on
     */
    public void defaultFaults(FaultConfig faults) {
        this.defaultFaults = Objects.requireNonNull(faults, "faults");
        burstRulesChanged();
    }

    /** @return the rule that loses chosen frames, or null if none is set */
    public DropRule dropRule() {
        return dropRule;
    }

    /**
     * Sets the rule that loses chosen frames from now on ({@link DropRule}; a test's precise fault), or removes it.
     * Senders build no bursts while one is set.
     *
     * @param rule the rule, or null for none
     */
    public void dropRule(DropRule rule) {
        this.dropRule = rule;
        burstRulesChanged();
    }

    /**
     * How many packets of one message an HCA may hand this fabric as one {@link Frame#burst burst} from {@code src}
     * to {@code dlid} (segmentation offload): {@value Frame#MAX_BURST} on a real-time fabric without trace whose
     * two links have no faults, with no {@link #dropRule(DropRule) drop rule}, and whose receiving handler
     * {@link FrameHandler#acceptsBursts() takes bursts}; 1 (one packet per frame) otherwise, so the trace, and faults that strike single packets, see every packet. The
     * answer holds until {@link #burstEpoch()} changes.
     *
     * @param src the sending port
     * @param dlid the destination LID
     * @return the most packets per frame, 1 or {@value Frame#MAX_BURST}
     */
    public int burstLimit(FabricPort src, int dlid) {
        if (!bursts || dropRule != null) {
            return 1;
        }
        FabricPort dst = port(dlid);
        if (dst == null || !src.link().faults().isNone() || !dst.link().faults().isNone()) {
            return 1;
        }
        FrameHandler h = dst.handler();
        return h != null && h.acceptsBursts() ? Frame.MAX_BURST : 1;
    }

    /**
     * @return a number that changes whenever an answer of {@link #burstLimit} may have: a sender may keep its answer
     *         while this stays the same (read it before asking)
     */
    public int burstEpoch() {
        return burstEpoch.get();
    }

    /** Faults, a handler or the ports changed: every sender asks {@link #burstLimit} again. */
    void burstRulesChanged() {
        burstEpoch.incrementAndGet();
    }

    /** @return the GID prefix of ports' default GIDs */
    public long gidPrefix() {
        return gidPrefix;
    }

    /** @return the largest frame capacity a port's pool may have (the size of the fabric's copies) */
    public int maxFrameSize() {
        return maxFrameSize;
    }

    /** @return a builder for a port to attach */
    public FabricPort.Builder newPort() {
        return new FabricPort.Builder(this);
    }

    /**
     * @param lid a LID
     * @return the port with unicast LID {@code lid}, or null
     */
    public FabricPort port(int lid) {
        return topology.port(lid);
    }

    /**
     * @param gid a GID
     * @return the port with that GID, if any (a path lookup, as a subnet manager answers it)
     */
    public Optional<FabricPort> port(Gid gid) {
        return Optional.ofNullable(topology.port(gid));
    }

    /** @return the attached ports, by LID */
    public List<FabricPort> ports() {
        return topology.ports();
    }

    /**
     * @param mlid a multicast LID
     * @return the ports that joined it, in join order
     */
    public List<FabricPort> multicastMembers(int mlid) {
        Topology.checkMulticast(mlid);
        return List.of(topology.members(mlid));
    }

    /**
     * Cuts {@code side1} off from {@code side2}, both ways, until {@link Partition#heal()}.
     *
     * @param side1 ports of one side
     * @param side2 ports of the other side
     * @return the active partition
     */
    public Partition partition(Collection<FabricPort> side1, Collection<FabricPort> side2) {
        return topology.addPartition(side1, side2, true);
    }

    /**
     * Drops frames from {@code from} to {@code to} (not the other way) until {@link Partition#heal()}.
     *
     * @param from sending ports
     * @param to receiving ports
     * @return the active partition
     */
    public Partition partitionOneWay(Collection<FabricPort> from, Collection<FabricPort> to) {
        return topology.addPartition(from, to, false);
    }

    /** @return the active partitions */
    public List<Partition> partitions() {
        return List.of(topology.partitions());
    }

    /** Heals every active partition. */
    public void healAll() {
        for (Partition p : topology.partitions()) {
            p.heal();
        }
    }

    /** @return the fabric's counters: sums over its ports */
    public Counters counters() {
        return counters;
    }

    /**
     * @return the trace
     * @throws IllegalStateException if tracing is off (the default in real-time mode)
     */
    public Trace trace() {
        if (trace == null) {
            throw new IllegalStateException("fabric '" + name + "' does not trace (FabricBuilder.trace(true))");
        }
        return trace;
    }

    /** @return the trace's running hash ({@link Trace#hash()}), or 0 if tracing is off */
    public long traceHash() {
        return trace != null ? trace.hash() : 0;
    }

    /**
     * The fabric's counters by name, in a stable order: frames and bytes each way, drops by cause
     * ({@code drop.loss}, ...), duplicates, reorderings, corruptions and, in deterministic mode, {@code trace_hash}.
     * What {@code rvt stat} prints; under OSGi driver-sim offers it as a service (see {@code SimFabrics}).
     *
     * @return a new map
     */
    public Map<String, Long> counterMap() {
        Map<String, Long> m = counters.toMap();
        if (mode == FabricMode.DETERMINISTIC) {
            m.put("trace_hash", traceHash()); // the same for the same seed and the same calls
        }
        return m;
    }

    /** @return true once closed */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Unregisters the fabric, stops its thread (if any), detaches every port and releases every frame it holds (in
     * deterministic mode, frames still queued on the loop are released when their events run). Idempotent. In
     * invoker mode, stop calling the agent first.
     */
    @Override
    public void close() {
        synchronized (REGISTRY) {
            if (REGISTRY.get(name) == this) {
                REGISTRY.remove(name);
            }
        }
        synchronized (topology.lock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        cycle.close();
        for (FabricPort p : ports()) {
            detach(p);
        }
        engine.close();
    }

    @Override
    public String toString() {
        return "Fabric{" + name + ", " + mode + ", " + threading + ", seed=0x" + Long.toHexString(seed)
                + (closed ? ", closed" : "") + '}';
    }

    // ---- package-private: ports, forwarder ----

    Forwarder forwarder() {
        return forwarder;
    }

    Engine engine() {
        return engine;
    }

    Topology topology() {
        return topology;
    }

    FabricPort attach(FabricPort.Builder b, FramePool pool) {
        if (pool.frameCapacity() > maxFrameSize) {
            throw new IllegalArgumentException("port pool frames of " + pool.frameCapacity()
                    + " bytes exceed fabric '" + name + "' maxFrameSize=" + maxFrameSize);
        }
        FabricPort p;
        synchronized (topology.lock) {
            if (closed) {
                throw new IllegalStateException("fabric '" + name + "' is closed");
            }
            int lid = topology.claimLid(b.lid);
            int index = portCount++;
            long guid = b.guidSet ? b.guid : GUID_BASE | (index + 1);
            Gid gid = b.gid != null ? b.gid : Gid.of(gidPrefix, guid);
            topology.checkGidFree(gid);
            p = new FabricPort(this, b, lid, guid, gid, index, random.split(), pool,
                    mode == FabricMode.REAL_TIME);
            if (b.pool == null && mode == FabricMode.REAL_TIME) {
                pool.cacheFor(engine); // the port's own pool: the cycle may keep frames for itself
            }
            engine.portAttached(p);
            topology.add(p);
        }
        burstRulesChanged();
        return p;
    }

    void detach(FabricPort p) {
        if (topology.remove(p)) {
            burstRulesChanged();
        }
    }

    void onLinkChange(FabricPort port, boolean up) {
        forwarder.traceLink(port, up);
        LinkListener l = port.linkListener();
        if (l != null) {
            l.onLinkStateChange(port, up);
        }
    }

    private static void rethrow(Throwable t) {
        if (t instanceof RuntimeException) {
            throw (RuntimeException) t;
        }
        if (t instanceof Error) {
            throw (Error) t;
        }
        throw new IllegalStateException(t);
    }

    private void log(Throwable t) {
        LOG.log(System.Logger.Level.WARNING, "fabric '" + name + "': error on the delivery thread", t);
    }
}
