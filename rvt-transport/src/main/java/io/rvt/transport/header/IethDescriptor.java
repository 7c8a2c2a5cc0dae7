package io.rvt.transport.header;

import java.nio.ByteBuffer;

/**
 * Layout of the Invalidate Extended Transport Header (IBA Vol. 1 §9.3.8), 4 bytes: in the SEND_*_WITH_INVALIDATE
 * packets; the responder invalidates the memory key it names. Big-endian.
 *
 * <pre>
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 0 |                             R_Key                             |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 */
public final class IethDescriptor {
    private IethDescriptor() {
    }

    /** Offset of the 32-bit R_Key. */
    public static final int RKEY_OFFSET = 0;
    /** Length of the IETH in bytes. */
    public static final int LENGTH = 4;

    /**
     * @param buf the buffer
     * @param index index of the first byte of the IETH
     * @return the R_Key to invalidate
     */
    public static int rkey(ByteBuffer buf, int index) {
        return Bytes.i32(buf, index + RKEY_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the IETH
     * @param rkey the R_Key to invalidate
     */
    public static void rkey(ByteBuffer buf, int index, int rkey) {
        Bytes.i32(buf, index + RKEY_OFFSET, rkey);
    }

    /**
     * Writes the IETH.
     *
     * @param buf the buffer
     * @param index index of the first byte of the IETH
     * @param rkey the R_Key to invalidate
     * @return {@code index + LENGTH}, where the payload starts
     */
    public static int write(ByteBuffer buf, int index, int rkey) {
        Bytes.i32(buf, index + RKEY_OFFSET, rkey);
        return index + LENGTH;
    }
}
