package io.rvt.transport.header;

import java.nio.ByteBuffer;

/**
 * Layout of the Immediate Data header (IBA Vol. 1 §9.3.7), 4 bytes: in the *_WITH_IMMEDIATE packets. The value is
 * opaque to the transport and is delivered to the receiver's work completion as it is on the wire (big-endian).
 *
 * <pre>
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 0 |                        Immediate Data                         |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 */
public final class ImmDtDescriptor {
    private ImmDtDescriptor() {
    }

    /** Offset of the 32-bit immediate data. */
    public static final int IMMEDIATE_OFFSET = 0;
    /** Length of ImmDt in bytes. */
    public static final int LENGTH = 4;

    /**
     * @param buf the buffer
     * @param index index of the first byte of ImmDt
     * @return the immediate data, read big-endian
     */
    public static int immediate(ByteBuffer buf, int index) {
        return Bytes.i32(buf, index + IMMEDIATE_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of ImmDt
     * @param immediate the immediate data, written big-endian
     */
    public static void immediate(ByteBuffer buf, int index, int immediate) {
        Bytes.i32(buf, index + IMMEDIATE_OFFSET, immediate);
    }

    /**
     * Writes ImmDt.
     *
     * @param buf the buffer
     * @param index index of the first byte of ImmDt
     * @param immediate the immediate data
     * @return {@code index + LENGTH}, where the next header or the payload starts
     */
    public static int write(ByteBuffer buf, int index, int immediate) {
        Bytes.i32(buf, index + IMMEDIATE_OFFSET, immediate);
        return index + LENGTH;
    }
}
