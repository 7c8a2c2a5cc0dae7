package io.rvt.transport;

import io.rvt.api.spi.TimerService;
import io.rvt.testkit.ManualTimerService;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * The in-test "wire" between {@link WireDriver}s: a FIFO of packets that the test drives step by step in its own
 * thread, with optional seeded loss, duplication and reordering, a partition switch, and virtual time
 * ({@link ManualTimerService}) for the retry and RNR timers. Deterministic for a given seed.
 */
final class Fabric {
    private final ManualTimerService timers = new ManualTimerService();
    private final TimerService driverTimers;
    private final List<WireDriver> nodes = new ArrayList<>();
    private final List<Packet> wire = new ArrayList<>();
    private SplittableRandom random = new SplittableRandom(1);
    private double loss;
    private double duplication;
    private double reordering;
    private boolean partitioned;
    private Predicate<byte[]> dropFilter = p -> false;
    private long delivered;
    private boolean batches;
    private long dropped;

    private static final class Packet {
        final WireDriver from;
        final int dlid;
        final byte[] bytes;
        /** A run carried as one unit ({@link WireDriver#deliverRuns}), or null: {@code bytes} is its first packet. */
        final WireDriver.RunUnit run;

        Packet(WireDriver from, int dlid, byte[] bytes, WireDriver.RunUnit run) {
            this.from = from;
            this.dlid = dlid;
            this.bytes = bytes;
            this.run = run;
        }
    }

    /** A fabric on virtual time. */
    Fabric() {
        this.driverTimers = timers;
    }

    /** A fabric whose devices use {@code driverTimers} (then {@link #runUntil} has no timers to run). */
    Fabric(TimerService driverTimers) {
        this.driverTimers = driverTimers;
    }

    ManualTimerService timers() {
        return timers;
    }

    /**
     * Creates and registers a device with the given LID and path MTU, named {@code name} and the lowest free index
     * (the tests leave their devices registered, so a fixed name would be taken by an earlier test's).
     */
    Node node(String name, int lid, int mtu) {
        WireDriver d = new WireDriver(name + "%d", lid, driverTimers, this, mtu);
        if (batches) {
            d.batch = new Delivery(1);
        }
        nodes.add(d);
        return new Node(d, d.register(), this);
    }

    /** Sets seeded faults: each delivery is lost, duplicated or taken out of order with these probabilities. */
    Fabric faults(long seed, double loss, double duplication, double reordering) {
        this.random = new SplittableRandom(seed);
        this.loss = loss;
        this.duplication = duplication;
        this.reordering = reordering;
        return this;
    }

    /**
     * Delivers in receive batches: each pump step hands every packet on the wire to its node, then ends each node's
     * batch (its owed ACKs queued then, as {@code PacketDriver.endBatch} does), before the send engines run.
     */
    Fabric batches() {
        this.batches = true;
        for (WireDriver d : nodes) {
            d.batch = new Delivery(1);
        }
        return this;
    }

    /** Ends every node's receive batch (see {@link #batches()}). */
    void endBatches() {
        for (WireDriver d : nodes) {
            d.endBatch();
        }
    }

    /** While true, every packet is lost. */
    Fabric partitioned(boolean on) {
        this.partitioned = on;
        return this;
    }

    /** Drops the packets the filter accepts (targeted loss). */
    Fabric dropIf(Predicate<byte[]> filter) {
        this.dropFilter = filter;
        return this;
    }

    long delivered() {
        return delivered;
    }

    long dropped() {
        return dropped;
    }

    void send(WireDriver from, int dlid, byte[] packet) {
        wire.add(new Packet(from, dlid, packet, null));
    }

    /** Sends a run as one unit: its first packet's bytes and what describes the rest. */
    void sendRun(WireDriver from, int dlid, byte[] first, WireDriver.RunUnit run) {
        wire.add(new Packet(from, dlid, first, run));
    }

    /** Injects raw bytes addressed to {@code to} (malformed packet tests). */
    void inject(WireDriver to, byte[] packet) {
        wire.add(new Packet(null, to.lid(), packet, null));
    }

    /** @return packets on the wire, not yet delivered */
    int inFlight() {
        return wire.size();
    }

    /** Runs every queued send engine once, delivering nothing. */
    void runEngines() {
        for (WireDriver d : nodes) {
            d.runEngines();
        }
    }

    /** Delivers every packet now on the wire (not those the deliveries produce), running no engine. */
    void deliverAll() {
        for (int n = wire.size(); n > 0 && !wire.isEmpty(); n--) {
            deliverOne();
        }
    }

    /**
     * Runs send engines and delivers packets until nothing moves; time does not advance.
     *
     * @return steps taken
     */
    int pump() {
        int steps = 0;
        while (true) {
            boolean progress = false;
            for (WireDriver d : nodes) {
                if (d.hasScheduled()) {
                    d.runEngines();
                    progress = true;
                }
            }
            if (!wire.isEmpty()) {
                if (batches) {
                    deliverAll();
                    endBatches();
                } else {
                    deliverOne();
                }
                progress = true;
            }
            if (!progress) {
                return steps;
            }
            if (++steps > 50_000_000) {
                throw new IllegalStateException("the fabric does not settle");
            }
        }
    }

    /**
     * Pumps, then lets virtual time run (timer by timer, pumping after each) until {@code done} holds or no timer is
     * pending or {@code maxNanos} of virtual time have passed.
     *
     * @return true if {@code done} holds at the end
     */
    boolean runUntil(BooleanSupplier done, long maxNanos) {
        long end = timers.nanoTime() + maxNanos;
        pump();
        while (!done.getAsBoolean()) {
            if (timers.pendingCount() == 0 || timers.nanoTime() >= end) {
                return false;
            }
            timers.runNext();
            pump();
        }
        return true;
    }

    /** Pumps and runs timers until none is pending (or an hour of virtual time passed). */
    void settle() {
        runUntil(() -> false, 3_600_000_000_000L);
    }

    private void deliverOne() {
        int index = 0;
        if (reordering > 0 && wire.size() > 1 && random.nextDouble() < reordering) {
            index = random.nextInt(Math.min(wire.size(), 8));
        }
        Packet p = wire.remove(index);
        if (partitioned || dropFilter.test(p.bytes) || (loss > 0 && random.nextDouble() < loss)) {
            dropped++;
            return;
        }
        if (duplication > 0 && random.nextDouble() < duplication) {
            wire.add(random.nextInt(wire.size() + 1), p);
        }
        delivered++;
        if (p.dlid >= 0xC000 && p.dlid != 0xFFFF) {
            for (WireDriver d : nodes) {
                if (d != p.from) {
                    d.deliver(p.bytes.clone());
                }
            }
            return;
        }
        for (WireDriver d : nodes) {
            if (d.lid() == p.dlid) {
                if (p.run != null) {
                    d.deliverRun(p.bytes, p.run);
                } else {
                    d.deliver(p.bytes);
                }
                return;
            }
        }
        dropped++; // no such LID
    }
}
