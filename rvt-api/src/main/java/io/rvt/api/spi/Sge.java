package io.rvt.api.spi;

/**
 * A validated scatter/gather entry ({@code struct rvt_sge}): a region, the next virtual address, the bytes left in
 * this entry ({@code sge_length}) and the bytes left in the region's current segment ({@code length}). Produced by
 * the core's key checks ({@code rvt_lkey_ok}, {@code rvt_rkey_ok}), which take a region reference for it. Mutable;
 * guarded by the lock of the QP that owns it.
 */
public final class Sge {
    private DriverMr mr;
    private long vaddr;
    private int length;
    private int sgeLength;

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

    /** @return the index in {@code mr().memory()} of the next byte */
    public int offset() {
        return (int) (vaddr - mr.addr());
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
        this.mr = region;
        this.vaddr = addr;
        this.length = segLength;
        this.sgeLength = entryLength;
        return this;
    }

    /**
     * @param o the source
     * @return this, a copy of {@code o} (no reference is taken)
     */
    public Sge copyFrom(Sge o) {
        mr = o.mr;
        vaddr = o.vaddr;
        length = o.length;
        sgeLength = o.sgeLength;
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
     * Moves the cursor {@code n} bytes forward (the arithmetic part of {@code rvt_update_sge}).
     *
     * @param n bytes, at most {@link #lengthFor(int)}
     */
    public void advance(int n) {
        vaddr += n;
        length -= n;
        sgeLength -= n;
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
    }

    @Override
    public String toString() {
        return "Sge{lkey=0x" + (mr == null ? "-" : Integer.toHexString(mr.lkey())) + ", vaddr=0x"
                + Long.toHexString(vaddr) + ", sgeLength=" + sgeLength + '}';
    }
}
