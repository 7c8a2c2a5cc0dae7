package io.rvt.api;

import java.nio.ByteBuffer;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A registered memory region ({@code struct ib_mr}; rdmavt: {@code struct rvt_mr}/{@code rvt_mregion}): a range of a
 * {@link ByteBuffer} with a virtual address, a local key for the local side of work requests and a remote key peers
 * put in RDMA and atomic requests. Every access through a key is bounds-, permission- and PD-checked.
 */
@ProviderType
public interface MemoryRegion {
    /** @return the PD the region belongs to */
    ProtectionDomain pd();

    /** @return the local key ({@code lkey}) */
    int lkey();

    /** @return the remote key ({@code rkey}); equal to the lkey in rdmavt */
    int rkey();

    /** @return the virtual address of the first byte ({@code iova}) */
    long addr();

    /** @return the length in bytes */
    long length();

    /** @return {@link AccessFlag} bits */
    int access();

    /**
     * A view of the region's bytes: position 0 is the byte at {@link #addr()}, the limit is {@link #length()}. The
     * view is the caller's to move; the bytes are shared with the device.
     *
     * @return a new view of the region's bytes
     * @throws VerbsException EINVAL for a region registered in several pieces
     *                        ({@link ProtectionDomain#regMrPieces(ByteBuffer[], int)}): use {@link #buffers()}
     */
    ByteBuffer buffer();

    /**
     * Views of the region's bytes, piece by piece ({@link ProtectionDomain#regMrPieces(ByteBuffer[], int)}): the
     * first view's position 0 is the byte at {@link #addr()}, each view's limit its piece's length; the bytes are
     * shared with the device. A region of one buffer has one view, {@link #buffer()}, which is what this default returns.
     *
     * @return new views, one per piece, in order
     */
    default ByteBuffer[] buffers() {
        return new ByteBuffer[] {buffer()};
    }

    /**
     * For a region from {@link ProtectionDomain#allocMr}: sets the memory a later {@link WrOpcode#REG_MR} makes
     * accessible ({@code ib_map_mr_sg}; rdmavt: {@code rvt_map_mr_sg}).
     *
     * @param buffer the bytes between position and limit
     * @param iova the virtual address the first byte gets
     * @throws VerbsException EINVAL if this is not a fast-registration region, ENOMEM if the range needs more pages
     *                        than the region was allocated for
     */
    void mapBuffer(ByteBuffer buffer, long iova);

    /**
     * Deregisters the region ({@code ibv_dereg_mr}; rdmavt: {@code rvt_dereg_mr}). QPs of the same PD whose posted
     * work still references the region are moved to the error state; the call then waits, up to five seconds, for the
     * last reference to go.
     *
     * @throws VerbsException EBUSY if references remain after the wait (the region stays allocated and unusable)
     */
    void deregMr();
}
