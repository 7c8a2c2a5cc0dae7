package io.rvt.driver.sim.fabric;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counters of a {@link FabricPort} or a whole {@link Fabric}. Updated without allocation by the fabric's delivery
 * thread and by senders; readable from any thread (each value on its own is exact, a set of reads is not a
 * snapshot).
 *
 * <p>On a port: {@code tx} counts frames the port sent that the fabric took in, {@code rx} frames handed to its
 * handler; drops as {@link DropCause} says; {@code duplicated}, {@code corrupted} and {@code reordered} count faults
 * applied on its link; {@code bursts} frames that carried several packets, each counted as
 * its packets everywhere else ({@link Frame#burst}); {@code trains} sends of several frames together
 * ({@link Frame#then}); {@code backpressure} counts {@link FabricPort#acquire()} finding the pool empty and
 * {@link FabricPort#send(Frame)} finding the queue full. On the fabric: the sums over all ports.
 */
public final class Counters {
    static final int TX_FRAMES = 0;
    static final int TX_BYTES = 1;
    static final int RX_FRAMES = 2;
    static final int RX_BYTES = 3;
    static final int DUPLICATED = 4;
    static final int CORRUPTED = 5;
    static final int REORDERED = 6;
    static final int BACKPRESSURE = 7;
    static final int HANDLER_ERRORS = 8;
    static final int BURSTS = 9;
    static final int TRAINS = 10;
    private static final int DROPS = 11;
    private static final DropCause[] CAUSES = DropCause.values();

    private final AtomicLongArray values = new AtomicLongArray(DROPS + CAUSES.length);

    Counters() {
    }

    /*
     * Every counter but BACKPRESSURE has one writer at a time, the fabric's delivery thread (or its event loop; or the
     * closing thread once those have stopped), so it is bumped with a plain read and a release store: no locked
     * instruction per frame. Readers on other threads see a recent value.
     */

    void add(int counter, long delta) {
        values.setRelease(counter, values.getPlain(counter) + delta);
    }

    void increment(int counter) {
        add(counter, 1);
    }

    void drop(DropCause cause) {
        add(DROPS + cause.ordinal(), 1);
    }

    /** {@code n} frames (a burst's packets) dropped for {@code cause}. */
    void drop(DropCause cause, int n) {
        add(DROPS + cause.ordinal(), n);
    }

    /** Backpressure is counted by senders, any number of threads at once. */
    void incrementShared(int counter) {
        values.getAndIncrement(counter);
    }

    /** @return frames sent */
    public long txFrames() {
        return values.get(TX_FRAMES);
    }

    /** @return bytes sent */
    public long txBytes() {
        return values.get(TX_BYTES);
    }

    /** @return frames delivered to a handler */
    public long rxFrames() {
        return values.get(RX_FRAMES);
    }

    /** @return bytes delivered to a handler */
    public long rxBytes() {
        return values.get(RX_BYTES);
    }

    /**
     * @param cause the cause
     * @return frames dropped for {@code cause}
     */
    public long drops(DropCause cause) {
        return values.get(DROPS + cause.ordinal());
    }

    /** @return frames dropped for any cause */
    public long totalDrops() {
        long sum = 0;
        for (int i = 0; i < CAUSES.length; i++) {
            sum += values.get(DROPS + i);
        }
        return sum;
    }

    /** @return extra copies made by the duplication fault */
    public long duplicated() {
        return values.get(DUPLICATED);
    }

    /** @return frames with one bit flipped by the corruption fault */
    public long corrupted() {
        return values.get(CORRUPTED);
    }

    /** @return frames given an extra delay by the reordering fault */
    public long reordered() {
        return values.get(REORDERED);
    }

    /** @return acquires that found the pool empty plus sends that found the queue full */
    public long backpressure() {
        return values.get(BACKPRESSURE);
    }

    /** @return exceptions thrown by frame handlers */
    public long handlerErrors() {
        return values.get(HANDLER_ERRORS);
    }

    /**
     * @return frames sent that carried several packets of one message ({@link Frame#burst}); every other counter
     *         counts such a frame as its packets
     */
    public long bursts() {
        return values.get(BURSTS);
    }

    /**
     * @return trains sent: frames that carried further frames through the fabric with them ({@link Frame#then}); every
     *         other counter counts each frame of a train (and each packet of a burst)
     */
    public long trains() {
        return values.get(TRAINS);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Counters{tx=").append(txFrames()).append('/').append(txBytes())
                .append("B, rx=").append(rxFrames()).append('/').append(rxBytes()).append('B');
        for (DropCause c : CAUSES) {
            long n = drops(c);
            if (n != 0) {
                sb.append(", drop.").append(c).append('=').append(n);
            }
        }
        append(sb, "duplicated", duplicated());
        append(sb, "corrupted", corrupted());
        append(sb, "reordered", reordered());
        append(sb, "backpressure", backpressure());
        append(sb, "handlerErrors", handlerErrors());
        append(sb, "bursts", bursts());
        append(sb, "trains", trains());
        return sb.append('}').toString();
    }

    private static void append(StringBuilder sb, String name, long value) {
        if (value != 0) {
            sb.append(", ").append(name).append('=').append(value);
        }
    }

    /** @return frames and bytes each way, drops by cause, duplicates, reorderings, corruptions: a new map by name */
    Map<String, Long> toMap() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("tx_frames", txFrames());
        m.put("tx_bytes", txBytes());
        m.put("rx_frames", rxFrames());
        m.put("rx_bytes", rxBytes());
        for (DropCause cause : CAUSES) {
            m.put("drop." + cause.name().toLowerCase(Locale.ROOT), drops(cause));
        }
        m.put("duplicated", duplicated());
        m.put("reordered", reordered());
        m.put("corrupted", corrupted());
        return m;
    }
}
