package io.rvt.transport.header;

import java.nio.ByteBuffer;

/**
 * Layout of the RDMA Extended Transport Header (IBA Vol. 1 §9.3.3), 16 bytes: in RDMA WRITE FIRST/ONLY packets and
 * RDMA READ requests. Multi-byte fields are big-endian.
 *
 * <pre>
 *     0                   1                   2                   3
 *     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  0 |                  Virtual Address (64 bits)                    |
 *    +                                                               +
 *  4 |                                                               |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  8 |                            R_Key                              |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 12 |                           DMA Length                          |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * DMA Length is the length of the whole RDMA operation in bytes (unsigned 32 bits), not of this packet.
 */
public final class RethDescriptor {
    private RethDescriptor() {
    }

    /** Offset of the 64-bit virtual address. */
    public static final int VIRTUAL_ADDRESS_OFFSET = 0;
    /** Offset of the 32-bit R_Key. */
    public static final int RKEY_OFFSET = 8;
    /** Offset of the 32-bit DMA length. */
    public static final int DMA_LENGTH_OFFSET = 12;
    /** Length of the RETH in bytes. */
    public static final int LENGTH = 16;

    /**
     * @param buf the buffer
     * @param index index of the first byte of the RETH
     * @return the remote virtual address
     */
    public static long virtualAddress(ByteBuffer buf, int index) {
        return Bytes.i64(buf, index + VIRTUAL_ADDRESS_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the RETH
     * @param va the remote virtual address
     */
    public static void virtualAddress(ByteBuffer buf, int index, long va) {
        Bytes.i64(buf, index + VIRTUAL_ADDRESS_OFFSET, va);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the RETH
     * @return the R_Key
     */
    public static int rkey(ByteBuffer buf, int index) {
        return Bytes.i32(buf, index + RKEY_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the RETH
     * @param rkey the R_Key
     */
    public static void rkey(ByteBuffer buf, int index, int rkey) {
        Bytes.i32(buf, index + RKEY_OFFSET, rkey);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the RETH
     * @return the DMA length, an unsigned 32-bit value ({@link Integer#toUnsignedLong(int)} for arithmetic)
     */
    public static int dmaLength(ByteBuffer buf, int index) {
        return Bytes.i32(buf, index + DMA_LENGTH_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the RETH
     * @param length the DMA length, an unsigned 32-bit value
     */
    public static void dmaLength(ByteBuffer buf, int index, int length) {
        Bytes.i32(buf, index + DMA_LENGTH_OFFSET, length);
    }

    /**
     * Writes a whole RETH.
     *
     * @param buf the buffer
     * @param index index of the first byte of the RETH
     * @param va the remote virtual address
     * @param rkey the R_Key
     * @param dmaLength the DMA length, an unsigned 32-bit value
     * @return {@code index + LENGTH}, where the next header or the payload starts
     */
    public static int write(ByteBuffer buf, int index, long va, int rkey, int dmaLength) {
        Bytes.i64(buf, index + VIRTUAL_ADDRESS_OFFSET, va);
        Bytes.i32(buf, index + RKEY_OFFSET, rkey);
        Bytes.i32(buf, index + DMA_LENGTH_OFFSET, dmaLength);
        return index + LENGTH;
    }
}
