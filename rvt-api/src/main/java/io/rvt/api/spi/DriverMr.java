package io.rvt.api.spi;

import io.rvt.api.MemoryRegion;
import java.nio.ByteBuffer;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The driver's view of a memory region ({@code struct rvt_mregion}): its bytes, its key, its reference count, and
 * the 64-bit atomics the responder side of RDMA needs. Reached through a validated {@link Sge}.
 *
 * <p>A region is one {@link ByteBuffer} ({@link #memory()}; {@code Sge.length} runs to the end of the region), or
 * several pieces of one power-of-two size, the last one shorter ({@link #pieceShift()}, {@link #piece(int)}): rvt's
 * counterpart of rdmavt's segment map ({@code map[m]->segs[n]}), through which a region's 64-bit length is reached
 * with {@link ByteBuffer}s, each of which has an {@code int} capacity. {@code Sge.length} then runs to the end of the
 * piece and {@link Sge#advance} steps to the next one. {@link #mapping()} gives all of it with one read.
 */
@ProviderType
public interface DriverMr extends MemoryRegion {
    /**
     * The region's bytes as one shared buffer: index 0 is the byte at {@link #addr()}, the capacity covers
     * {@link #length()} (for a region in pieces, {@link #pieceShift()} above 0, its first piece). The same instance is returned every time, so use only absolute {@code get}/{@code put}
     * methods and never move its position or limit.
     *
     * @return the shared buffer
     */
    ByteBuffer memory();

    /**
     * For a region in pieces: log2 of the size of every piece but the last, which may be shorter; the byte at
     * {@code addr() + off} is at index {@code off & ((1 << pieceShift()) - 1)} of {@code piece(off >>> pieceShift())}.
     * An rvt extension (rdmavt maps pages, {@code map[m]->segs[n]}).
     *
     * @return the shift, at least 12 (4 KiB pieces); 0 for a region of one buffer ({@link #memory()}), which is
     *         what this default says
     */
    default int pieceShift() {
        return 0;
    }

    /**
     * The region's piece {@code i}, shared as {@link #memory()} is (absolute access only). For a region of one
     * buffer, that buffer.
     *
     * @param i the piece's index, {@code 0 <= i < ceil(length() / (1 << pieceShift()))}
     * @return the piece
     */
    default ByteBuffer piece(int i) {
        return memory();
    }

    /**
     * What the region maps, read once: {@link #memory()}, {@link #pieceShift()}, {@link #piece(int)}, {@link #addr()}
     * and {@link #length()} as one consistent value, which {@link Sge#set} takes for every entry. An rvt extension.
     * A region should return the instance it holds (rvt-core's does), replaced as a whole when the mapping changes;
     * this default builds a new one from the five methods on every call.
     *
     * @return the mapping
     */
    default MrMapping mapping() {
        int shift = pieceShift();
        if (shift == 0) {
            return new MrMapping(memory(), addr());
        }
        long length = length();
        ByteBuffer[] pieces = new ByteBuffer[(int) ((length + (1L << shift) - 1) >>> shift)];
        for (int i = 0; i < pieces.length; i++) {
            pieces[i] = piece(i);
        }
        return new MrMapping(pieces, shift, addr(), length);
    }

    /** Takes a reference ({@code rvt_get_mr}); every validated SGE holds one. */
    void retain();

    /** Drops a reference ({@code rvt_put_mr}); deregistration waits for the count to reach zero. */
    void release();

    /**
     * Drops {@code n} references at once (the SGEs of several completed WQEs in one region): as {@code n} calls of
     * {@link #release()}, which is what this default does; rvt-core's regions do it with one atomic operation.
     *
     * @param n references, at least 1
     */
    default void release(int n) {
        for (int i = 0; i < n; i++) {
            release();
        }
    }

    /**
     * Atomically adds {@code add} to the 8 bytes at virtual address {@code vaddr} (native byte order).
     *
     * @param vaddr an 8-byte aligned virtual address inside the region
     * @param add the addend
     * @return the previous value
     */
    long atomicFetchAdd(long vaddr, long add);

    /**
     * Atomically replaces the 8 bytes at {@code vaddr} with {@code swap} if they equal {@code compare}.
     *
     * @param vaddr an 8-byte aligned virtual address inside the region
     * @param compare the expected value
     * @param swap the new value
     * @return the previous value
     */
    long atomicCompareSwap(long vaddr, long compare, long swap);

    /**
     * ATOMIC_WRITE's store (rxe's {@code rxe_mr_do_atomic_write}, a {@code smp_store_release}): replaces the 8 bytes
     * at {@code vaddr} with {@code value} as one atomic store, ordered after every earlier write to the region, and
     * atomic with respect to {@link #atomicFetchAdd} and {@link #atomicCompareSwap} on the same bytes. The default
     * does it with {@link #atomicCompareSwap}.
     *
     * @param vaddr an 8-byte aligned virtual address inside the region
     * @param value the new value (the 8 payload bytes in native order, so the bytes land as they came)
     */
    default void atomicWrite(long vaddr, long value) {
        long seen = atomicCompareSwap(vaddr, 0L, value);
        while (seen != 0L) {
            long prev = atomicCompareSwap(vaddr, seen, value);
            if (prev == seen) {
                return;
            }
            seen = prev;
        }
    }
}
