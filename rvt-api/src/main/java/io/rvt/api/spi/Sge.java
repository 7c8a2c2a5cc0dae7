package io.rvt.api.spi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A validated scatter/gather entry ({@code struct rvt_sge}): a region, the next virtual address, the bytes left in
 * this entry ({@code sge_length}) and the bytes left in the region's current segment ({@code length}). Produced by
 * the core's key checks ({@code rvt_lkey_ok}, {@code rvt_rkey_ok}), which take a region reference for it. Mutable;
 * guarded by the lock of the QP that owns it.
 *
 * <p>The entry also holds the buffer its next byte is in ({@link #memory()}, {@link #offset()}): the region's one
 * buffer, or for a region in pieces ({@link DriverMr#pieceShift()}) the current piece, where {@code length} ends; as
 * rdmavt's {@code rvt_update_sge} steps to the next segment of {@code map[m]->segs[n]}, {@link #advance} then steps to
 * the next piece.
 */
public final class Sge {
    private DriverMr mr;
    private long vaddr;
    private int length;
    private int sgeLength;
    /** The buffer the next byte is in: the region's {@code memory()}, or its current piece. */
    private ByteBuffer mem;
    /** The index in {@code mem} of the next byte (an int, not the piece's base address: an idle QP holds several
     *  entries, and the 4 bytes saved each keep it within issue 16's heap budget). */
    private int at;

    /** @return the region, or null for an empty entry */
    public DriverMr mr() {
        return mr;
    }

    /** @return the virtual address of the next byte */
    public long vaddr() {
        return vaddr;
    }

    /** @return bytes left in the region's current segment ({@code length}) */
    public int length() {
        return length;
    }

    /** @return bytes left in this entry ({@code sge_length}) */
    public int sgeLength() {
        return sgeLength;
    }

    /** @return the index in {@link #memory()} of the next byte */
    public int offset() {
        return at;
    }

    /**
     * The buffer the next byte is in: {@code mr().memory()} for a region of one buffer, the current piece
     * ({@code mr().piece(i)}) for a region in pieces. Shared: use only absolute {@code get}/{@code put} methods.
     *
     * @return the buffer, indexed by {@link #offset()}; {@link #length()} bytes from there are in it
     */
    public ByteBuffer memory() {
        return mem;
    }

    /**
     * Reads the 8 bytes at the cursor in native order (an atomic's value), also when they cross into the next piece
     * of a region in pieces; the cursor does not move.
     *
     * @return the value
     */
    public long getLong() {
        int at = offset();
        if (length >= 8) {
            return mem.getLong(at);
        }
        ByteBuffer tmp = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
        MrMapping m = mr.mapping();
        for (int i = 0; i < 8; i++) {
            tmp.put(i, byteAt(m, vaddr + i - m.addr));
        }
        return tmp.getLong(0);
    }

    /**
     * Writes {@code value} into the 8 bytes at the cursor in native order (an atomic's result), also when they cross
     * into the next piece of a region in pieces; the cursor does not move.
     *
     * @param value the value
     */
    public void putLong(long value) {
        int at = offset();
        if (length >= 8) {
            mem.putLong(at, value);
            return;
        }
        ByteBuffer tmp = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, value);
        MrMapping m = mr.mapping();
        for (int i = 0; i < 8; i++) {
            long a = vaddr + i - m.addr;
            m.piece((int) (a >>> m.shift)).put((int) (a & ((1L << m.shift) - 1)), tmp.get(i));
        }
    }

    private static byte byteAt(MrMapping m, long a) {
        return m.piece((int) (a >>> m.shift)).get((int) (a & ((1L << m.shift) - 1)));
    }

    /**
     * Sets every field (the caller has taken the region reference this entry holds).
     *
     * @param region the region
     * @param addr the virtual address of the first byte
     * @param segLength bytes left in the region's segment
     * @param entryLength bytes in this entry
     * @return this
     */
    public Sge set(DriverMr region, long addr, int segLength, int entryLength) {
        MrMapping m = region.mapping(); // one read of the region's mapping for buffer, base and shift
        if (mr != region) {
            mr = region; // a reference store costs a GC write barrier: none when the entry is reused for its region
        }
        this.vaddr = addr;
        this.sgeLength = entryLength;
        long off = addr - m.addr;
        int shift = m.shift;
        ByteBuffer b;
        if (shift == 0) {
            b = m.memory;
            this.at = (int) off;
            this.length = segLength;
        } else {
            // A region in pieces: the segment ends where the piece the address is in ends.
            b = m.pieces[(int) (off >>> shift)];
            this.at = (int) (off & ((1L << shift) - 1));
            this.length = Math.min(segLength, b.capacity() - at);
        }
        if (mem != b) {
            mem = b;
        }
        return this;
    }

    /**
     * @param o the source
     * @return this, a copy of {@code o} (no reference is taken)
     */
    public Sge copyFrom(Sge o) {
        if (mr != o.mr) {
            mr = o.mr;
        }
        vaddr = o.vaddr;
        length = o.length;
        sgeLength = o.sgeLength;
        if (mem != o.mem) {
            mem = o.mem;
        }
        at = o.at;
        return this;
    }

    /**
     * Adds {@code n} bytes to this entry ({@code rvt_sge_adjacent}'s merge).
     *
     * @param n bytes
     */
    public void extend(int n) {
        sgeLength += n;
    }

    /**
     * Moves the cursor {@code n} bytes forward (the arithmetic part of {@code rvt_update_sge}); at the end of a
     * piece of a region in pieces, with bytes left in the entry, to the start of the next piece (as
     * {@code rvt_update_sge} moves to the next segment). In a region of one buffer {@code length} never ends before
     * {@code sgeLength}, so that step is never taken there.
     *
     * @param n bytes, at most {@link #lengthFor(int)}
     */
    public void advance(int n) {
        vaddr += n;
        at += n;
        length -= n;
        sgeLength -= n;
        if (length == 0 && sgeLength > 0) {
            nextPiece();
        }
    }

    private void nextPiece() {
        MrMapping m = mr.mapping();
        if (m.shift == 0) {
            return; // one buffer: the entry overruns it, which the copy loops report
        }
        mem = m.pieces[(int) ((vaddr - m.addr) >>> m.shift)];
        at = 0;
        length = mem.capacity();
    }

    /**
     * Mirrors {@code rvt_get_sge_length}: how many of {@code len} bytes fit before the entry or segment ends.
     *
     * @param len bytes wanted
     * @return {@code min(length, sgeLength, len)}
     */
    public int lengthFor(int len) {
        return Math.min(Math.min(length, sgeLength), len);
    }

    /**
     * Drops the region reference and empties the entry ({@code rvt_put_mr} on {@code sge->mr}).
     */
    public void release() {
        if (mr != null) {
            mr.release();
            mr = null;
        }
    }

    /** Empties the entry without touching references. */
    public void clear() {
        mr = null;
        vaddr = 0;
        length = 0;
        sgeLength = 0;
        mem = null;
        at = 0;
    }

    @Override
    public String toString() {
        return "Sge{lkey=0x" + (mr == null ? "-" : Integer.toHexString(mr.lkey())) + ", vaddr=0x"
                + Long.toHexString(vaddr) + ", sgeLength=" + sgeLength + '}';
    }
}
