package io.rvt.transport.header;

import java.nio.ByteBuffer;

/**
 * Layout of the Atomic Extended Transport Header (IBA Vol. 1 §9.3.4), 28 bytes: in COMPARE_SWAP and FETCH_ADD
 * requests. Multi-byte fields are big-endian.
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
 * 12 |                Swap (or Add) Data (64 bits)                   |
 *    +                                                               +
 * 16 |                                                               |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 20 |                   Compare Data (64 bits)                      |
 *    +                                                               +
 * 24 |                                                               |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * For FETCH_ADD the swap field holds the value to add and the compare field is ignored.
 */
public final class AtomicEthDescriptor {
    private AtomicEthDescriptor() {
    }

    /** Offset of the 64-bit virtual address (8-byte aligned in the remote memory). */
    public static final int VIRTUAL_ADDRESS_OFFSET = 0;
    /** Offset of the 32-bit R_Key. */
    public static final int RKEY_OFFSET = 8;
    /** Offset of the 64-bit swap (COMPARE_SWAP) or add (FETCH_ADD) data. */
    public static final int SWAP_ADD_DATA_OFFSET = 12;
    /** Offset of the 64-bit compare data. */
    public static final int COMPARE_DATA_OFFSET = 20;
    /** Length of the AtomicETH in bytes. */
    public static final int LENGTH = 28;

    /**
     * @param buf the buffer
     * @param index index of the first byte of the AtomicETH
     * @return the remote virtual address
     */
    public static long virtualAddress(ByteBuffer buf, int index) {
        return Bytes.i64(buf, index + VIRTUAL_ADDRESS_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the AtomicETH
     * @param va the remote virtual address
     */
    public static void virtualAddress(ByteBuffer buf, int index, long va) {
        Bytes.i64(buf, index + VIRTUAL_ADDRESS_OFFSET, va);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the AtomicETH
     * @return the R_Key
     */
    public static int rkey(ByteBuffer buf, int index) {
        return Bytes.i32(buf, index + RKEY_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the AtomicETH
     * @param rkey the R_Key
     */
    public static void rkey(ByteBuffer buf, int index, int rkey) {
        Bytes.i32(buf, index + RKEY_OFFSET, rkey);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the AtomicETH
     * @return the swap (COMPARE_SWAP) or add (FETCH_ADD) data
     */
    public static long swapAddData(ByteBuffer buf, int index) {
        return Bytes.i64(buf, index + SWAP_ADD_DATA_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the AtomicETH
     * @param data the swap (COMPARE_SWAP) or add (FETCH_ADD) data
     */
    public static void swapAddData(ByteBuffer buf, int index, long data) {
        Bytes.i64(buf, index + SWAP_ADD_DATA_OFFSET, data);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the AtomicETH
     * @return the compare data
     */
    public static long compareData(ByteBuffer buf, int index) {
        return Bytes.i64(buf, index + COMPARE_DATA_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the AtomicETH
     * @param data the compare data
     */
    public static void compareData(ByteBuffer buf, int index, long data) {
        Bytes.i64(buf, index + COMPARE_DATA_OFFSET, data);
    }

    /**
     * Writes a whole AtomicETH.
     *
     * @param buf the buffer
     * @param index index of the first byte of the AtomicETH
     * @param va the remote virtual address
     * @param rkey the R_Key
     * @param swapAddData the swap or add data
     * @param compareData the compare data (0 for FETCH_ADD)
     * @return {@code index + LENGTH}
     */
    public static int write(ByteBuffer buf, int index, long va, int rkey, long swapAddData, long compareData) {
        Bytes.i64(buf, index + VIRTUAL_ADDRESS_OFFSET, va);
        Bytes.i32(buf, index + RKEY_OFFSET, rkey);
        Bytes.i64(buf, index + SWAP_ADD_DATA_OFFSET, swapAddData);
        Bytes.i64(buf, index + COMPARE_DATA_OFFSET, compareData);
        return index + LENGTH;
    }
}
