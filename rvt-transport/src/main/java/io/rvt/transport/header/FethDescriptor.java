package io.rvt.transport.header;

import java.nio.ByteBuffer;

/**
 * Layout of the FLUSH Extended Transport Header (IBA Vol. 1 1.5, A19.4.1), 4 bytes, in an RC FLUSH packet between the
 * BTH and the RETH (where Linux's rxe puts it: {@code rxe_opcode[IB_OPCODE_RC_FLUSH]}, {@code struct rxe_feth}).
 * Big-endian; the low bits carry the placement type and the selectivity level, the rest is reserved (sent as 0).
 *
 * <pre>
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 0 |                   reserved                        |SEL|  PLT  |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 * PLT (bits 3-0, {@code FETH_PLT_MASK}): placement type, 1 global visibility ({@code IB_FLUSH_GLOBAL}), 2 persistence
 * ({@code IB_FLUSH_PERSISTENT}). SEL (bits 5-4, {@code FETH_SEL_MASK}): selectivity level, 0 the RETH's range
 * ({@code IB_FLUSH_RANGE}), 1 the whole region ({@code IB_FLUSH_MR}).
 */
public final class FethDescriptor {
    private FethDescriptor() {
    }

    /** Length of the FETH in bytes. */
    public static final int LENGTH = 4;
    /** The placement type's bits. */
    public static final int PLT_MASK = 0x0F;
    /** The selectivity level's bits. */
    public static final int SEL_MASK = 0x30;
    /** Shift of the selectivity level. */
    public static final int SEL_SHIFT = 4;

    /**
     * @param buf the buffer
     * @param index index of the first byte of the FETH
     * @return the placement type (bits 3-0)
     */
    public static int placementType(ByteBuffer buf, int index) {
        return Bytes.i32(buf, index) & PLT_MASK;
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the FETH
     * @return the selectivity level (bits 5-4)
     */
    public static int selectivityLevel(ByteBuffer buf, int index) {
        return (Bytes.i32(buf, index) & SEL_MASK) >>> SEL_SHIFT;
    }

    /**
     * Writes the FETH, reserved bits 0 ({@code feth_init}).
     *
     * @param buf the buffer
     * @param index index of the first byte of the FETH
     * @param placementType the placement type (4 bits kept)
     * @param selectivityLevel the selectivity level (2 bits kept)
     * @return {@code index + LENGTH}, where the RETH starts
     */
    public static int write(ByteBuffer buf, int index, int placementType, int selectivityLevel) {
        Bytes.i32(buf, index, ((selectivityLevel << SEL_SHIFT) & SEL_MASK) | (placementType & PLT_MASK));
        return index + LENGTH;
    }
}
