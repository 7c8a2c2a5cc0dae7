package io.rvt.transport.header;

import java.nio.ByteBuffer;

/**
 * Packet-level helpers for building IBA packets: pad count, packet lengths, pad bytes, and the length fields of the
 * LRH and GRH. Each header itself is written by its descriptor's {@code write} method, which returns where the next
 * header starts, so a sender writes a packet front to back:
 *
 * <pre>{@code
 * int pad = PacketBuilder.padCount(payloadLength);
 * int length = PacketBuilder.ibLength(Opcode.RC_RDMA_WRITE_ONLY, false, payloadLength);
 * int i = LrhDescriptor.write(buf, 0, vl, sl, LrhDescriptor.LNH_IBA_LOCAL, dlid, length / 4, slid);
 * i = BthDescriptor.write(buf, i, Opcode.RC_RDMA_WRITE_ONLY, false, false, pad, pkey, destQp, true, psn);
 * i = RethDescriptor.write(buf, i, va, rkey, dmaLength);
 * buf.put(i, payload, 0, payloadLength);                  // absolute bulk put (Java 16+)
 * i = PacketBuilder.writePad(buf, i + payloadLength, pad);
 * icrc.writeIb(buf, 0, length);                           // i + Icrc.LENGTH == length
 * }</pre>
 *
 * For RoCEv2 the packet starts at the BTH, its length is {@link #roceLength}, and the ICRC is written with
 * {@link Icrc#writeRoceV4} or {@link Icrc#writeRoceV6}. Nothing here allocates except on a bad argument.
 */
public final class PacketBuilder {
    private PacketBuilder() {
    }

    /**
     * @param payloadLength payload bytes, at least 0
     * @return the BTH PadCnt: bytes (0..3) that bring the payload to a multiple of 4
     */
    public static int padCount(int payloadLength) {
        return -payloadLength & 3;
    }

    /**
     * The RoCEv2 UDP payload length: BTH, extension headers, payload, pad and ICRC.
     *
     * @param opcode a valid opcode
     * @param payloadLength payload bytes (0 for opcodes without payload)
     * @return the length in bytes
     * @throws IllegalArgumentException if the opcode is invalid, the payload negative, or the opcode carries no
     *         payload and {@code payloadLength} is not 0
     */
    public static int roceLength(int opcode, int payloadLength) {
        if (!Opcode.isValid(opcode)) {
            throw new IllegalArgumentException("invalid opcode: 0x" + Integer.toHexString(opcode));
        }
        if (payloadLength < 0 || (payloadLength > 0 && !Opcode.hasPayload(opcode))
                || payloadLength > Icrc.MAX_ROCE_PAYLOAD) {
            throw new IllegalArgumentException("bad payload length for " + Opcode.name(opcode) + ": payloadLength="
                    + payloadLength);
        }
        return Opcode.headerLength(opcode) + payloadLength + padCount(payloadLength) + Icrc.LENGTH;
    }

    /**
     * The native IB packet length from the LRH to the ICRC (PktLen times 4; the VCRC is not counted).
     *
     * @param opcode a valid opcode
     * @param global whether a GRH follows the LRH
     * @param payloadLength payload bytes (0 for opcodes without payload)
     * @return the length in bytes, a multiple of 4
     * @throws IllegalArgumentException as {@link #roceLength}, or if the packet exceeds PktLen's 11 bits
     */
    public static int ibLength(int opcode, boolean global, int payloadLength) {
        int length = LrhDescriptor.LENGTH + (global ? GrhDescriptor.LENGTH : 0) + roceLength(opcode, payloadLength);
        if (length > LrhDescriptor.MAX_PKT_LEN * 4) {
            throw new IllegalArgumentException("IB packet too long: length=" + length + ", max="
                    + LrhDescriptor.MAX_PKT_LEN * 4);
        }
        return length;
    }

    /**
     * Writes {@code padCount} zero bytes (IBA: pad bytes are 0).
     *
     * @param buf the buffer
     * @param index index of the first pad byte, just after the payload
     * @param padCount 0..3
     * @return {@code index + padCount}, where the ICRC starts
     */
    public static int writePad(ByteBuffer buf, int index, int padCount) {
        for (int i = 0; i < padCount; i++) {
            buf.put(index + i, (byte) 0);
        }
        return index + padCount;
    }

    /**
     * Sets the length fields of a native IB packet whose LRH (and GRH, if its LNH says so) are already written: LRH
     * PktLen and GRH PayLen. Call before {@link Icrc#writeIb}, since both are covered by the ICRC.
     *
     * @param buf the buffer
     * @param offset index of the LRH
     * @param length the packet length from the LRH to the end of the ICRC
     * @throws IllegalArgumentException if {@code length} is not a multiple of 4, too long for PktLen, or too short
     *         for the LRH and GRH
     */
    public static void fillIbLengths(ByteBuffer buf, int offset, int length) {
        boolean global = LrhDescriptor.lnh(buf, offset) == LrhDescriptor.LNH_IBA_GLOBAL;
        int headers = LrhDescriptor.LENGTH + (global ? GrhDescriptor.LENGTH : 0);
        if ((length & 3) != 0 || length > LrhDescriptor.MAX_PKT_LEN * 4 || length < headers) {
            throw new IllegalArgumentException("bad IB packet length: length=" + length + " (a multiple of 4 in ["
                    + headers + ", " + LrhDescriptor.MAX_PKT_LEN * 4 + "])");
        }
        LrhDescriptor.packetLength(buf, offset, length / 4);
        if (global) {
            GrhDescriptor.payloadLength(buf, offset + LrhDescriptor.LENGTH, length - headers);
        }
    }
}
