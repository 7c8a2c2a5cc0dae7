package io.rvt.driver.sim.fabric;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;

/**
 * The fabric's record of what happened to frames: one record per send, delivery, drop, applied fault and link change,
 * with (virtual time, kind, frame sequence, source LID, destination LID, length, CRC32 of the frame's bytes at that
 * moment, detail). A running 64-bit FNV-1a hash covers every record ever made, so two runs can be compared by
 * {@link #hash()}; the records themselves are kept for the last {@link #capacity()} only (a ring), for printing.
 * Keeping it costs no allocation.
 *
 * <p>In deterministic mode the same seed and program give the same records and hash. Thread-safe.
 */
public final class Trace {
    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;
    private static final TraceKind[] KINDS = TraceKind.values();
    private static final DropCause[] CAUSES = DropCause.values();

    private final int capacity;
    private final long[] times;
    private final long[] sequences;
    private final long[] details;
    private final byte[] kinds;
    private final int[] srcs;
    private final int[] dsts;
    private final int[] lengths;
    private final int[] crcs;
    private final CRC32 crc = new CRC32();
    private long count;
    private long hash = FNV_OFFSET;

    Trace(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("trace capacity=" + capacity + " is negative");
        }
        this.capacity = capacity;
        times = new long[capacity];
        sequences = new long[capacity];
        details = new long[capacity];
        kinds = new byte[capacity];
        srcs = new int[capacity];
        dsts = new int[capacity];
        lengths = new int[capacity];
        crcs = new int[capacity];
    }

    /** Records an event of a frame the fabric owns; computes the CRC of its bytes. */
    synchronized void record(long time, TraceKind kind, Frame f, long detail) {
        f.completeBytes(); // the trace covers the bytes the wire carries
        int len = f.length();
        ByteBuffer b = f.buffer();
        crc.reset();
        if (b.hasArray()) {
            crc.update(b.array(), b.arrayOffset(), len);
        } else {
            b.clear();
            b.limit(len);
            crc.update(b);
        }
        add(time, kind, f.sequence(), f.srcLid(), f.dstLid(), len, (int) crc.getValue(), detail);
    }

    synchronized void record(long time, TraceKind kind, int src, int dst, long detail) {
        add(time, kind, 0, src, dst, 0, 0, detail);
    }

    private void add(long time, TraceKind kind, long seq, int src, int dst, int len, int crcValue, long detail) {
        long h = hash;
        h = (h ^ time) * FNV_PRIME;
        h = (h ^ kind.ordinal()) * FNV_PRIME;
        h = (h ^ seq) * FNV_PRIME;
        h = (h ^ (((long) src << 32) | (dst & 0xFFFF_FFFFL))) * FNV_PRIME;
        h = (h ^ (((long) len << 32) | (crcValue & 0xFFFF_FFFFL))) * FNV_PRIME;
        h = (h ^ detail) * FNV_PRIME;
        hash = h;
        if (capacity > 0) {
            int i = (int) (count % capacity);
            times[i] = time;
            kinds[i] = (byte) kind.ordinal();
            sequences[i] = seq;
            srcs[i] = src;
            dsts[i] = dst;
            lengths[i] = len;
            crcs[i] = crcValue;
            details[i] = detail;
        }
        count++;
    }

    /** @return the 64-bit FNV-1a hash over every record made so far */
    public synchronized long hash() {
        return hash;
    }

    /** @return the number of records made so far */
    public synchronized long count() {
        return count;
    }

    /** @return the number of records kept (the last ones) */
    public synchronized int size() {
        return (int) Math.min(count, capacity);
    }

    /** @return how many records are kept at most */
    public int capacity() {
        return capacity;
    }

    /**
     * @param i index among the kept records, 0 the oldest, {@code size() - 1} the newest
     * @return that record's time (ns)
     */
    public synchronized long time(int i) {
        return times[slot(i)];
    }

    /**
     * @param i index among the kept records
     * @return that record's kind
     */
    public synchronized TraceKind kind(int i) {
        return KINDS[kinds[slot(i)]];
    }

    /**
     * @param i index among the kept records
     * @return that record's frame sequence number (0 for link records)
     */
    public synchronized long sequence(int i) {
        return sequences[slot(i)];
    }

    /**
     * @param i index among the kept records
     * @return that record's source LID
     */
    public synchronized int srcLid(int i) {
        return srcs[slot(i)];
    }

    /**
     * @param i index among the kept records
     * @return that record's destination LID
     */
    public synchronized int dstLid(int i) {
        return dsts[slot(i)];
    }

    /**
     * @param i index among the kept records
     * @return that record's frame length
     */
    public synchronized int length(int i) {
        return lengths[slot(i)];
    }

    /**
     * @param i index among the kept records
     * @return that record's CRC32 of the frame bytes
     */
    public synchronized int crc32(int i) {
        return crcs[slot(i)];
    }

    /**
     * @param i index among the kept records
     * @return that record's detail (see {@link TraceKind})
     */
    public synchronized long detail(int i) {
        return details[slot(i)];
    }

    /**
     * @param i index among the kept records
     * @return the record as one line, e.g. {@code t=1580 DELIVER seq=1 src=0x1 dst=0x2 len=1000 crc=1c291ca3}
     */
    public synchronized String format(int i) {
        StringBuilder sb = new StringBuilder(96);
        appendRecord(sb, slot(i));
        return sb.toString();
    }

    /**
     * Appends the kept records, oldest first, one per line, after a header line with the counts and the hash.
     *
     * @param out where to write
     * @throws UncheckedIOException if {@code out} throws
     */
    public synchronized void appendTo(Appendable out) {
        try {
            out.append("trace: ").append(Long.toString(count)).append(" records, last ")
                    .append(Integer.toString(size())).append(" kept, hash=").append(Long.toHexString(hash))
                    .append('\n');
            StringBuilder sb = new StringBuilder(96);
            for (int i = 0; i < size(); i++) {
                sb.setLength(0);
                appendRecord(sb, slot(i));
                out.append(sb).append('\n');
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return {@link #appendTo(Appendable)} as a string */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        appendTo(sb);
        return sb.toString();
    }

    private int slot(int i) {
        int n = size();
        if (i < 0 || i >= n) {
            throw new IndexOutOfBoundsException("trace record " + i + " not in [0, " + n + ")");
        }
        return (int) ((count - n + i) % capacity);
    }

    private void appendRecord(StringBuilder sb, int s) {
        TraceKind k = KINDS[kinds[s]];
        sb.append("t=").append(times[s]).append(' ').append(k);
        if (k == TraceKind.LINK_DOWN || k == TraceKind.LINK_UP) {
            sb.append(" lid=0x").append(Integer.toHexString(srcs[s]));
            return;
        }
        sb.append(" seq=").append(sequences[s]).append(" src=0x").append(Integer.toHexString(srcs[s]))
                .append(" dst=0x").append(Integer.toHexString(dsts[s])).append(" len=").append(lengths[s])
                .append(" crc=").append(Integer.toHexString(crcs[s]));
        switch (k) {
            case DROP:
                sb.append(" cause=").append(CAUSES[(int) details[s]]);
                break;
            case DUPLICATE:
                sb.append(" copy=").append(details[s]);
                break;
            case CORRUPT:
                sb.append(" bit=").append(details[s]);
                break;
            case DELAY:
                sb.append(" extra=").append(details[s]).append("ns");
                break;
            default:
                break;
        }
    }
}
