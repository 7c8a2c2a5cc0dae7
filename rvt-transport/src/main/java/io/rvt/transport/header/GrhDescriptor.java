package io.rvt.transport.header;

import io.rvt.api.Gid;
import java.nio.ByteBuffer;

/**
 * Layout of the Global Route Header (IBA Vol. 1 §8.3), 40 bytes, shaped like an IPv6 header: it follows the LRH when
 * LNH is {@link LrhDescriptor#LNH_IBA_GLOBAL}. Multi-byte fields are big-endian.
 *
 * <pre>
 *     0                   1                   2                   3
 *     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  0 | IPVer |    TClass     |              FlowLabel                |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  4 |            PayLen             |    NxtHdr     |    HopLmt     |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  8 |                                                               |
 *    +                      SGID (128 bits)                          +
 *    |                                                               |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 24 |                                                               |
 *    +                      DGID (128 bits)                          +
 *    |                                                               |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * IPVer is 6, NxtHdr 0x1B (IBA transport follows). PayLen counts the bytes after the GRH up to and including the
 * ICRC. The GID getters that return a {@link Gid} allocate it; the {@code long} getters do not.
 */
public final class GrhDescriptor {
    private GrhDescriptor() {
    }

    /** Offset of the 32 bits holding IPVer (4), TClass (8) and FlowLabel (20). */
    public static final int VERSION_CLASS_FLOW_OFFSET = 0;
    /** Offset of the 16-bit PayLen. */
    public static final int PAY_LEN_OFFSET = 4;
    /** Offset of NxtHdr. */
    public static final int NEXT_HEADER_OFFSET = 6;
    /** Offset of HopLmt. */
    public static final int HOP_LIMIT_OFFSET = 7;
    /** Offset of the source GID. */
    public static final int SGID_OFFSET = 8;
    /** Offset of the destination GID. */
    public static final int DGID_OFFSET = 24;
    /** Length of a GID in bytes. */
    public static final int GID_LENGTH = 16;
    /** Length of the GRH in bytes. */
    public static final int LENGTH = 40;

    /** The IPVer every GRH carries. */
    public static final int IP_VERSION = 6;
    /** NxtHdr for an IBA transport header ({@code IB_GRH_NEXT_HDR}). */
    public static final int NEXT_HEADER_IBA = 0x1B;
    /** The largest FlowLabel: 20 bits. */
    public static final int FLOW_LABEL_MASK = 0xFFFFF;

    /**
     * @param buf the buffer
     * @param index index of the first byte of the GRH
     * @return IPVer, 0..15
     */
    public static int ipVersion(ByteBuffer buf, int index) {
        return Bytes.i32(buf, index + VERSION_CLASS_FLOW_OFFSET) >>> 28;
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the GRH
     * @param version IPVer; only the low 4 bits are used
     */
    public static void ipVersion(ByteBuffer buf, int index, int version) {
        Bytes.bits(buf, index + VERSION_CLASS_FLOW_OFFSET, 0xF0, 4, version);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the GRH
     * @return TClass, 0..255
     */
    public static int trafficClass(ByteBuffer buf, int index) {
        return (Bytes.i32(buf, index + VERSION_CLASS_FLOW_OFFSET) >>> 20) & 0xFF;
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the GRH
     * @param trafficClass TClass; only the low 8 bits are used
     */
    public static void trafficClass(ByteBuffer buf, int index, int trafficClass) {
        int i = index + VERSION_CLASS_FLOW_OFFSET;
        Bytes.i32(buf, i, (Bytes.i32(buf, i) & ~0x0FF0_0000) | ((trafficClass & 0xFF) << 20));
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the GRH
     * @return FlowLabel, 0..0xFFFFF
     */
    public static int flowLabel(ByteBuffer buf, int index) {
        return Bytes.i32(buf, index + VERSION_CLASS_FLOW_OFFSET) & FLOW_LABEL_MASK;
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the GRH
     * @param flowLabel FlowLabel; only the low 20 bits are used
     */
    public static void flowLabel(ByteBuffer buf, int index, int flowLabel) {
        int i = index + VERSION_CLASS_FLOW_OFFSET;
        Bytes.i32(buf, i, (Bytes.i32(buf, i) & ~FLOW_LABEL_MASK) | (flowLabel & FLOW_LABEL_MASK));
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the GRH
     * @return PayLen in bytes, 0..0xFFFF
     */
    public static int payloadLength(ByteBuffer buf, int index) {
        return Bytes.u16(buf, index + PAY_LEN_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the GRH
     * @param length PayLen in bytes; only the low 16 bits are used
     */
    public static void payloadLength(ByteBuffer buf, int index, int length) {
        Bytes.u16(buf, index + PAY_LEN_OFFSET, length);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the GRH
     * @return NxtHdr, 0..255
     */
    public static int nextHeader(ByteBuffer buf, int index) {
        return Bytes.u8(buf, index + NEXT_HEADER_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the GRH
     * @param nextHeader NxtHdr; only the low 8 bits are used
     */
    public static void nextHeader(ByteBuffer buf, int index, int nextHeader) {
        Bytes.u8(buf, index + NEXT_HEADER_OFFSET, nextHeader);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the GRH
     * @return HopLmt, 0..255
     */
    public static int hopLimit(ByteBuffer buf, int index) {
        return Bytes.u8(buf, index + HOP_LIMIT_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the GRH
     * @param hopLimit HopLmt; only the low 8 bits are used
     */
    public static void hopLimit(ByteBuffer buf, int index, int hopLimit) {
        Bytes.u8(buf, index + HOP_LIMIT_OFFSET, hopLimit);
    }

    /**
     * Reads the source GID; allocates a {@link Gid} unless it is all zero.
     *
     * @param buf the buffer
     * @param index index of the first byte of the GRH
     * @return the SGID
     */
    public static Gid sgid(ByteBuffer buf, int index) {
        return Gid.read(buf, index + SGID_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the GRH
     * @param gid the SGID
     */
    public static void sgid(ByteBuffer buf, int index, Gid gid) {
        gid.write(buf, index + SGID_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the GRH
     * @return the upper 64 bits of the SGID (subnet prefix), without allocating
     */
    public static long sgidSubnetPrefix(ByteBuffer buf, int index) {
        return Bytes.i64(buf, index + SGID_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the GRH
     * @return the lower 64 bits of the SGID (interface id), without allocating
     */
    public static long sgidInterfaceId(ByteBuffer buf, int index) {
        return Bytes.i64(buf, index + SGID_OFFSET + 8);
    }

    /**
     * Reads the destination GID; allocates a {@link Gid} unless it is all zero.
     *
     * @param buf the buffer
     * @param index index of the first byte of the GRH
     * @return the DGID
     */
    public static Gid dgid(ByteBuffer buf, int index) {
        return Gid.read(buf, index + DGID_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the GRH
     * @param gid the DGID
     */
    public static void dgid(ByteBuffer buf, int index, Gid gid) {
        gid.write(buf, index + DGID_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the GRH
     * @return the upper 64 bits of the DGID (subnet prefix), without allocating
     */
    public static long dgidSubnetPrefix(ByteBuffer buf, int index) {
        return Bytes.i64(buf, index + DGID_OFFSET);
    }

    /**
     * @param buf the buffer
     * @param index index of the first byte of the GRH
     * @return the lower 64 bits of the DGID (interface id), without allocating
     */
    public static long dgidInterfaceId(ByteBuffer buf, int index) {
        return Bytes.i64(buf, index + DGID_OFFSET + 8);
    }

    /**
     * Writes a whole GRH with IPVer 6 and NxtHdr 0x1B.
     *
     * @param buf the buffer
     * @param index index of the first byte of the GRH
     * @param trafficClass TClass, 0..255
     * @param flowLabel FlowLabel, 0..0xFFFFF
     * @param payloadLength PayLen: bytes after the GRH up to and including the ICRC
     * @param hopLimit HopLmt, 0..255
     * @param sgid the source GID
     * @param dgid the destination GID
     * @return {@code index + LENGTH}, where the BTH starts
     */
    public static int write(ByteBuffer buf, int index, int trafficClass, int flowLabel, int payloadLength,
            int hopLimit, Gid sgid, Gid dgid) {
        Bytes.i32(buf, index + VERSION_CLASS_FLOW_OFFSET,
                IP_VERSION << 28 | (trafficClass & 0xFF) << 20 | (flowLabel & FLOW_LABEL_MASK));
        Bytes.u16(buf, index + PAY_LEN_OFFSET, payloadLength);
        Bytes.u8(buf, index + NEXT_HEADER_OFFSET, NEXT_HEADER_IBA);
        Bytes.u8(buf, index + HOP_LIMIT_OFFSET, hopLimit);
        sgid.write(buf, index + SGID_OFFSET);
        dgid.write(buf, index + DGID_OFFSET);
        return index + LENGTH;
    }
}
