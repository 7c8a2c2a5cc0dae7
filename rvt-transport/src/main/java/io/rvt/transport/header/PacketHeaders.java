package io.rvt.transport.header;

import io.rvt.api.Gid;
import io.rvt.api.spi.engine.SgeState;
import java.nio.ByteBuffer;

/**
 * The decoded headers of one packet: a reusable, mutable flyweight that {@link PacketParser#parse} fills without
 * allocating. Keep one per receive loop and parse every packet into it; the values stay valid until the next
 * {@code parse} or {@link #clear()}.
 *
 * <p>It holds offsets into the parsed buffer (absolute indexes; -1 for a header that is absent) and copies of the
 * header fields, so the fields stay readable after the buffer is reused. Only the extension headers the opcode
 * carries are filled ({@link #extensions()}); the others read as 0. After a rejection, {@link #result()} says why,
 * and fields of the headers after the point of failure are left cleared.
 *
 * <p>Not thread-safe; written only by the parser that is given it.
 */
public final class PacketHeaders {
    int result;
    Framing framing;
    int offset;
    int length;

    int lrhOffset;
    int vl;
    int sl;
    int lnh;
    int dlid;
    int packetLengthWords;
    int slid;

    int grhOffset;
    int trafficClass;
    int flowLabel;
    int grhPayloadLength;
    int nextHeader;
    int hopLimit;
    long sgidSubnetPrefix;
    long sgidInterfaceId;
    long dgidSubnetPrefix;
    long dgidInterfaceId;

    int bthOffset;
    int opcode;
    boolean solicitedEvent;
    boolean migReq;
    int padCount;
    int transportVersion;
    int pkey;
    boolean fecn;
    boolean becn;
    int destQp;
    boolean ackReq;
    int psn;

    int extensions;
    long rethVirtualAddress;
    int rethRkey;
    int rethDmaLength;
    int aeth;
    int dethQkey;
    int dethSrcQp;
    int immediateData;
    int iethRkey;
    int fethPlacementType;
    int fethSelectivityLevel;
    long atomicVirtualAddress;
    int atomicRkey;
    long atomicSwapAddData;
    long atomicCompareData;
    long atomicAckOrigRemData;

    int payloadOffset;
    /** Where the payload is when it is not in the packet buffer ({@link #payloadSlices(PayloadSlices)}), or null. */
    private PayloadSlices slices;
    /** Payload bytes of the slices the run's earlier packets took ({@link #nextInRun()}). */
    private int sliceCursor;
    /** Packets of the run these headers describe, 1 when they describe one packet ({@link #run}). */
    private int runPackets = 1;
    /** The packet of the run the fields describe now, 0-based. */
    private int runIndex;
    private int runAckMask;
    private int runLastOpcode;
    private int runLastPayloadLength;
    private boolean runLastSolicited;
    int payloadLength;
    int icrcOffset;
    int icrc;

    /** Creates an empty (cleared) instance. */
    public PacketHeaders() {
        clear();
    }

    /** Forgets the last packet: every offset becomes -1, every field 0, {@link #framing()} null. */
    public void clear() {
        result = RejectReason.OK;
        framing = null;
        offset = -1;
        length = 0;
        lrhOffset = -1;
        vl = 0;
        sl = 0;
        lnh = 0;
        dlid = 0;
        packetLengthWords = 0;
        slid = 0;
        grhOffset = -1;
        trafficClass = 0;
        flowLabel = 0;
        grhPayloadLength = 0;
        nextHeader = 0;
        hopLimit = 0;
        sgidSubnetPrefix = 0;
        sgidInterfaceId = 0;
        dgidSubnetPrefix = 0;
        dgidInterfaceId = 0;
        clearTransport();
    }

    private void clearTransport() {
        bthOffset = -1;
        opcode = 0;
        solicitedEvent = false;
        migReq = false;
        padCount = 0;
        transportVersion = 0;
        pkey = 0;
        fecn = false;
        becn = false;
        destQp = 0;
        ackReq = false;
        psn = 0;
        extensions = 0;
        rethVirtualAddress = 0;
        rethRkey = 0;
        rethDmaLength = 0;
        fethPlacementType = 0;
        fethSelectivityLevel = 0;
        aeth = 0;
        dethQkey = 0;
        dethSrcQp = 0;
        immediateData = 0;
        iethRkey = 0;
        atomicVirtualAddress = 0;
        atomicRkey = 0;
        atomicSwapAddData = 0;
        atomicCompareData = 0;
        atomicAckOrigRemData = 0;
        payloadOffset = -1;
        payloadLength = 0;
        slices = null; // keep no sender's memory reachable
        sliceCursor = 0;
        runPackets = 1;
        runIndex = 0;
        icrcOffset = -1;
        icrc = 0;
    }

    /** @return {@link RejectReason#OK} if the last parse accepted the packet, else the reason it did not */
    public int result() {
        return result;
    }

    /** @return the framing the packet was parsed with; null before the first parse */
    public Framing framing() {
        return framing;
    }

    /** @return index of the packet's first byte in the parsed buffer (LRH or BTH, by framing); -1 if cleared */
    public int offset() {
        return offset;
    }

    /** @return the packet's length in bytes, as given to the parser (up to and including the ICRC) */
    public int length() {
        return length;
    }

    /** @return true if the packet has an LRH ({@link Framing#IB_LRH}) */
    public boolean hasLrh() {
        return lrhOffset >= 0;
    }

    /** @return index of the LRH, or -1 */
    public int lrhOffset() {
        return lrhOffset;
    }

    /** @return LRH VL, 0..15 */
    public int vl() {
        return vl;
    }

    /** @return LRH SL, 0..15 */
    public int sl() {
        return sl;
    }

    /** @return LRH LNH, 0..3 */
    public int lnh() {
        return lnh;
    }

    /** @return LRH destination LID */
    public int dlid() {
        return dlid;
    }

    /** @return LRH PktLen in 4-byte words */
    public int packetLengthWords() {
        return packetLengthWords;
    }

    /** @return LRH source LID */
    public int slid() {
        return slid;
    }

    /** @return true if the packet has a GRH (LNH is IBA global) */
    public boolean hasGrh() {
        return grhOffset >= 0;
    }

    /** @return index of the GRH, or -1 */
    public int grhOffset() {
        return grhOffset;
    }

    /** @return GRH TClass, 0..255 */
    public int trafficClass() {
        return trafficClass;
    }

    /** @return GRH FlowLabel, 20 bits */
    public int flowLabel() {
        return flowLabel;
    }

    /** @return GRH PayLen in bytes */
    public int grhPayloadLength() {
        return grhPayloadLength;
    }

    /** @return GRH NxtHdr */
    public int nextHeader() {
        return nextHeader;
    }

    /** @return GRH HopLmt */
    public int hopLimit() {
        return hopLimit;
    }

    /** @return upper 64 bits of the GRH SGID */
    public long sgidSubnetPrefix() {
        return sgidSubnetPrefix;
    }

    /** @return lower 64 bits of the GRH SGID */
    public long sgidInterfaceId() {
        return sgidInterfaceId;
    }

    /** @return upper 64 bits of the GRH DGID */
    public long dgidSubnetPrefix() {
        return dgidSubnetPrefix;
    }

    /** @return lower 64 bits of the GRH DGID */
    public long dgidInterfaceId() {
        return dgidInterfaceId;
    }

    /** @return the GRH SGID as a {@link Gid}; allocates unless zero, so keep it off the per-packet path */
    public Gid sgid() {
        return Gid.of(sgidSubnetPrefix, sgidInterfaceId);
    }

    /** @return the GRH DGID as a {@link Gid}; allocates unless zero, so keep it off the per-packet path */
    public Gid dgid() {
        return Gid.of(dgidSubnetPrefix, dgidInterfaceId);
    }

    /**
     * @param gid a GID
     * @return true if the GRH SGID equals {@code gid}, without allocating
     */
    public boolean sgidEquals(Gid gid) {
        return gid.subnetPrefix() == sgidSubnetPrefix && gid.interfaceId() == sgidInterfaceId;
    }

    /**
     * @param gid a GID
     * @return true if the GRH DGID equals {@code gid}, without allocating
     */
    public boolean dgidEquals(Gid gid) {
        return gid.subnetPrefix() == dgidSubnetPrefix && gid.interfaceId() == dgidInterfaceId;
    }

    /** @return index of the BTH, or -1 */
    public int bthOffset() {
        return bthOffset;
    }

    /** @return BTH OpCode (see {@link Opcode}) */
    public int opcode() {
        return opcode;
    }

    /** @return BTH SE */
    public boolean solicitedEvent() {
        return solicitedEvent;
    }

    /** @return BTH M (MigReq) */
    public boolean migReq() {
        return migReq;
    }

    /** @return BTH PadCnt, 0..3 */
    public int padCount() {
        return padCount;
    }

    /** @return BTH TVer */
    public int transportVersion() {
        return transportVersion;
    }

    /** @return BTH P_Key */
    public int pkey() {
        return pkey;
    }

    /** @return BTH F (FECN) */
    public boolean fecn() {
        return fecn;
    }

    /** @return BTH B (BECN) */
    public boolean becn() {
        return becn;
    }

    /** @return BTH DestQP, 24 bits */
    public int destQp() {
        return destQp;
    }

    /** @return BTH A (AckReq) */
    public boolean ackReq() {
        return ackReq;
    }

    /** @return BTH PSN, 24 bits */
    public int psn() {
        return psn;
    }

    /** @return the {@link ExtensionHeader} bits of the headers present */
    public int extensions() {
        return extensions;
    }

    /**
     * @param header one {@link ExtensionHeader} bit
     * @return true if that header is present
     */
    public boolean hasExtension(int header) {
        return (extensions & header) != 0;
    }

    /**
     * @param header one {@link ExtensionHeader} bit
     * @return index of that header in the parsed buffer, or -1 if absent
     */
    public int extensionOffset(int header) {
        // extensions is set only once the headers were found to fit, so a truncated packet reports none
        if ((extensions & header) == 0) {
            return -1;
        }
        int relative = Opcode.extensionOffset(opcode, header);
        return relative < 0 ? -1 : bthOffset + relative;
    }

    /** @return FETH placement type (FLUSH: 1 global visibility, 2 persistence) */
    public int fethPlacementType() {
        return fethPlacementType;
    }

    /** @return FETH selectivity level (FLUSH: 0 the RETH's range, 1 the whole region) */
    public int fethSelectivityLevel() {
        return fethSelectivityLevel;
    }

    /** @return RETH virtual address */
    public long rethVirtualAddress() {
        return rethVirtualAddress;
    }

    /** @return RETH R_Key */
    public int rethRkey() {
        return rethRkey;
    }

    /** @return RETH DMA length, unsigned 32 bits */
    public int rethDmaLength() {
        return rethDmaLength;
    }

    /** @return the whole AETH (syndrome in bits 31..24, MSN in 23..0), as {@link io.rvt.api.spi.Aeth} decodes it */
    public int aeth() {
        return aeth;
    }

    /** @return AETH syndrome, 0..255 */
    public int aethSyndrome() {
        return aeth >>> 24;
    }

    /** @return AETH MSN, 24 bits */
    public int aethMsn() {
        return aeth & BthDescriptor.MASK_24;
    }

    /** @return DETH Q_Key */
    public int dethQkey() {
        return dethQkey;
    }

    /** @return DETH source QP, 24 bits */
    public int dethSrcQp() {
        return dethSrcQp;
    }

    /** @return ImmDt, as read big-endian from the wire */
    public int immediateData() {
        return immediateData;
    }

    /** @return IETH R_Key */
    public int iethRkey() {
        return iethRkey;
    }

    /** @return AtomicETH virtual address */
    public long atomicVirtualAddress() {
        return atomicVirtualAddress;
    }

    /** @return AtomicETH R_Key */
    public int atomicRkey() {
        return atomicRkey;
    }

    /** @return AtomicETH swap (COMPARE_SWAP) or add (FETCH_ADD) data */
    public long atomicSwapAddData() {
        return atomicSwapAddData;
    }

    /** @return AtomicETH compare data */
    public long atomicCompareData() {
        return atomicCompareData;
    }

    /** @return AtomicAckETH original remote data */
    public long atomicAckOrigRemData() {
        return atomicAckOrigRemData;
    }

    /** @return index of the first payload byte (just after the headers, even when the payload is empty), or -1 */
    public int payloadOffset() {
        return payloadOffset;
    }

    /** @return payload length in bytes, excluding the pad and the ICRC */
    public int payloadLength() {
        return payloadLength;
    }

    /**
     * Says that the payload is not in the packet buffer but in memory the sender still holds (a simulated HCA's frame
     * that references the sending region, as a NIC's DMA reads it): the sender's own slices, read where they are (not
     * copied). They must add up to {@link #payloadLength()}; {@link #clear()} (and so the next parse) forgets them.
     *
     * @param payload the slices, or null (the payload is in the packet buffer)
     * @return this
     */
    public PacketHeaders payloadSlices(PayloadSlices payload) {
        slices = payload != null && payload.count() > 0 ? payload : null;
        sliceCursor = 0;
        return this;
    }

    /** The most packets a run may have ({@link #run}): the bits of an AckReq mask. */
    public static final int MAX_RUN = 32;

    /**
     * Says that the parsed packet is the first of a run of {@code packets} packets of one RC message in PSN order,
     * carried to the receiver as one unit (segmentation offload; the sender's {@code TxInfo} described it): the
     * next ones are MIDDLE packets of the first's kind (SEND or RDMA WRITE) of one path MTU each (the first packet's
     * payload length), PSNs one apart, the last with {@code lastOpcode}; the slices ({@link #payloadSlices(PayloadSlices)},
     * set first) hold the payload of all of them, one after another. The transport processes them one by one,
     * exactly as if each had been parsed on its own, under one hold of the QP's locks ({@link #nextInRun()}).
     *
     * @param packets the run's packets, 2 to {@value #MAX_RUN}
     * @param ackMask bit {@code i} set if packet {@code i} has the BTH AckReq bit (bit 0 is ignored: the parsed BTH's)
     * @param lastOpcode the last packet's opcode
     * @param lastPayloadLength its payload bytes
     * @param lastSolicited its BTH SE bit
     * @return this
     * @throws IllegalArgumentException if {@code packets} is out of range, or the slices do not hold the run's payload
     */
    public PacketHeaders run(int packets, int ackMask, int lastOpcode, int lastPayloadLength, boolean lastSolicited) {
        if (packets < 2 || packets > MAX_RUN) {
            throw new IllegalArgumentException("a run has 2.." + MAX_RUN + " packets, got " + packets);
        }
        long expected = (long) (packets - 1) * payloadLength + lastPayloadLength;
        if (slices == null || slices.totalLength() != expected) {
            throw new IllegalArgumentException("run of " + packets + " packets: payload slices hold "
                    + (slices == null ? 0 : slices.totalLength()) + " bytes, the packets " + expected);
        }
        runPackets = packets;
        runIndex = 0;
        runAckMask = ackMask;
        runLastOpcode = lastOpcode;
        runLastPayloadLength = lastPayloadLength;
        runLastSolicited = lastSolicited;
        return this;
    }

    /** @return the packets of the run these headers describe ({@link #run}); 1 for a single packet */
    public int runPackets() {
        return runPackets;
    }

    /** @return the packet of the run the fields describe now, 0-based (0 for a single packet) */
    public int runIndex() {
        return runIndex;
    }

    /**
     * Moves the fields to the run's next packet ({@link #run}): its opcode, PSN, AckReq and SE bits, pad and payload
     * length; the extension headers of the first (a RETH) are gone; its payload follows the previous one's in the
     * slices.
     *
     * @return false (nothing changed) if the fields already describe the run's last packet, or a single packet
     */
    public boolean nextInRun() {
        if (runIndex + 1 >= runPackets) {
            return false;
        }
        sliceCursor += payloadLength;
        runIndex++;
        boolean last = runIndex == runPackets - 1;
        int operation = opcode & Opcode.OPERATION_MASK;
        boolean send = operation == Opcode.SEND_FIRST || operation == Opcode.SEND_MIDDLE;
        if (last) {
            opcode = runLastOpcode;
            payloadLength = runLastPayloadLength;
        } else {
            opcode = (opcode & ~Opcode.OPERATION_MASK) | (send ? Opcode.SEND_MIDDLE : Opcode.RDMA_WRITE_MIDDLE);
        }
        solicitedEvent = last && runLastSolicited;
        ackReq = (runAckMask >>> runIndex & 1) != 0;
        psn = (psn + 1) & BthDescriptor.MASK_24;
        padCount = -payloadLength & 3;
        extensions = 0;
        rethVirtualAddress = 0;
        rethRkey = 0;
        rethDmaLength = 0;
        return true;
    }

    /**
     * Makes the fields describe one packet again (the current one of a run), so nothing iterates past it; the
     * transport calls it when it gives up on a run's remaining packets.
     *
     * @return how many packets of the run came after the current one (0 for a single packet)
     */
    public int endRun() {
        int left = runPackets - 1 - runIndex;
        runPackets = runIndex + 1;
        return left;
    }

    /** @return how many {@link #payloadSlices(PayloadSlices) slices} hold the payload; 0 when it is in the buffer */
    public int payloadSlices() {
        return slices == null ? 0 : slices.count();
    }

    /**
     * Copies the first {@code length} payload bytes into {@code dst} (advancing its cursor): from the packet buffer at
     * {@link #payloadOffset()}, or from the {@link #payloadSlices(PayloadSlices) slices}.
     *
     * @param buf the packet buffer
     * @param dst the receiving scatter list
     * @param length bytes to copy, at most {@link #payloadLength()}
     * @param release whether {@code dst} drops the references of entries it uses up
     */
    public void copyPayload(ByteBuffer buf, SgeState dst, int length, boolean release) {
        PayloadSlices ps = slices;
        if (ps == null) {
            dst.copyIn(buf, payloadOffset, length, release, false);
            return;
        }
        int left = length;
        int skip = sliceCursor; // a run's earlier packets' payload
        for (int i = 0; i < ps.count() && left > 0; i++) {
            int sl = ps.length(i);
            if (skip >= sl) {
                skip -= sl;
                continue;
            }
            int n = Math.min(left, sl - skip);
            dst.copyIn(ps.buffer(i), ps.offset(i) + skip, n, release, false);
            skip = 0;
            left -= n;
        }
        if (left > 0) {
            throw new IllegalStateException("payload slices hold " + (length - left) + " of " + length + " bytes");
        }
    }

    /** @return index of the ICRC, or -1 */
    public int icrcOffset() {
        return icrcOffset;
    }

    /** @return the ICRC value read from the packet ({@link Icrc#read}) */
    public int icrc() {
        return icrc;
    }

    /** @return a one-line description for logs and test failures; allocates */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(160);
        sb.append(RejectReason.name(result)).append(' ').append(framing).append(" [").append(offset).append(", +")
                .append(length).append(']');
        if (hasLrh()) {
            sb.append(" LRH vl=").append(vl).append(" sl=").append(sl).append(" lnh=").append(lnh).append(" dlid=")
                    .append(dlid).append(" slid=").append(slid).append(" pktLen=").append(packetLengthWords);
        }
        if (hasGrh()) {
            sb.append(" GRH ").append(sgid()).append(" -> ").append(dgid()).append(" payLen=")
                    .append(grhPayloadLength);
        }
        if (bthOffset >= 0) {
            sb.append(" BTH ").append(Opcode.name(opcode)).append(" qp=0x").append(Integer.toHexString(destQp))
                    .append(" psn=").append(psn).append(" pkey=0x").append(Integer.toHexString(pkey)).append(" pad=")
                    .append(padCount);
        }
        if (payloadOffset >= 0) {
            sb.append(" payload=").append(payloadLength);
        }
        return sb.toString();
    }
}
