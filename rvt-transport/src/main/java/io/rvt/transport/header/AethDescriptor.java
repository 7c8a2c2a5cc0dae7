package io.rvt.transport.header;

import io.rvt.api.spi.Aeth;
import java.nio.ByteBuffer;

/**
 * Layout of the ACK Extended Transport Header (IBA Vol. 1 §9.3.5), 4 bytes: in ACKNOWLEDGE, ATOMIC_ACKNOWLEDGE and
 * RDMA READ RESPONSE FIRST/LAST/ONLY packets. Big-endian.
 *
 * <pre>
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 0 |   Syndrome    |                      MSN                      |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * The syndrome's top 3 bits are the class (ACK, RNR NAK, NAK), the low 5 the credit count, RNR timer or NAK code;
 * {@link Aeth} decodes the whole 32-bit value that {@link #value(ByteBuffer, int)} returns.
 */
public final class AethDescriptor {
    private AethDescriptor() {
    }

    /** Offset of the syndrome byte. */
    public static final int SYNDROME_OFFSET = 0;
    /** Offset of the 24-bit MSN. */
    public static final int MSN_OFFSET = 1;
    /** Length of the AETH in bytes. */
    public static final int LENGTH = 4;

    /**
     * @param buf the buffer
     * @param index index of the first byte of the AETH
     * @return the whole AETH as one 32-bit value, syndrome in bits 31..24 (what {@link Aeth} decodes)
     */
    public static int value(ByteBuffer buf, int index) {
        return Bytes.i32(buf, index);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the AETH
     * @param aeth the whole AETH, syndrome in bits 31..24 and MSN in bits 23..0
     */
    public static void value(ByteBuffer buf, int index, int aeth) {
        Bytes.i32(buf, index, aeth);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the AETH
     * @return the syndrome, 0..255
     */
    public static int syndrome(ByteBuffer buf, int index) {
        return Bytes.u8(buf, index + SYNDROME_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the AETH
     * @param syndrome the syndrome; only the low 8 bits are used
     */
    public static void syndrome(ByteBuffer buf, int index, int syndrome) {
        Bytes.u8(buf, index + SYNDROME_OFFSET, syndrome);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the AETH
     * @return the MSN, 0..0xFFFFFF
     */
    public static int msn(ByteBuffer buf, int index) {
        return Bytes.u24(buf, index + MSN_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the AETH
     * @param msn the MSN; only the low 24 bits are used
     */
    public static void msn(ByteBuffer buf, int index, int msn) {
        Bytes.u24(buf, index + MSN_OFFSET, msn);
    }

    /**
     * Writes a whole AETH.
     *
     * @param buf the buffer
     * @param index index of the first byte of the AETH
     * @param syndrome the syndrome, 0..255
     * @param msn the MSN, 24 bits
     * @return {@code index + LENGTH}, where the next header or the payload starts
     */
    public static int write(ByteBuffer buf, int index, int syndrome, int msn) {
        Bytes.i32(buf, index, (syndrome & 0xFF) << 24 | (msn & BthDescriptor.MASK_24));
        return index + LENGTH;
    }
}
