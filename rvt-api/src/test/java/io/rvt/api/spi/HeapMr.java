package io.rvt.api.spi;

import io.rvt.api.ProtectionDomain;
import java.nio.ByteBuffer;

/**
 * A test {@link DriverMr} over a heap buffer, counting {@link #retain()} and {@link #release()} calls, and reads of
 * its mapping: {@link #mapping()} (the interface's default, which builds one) and, outside it, {@link #memory()},
 * {@link #addr()}, {@link #pieceShift()} and {@link #piece(int)}. Its virtual addresses start at {@code base}; with a
 * piece shift, the buffer is seen in pieces of {@code 1 << shift} bytes.
 */
public final class HeapMr implements DriverMr {
    private final ByteBuffer memory;
    private final long base;
    private final int lkey;
    private final int shift;
    private final ByteBuffer[] pieces;
    public int retains;
    public int releases;
    public int mappingReads;
    /** Reads of memory(), addr(), pieceShift() and piece(int) other than mapping()'s own. */
    public int fieldReads;

    public HeapMr(int lkey, long base, int length) {
        this(lkey, base, length, 0);
    }

    public HeapMr(int lkey, long base, int length, int shift) {
        this.lkey = lkey;
        this.base = base;
        this.memory = ByteBuffer.allocate(length);
        this.shift = shift;
        if (shift == 0) {
            this.pieces = null;
        } else {
            this.pieces = new ByteBuffer[(length + (1 << shift) - 1) >>> shift];
            for (int i = 0; i < pieces.length; i++) {
                int from = i << shift;
                pieces[i] = memory.slice(from, Math.min(1 << shift, length - from));
            }
        }
    }

    /**
     * @param offset offset in the region
     * @param sgeLength bytes of the entry
     * @return a validated SGE over {@code [offset, offset + sgeLength)}, the segment running to the region's end
     */
    public Sge sge(int offset, int sgeLength) {
        return new Sge().set(this, base + offset, (int) length() - offset, sgeLength);
    }

    public byte[] bytes() {
        return memory.array().clone();
    }

    @Override
    public ByteBuffer memory() {
        fieldReads++;
        return memory;
    }

    @Override
    public int pieceShift() {
        fieldReads++;
        return shift;
    }

    @Override
    public ByteBuffer piece(int i) {
        fieldReads++;
        return pieces == null ? memory : pieces[i];
    }

    @Override
    public MrMapping mapping() {
        mappingReads++;
        int before = fieldReads;
        MrMapping m = DriverMr.super.mapping();
        fieldReads = before;
        return m;
    }

    @Override
    public void retain() {
        retains++;
    }

    @Override
    public void release() {
        releases++;
    }

    @Override
    public long atomicFetchAdd(long vaddr, long add) {
        throw new UnsupportedOperationException();
    }

    @Override
    public long atomicCompareSwap(long vaddr, long compare, long swap) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ProtectionDomain pd() {
        return null;
    }

    @Override
    public int lkey() {
        return lkey;
    }

    @Override
    public int rkey() {
        return lkey;
    }

    @Override
    public long addr() {
        fieldReads++;
        return base;
    }

    @Override
    public long length() {
        return memory.capacity();
    }

    @Override
    public int access() {
        return 0;
    }

    @Override
    public ByteBuffer buffer() {
        return memory;
    }

    @Override
    public void mapBuffer(ByteBuffer buffer, long iova) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void deregMr() {
    }

    @Override
    public String toString() {
        return "HeapMr{lkey=" + lkey + '}';
    }
}
