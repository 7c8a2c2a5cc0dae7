package io.rvt.ffm;

import io.rvt.api.AccessFlag;
import io.rvt.api.Errno;
import io.rvt.api.MemoryRegion;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.VerbsException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Registers a {@link MemorySegment} as a memory region ({@code ibv_reg_mr} over the segment's address range; rdmavt:
 * {@code rvt_reg_user_mr}), of a 64-bit length: the segment is cut into pieces of {@link #PIECE_SIZE} bytes (the last
 * shorter), each seen as a direct {@link ByteBuffer} ({@code asSlice(..).asByteBuffer()}), and registered with
 * {@link ProtectionDomain#regMrPieces}. A segment of at most one piece is an ordinary region of one buffer.
 *
 * <p>The segment must be native (from an arena, or a mapped file: {@code FileChannel.map(mode, offset, size, arena)})
 * and accessible from any thread (a global, automatic or shared arena: the device's threads touch it). The region
 * keeps the segment reachable, so an automatic arena's memory is not freed while the region exists. Closing a shared
 * arena while one of its segments is registered is the caller's error, as unmapping registered memory is in C: the
 * device's later accesses to it fail (rvt cannot hold the arena open: {@code java.lang.foreign} has no public way to
 * do so); deregister first ({@link MemoryRegion#deregMr()}).
 */
public final class SegmentRegions {
    /** The pieces' size, 1 GiB: a power of two, as {@link ProtectionDomain#regMrPieces} asks. */
    public static final long PIECE_SIZE = 1L << 30;

    /** A thread that owns no arena: a segment it may access is accessible from any thread. */
    private static final Thread OTHER_THREAD = new Thread(() -> { }, "rvt-ffm-access-probe");

    private SegmentRegions() {
    }

    /**
     * Registers the whole of {@code segment}: {@link #regMr(ProtectionDomain, MemorySegment, long, long, int)} with
     * offset 0 and the segment's size.
     *
     * @param pd the protection domain
     * @param segment a native segment accessible from any thread
     * @param access {@link AccessFlag} bits
     * @return the region; its length is the segment's size
     * @throws VerbsException as the method named says
     */
    public static MemoryRegion regMr(ProtectionDomain pd, MemorySegment segment, int access) {
        if (segment == null) {
            throw new VerbsException(Errno.EINVAL, "regMr: segment is null");
        }
        return regMr(pd, segment, 0, segment.byteSize(), access);
    }

    /**
     * Registers {@code length} bytes of {@code segment} from {@code offset} ({@code ibv_reg_mr(pd, addr, length,
     * access)} with {@code addr} inside the segment). The region's virtual address is chosen by the device as for a
     * {@code ByteBuffer} (0 with {@link AccessFlag#ZERO_BASED}).
     *
     * @param pd the protection domain
     * @param segment a native segment accessible from any thread
     * @param offset the first byte's offset in the segment
     * @param length bytes, at least 1; up to the device's {@code max_mr_size}
     * @param access {@link AccessFlag} bits
     * @return the region
     * @throws VerbsException EINVAL for a null argument, a length below 1, a heap segment, a segment confined to a
     *                        thread, write access ({@code LOCAL_WRITE}, {@code REMOTE_WRITE}, {@code REMOTE_ATOMIC}) to
     *                        a read-only segment, or what {@link ProtectionDomain#regMrPieces} refuses; EFAULT (as
     *                        {@code ibv_reg_mr} for memory the process has not mapped) for a segment whose arena is
     *                        closed or a range that does not lie inside the segment; ENOMEM when the key table is
     *                        full. Each message names the value.
     */
    public static MemoryRegion regMr(ProtectionDomain pd, MemorySegment segment, long offset, long length,
            int access) {
        if (pd == null) {
            throw new VerbsException(Errno.EINVAL, "regMr: pd is null");
        }
        if (segment == null) {
            throw new VerbsException(Errno.EINVAL, "regMr: segment is null");
        }
        if (!segment.isNative()) {
            throw new VerbsException(Errno.EINVAL, "regMr: " + segment + " is a heap segment; a region needs native"
                    + " memory (an arena's or a mapped file's)");
        }
        if (!segment.scope().isAlive()) {
            throw new VerbsException(Errno.EFAULT, "regMr: the arena of segment at 0x"
                    + Long.toHexString(segment.address()) + " (" + segment.byteSize() + " bytes) is closed");
        }
        if (!segment.isAccessibleBy(OTHER_THREAD)) {
            throw new VerbsException(Errno.EINVAL, "regMr: segment at 0x" + Long.toHexString(segment.address())
                    + " is confined to one thread; the device's threads need a global, automatic or shared arena's");
        }
        if (length < 1) {
            throw new VerbsException(Errno.EINVAL, "regMr: length " + length + " is below 1");
        }
        if (offset < 0 || offset > segment.byteSize() || length > segment.byteSize() - offset) {
            throw new VerbsException(Errno.EFAULT, "regMr: range [" + offset + ", +" + length + ") is not inside the "
                    + segment.byteSize() + "-byte segment at 0x" + Long.toHexString(segment.address()));
        }
        int writes = AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_ATOMIC);
        if (segment.isReadOnly() && (access & writes) != 0) {
            throw new VerbsException(Errno.EINVAL, "regMr: segment at 0x" + Long.toHexString(segment.address())
                    + " is read-only but access " + AccessFlag.describe(access) + " allows writing");
        }
        long n = (length + PIECE_SIZE - 1) / PIECE_SIZE;
        if (n > Integer.MAX_VALUE) {
            throw new VerbsException(Errno.EINVAL, "regMr: length " + length + " needs more than 2^31 pieces");
        }
        ByteBuffer[] pieces = new ByteBuffer[(int) n];
        for (int i = 0; i < pieces.length; i++) {
            long at = offset + i * PIECE_SIZE;
            pieces[i] = segment.asSlice(at, Math.min(PIECE_SIZE, offset + length - at)).asByteBuffer();
        }
        return pd.regMrPieces(pieces, access);
    }
}
