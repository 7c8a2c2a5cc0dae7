package io.rvt.driver.jni;

import io.rvt.api.Gid;
import io.rvt.transport.Delivery;
import io.rvt.transport.engine.RxInfo;
import io.rvt.transport.header.Icrc;
import io.rvt.transport.header.PacketHeaders;
import io.rvt.transport.header.PacketParser;
import java.nio.ByteBuffer;

/**
 * What one thread running a port's engine works with: a receive batch and its parse scratch, the
 * {@link Delivery} its packets go through, a send batch, the receive counters. A port has two: the one of whoever
 * holds the engine ({@link PortEngine#lane}), and the stand-in's, which the backstop thread uses beside a caller
 * that the machine took off its core inside the engine ({@link PortEngine}'s stand-in). Touched only by the thread
 * running it, except the counters (volatile, one writer) and {@link #cycling}.
 */
final class EngineLane {
    final RxBatch rx;
    final TxScratch tx;
    /** The GRH the receive path synthesises for UD receives (SGID from the sender's address, DGID ours). */
    final ByteBuffer grh = ByteBuffer.allocate(40);
    final PacketParser parser = new PacketParser(false);
    final PacketHeaders headers = new PacketHeaders();
    final RxInfo info = new RxInfo();
    final Icrc icrc = new Icrc();
    /** The port's receive path in the driver's packet skeleton: sends deferred by a batch, its RX counters. */
    final Delivery delivery;
    /** The sender of the datagram being delivered (the driver's address check reads it). */
    Gid rxSource;
    /** The stand-in's thread (the port's backstop), set when it first runs; null for the holder's lane. */
    volatile Thread owner;
    /** True from a duty cycle's start until its batch is sent. */
    volatile boolean cycling;
    /** The last sender's GID, kept while the sender stays the same (no allocation per packet). */
    private long lastSrcHi;
    private long lastSrcLo;
    private Gid lastSrc;

    // Single-writer counters (the lane's thread); volatile so that any thread may read them.
    volatile long receiveCalls;
    volatile long emptyReceives;
    volatile long datagramsReceived;
    /** Packets that arrived in datagrams UDP GRO coalesced ({@link SocketCalls#groSegments}). */
    volatile long groSegments;

    /**
     * @param rx the receive batch
     * @param tx the send batch
     * @param delivery the lane's receive path in the driver's skeleton
     */
    EngineLane(RxBatch rx, TxScratch tx, Delivery delivery) {
        this.rx = rx;
        this.tx = tx;
        this.delivery = delivery;
    }

    /**
     * @param hi first half of the sender's IPv6 address (or the IPv4-mapped form)
     * @param lo second half
     * @return its GID, cached while the sender repeats
     */
    Gid sourceGid(long hi, long lo) {
        Gid g = lastSrc;
        if (g == null || hi != lastSrcHi || lo != lastSrcLo) {
            g = Gid.of(hi, lo);
            lastSrc = g;
            lastSrcHi = hi;
            lastSrcLo = lo;
        }
        return g;
    }
}
