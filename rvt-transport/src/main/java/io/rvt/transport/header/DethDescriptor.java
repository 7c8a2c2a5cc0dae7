package io.rvt.transport.header;

import java.nio.ByteBuffer;

/**
 * Layout of the Datagram Extended Transport Header (IBA Vol. 1 §9.3.2), 8 bytes: in every UD packet. Big-endian.
 *
 * <pre>
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 0 |                             Q_Key                             |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 4 |     resv8     |                     SrcQP                     |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 */
public final class DethDescriptor {
    private DethDescriptor() {
    }

    /** Offset of the 32-bit Q_Key. */
    public static final int QKEY_OFFSET = 0;
    /** Offset of the reserved byte. */
    public static final int RESV8_OFFSET = 4;
    /** Offset of the 24-bit source QP. */
    public static final int SRC_QP_OFFSET = 5;
    /** Length of the DETH in bytes. */
    public static final int LENGTH = 8;

    /**
     * @param buf the buffer
     * @param index index of the first byte of the DETH
     * @return the Q_Key
     */
    public static int qkey(ByteBuffer buf, int index) {
        return Bytes.i32(buf, index + QKEY_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the DETH
     * @param qkey the Q_Key
     */
    public static void qkey(ByteBuffer buf, int index, int qkey) {
        Bytes.i32(buf, index + QKEY_OFFSET, qkey);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the DETH
     * @return resv8, 0..255
     */
    public static int resv8(ByteBuffer buf, int index) {
        return Bytes.u8(buf, index + RESV8_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the DETH
     * @param value resv8; only the low 8 bits are used
     */
    public static void resv8(ByteBuffer buf, int index, int value) {
        Bytes.u8(buf, index + RESV8_OFFSET, value);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the DETH
     * @return the source QP, 0..0xFFFFFF
     */
    public static int srcQp(ByteBuffer buf, int index) {
        return Bytes.u24(buf, index + SRC_QP_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the DETH
     * @param qpn the source QP; only the low 24 bits are used
     */
    public static void srcQp(ByteBuffer buf, int index, int qpn) {
        Bytes.u24(buf, index + SRC_QP_OFFSET, qpn);
    }

    /**
     * Writes a whole DETH with resv8 zero.
     *
     * @param buf the buffer
     * @param index index of the first byte of the DETH
     * @param qkey the Q_Key
     * @param srcQp the source QP, 24 bits
     * @return {@code index + LENGTH}, where the next header or the payload starts
     */
    public static int write(ByteBuffer buf, int index, int qkey, int srcQp) {
        Bytes.i32(buf, index + QKEY_OFFSET, qkey);
        Bytes.i32(buf, index + RESV8_OFFSET, srcQp & BthDescriptor.MASK_24);
        return index + LENGTH;
    }
}
