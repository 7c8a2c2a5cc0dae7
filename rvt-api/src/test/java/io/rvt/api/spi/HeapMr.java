package io.rvt.api.spi;

import io.rvt.api.ProtectionDomain;
import java.nio.ByteBuffer;

/**
 * A test {@link DriverMr} over a heap buffer, counting {@link #retain()} and {@link #release()} calls. Its virtual
 * addresses start at {@code base}.
 */
public final class HeapMr implements DriverMr {
    private final ByteBuffer memory;
    private final long base;
    private final int lkey;
    public int retains;
    public int releases;

    public HeapMr(int lkey, long base, int length) {
        this.lkey = lkey;
        this.base = base;
        this.memory = ByteBuffer.allocate(length);
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
        return memory;
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
