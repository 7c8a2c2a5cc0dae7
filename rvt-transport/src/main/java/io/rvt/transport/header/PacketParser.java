package io.rvt.transport.header;

import java.nio.ByteBuffer;

/**
 * Parses and validates IBA packets into a {@link PacketHeaders} without allocating and without throwing for any
 * packet content: every problem is a {@link RejectReason} code, since a malformed packet is counted and dropped,
 * never thrown out of a receive loop.
 *
 * <p>What is checked, in this order: the range is inside the buffer; for {@link Framing#IB_LRH} LVer, LNH (IBA local
 * or global), PktLen against the length, then GRH IPVer, NxtHdr and PayLen; BTH TVer and opcode; that the headers
 * the opcode announces and the ICRC fit; the pad count against the bytes left; and, for native IB when enabled, the
 * ICRC. What is not checked because it needs QP state: P_Key, destination QP, PSN, Q_Key, LIDs and GIDs. The RoCEv2
 * ICRC needs the IP and UDP headers, which the caller has: check it with {@link Icrc#checkRoceV4} or
 * {@link Icrc#checkRoceV6} and count a mismatch as {@link RejectReason#BAD_ICRC}.
 *
 * <p>An instance holds an {@link Icrc} (scratch state), so it is not thread-safe: one per receive thread.
 */
public final class PacketParser {
    private final Icrc icrc = new Icrc();
    private final boolean checkIbIcrc;

    /** Creates a parser that checks the ICRC of native IB packets. */
    public PacketParser() {
        this(true);
    }

    /**
     * @param checkIbIcrc whether to check the ICRC of {@link Framing#IB_LRH} packets (turn it off where the link
     *        cannot corrupt packets, e.g. an in-JVM fabric that does not simulate corruption)
     */
    public PacketParser(boolean checkIbIcrc) {
        this.checkIbIcrc = checkIbIcrc;
    }

    /**
     * Parses one packet. {@code out} is cleared first and then filled; its {@link PacketHeaders#result()} is the
     * return value.
     *
     * @param buf the buffer; its position, limit (except as a bound), mark and byte order are ignored
     * @param offset index of the packet's first byte: the LRH for {@link Framing#IB_LRH}, the BTH for
     *        {@link Framing#ROCEV2}
     * @param length the packet length in bytes, up to and including the ICRC (for RoCEv2, the UDP payload length)
     * @param framing what the packet starts with
     * @param out receives the headers
     * @return {@link RejectReason#OK} (0) or a {@link RejectReason} code
     * @throws NullPointerException if {@code buf}, {@code framing} or {@code out} is null
     */
    public int parse(ByteBuffer buf, int offset, int length, Framing framing, PacketHeaders out) {
        out.clear();
        out.framing = framing;
        out.offset = offset;
        out.length = length;
        return out.result = parse0(buf, offset, length, framing, out);
    }

    private int parse0(ByteBuffer buf, int offset, int length, Framing framing, PacketHeaders out) {
        // overflow-safe form of offset + length <= limit
        if (offset < 0 || length < 0 || offset > buf.limit() - length) {
            return RejectReason.TRUNCATED;
        }
        int end = offset + length;
        int bth = offset;
        if (framing == Framing.IB_LRH) {
            int rc = parseLrh(buf, offset, length, out);
            if (rc != RejectReason.OK) {
                return rc;
            }
            bth = offset + LrhDescriptor.LENGTH;
            if (out.lnh == LrhDescriptor.LNH_IBA_GLOBAL) {
                rc = parseGrh(buf, bth, end, out);
                if (rc != RejectReason.OK) {
                    return rc;
                }
                bth += GrhDescriptor.LENGTH;
            }
        } else if (framing != Framing.ROCEV2) {
            throw new NullPointerException("framing");
        }
        int rc = parseTransport(buf, bth, end, out);
        if (rc != RejectReason.OK) {
            return rc;
        }
        if (checkIbIcrc && framing == Framing.IB_LRH
                && icrc.computeIb(buf, offset, length - Icrc.LENGTH) != out.icrc) {
            return RejectReason.BAD_ICRC;
        }
        return RejectReason.OK;
    }

    private static int parseLrh(ByteBuffer buf, int lrh, int length, PacketHeaders out) {
        if (length < LrhDescriptor.LENGTH) {
            return RejectReason.TRUNCATED;
        }
        out.lrhOffset = lrh;
        // One 8-byte read for the whole LRH (the fields as LrhDescriptor's getters read them one by one).
        long w = Bytes.i64(buf, lrh);
        int vlLver = (int) (w >>> 56) & 0xFF;
        int slLnh = (int) (w >>> 48) & 0xFF;
        out.vl = vlLver >>> 4;
        out.sl = slLnh >>> 4;
        out.lnh = slLnh & 0x03;
        out.dlid = (int) (w >>> 32) & 0xFFFF;
        out.packetLengthWords = (int) (w >>> 16) & LrhDescriptor.MAX_PKT_LEN;
        out.slid = (int) w & 0xFFFF;
        if ((vlLver & 0x0F) != LrhDescriptor.LINK_VERSION) {
            return RejectReason.BAD_LRH;
        }
        if (out.lnh != LrhDescriptor.LNH_IBA_LOCAL && out.lnh != LrhDescriptor.LNH_IBA_GLOBAL) {
            return RejectReason.BAD_LNH;
        }
        if (out.packetLengthWords * 4 != length) {
            return RejectReason.LENGTH_MISMATCH;
        }
        return RejectReason.OK;
    }

    private static int parseGrh(ByteBuffer buf, int grh, int end, PacketHeaders out) {
        if (end - grh < GrhDescriptor.LENGTH) {
            return RejectReason.TRUNCATED;
        }
        out.grhOffset = grh;
        // Two 4-byte reads for the fields before the GIDs (as GrhDescriptor's getters read them).
        int w0 = Bytes.i32(buf, grh + GrhDescriptor.VERSION_CLASS_FLOW_OFFSET);
        int w1 = Bytes.i32(buf, grh + GrhDescriptor.PAY_LEN_OFFSET);
        out.trafficClass = (w0 >>> 20) & 0xFF;
        out.flowLabel = w0 & GrhDescriptor.FLOW_LABEL_MASK;
        out.grhPayloadLength = w1 >>> 16;
        out.nextHeader = (w1 >>> 8) & 0xFF;
        out.hopLimit = w1 & 0xFF;
        out.sgidSubnetPrefix = GrhDescriptor.sgidSubnetPrefix(buf, grh);
        out.sgidInterfaceId = GrhDescriptor.sgidInterfaceId(buf, grh);
        out.dgidSubnetPrefix = GrhDescriptor.dgidSubnetPrefix(buf, grh);
        out.dgidInterfaceId = GrhDescriptor.dgidInterfaceId(buf, grh);
        if (w0 >>> 28 != GrhDescriptor.IP_VERSION) {
            return RejectReason.BAD_GRH_VERSION;
        }
        if (out.nextHeader != GrhDescriptor.NEXT_HEADER_IBA) {
            return RejectReason.BAD_GRH_NEXT_HEADER;
        }
        if (out.grhPayloadLength != end - grh - GrhDescriptor.LENGTH) {
            return RejectReason.LENGTH_MISMATCH;
        }
        return RejectReason.OK;
    }

    private static int parseTransport(ByteBuffer buf, int bth, int end, PacketHeaders out) {
        if (end - bth < BthDescriptor.LENGTH + Icrc.LENGTH) {
            return RejectReason.TRUNCATED;
        }
        out.bthOffset = bth;
        // Three 4-byte reads for the whole BTH (the fields as BthDescriptor's getters read them byte by byte): this
        // runs for every packet received, and each ByteBuffer access pays its own bounds and byte-order checks.
        int w0 = Bytes.i32(buf, bth + BthDescriptor.OPCODE_OFFSET);
        int w1 = Bytes.i32(buf, bth + BthDescriptor.RESV8A_OFFSET);
        int w2 = Bytes.i32(buf, bth + BthDescriptor.ACK_REQ_OFFSET);
        int opcode = w0 >>> 24;
        int flags = (w0 >>> 16) & 0xFF;
        out.opcode = opcode;
        out.solicitedEvent = (flags & 0x80) != 0;
        out.migReq = (flags & 0x40) != 0;
        out.padCount = (flags & 0x30) >>> 4;
        out.transportVersion = flags & 0x0F;
        out.pkey = w0 & 0xFFFF;
        out.fecn = w1 < 0;
        out.becn = (w1 & 0x4000_0000) != 0;
        out.destQp = w1 & BthDescriptor.MASK_24;
        out.ackReq = w2 < 0;
        out.psn = w2 & BthDescriptor.MASK_24;
        if (out.transportVersion != BthDescriptor.TRANSPORT_VERSION) {
            return RejectReason.BAD_TVER;
        }
        if (!Opcode.isValid(opcode)) {
            return RejectReason.UNKNOWN_OPCODE;
        }
        int headerLength = Opcode.headerLength(opcode);
        if (end - bth < headerLength + Icrc.LENGTH) {
            return RejectReason.TRUNCATED;
        }
        parseExtensions(buf, bth + BthDescriptor.LENGTH, Opcode.extensionHeaders(opcode), out);

        int payload = bth + headerLength;
        int icrcAt = end - Icrc.LENGTH;
        int bodyLength = icrcAt - payload; // payload + pad
        if (Opcode.hasPayload(opcode)) {
            if ((bodyLength & 3) != 0 || bodyLength < out.padCount) {
                return RejectReason.BAD_PAD;
            }
        } else {
            if (out.padCount != 0) {
                return RejectReason.BAD_PAD;
            }
            if (bodyLength != 0) {
                return RejectReason.UNEXPECTED_PAYLOAD;
            }
        }
        out.payloadOffset = payload;
        out.payloadLength = bodyLength - out.padCount;
        out.icrcOffset = icrcAt;
        out.icrc = Icrc.read(buf, icrcAt);
        return RejectReason.OK;
    }

    /** Reads the extension headers in {@code extensions}, in wire order, starting at {@code at}. */
    private static void parseExtensions(ByteBuffer buf, int at, int extensions, PacketHeaders out) {
        out.extensions = extensions;
        if ((extensions & ExtensionHeader.DETH) != 0) {
            out.dethQkey = DethDescriptor.qkey(buf, at);
            out.dethSrcQp = DethDescriptor.srcQp(buf, at);
            at += DethDescriptor.LENGTH;
        }
        if ((extensions & ExtensionHeader.FETH) != 0) {
            out.fethPlacementType = FethDescriptor.placementType(buf, at);
            out.fethSelectivityLevel = FethDescriptor.selectivityLevel(buf, at);
            at += FethDescriptor.LENGTH;
        }
        if ((extensions & ExtensionHeader.RETH) != 0) {
            out.rethVirtualAddress = RethDescriptor.virtualAddress(buf, at);
            out.rethRkey = RethDescriptor.rkey(buf, at);
            out.rethDmaLength = RethDescriptor.dmaLength(buf, at);
            at += RethDescriptor.LENGTH;
        }
        if ((extensions & ExtensionHeader.ATOMIC_ETH) != 0) {
            out.atomicVirtualAddress = AtomicEthDescriptor.virtualAddress(buf, at);
            out.atomicRkey = AtomicEthDescriptor.rkey(buf, at);
            out.atomicSwapAddData = AtomicEthDescriptor.swapAddData(buf, at);
            out.atomicCompareData = AtomicEthDescriptor.compareData(buf, at);
            at += AtomicEthDescriptor.LENGTH;
        }
        if ((extensions & ExtensionHeader.AETH) != 0) {
            out.aeth = AethDescriptor.value(buf, at);
            at += AethDescriptor.LENGTH;
        }
        if ((extensions & ExtensionHeader.ATOMIC_ACK_ETH) != 0) {
            out.atomicAckOrigRemData = AtomicAckEthDescriptor.origRemData(buf, at);
            at += AtomicAckEthDescriptor.LENGTH;
        }
        if ((extensions & ExtensionHeader.IMM_DT) != 0) {
            out.immediateData = ImmDtDescriptor.immediate(buf, at);
            at += ImmDtDescriptor.LENGTH;
        }
        if ((extensions & ExtensionHeader.IETH) != 0) {
            out.iethRkey = IethDescriptor.rkey(buf, at);
        }
    }
}
