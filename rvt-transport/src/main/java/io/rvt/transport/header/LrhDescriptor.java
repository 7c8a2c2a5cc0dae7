package io.rvt.transport.header;

import java.nio.ByteBuffer;

/**
 * Layout of the InfiniBand Local Route Header (IBA Vol. 1 §7.7), 8 bytes, the first header of a native IB packet.
 * Multi-byte fields are big-endian. Bit 0 is the most significant bit of byte 0.
 *
 * <pre>
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 0 |  VL   | LVer  |  SL   |rsv|LNH|             DLID              |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 4 |  resv5  |       PktLen        |             SLID              |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * VL is the virtual lane (15 for subnet management), LVer the link version (0), SL the service level, LNH the next
 * header ({@link #LNH_IBA_LOCAL}: a BTH follows; {@link #LNH_IBA_GLOBAL}: a GRH follows). PktLen counts 4-byte
 * words from the first byte of the LRH to the last byte of the ICRC (the VCRC is not counted).
 */
public final class LrhDescriptor {
    private LrhDescriptor() {
    }

    /** Offset of the byte holding VL (bits 7..4) and LVer (bits 3..0). */
    public static final int VL_LVER_OFFSET = 0;
    /** Offset of the byte holding SL (bits 7..4), two reserved bits and LNH (bits 1..0). */
    public static final int SL_LNH_OFFSET = 1;
    /** Offset of the 16-bit destination LID. */
    public static final int DLID_OFFSET = 2;
    /** Offset of the 16 bits holding 5 reserved bits and the 11-bit PktLen. */
    public static final int PKT_LEN_OFFSET = 4;
    /** Offset of the 16-bit source LID. */
    public static final int SLID_OFFSET = 6;
    /** Length of the LRH in bytes. */
    public static final int LENGTH = 8;

    /** The only link version defined. */
    public static final int LINK_VERSION = 0;
    /** LNH: raw packet (no IBA transport). */
    public static final int LNH_RAW = 0;
    /** LNH: IP over a non-IBA transport. */
    public static final int LNH_IP_NON_IBA = 1;
    /** LNH: IBA local, a BTH follows the LRH. */
    public static final int LNH_IBA_LOCAL = 2;
    /** LNH: IBA global, a GRH follows the LRH. */
    public static final int LNH_IBA_GLOBAL = 3;
    /** The largest PktLen: 11 bits of 4-byte words. */
    public static final int MAX_PKT_LEN = 0x7FF;
    /** The first multicast LID ({@code IB_MULTICAST_LID_BASE}). */
    public static final int MULTICAST_LID_BASE = 0xC000;
    /** The permissive LID. */
    public static final int PERMISSIVE_LID = 0xFFFF;

    /**
     * @param buf the buffer
     * @param index index of the first byte of the LRH
     * @return VL, 0..15
     */
    public static int vl(ByteBuffer buf, int index) {
        return Bytes.bits(buf, index + VL_LVER_OFFSET, 0xF0, 4);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the LRH
     * @param vl VL; only the low 4 bits are used
     */
    public static void vl(ByteBuffer buf, int index, int vl) {
        Bytes.bits(buf, index + VL_LVER_OFFSET, 0xF0, 4, vl);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the LRH
     * @return LVer, 0..15
     */
    public static int linkVersion(ByteBuffer buf, int index) {
        return Bytes.bits(buf, index + VL_LVER_OFFSET, 0x0F, 0);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the LRH
     * @param version LVer; only the low 4 bits are used
     */
    public static void linkVersion(ByteBuffer buf, int index, int version) {
        Bytes.bits(buf, index + VL_LVER_OFFSET, 0x0F, 0, version);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the LRH
     * @return SL, 0..15
     */
    public static int sl(ByteBuffer buf, int index) {
        return Bytes.bits(buf, index + SL_LNH_OFFSET, 0xF0, 4);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the LRH
     * @param sl SL; only the low 4 bits are used
     */
    public static void sl(ByteBuffer buf, int index, int sl) {
        Bytes.bits(buf, index + SL_LNH_OFFSET, 0xF0, 4, sl);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the LRH
     * @return LNH, 0..3
     */
    public static int lnh(ByteBuffer buf, int index) {
        return Bytes.bits(buf, index + SL_LNH_OFFSET, 0x03, 0);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the LRH
     * @param lnh LNH; only the low 2 bits are used
     */
    public static void lnh(ByteBuffer buf, int index, int lnh) {
        Bytes.bits(buf, index + SL_LNH_OFFSET, 0x03, 0, lnh);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the LRH
     * @return the destination LID, 0..0xFFFF
     */
    public static int dlid(ByteBuffer buf, int index) {
        return Bytes.u16(buf, index + DLID_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the LRH
     * @param lid the destination LID; only the low 16 bits are used
     */
    public static void dlid(ByteBuffer buf, int index, int lid) {
        Bytes.u16(buf, index + DLID_OFFSET, lid);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the LRH
     * @return PktLen in 4-byte words, 0..{@link #MAX_PKT_LEN}
     */
    public static int packetLength(ByteBuffer buf, int index) {
        return Bytes.u16(buf, index + PKT_LEN_OFFSET) & MAX_PKT_LEN;
    }

    /**
     * Sets PktLen, keeping the reserved bits.
     *
     * @param buf the buffer
     * @param index index of the first byte of the LRH
     * @param words PktLen in 4-byte words; only the low 11 bits are used
     */
    public static void packetLength(ByteBuffer buf, int index, int words) {
        int i = index + PKT_LEN_OFFSET;
        Bytes.u16(buf, i, (Bytes.u16(buf, i) & ~MAX_PKT_LEN) | (words & MAX_PKT_LEN));
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the LRH
     * @return the source LID, 0..0xFFFF
     */
    public static int slid(ByteBuffer buf, int index) {
        return Bytes.u16(buf, index + SLID_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the LRH
     * @param lid the source LID; only the low 16 bits are used
     */
    public static void slid(ByteBuffer buf, int index, int lid) {
        Bytes.u16(buf, index + SLID_OFFSET, lid);
    }

    /**
     * Writes a whole LRH with LVer 0 and the reserved bits zero.
     *
     * @param buf the buffer
     * @param index index of the first byte of the LRH
     * @param vl VL, 0..15
     * @param sl SL, 0..15
     * @param lnh LNH, 0..3
     * @param dlid destination LID
     * @param packetLengthWords PktLen in 4-byte words, 0..{@link #MAX_PKT_LEN}
     * @param slid source LID
     * @return {@code index + LENGTH}, where the next header starts
     */
    public static int write(ByteBuffer buf, int index, int vl, int sl, int lnh, int dlid, int packetLengthWords,
            int slid) {
        Bytes.u8(buf, index + VL_LVER_OFFSET, (vl & 0x0F) << 4 | LINK_VERSION);
        Bytes.u8(buf, index + SL_LNH_OFFSET, (sl & 0x0F) << 4 | (lnh & 0x03));
        Bytes.u16(buf, index + DLID_OFFSET, dlid);
        Bytes.u16(buf, index + PKT_LEN_OFFSET, packetLengthWords & MAX_PKT_LEN);
        Bytes.u16(buf, index + SLID_OFFSET, slid);
        return index + LENGTH;
    }
}
