package io.rvt.driver.jni;

import io.rvt.transport.engine.TxInfo;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * rvt extension: what one port of a {@link JniDriver} counted since its socket opened, and what the kernel granted
 * that socket ({@link JniDriver#statistics(int)}). The driver's wire helpers count into it; any thread may read it
 * (each figure is a live reading, not a snapshot of all at one instant). The port counters rdmavt's drivers keep
 * ({@code RX_MALFORMED}, {@code PKT_DROPS}, {@code RX_KERNEL_DROPS}, ...) are the device's
 * ({@code Device.portCounter}): these are the figures only a UDP wire has.
 */
public final class PortStatistics {
    /** Counted by whichever lane receives. */
    private final LongAdder icrcErrors = new LongAdder();
    private final LongAdder malformed = new LongAdder();
    /** Packets whose payload went from registered memory to the socket without a copy (any sending thread). */
    private final LongAdder zeroCopyPackets = new LongAdder();
    /** {@link SocketCalls}: the sends of any thread; the receives are the lanes' (one writer each). */
    private final LongAdder sendCalls = new LongAdder();
    private final LongAdder gsoSegments = new LongAdder();
    private final LongAdder datagramsSent = new LongAdder();
    private final LongAdder acksSent = new LongAdder();
    // Single-writer counters (the engine thread); volatile so that any thread may read them.
    private volatile long sendErrors;
    private volatile long kernelDrops;
    /** The pollers' waits in {@code poll} ({@link SocketCalls#pollerWaits}); the engine holder's. */
    private volatile long pollerWaits;
    private final int receiveBufferBytes;
    private final int sendBufferBytes;
    private final int rcWindowPackets;
    /** The engine holder's lane, and the stand-in's once the backstop made it (its receive counters). */
    private final EngineLane lane;
    private volatile EngineLane standIn;
    /** The stand-in's cycles that did work ({@code ProgressEngine#standInWork}). */
    private final LongSupplier standInCycles;

    /**
     * @param receiveBufferBytes {@code SO_RCVBUF} as granted, -1 if unknown
     * @param sendBufferBytes {@code SO_SNDBUF} as granted, -1 if unknown
     * @param rcWindowPackets the port's RC window, 0 for none
     * @param lane the engine holder's lane (its receive counters)
     * @param standInCycles the stand-in's cycles that did work
     */
    PortStatistics(int receiveBufferBytes, int sendBufferBytes, int rcWindowPackets, EngineLane lane,
            LongSupplier standInCycles) {
        this.receiveBufferBytes = receiveBufferBytes;
        this.sendBufferBytes = sendBufferBytes;
        this.rcWindowPackets = rcWindowPackets;
        this.lane = lane;
        this.standInCycles = standInCycles;
    }

    /** @return packets dropped because their ICRC did not match */
    public long icrcErrors() {
        return icrcErrors.sum();
    }

    /**
     * @return packets sent whose payload went from registered memory to the socket without a Java copy (native wire,
     *         direct-buffer regions, payloads of at least 512 bytes; see {@link TxInfo})
     */
    public long zeroCopyPackets() {
        return zeroCopyPackets.sum();
    }

    /** @return datagrams dropped as malformed: truncated, unparsable, bad ICRC, unknown QP, wrong family */
    public long malformed() {
        return malformed.sum();
    }

    /**
     * @return datagrams the kernel dropped before the port could read them (its socket's receive buffer was full;
     *         {@code SO_MEMINFO}'s drop count, read when a burst of traffic ends, at most once a millisecond), also
     *         the port's {@code RX_KERNEL_DROPS}; always 0 on {@link Wire#JDK}, which cannot see it
     */
    public long kernelDrops() {
        return kernelDrops;
    }

    /** @return datagrams the kernel refused to send (dropped) */
    public long sendErrors() {
        return sendErrors;
    }

    /**
     * @return the receive buffer the kernel granted the port's socket ({@code SO_RCVBUF} as {@code getsockopt}
     *         reports it: Linux doubles what {@link JniDriverBuilder#socketBufferBytes} asked, and caps it at
     *         {@code net.core.rmem_max} without {@code CAP_NET_ADMIN}), or -1 if the wire cannot tell
     */
    public int receiveBufferBytes() {
        return receiveBufferBytes;
    }

    /**
     * @return the send buffer the kernel granted the port's socket ({@code SO_SNDBUF}; each flow's source socket
     *         asks for the same), or -1 if the wire cannot tell
     */
    public int sendBufferBytes() {
        return sendBufferBytes;
    }

    /**
     * @return the port's RC window in packets ({@link JniDriver#rcWindowPackets(int)}), 0 if the wire cannot tell
     *         the buffer (no window)
     */
    public int rcWindowPackets() {
        return rcWindowPackets;
    }

    /**
     * The port's system-call economy: {@code sendmmsg} and {@code recvmmsg} calls, the datagrams each moved, the
     * empty receives, the RC ACKs sent.
     *
     * @return a snapshot, counted from the port's opening
     */
    public SocketCalls socketCalls() {
        EngineLane s = standIn;
        EngineLane l = lane;
        return new SocketCalls(sendCalls.sum(), datagramsSent.sum(),
                l.receiveCalls + (s == null ? 0 : s.receiveCalls), l.emptyReceives + (s == null ? 0 : s.emptyReceives),
                l.datagramsReceived + (s == null ? 0 : s.datagramsReceived), acksSent.sum(), gsoSegments.sum(),
                l.groSegments + (s == null ? 0 : s.groSegments), pollerWaits, standInCycles.getAsLong());
    }

    // ------------------------------------------------------------------ counting (the port's helpers)

    /** The backstop made its stand-in lane: its receives count too. */
    void standIn(EngineLane l) {
        standIn = l;
    }

    void countIcrcError() {
        icrcErrors.increment();
    }

    void countMalformed() {
        malformed.increment();
    }

    void countZeroCopy() {
        zeroCopyPackets.increment();
    }

    void countAck() {
        acksSent.increment();
    }

    /**
     * Counts a batch a thread sent through one of the port's sockets.
     *
     * @param calls the system calls it took
     * @param datagrams the datagrams it held
     * @param gso how many of them left as UDP GSO segments
     * @param dropped how many the kernel refused
     */
    void countSends(int calls, int datagrams, int gso, int dropped) {
        sendCalls.add(calls);
        datagramsSent.add(datagrams);
        if (gso != 0) {
            gsoSegments.add(gso);
        }
        if (dropped > 0) {
            sendErrors += dropped;
        }
    }

    void countKernelDrops(long n) {
        kernelDrops += n;
    }

    void countPollerWait() {
        pollerWaits++;
    }
}
