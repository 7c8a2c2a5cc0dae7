package io.rvt.transport.header;

import java.nio.ByteBuffer;

/**
 * Layout of the Atomic Acknowledge Extended Transport Header (IBA Vol. 1 §9.3.6), 8 bytes: after the AETH in an
 * ATOMIC_ACKNOWLEDGE. Big-endian.
 *
 * <pre>
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 0 |              Original Remote Data (64 bits)                   |
 *   +                                                               +
 * 4 |                                                               |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 */
public final class AtomicAckEthDescriptor {
    private AtomicAckEthDescriptor() {
    }

    /** Offset of the 64-bit original remote data. */
    public static final int ORIG_REM_DATA_OFFSET = 0;
    /** Length of the AtomicAckETH in bytes. */
    public static final int LENGTH = 8;

    /**
     * @param buf the buffer
     * @param index index of the first byte of the AtomicAckETH
     * @return the value the remote memory held before the atomic operation
     */
    public static long origRemData(ByteBuffer buf, int index) {
        return Bytes.i64(buf, index + ORIG_REM_DATA_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the AtomicAckETH
     * @param data the value the remote memory held before the atomic operation
     */
    public static void origRemData(ByteBuffer buf, int index, long data) {
        Bytes.i64(buf, index + ORIG_REM_DATA_OFFSET, data);
    }

    /**
     * Writes the AtomicAckETH.
     *
     * @param buf the buffer
     * @param index index of the first byte of the AtomicAckETH
     * @param origRemData the value the remote memory held before the atomic operation
     * @return {@code index + LENGTH}
     */
    public static int write(ByteBuffer buf, int index, long origRemData) {
        Bytes.i64(buf, index + ORIG_REM_DATA_OFFSET, origRemData);
        return index + LENGTH;
    }
}
