package io.rvt.driver.sim.fabric;

import io.rvt.api.spi.agent.BackoffIdleStrategy;
import io.rvt.api.spi.agent.IdleStrategy;
import io.rvt.api.spi.agent.ProgressEngine;
import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.driver.sim.clock.EventLoop;
import io.rvt.driver.sim.clock.NanoClock;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Configures a {@link Fabric}. Defaults: real-time, {@link ThreadingMode#PROGRESS} (the HCAs' pollers run the
 * fabric, a backstop thread with a {@link BackoffIdleStrategy} when they do not), {@link Fabric#DEFAULT_SEED},
 * {@link LinkModel#IDEAL} links, no faults, GID prefix
 * 0xFE80::, frames up to 4224 bytes, a copy pool of 1024 frames, tracing (1024 records kept) only in
 * deterministic mode, and an error handler that rethrows in deterministic mode and logs in real-time mode.
 */
public final class FabricBuilder {
    final String name;
    FabricMode mode = FabricMode.REAL_TIME;
    ThreadingMode threading;
    long seed = Fabric.DEFAULT_SEED;
    IdleStrategy idleStrategy;
    long quietNanos = ProgressEngine.DEFAULT_QUIET_NANOS;
    EventLoop loop;
    NanoClock clock = NanoClock.SYSTEM;
    LinkModel defaultLink = LinkModel.IDEAL;
    FaultConfig faults = FaultConfig.NONE;
    long gidPrefix = Fabric.DEFAULT_GID_PREFIX;
    int maxFrameSize = FramePool.DEFAULT_MTU + FramePool.DEFAULT_HEADROOM;
    int copyPoolFrames = 1024;
    int taskCapacity = 1024;
    Boolean trace;
    boolean bursts = true;
    int traceCapacity = 1024;
    Consumer<Throwable> errorHandler;

    FabricBuilder(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("fabric name must not be empty");
        }
        this.name = name;
    }

    /**
     * Deterministic mode on virtual time with this seed (and, unless set, {@link ThreadingMode#INVOKER}).
     *
     * @param seed the seed of every fault draw
     * @return this builder
     */
    public FabricBuilder deterministic(long seed) {
        this.mode = FabricMode.DETERMINISTIC;
        this.seed = seed;
        return this;
    }

    /**
     * Real-time mode (and, unless set, {@link ThreadingMode#PROGRESS}).
     *
     * @return this builder
     */
    public FabricBuilder realTime() {
        this.mode = FabricMode.REAL_TIME;
        return this;
    }

    /**
     * @param seed the seed of every fault draw
     * @return this builder
     */
    public FabricBuilder seed(long seed) {
        this.seed = seed;
        return this;
    }

    /**
     * @param threading who drives the fabric
     * @return this builder
     */
    public FabricBuilder threading(ThreadingMode threading) {
        this.threading = Objects.requireNonNull(threading, "threading");
        return this;
    }

    /**
     * @param idleStrategy what the dedicated thread (or the backstop, while it runs the fabric) does when idle
     *        (default {@link BackoffIdleStrategy})
     * @return this builder
     */
    public FabricBuilder idleStrategy(IdleStrategy idleStrategy) {
        this.idleStrategy = Objects.requireNonNull(idleStrategy, "idleStrategy");
        return this;
    }

    /**
     * @param nanos with {@link ThreadingMode#PROGRESS} in real time: how long no HCA's poller may have run the fabric
     *        before the backstop does, at least 1 (default {@value ProgressEngine#DEFAULT_QUIET_NANOS})
     * @return this builder
     */
    public FabricBuilder backstopQuietNanos(long nanos) {
        if (nanos < 1) {
            throw new IllegalArgumentException("backstopQuietNanos must be at least 1, got " + nanos);
        }
        this.quietNanos = nanos;
        return this;
    }

    /**
     * Deterministic mode: share this loop (with other fabrics, or with code that schedules on it) instead of a
     * loop of the fabric's own. Whoever owns the loop drives it, so the fabric must be in invoker mode.
     *
     * @param loop the loop
     * @return this builder
     */
    public FabricBuilder eventLoop(EventLoop loop) {
        this.loop = Objects.requireNonNull(loop, "loop");
        return this;
    }

    /**
     * Real-time mode: the clock frames are timed by (default {@link NanoClock#SYSTEM}); a test may inject a
     * {@link io.rvt.driver.sim.clock.VirtualClock} and call the agent itself.
     *
     * @param clock the clock
     * @return this builder
     */
    public FabricBuilder clock(NanoClock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /**
     * @param link the link model of ports that do not set their own
     * @return this builder
     */
    public FabricBuilder defaultLink(LinkModel link) {
        this.defaultLink = Objects.requireNonNull(link, "link");
        return this;
    }

    /**
     * @param faults the faults of links that do not set their own
     * @return this builder
     */
    public FabricBuilder faults(FaultConfig faults) {
        this.faults = Objects.requireNonNull(faults, "faults");
        return this;
    }

    /**
     * @param prefix the GID prefix of ports' default GIDs
     * @return this builder
     */
    public FabricBuilder gidPrefix(long prefix) {
        this.gidPrefix = prefix;
        return this;
    }

    /**
     * @param bytes the largest frame capacity a port's pool may have (default 4224)
     * @return this builder
     */
    public FabricBuilder maxFrameSize(int bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("maxFrameSize=" + bytes + " must be at least 1");
        }
        this.maxFrameSize = bytes;
        return this;
    }

    /**
     * @param frames frames in the pool for multicast fan-out and duplicates (default 1024)
     * @return this builder
     */
    public FabricBuilder copyPoolFrames(int frames) {
        if (frames < 1) {
            throw new IllegalArgumentException("copyPoolFrames=" + frames + " must be at least 1");
        }
        this.copyPoolFrames = frames;
        return this;
    }

    /**
     * @param capacity capacity of the real-time executor's task queue (default 1024)
     * @return this builder
     */
    public FabricBuilder taskCapacity(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("taskCapacity=" + capacity + " must be at least 1");
        }
        this.taskCapacity = capacity;
        return this;
    }

    /**
     * @param on whether to keep a {@link Trace} (default: on in deterministic mode only)
     * @return this builder
     */
    public FabricBuilder trace(boolean on) {
        this.trace = on;
        return this;
    }

    /**
     * @param on false to have every HCA send one packet per frame; true (the default) to let a real-time fabric
     *           without trace or faults carry consecutive packets of one message as one {@link Frame#burst burst}
     *           ({@link Fabric#burstLimit})
     * @return this
     */
    public FabricBuilder bursts(boolean on) {
        this.bursts = on;
        return this;
    }

    /**
     * @param records how many trace records to keep, at least 0 (the hash always covers all; default 1024)
     * @return this builder
     */
    public FabricBuilder traceCapacity(int records) {
        if (records < 0) {
            throw new IllegalArgumentException("traceCapacity=" + records + " is negative");
        }
        this.traceCapacity = records;
        return this;
    }

    /**
     * @param handler receives exceptions from frame handlers and agent tasks, on the delivery thread
     * @return this builder
     */
    public FabricBuilder errorHandler(Consumer<Throwable> handler) {
        this.errorHandler = Objects.requireNonNull(handler, "handler");
        return this;
    }

    /**
     * Builds, registers and (with {@link ThreadingMode#DEDICATED}, or the backstop of PROGRESS) starts the fabric.
     *
     * @return the fabric
     * @throws IllegalStateException if a fabric with this name is registered
     * @throws IllegalArgumentException if the settings contradict each other
     */
    public Fabric build() {
        if (threading == null) {
            threading = mode == FabricMode.DETERMINISTIC ? ThreadingMode.INVOKER : ThreadingMode.PROGRESS;
        }
        if (loop != null && (mode != FabricMode.DETERMINISTIC || threading != ThreadingMode.INVOKER)) {
            throw new IllegalArgumentException("fabric '" + name + "': a shared event loop needs deterministic "
                    + "mode and ThreadingMode.INVOKER (mode=" + mode + ", threading=" + threading + ")");
        }
        if (idleStrategy == null) {
            idleStrategy = new BackoffIdleStrategy();
        }
        synchronized (Fabric.REGISTRY) {
            if (Fabric.REGISTRY.containsKey(name)) {
                throw new IllegalStateException("a fabric named '" + name + "' already exists");
            }
            Fabric f = new Fabric(this);
            Fabric.REGISTRY.put(name, f);
            return f;
        }
    }
}
