package io.rvt.driver.sim.fabric;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * The switch: what happens to a frame between send and delivery, in three stages — leaving the sender
 * ({@link #onSend}), at the switch ({@link #onSwitch}: route, partition, faults, output queue) and at the receiver
 * ({@link #onDeliver}). Both modes run the same code; the {@link Engine} decides when each stage runs (as events on
 * the loop, or right away and then held on the receiver's heap).
 *
 * <p>Threading: single-threaded — the event loop's driving thread or the delivery agent's thread. Nothing here
 * allocates in a steady state (the copy pool is made on first use).
 */
final class Forwarder {
    private final Fabric fabric;
    private final Counters counters;
    private final Trace trace;
    private final Consumer<Throwable> errorHandler;
    private final int copyPoolFrames;
    private final int maxFrameSize;
    private Engine engine;
    /** Next frame sequence number; delivery thread only. */
    private long nextSequence = 1;
    /** Frames for multicast fan-out and duplicates; made on first use; delivery thread only. */
    private FramePool copyPool;

    Forwarder(Fabric fabric, Counters counters, Trace trace, Consumer<Throwable> errorHandler, int copyPoolFrames,
            int maxFrameSize) {
        this.fabric = fabric;
        this.counters = counters;
        this.trace = trace;
        this.errorHandler = errorHandler;
        this.copyPoolFrames = copyPoolFrames;
        this.maxFrameSize = maxFrameSize;
    }

    void engine(Engine engine) {
        this.engine = engine;
    }

    /** Deterministic mode: the frame's event ran. */
    void onEvent(Frame f) {
        long now = engine.clock().nanoTime();
        switch (f.stage) {
            case Frame.STAGE_SEND:
                onSend(f, now);
                break;
            case Frame.STAGE_SWITCH:
                onSwitch(f, now);
                break;
            default: {
                FabricPort dst = f.target;
                onDeliver(f, now);
                endBatch(dst); // one frame per event: every delivery is a batch of one
                break;
            }
        }
    }

    /**
     * Tells {@code dst}'s handler that the frames delivered to it in a row have all been handed over
     * ({@link FrameHandler#onBatchEnd()}); delivery thread.
     */
    void endBatch(FabricPort dst) {
        FrameHandler h = dst.handler();
        if (h == null) {
            return;
        }
        try {
            h.onBatchEnd();
        } catch (Throwable t) {
            dst.counters.increment(Counters.HANDLER_ERRORS);
            counters.increment(Counters.HANDLER_ERRORS);
            errorHandler.accept(t);
        }
    }

    /** Stage 1: the frame leaves its sender at {@code now}; serialised on the sender's link. */
    void onSend(Frame f, long now) {
        FabricPort src = f.source;
        int len = 0;
        int packets = 0; // a burst counts as its packets
        int bursts = 0;
        Frame x = f;
        do { // a train's frames
            x.sequence(nextSequence++);
            len += x.wireLength();
            packets += x.packets();
            bursts += x.packets() > 1 ? 1 : 0;
            x = x.next;
        } while (x != null);
        f.trainPackets = packets;
        f.trainWire = len;
        if (fabric.isClosed() || src.closed) {
            drop(f, src, DropCause.CLOSED, now);
            return;
        }
        src.counters.add(Counters.TX_FRAMES, packets);
        src.counters.add(Counters.TX_BYTES, len);
        counters.add(Counters.TX_FRAMES, packets);
        counters.add(Counters.TX_BYTES, len);
        if (bursts > 0) {
            src.counters.add(Counters.BURSTS, bursts);
            counters.add(Counters.BURSTS, bursts);
        }
        if (f.next != null) {
            src.counters.increment(Counters.TRAINS);
            counters.increment(Counters.TRAINS);
        }
        if (trace != null) {
            trace.record(now, TraceKind.SEND, f, 0);
        }
        Link link = src.link();
        int epoch = link.epoch();
        if (!link.isUp()) {
            drop(f, src, DropCause.LINK_DOWN, now);
            return;
        }
        LinkModel m = link.model();
        long end = Math.max(now, link.txFreeAt) + m.serializationNanos(len);
        link.txFreeAt = end;
        f.srcEpoch = epoch;
        engine.toSwitch(f, end + m.latencyNanos());
    }

    /** Stage 2: the frame reaches the switch at {@code now}; routed to one or more receivers. */
    void onSwitch(Frame f, long now) {
        FabricPort src = f.source;
        if (fabric.isClosed()) {
            drop(f, src, DropCause.CLOSED, now);
            return;
        }
        if (src.link().epoch() != f.srcEpoch) {
            drop(f, src, DropCause.LINK_DOWN, now);
            return;
        }
        int dlid = f.dstLid();
        if (dlid >= Fabric.MULTICAST_FIRST && dlid <= Fabric.MULTICAST_LAST) {
            FabricPort[] members = fabric.topology().members(dlid);
            int last = -1;
            for (int i = members.length - 1; i >= 0; i--) {
                if (members[i] != src) {
                    last = i;
                    break;
                }
            }
            if (last < 0) {
                drop(f, src, DropCause.UNKNOWN_DESTINATION, now);
                return;
            }
            for (int i = 0; i < last; i++) {
                FabricPort m = members[i];
                if (m != src) {
                    Frame c = copy(f, m, now);
                    if (c != null) {
                        egress(c, m, now);
                    }
                }
            }
            egress(f, members[last], now);
        } else {
            FabricPort dst = fabric.port(dlid);
            if (dst == null) {
                drop(f, src, DropCause.UNKNOWN_DESTINATION, now);
                return;
            }
            egress(f, dst, now);
        }
    }

    /** The switch hands the frame to {@code dst}'s link: partition, link state, loss, duplication. */
    private void egress(Frame f, FabricPort dst, long now) {
        if (fabric.topology().partitioned(f.source, dst)) {
            drop(f, dst, DropCause.PARTITION, now);
            return;
        }
        Link link = dst.link();
        int epoch = link.epoch();
        if (!link.isUp()) {
            drop(f, dst, DropCause.LINK_DOWN, now);
            return;
        }
        FaultConfig fc = link.faults();
        SplittableRandom rng = link.random;
        if (f.packets() > 1 || f.next != null) {
            // A burst or a train: built while neither link had faults (Fabric.burstLimit); faults configured since it
            // left apply from the sender's next frame, as they would to a frame sent a moment before the change.
            fc = FaultConfig.NONE;
        }
        DropRule rule = fabric.dropRule();
        if (rule != null && f.packets() == 1 && f.next == null && ruleDrops(rule, f, dst)) {
            drop(f, dst, DropCause.RULE, now);
            return;
        }
        if (fc.loss() > 0 && rng.nextDouble() < fc.loss()) {
            drop(f, dst, DropCause.LOSS, now);
            return;
        }
        Frame dup = null;
        if (fc.duplication() > 0 && rng.nextDouble() < fc.duplication()) {
            dup = copy(f, dst, now);
            if (dup != null) {
                dst.counters.increment(Counters.DUPLICATED);
                counters.increment(Counters.DUPLICATED);
                if (trace != null) {
                    trace.record(now, TraceKind.DUPLICATE, f, dup.sequence());
                }
            }
        }
        transmit(f, dst, link, epoch, fc, rng, now);
        if (dup != null) {
            transmit(dup, dst, link, epoch, fc, rng, now);
        }
    }

    /** Asks a test's rule about a frame: its bytes completed first, so the rule sees the payload too. */
    private static boolean ruleDrops(DropRule rule, Frame f, FabricPort dst) {
        if (f.hasDeferredBytes()) {
            f.completeBytes();
        }
        ByteBuffer view = f.buffer().asReadOnlyBuffer(); // allocates, only while a test's rule is set
        view.clear().limit(f.length());
        return rule.drops(f.source, dst, view);
    }

    /** Corruption, serialisation on the receiver's link, latency, reordering delay; then on to delivery. */
    private void transmit(Frame f, FabricPort dst, Link link, int epoch, FaultConfig fc, SplittableRandom rng,
            long now) {
        int len = f.length();
        if (fc.corruption() > 0 && rng.nextDouble() < fc.corruption() && len > 0) {
            int bit = rng.nextInt(len * 8);
            ByteBuffer b = f.buffer();
            int i = bit >>> 3;
            f.breakSeal(); // writes a deferred checksum first: the bit flips on the bytes the wire would carry
            b.put(i, (byte) (b.get(i) ^ (1 << (bit & 7))));
            dst.counters.increment(Counters.CORRUPTED);
            counters.increment(Counters.CORRUPTED);
            if (trace != null) {
                trace.record(now, TraceKind.CORRUPT, f, bit);
            }
        }
        LinkModel m = link.model();
        long end = Math.max(now, link.egressFreeAt) + m.serializationNanos(f.next != null ? f.trainWire
                : f.wireLength());
        link.egressFreeAt = end;
        long at = end + m.latencyNanos();
        if (fc.reorder() > 0 && rng.nextDouble() < fc.reorder()) {
            long extra = 1 + rng.nextLong(fc.maxReorderDelayNanos());
            at += extra;
            dst.counters.increment(Counters.REORDERED);
            counters.increment(Counters.REORDERED);
            if (trace != null) {
                trace.record(now, TraceKind.DELAY, f, extra);
            }
        }
        f.target = dst;
        f.dstEpoch = epoch;
        engine.toDeliver(f, at);
    }

    /** Stage 3: the frame arrives at {@code dst} at {@code now}; handed to its handler. */
    void onDeliver(Frame f, long now) {
        FabricPort dst = f.target;
        if (fabric.isClosed() || dst.closed) {
            drop(f, dst, DropCause.CLOSED, now);
            return;
        }
        Link link = dst.link();
        if (!link.isUp() || link.epoch() != f.dstEpoch) {
            drop(f, dst, DropCause.LINK_DOWN, now);
            return;
        }
        FrameHandler h = dst.handler();
        if (h == null) {
            drop(f, dst, DropCause.NO_HANDLER, now);
            return;
        }
        if (f.next != null) {
            deliverTrain(f, dst, h, now);
            return;
        }
        int packets = f.packets();
        if (packets > 1 && !h.acceptsBursts()) {
            drop(f, dst, DropCause.NO_HANDLER, now); // replaced by one that takes single packets meanwhile
            return;
        }
        int wire = f.wireLength();
        countDelivered(dst, packets, wire);
        if (trace != null) {
            trace.record(now, TraceKind.DELIVER, f, 0);
        }
        hand(f, dst, h);
    }

    /** A train's frames, one after another (a train is never traced: see {@link Frame#then}). */
    private void deliverTrain(Frame f, FabricPort dst, FrameHandler h, long now) {
        boolean bursts = h.acceptsBursts();
        int packets = f.trainPackets;
        int wire = f.trainWire;
        for (Frame x = f; x != null; x = x.next) {
            if (x.packets() > 1 && !bursts) {
                packets -= x.packets(); // dropped below
                wire -= x.wireLength();
            }
        }
        countDelivered(dst, packets, wire); // before the handler sees them, as for a single frame
        Frame x = f;
        do {
            Frame n = x.next;
            x.next = null;
            if (x.packets() > 1 && !bursts) {
                drop(x, dst, DropCause.NO_HANDLER, now); // replaced by one that takes single packets meanwhile
            } else {
                hand(x, dst, h);
            }
            x = n;
        } while (x != null);
    }

    private void countDelivered(FabricPort dst, int packets, int wire) {
        dst.counters.add(Counters.RX_FRAMES, packets);
        dst.counters.add(Counters.RX_BYTES, wire);
        counters.add(Counters.RX_FRAMES, packets);
        counters.add(Counters.RX_BYTES, wire);
    }

    /** Hands a delivered frame to {@code dst}'s handler, which owns it from here. */
    private void hand(Frame f, FabricPort dst, FrameHandler h) {
        int len = f.length();
        if (f.hasDeferredBytes() && !h.acceptsDeferredBytes()) {
            f.completeBytes();
        }
        f.target = null;
        f.source = null;
        ByteBuffer b = f.buffer();
        b.clear();
        b.limit(len);
        f.state = Frame.OWNED; // from here the handler owns it
        try {
            h.onFrame(f);
        } catch (Throwable t) {
            dst.counters.increment(Counters.HANDLER_ERRORS);
            counters.increment(Counters.HANDLER_ERRORS);
            errorHandler.accept(t);
        }
    }

    /** Drops a frame the fabric owns: counted on the fabric and on {@code charged}, traced, back to its pool. */
    void drop(Frame f, FabricPort charged, DropCause cause, long now) {
        Frame x = f;
        do { // each frame of a train
            Frame n = x.next;
            x.next = null;
            int packets = x.packets(); // each packet of a burst
            counters.drop(cause, packets);
            if (charged != null) {
                charged.counters.drop(cause, packets);
            }
            if (trace != null) {
                trace.record(now, TraceKind.DROP, x, cause.ordinal());
            }
            x.releaseFromFabric();
            x = n;
        } while (x != null);
    }

    /** A fabric-owned copy of {@code f} for {@code dst}, or null (dropped and counted) if the copy pool is empty. */
    private Frame copy(Frame f, FabricPort dst, long now) {
        FramePool pool = copyPool;
        if (pool == null) {
            pool = FramePool.heap(copyPoolFrames, maxFrameSize, 0);
            copyPool = pool;
        }
        Frame c = f.length() <= pool.frameCapacity() ? pool.acquire() : null;
        if (c == null) {
            counters.drop(DropCause.POOL_EXHAUSTED);
            dst.counters.drop(DropCause.POOL_EXHAUSTED);
            if (trace != null) {
                trace.record(now, TraceKind.DROP, f, DropCause.POOL_EXHAUSTED.ordinal());
            }
            return null;
        }
        c.copyFrom(f);
        c.sequence(nextSequence++);
        c.state = Frame.IN_FABRIC;
        return c;
    }

    void traceLink(FabricPort port, boolean up) {
        if (trace != null) {
            trace.record(engine.clock().nanoTime(), up ? TraceKind.LINK_UP : TraceKind.LINK_DOWN, port.lid(), 0, 0);
        }
    }

    /** @return the copy pool, or null before the first copy */
    FramePool copyPool() {
        return copyPool;
    }
}
