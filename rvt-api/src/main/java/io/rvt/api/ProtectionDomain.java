package io.rvt.api;

import java.nio.ByteBuffer;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A protection domain ({@code struct ib_pd}; rdmavt: {@code struct rvt_pd}). Memory regions, QPs, SRQs and address
 * handles are created in a PD (in libibverbs the PD is their first argument), and a QP may only touch memory, and use
 * address handles, of its own PD. Every method may be called from any thread.
 */
@ProviderType
public interface ProtectionDomain {
    /** @return the device the PD belongs to */
    Device device();

    /**
     * Registers the bytes between {@code buffer}'s position and limit as a memory region ({@code ibv_reg_mr}; rdmavt:
     * {@code rvt_reg_user_mr}). The region's virtual address ({@link MemoryRegion#addr()}) is chosen by the device
     * (0 with {@link AccessFlag#ZERO_BASED}). The region keeps a view of the buffer: the caller's position and
     * limit may change afterwards without effect, and the buffer stays reachable until deregistration.
     *
     * @param buffer the memory; direct buffers are required by drivers that hand memory to native code
     * @param access {@link AccessFlag} bits
     * @return the region
     * @throws VerbsException EINVAL for an empty range or bad flags, ENOMEM when the lkey table is full
     */
    MemoryRegion regMr(ByteBuffer buffer, int access);

    /**
     * Registers memory longer than one {@link ByteBuffer} holds as one region of a 64-bit length ({@code ibv_reg_mr}
     * over a range of more than 2 GiB; rdmavt maps any length through its segment map, a {@code ByteBuffer} has an
     * {@code int} capacity). The region's bytes are the pieces' bytes between position and limit, one after the
     * other; every piece but the last has the same power-of-two length, at least 4 KiB, and the last is no longer
     * (so a 64-bit offset finds its piece by a shift). Work requests and remote accesses cross from piece to piece as
     * within one buffer; an atomic's 8 aligned bytes are always inside one piece. The virtual address is chosen as for
     * {@link #regMr(ByteBuffer, int)}. One piece registers exactly as {@link #regMr(ByteBuffer, int)} does; rvt's
     * {@code io.rvt.ffm} module registers a {@code java.lang.foreign.MemorySegment} through this method. An rvt
     * extension beyond rdmavt (whose user regions are one range of a process's memory).
     *
     * <p>This default registers one piece with {@link #regMr(ByteBuffer, int)} and refuses more (EOPNOTSUPP).
     *
     * @param pieces the memory, in order; the array is copied, each buffer's position and limit are read once
     * @param access {@link AccessFlag} bits
     * @return the region; {@link MemoryRegion#buffer()} is not available for a region of several pieces
     * @throws VerbsException EINVAL for no pieces, a null or empty piece, pieces of unequal or not power-of-two
     *                        length, a last piece longer than the others, heap buffers (pieces must be direct), a
     *                        read-only piece with write access, a total beyond the device's {@code max_mr_size},
     *                        or bad flags; ENOMEM when the lkey table is full
     */
    default MemoryRegion regMrPieces(ByteBuffer[] pieces, int access) {
        if (pieces != null && pieces.length == 1) {
            return regMr(pieces[0], access);
        }
        throw new VerbsException(Errno.EOPNOTSUPP, "regMr: this device registers no region in pieces");
    }

    /**
     * Allocates a region for fast registration ({@code ib_alloc_mr} with {@code IB_MR_TYPE_MEM_REG}; rdmavt:
     * {@code rvt_alloc_mr}): it gets keys now and memory later, through {@link MemoryRegion#mapBuffer} and a
     * {@link WrOpcode#REG_MR} work request.
     *
     * @param maxNumSg the largest number of pages it may map
     * @return the region, not yet usable for access
     * @throws VerbsException ENOMEM when the lkey table is full
     */
    MemoryRegion allocMr(int maxNumSg);

    /**
     * Allocates a memory window ({@code ibv_alloc_mw}; rxe: {@code rxe_alloc_mw}; rdmavt has none). The window grants
     * nothing until it is bound ({@link QueuePair#bindMw} for type 1, a {@link WrOpcode#BIND_MW} work request for
     * type 2); its rkey is in the key space of the device's regions and counts against the same table.
     *
     * @param type the window's type
     * @return the window, unbound
     * @throws VerbsException EINVAL for a null type, EOPNOTSUPP if the device has no windows (its operation table
     *                        has no {@code BIND_MW}), ENOMEM when the key table is full
     */
    MemoryWindow allocMw(MwType type);

    /**
     * Creates a queue pair in the RESET state ({@code ibv_create_qp}; rdmavt: {@code rvt_create_qp}).
     *
     * @param init what to create; {@code init.cap()} is updated with the sizes in effect
     * @return the QP
     * @throws VerbsException EINVAL for sizes over the device limits or a bad port, EOPNOTSUPP for an unsupported
     *                        type or create flag, ENOMEM when {@code max_qp} QPs exist or QP numbers run out
     */
    QueuePair createQp(QpInitAttr init);

    /**
     * Creates a shared receive queue ({@code ibv_create_srq}; rdmavt: {@code rvt_create_srq}).
     *
     * @param init what to create
     * @return the SRQ
     * @throws VerbsException EINVAL for bad sizes, EOPNOTSUPP for a type other than BASIC, ENOMEM over
     *                        {@code max_srq}
     */
    SharedReceiveQueue createSrq(SrqInitAttr init);

    /**
     * Creates an address handle ({@code ibv_create_ah}; rdmavt: {@code rvt_create_ah}, which checks the attributes
     * with {@code rvt_check_ah} and lets the driver fill its VL and MTU through {@code notify_new_ah}).
     *
     * @param attr the address; copied
     * @return the handle
     * @throws VerbsException EINVAL for a bad address, ENOMEM over {@code max_ah}
     */
    AddressHandle createAh(AhAttr attr);

    /**
     * Deallocates the PD ({@code ibv_dealloc_pd}).
     *
     * @throws VerbsException EBUSY while regions, windows, QPs, SRQs or address handles of this PD exist
     */
    void deallocPd();
}
