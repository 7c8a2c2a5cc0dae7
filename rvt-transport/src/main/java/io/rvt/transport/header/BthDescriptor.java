package io.rvt.transport.header;

import java.nio.ByteBuffer;

/**
 * Layout of the Base Transport Header (IBA Vol. 1 §9.2), 12 bytes, present in every IBA transport packet: after the
 * LRH or GRH on native IB, first in the UDP payload on RoCEv2. Multi-byte fields are big-endian.
 *
 * <pre>
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 0 |    OpCode     |S|M|Pad| TVer  |             P_Key             |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 4 |F|B|   resv6   |                    DestQP                     |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 8 |A|    resv7    |                      PSN                      |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * S is the solicited event bit, M the migration request (MigReq), Pad the pad count (payload bytes added to reach a
 * multiple of 4), TVer the transport header version (0), A the acknowledge request. Byte 4 is resv8a in IBA 1.0;
 * later versions and RoCEv2 use its top bits as FECN (F) and BECN (B). Switches may rewrite that byte, so the ICRC
 * treats all of it as ones.
 */
public final class BthDescriptor {
    private BthDescriptor() {
    }

    /** Offset of OpCode. */
    public static final int OPCODE_OFFSET = 0;
    /** Offset of the byte holding SE, MigReq, PadCnt and TVer. */
    public static final int FLAGS_OFFSET = 1;
    /** Offset of the 16-bit P_Key. */
    public static final int PKEY_OFFSET = 2;
    /** Offset of resv8a (FECN, BECN, 6 reserved bits). */
    public static final int RESV8A_OFFSET = 4;
    /** Offset of the 24-bit destination QP. */
    public static final int DEST_QP_OFFSET = 5;
    /** Offset of the byte holding AckReq and resv7. */
    public static final int ACK_REQ_OFFSET = 8;
    /** Offset of the 24-bit PSN. */
    public static final int PSN_OFFSET = 9;
    /** Length of the BTH in bytes. */
    public static final int LENGTH = 12;

    /** The only transport header version defined ({@code BTH_TVER}). */
    public static final int TRANSPORT_VERSION = 0;
    /** The largest pad count. */
    public static final int MAX_PAD_COUNT = 3;
    /** Mask of a 24-bit QPN or PSN ({@code BTH_QPN_MASK}, {@code BTH_PSN_MASK}). */
    public static final int MASK_24 = 0xFFFFFF;
    /** The multicast destination QP, {@code IB_MULTICAST_QPN}. */
    public static final int MULTICAST_QPN = 0xFFFFFF;
    /** The default (full member) P_Key. */
    public static final int DEFAULT_PKEY = 0xFFFF;

    private static final int SE_BIT = 0x80;
    private static final int MIG_REQ_BIT = 0x40;
    private static final int PAD_MASK = 0x30;
    private static final int PAD_SHIFT = 4;
    private static final int TVER_MASK = 0x0F;
    private static final int FECN_BIT = 0x80;
    private static final int BECN_BIT = 0x40;
    private static final int ACK_REQ_BIT = 0x80;
    private static final int RESV7_MASK = 0x7F;

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @return OpCode, 0..255 (see {@link Opcode})
     */
    public static int opcode(ByteBuffer buf, int index) {
        return Bytes.u8(buf, index + OPCODE_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @param opcode OpCode; only the low 8 bits are used
     */
    public static void opcode(ByteBuffer buf, int index, int opcode) {
        Bytes.u8(buf, index + OPCODE_OFFSET, opcode);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @return SE, the solicited event bit
     */
    public static boolean solicitedEvent(ByteBuffer buf, int index) {
        return Bytes.bits(buf, index + FLAGS_OFFSET, SE_BIT, 7) != 0;
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @param se SE, the solicited event bit
     */
    public static void solicitedEvent(ByteBuffer buf, int index, boolean se) {
        Bytes.bits(buf, index + FLAGS_OFFSET, SE_BIT, 7, se ? 1 : 0);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @return M, the migration request bit
     */
    public static boolean migReq(ByteBuffer buf, int index) {
        return Bytes.bits(buf, index + FLAGS_OFFSET, MIG_REQ_BIT, 6) != 0;
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @param migReq M, the migration request bit
     */
    public static void migReq(ByteBuffer buf, int index, boolean migReq) {
        Bytes.bits(buf, index + FLAGS_OFFSET, MIG_REQ_BIT, 6, migReq ? 1 : 0);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @return PadCnt, 0..3
     */
    public static int padCount(ByteBuffer buf, int index) {
        return Bytes.bits(buf, index + FLAGS_OFFSET, PAD_MASK, PAD_SHIFT);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @param padCount PadCnt; only the low 2 bits are used
     */
    public static void padCount(ByteBuffer buf, int index, int padCount) {
        Bytes.bits(buf, index + FLAGS_OFFSET, PAD_MASK, PAD_SHIFT, padCount);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @return TVer, 0..15
     */
    public static int transportVersion(ByteBuffer buf, int index) {
        return Bytes.bits(buf, index + FLAGS_OFFSET, TVER_MASK, 0);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @param version TVer; only the low 4 bits are used
     */
    public static void transportVersion(ByteBuffer buf, int index, int version) {
        Bytes.bits(buf, index + FLAGS_OFFSET, TVER_MASK, 0, version);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @return P_Key, 0..0xFFFF
     */
    public static int pkey(ByteBuffer buf, int index) {
        return Bytes.u16(buf, index + PKEY_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @param pkey P_Key; only the low 16 bits are used
     */
    public static void pkey(ByteBuffer buf, int index, int pkey) {
        Bytes.u16(buf, index + PKEY_OFFSET, pkey);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @return the whole resv8a byte (FECN, BECN, reserved), 0..255
     */
    public static int resv8a(ByteBuffer buf, int index) {
        return Bytes.u8(buf, index + RESV8A_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @param value the whole resv8a byte; only the low 8 bits are used
     */
    public static void resv8a(ByteBuffer buf, int index, int value) {
        Bytes.u8(buf, index + RESV8A_OFFSET, value);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @return F, forward explicit congestion notification
     */
    public static boolean fecn(ByteBuffer buf, int index) {
        return Bytes.bits(buf, index + RESV8A_OFFSET, FECN_BIT, 7) != 0;
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @param fecn F, forward explicit congestion notification
     */
    public static void fecn(ByteBuffer buf, int index, boolean fecn) {
        Bytes.bits(buf, index + RESV8A_OFFSET, FECN_BIT, 7, fecn ? 1 : 0);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @return B, backward explicit congestion notification
     */
    public static boolean becn(ByteBuffer buf, int index) {
        return Bytes.bits(buf, index + RESV8A_OFFSET, BECN_BIT, 6) != 0;
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @param becn B, backward explicit congestion notification
     */
    public static void becn(ByteBuffer buf, int index, boolean becn) {
        Bytes.bits(buf, index + RESV8A_OFFSET, BECN_BIT, 6, becn ? 1 : 0);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @return DestQP, 0..0xFFFFFF
     */
    public static int destQp(ByteBuffer buf, int index) {
        return Bytes.u24(buf, index + DEST_QP_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @param qpn DestQP; only the low 24 bits are used
     */
    public static void destQp(ByteBuffer buf, int index, int qpn) {
        Bytes.u24(buf, index + DEST_QP_OFFSET, qpn);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @return A, the acknowledge request bit
     */
    public static boolean ackReq(ByteBuffer buf, int index) {
        return Bytes.bits(buf, index + ACK_REQ_OFFSET, ACK_REQ_BIT, 7) != 0;
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @param ackReq A, the acknowledge request bit
     */
    public static void ackReq(ByteBuffer buf, int index, boolean ackReq) {
        Bytes.bits(buf, index + ACK_REQ_OFFSET, ACK_REQ_BIT, 7, ackReq ? 1 : 0);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @return resv7, 0..127
     */
    public static int resv7(ByteBuffer buf, int index) {
        return Bytes.bits(buf, index + ACK_REQ_OFFSET, RESV7_MASK, 0);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @param value resv7; only the low 7 bits are used
     */
    public static void resv7(ByteBuffer buf, int index, int value) {
        Bytes.bits(buf, index + ACK_REQ_OFFSET, RESV7_MASK, 0, value);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @return PSN, 0..0xFFFFFF
     */
    public static int psn(ByteBuffer buf, int index) {
        return Bytes.u24(buf, index + PSN_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @param psn PSN; only the low 24 bits are used
     */
    public static void psn(ByteBuffer buf, int index, int psn) {
        Bytes.u24(buf, index + PSN_OFFSET, psn);
    }

    /**
     * Writes a whole BTH with TVer 0, resv8a and resv7 zero.
     *
     * @param buf the buffer
     * @param index index of the first byte of the BTH
     * @param opcode OpCode (see {@link Opcode})
     * @param solicitedEvent SE
     * @param migReq M
     * @param padCount PadCnt, 0..3 ({@link PacketBuilder#padCount(int)})
     * @param pkey P_Key
     * @param destQp DestQP, 24 bits
     * @param ackReq A
     * @param psn PSN, 24 bits
     * @return {@code index + LENGTH}, where the first extension header (or the payload) starts
     */
    public static int write(ByteBuffer buf, int index, int opcode, boolean solicitedEvent, boolean migReq,
            int padCount, int pkey, int destQp, boolean ackReq, int psn) {
        Bytes.u8(buf, index + OPCODE_OFFSET, opcode);
        Bytes.u8(buf, index + FLAGS_OFFSET, (solicitedEvent ? SE_BIT : 0) | (migReq ? MIG_REQ_BIT : 0)
                | (padCount << PAD_SHIFT & PAD_MASK) | TRANSPORT_VERSION);
        Bytes.u16(buf, index + PKEY_OFFSET, pkey);
        // resv8a (byte 4) and DestQP (bytes 5..7) in one store: resv8a goes out as zero
        Bytes.i32(buf, index + RESV8A_OFFSET, destQp & MASK_24);
        Bytes.i32(buf, index + ACK_REQ_OFFSET, (ackReq ? ACK_REQ_BIT << 24 : 0) | (psn & MASK_24));
        return index + LENGTH;
    }
}
