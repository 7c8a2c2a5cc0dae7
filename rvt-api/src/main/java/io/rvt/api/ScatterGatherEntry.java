package io.rvt.api;

/**
 * One scatter/gather entry of a work request ({@code struct ib_sge}): {@code length} bytes at virtual address
 * {@code addr} inside the memory region with local key {@code lkey}. Addresses are the region's virtual addresses
 * ({@link MemoryRegion#addr()} plus an offset). Mutable and reusable; not thread-safe.
 */
public final class ScatterGatherEntry {
    private long addr;
    private int length;
    private int lkey;

    /** @return the virtual address of the first byte */
    public long addr() {
        return addr;
    }

    /**
     * @param addr the virtual address of the first byte
     * @return this
     */
    public ScatterGatherEntry addr(long addr) {
        this.addr = addr;
        return this;
    }

    /** @return the length in bytes */
    public int length() {
        return length;
    }

    /**
     * @param length the length in bytes, 0..2^31-1 (zero-length entries are skipped by post send)
     * @return this
     */
    public ScatterGatherEntry length(int length) {
        this.length = Checks.nonNegative("sge length", length);
        return this;
    }

    /** @return the local key of the region holding the bytes */
    public int lkey() {
        return lkey;
    }

    /**
     * @param lkey the local key of the region holding the bytes
     * @return this
     */
    public ScatterGatherEntry lkey(int lkey) {
        this.lkey = lkey;
        return this;
    }

    /**
     * Points this entry at {@code length} bytes starting {@code offset} bytes into {@code mr}.
     *
     * @param mr the region
     * @param offset offset from the start of the region, 0..mr.length()
     * @param length the length in bytes
     * @return this
     * @throws IllegalArgumentException if the range is not inside the region
     */
    public ScatterGatherEntry set(MemoryRegion mr, int offset, int length) {
        if (offset < 0 || length < 0 || (long) offset + length > mr.length()) {
            throw new IllegalArgumentException("sge [offset=" + offset + ", length=" + length
                    + "] is outside the memory region of length " + mr.length());
        }
        this.addr = mr.addr() + offset;
        this.length = length;
        this.lkey = mr.lkey();
        return this;
    }

    /**
     * @param addr the virtual address of the first byte
     * @param length the length in bytes
     * @param lkey the local key
     * @return this
     */
    public ScatterGatherEntry set(long addr, int length, int lkey) {
        this.addr = addr;
        this.length = Checks.nonNegative("sge length", length);
        this.lkey = lkey;
        return this;
    }

    @Override
    public String toString() {
        return "Sge{addr=0x" + Long.toHexString(addr) + ", length=" + length + ", lkey=0x" + Integer.toHexString(lkey)
                + '}';
    }
}
