package io.rvt.transport.engine;

import io.rvt.api.AhAttr;
import io.rvt.transport.Transport;
import io.rvt.transport.header.PayloadSlices;
import java.nio.ByteBuffer;

/**
 * Where the packet that {@link Transport#makePacket} just wrote goes, and what a driver needs to put the link-level
 * headers in front of it (LRH and GRH for native InfiniBand, IP and UDP for RoCEv2) and the ICRC after it.
 *
 * <p>Mutable and reused: a driver keeps one per send loop; every successful {@code makePacket} overwrites every
 * field. The route is a copy ({@link #ah()}), taken under the QP's {@code sendLock}, so it stays valid after the WQE
 * it came from has been completed and its slot reused by a poster.
 *
 * <h2>Payload by reference</h2>
 * A driver that can gather a datagram from several buffers asks for it once with {@link #payloadByReference}. Then,
 * where the payload stays untouched until the packet is on the wire (RC requests and RDMA READ responses, which
 * complete only on an ACK, and UC packets before a message's last), an engine writes only the headers and records
 * the payload as up to {@code maxSegments} slices of the regions' direct buffers instead of copying it. The packet
 * in the buffer is then the headers ({@link #headerLength()} bytes from the offset given to {@code makePacket})
 * followed by the zero pad; the payload lies in the segments ({@link #isPayloadByReference()}). A heap-buffer region,
 * more segments than allowed, or a payload shorter than the threshold keep the copy.
 *
 * <p>The slices are a {@link PayloadSlices}: the info's own, or, to send them without a copy, the one of the driver's
 * frame or datagram slot that the next packet goes into ({@link #payloadInto}).
 */
public final class TxInfo {
    private final AhAttr ah = new AhAttr();
    private int qpn;
    private int destQpn;
    private int pkey;
    private int opcode;
    private int psn;
    private int length;
    private int payloadLength;
    private int portNum;
    private boolean response;
    private boolean multicast;
    /** The slices of the info's own, used unless a driver names others ({@link #payloadInto}). */
    private PayloadSlices ownSlices = new PayloadSlices(0);
    /** Where the next packet's payload slices go. */
    private PayloadSlices slices = ownSlices;
    private int maxSegments;
    private int minReferenceLength;
    /** The most packets one makePacket may describe (a run); 1: one packet. */
    private int runLimit = 1;
    private int runPackets = 1;
    private int runLength;
    private int runAckMask;
    private int runLastOpcode;
    private int runLastPayloadLength;
    private boolean runLastSolicited;
    private boolean drained;

    /** Creates an empty instance. */
    public TxInfo() {
    }

    /**
     * @return the address attributes of the destination: the QP's primary path for RC/UC, the work request's address
     *         handle (as cached at post time) for UD; use its DLID, SL, source path bits, static rate and, if
     *         {@link #needsGrh()}, its GRH fields (DGID, SGID index, flow label, hop limit, traffic class)
     */
    public AhAttr ah() {
        return ah;
    }

    /** @return the sending QP's number (the source QPN a RoCEv2 driver may hash into the UDP source port) */
    public int qpn() {
        return qpn;
    }

    /** @return the BTH destination QP written into the packet (0xFFFFFF for multicast) */
    public int destQpn() {
        return destQpn;
    }

    /** @return the service level to put in the LRH ({@code ah().sl()}) */
    public int sl() {
        return ah.sl();
    }

    /** @return true if the packet needs a GRH (the address is global) */
    public boolean needsGrh() {
        return ah.isGlobal();
    }

    /** @return the BTH P_Key written into the packet */
    public int pkey() {
        return pkey;
    }

    /** @return the BTH opcode written into the packet ({@code io.rvt.transport.header.Opcode}) */
    public int opcode() {
        return opcode;
    }

    /** @return the BTH PSN written into the packet (24 bits) */
    public int psn() {
        return psn;
    }

    /**
     * @return the transport bytes written at the offset given to {@code makePacket}: BTH, extension headers, payload
     *         and pad, without the ICRC (the same value {@code makePacket} returned)
     */
    public int length() {
        return length;
    }

    /** @return the payload bytes in the packet, without the pad */
    public int payloadLength() {
        return payloadLength;
    }

    /** @return the port the packet leaves from (1-based) */
    public int portNum() {
        return portNum;
    }

    /**
     * @return true for a responder packet (ACK, NAK, RDMA READ response, atomic ACK): a driver may give these priority
     *         over requests
     */
    public boolean isResponse() {
        return response;
    }

    /** @return true if the destination is a multicast group (UD) */
    public boolean isMulticast() {
        return multicast;
    }

    /**
     * Fills every field but the route ({@link #ah()}, which the engine copies first). Called by the engines.
     *
     * @param qpn the sending QP
     * @param destQpn the BTH destination QP
     * @param pkey the BTH P_Key
     * @param opcode the BTH opcode
     * @param psn the BTH PSN
     * @param length transport bytes written (headers, payload, pad)
     * @param payloadLength payload bytes
     * @param portNum the port
     * @param response true for responder packets
     * @param multicast true for a multicast destination
     * @return this
     */
    public TxInfo set(int qpn, int destQpn, int pkey, int opcode, int psn, int length, int payloadLength,
            int portNum, boolean response, boolean multicast) {
        this.qpn = qpn;
        this.destQpn = destQpn;
        this.pkey = pkey;
        this.opcode = opcode;
        this.psn = psn;
        this.length = length;
        this.payloadLength = payloadLength;
        this.portNum = portNum;
        this.response = response;
        this.multicast = multicast;
        this.runPackets = 1;
        this.runLength = length;
        this.runAckMask = 0;
        this.runLastOpcode = opcode;
        this.runLastPayloadLength = payloadLength;
        this.runLastSolicited = false;
        return this;
    }

    /**
     * Lets the next {@code makePacket} describe a <em>run</em>: the packet it writes and up to {@code packets - 1}
     * more of the same message that follow it in PSN order (segmentation offload, as a NIC's TSO/GSO takes one large
     * send). Only an RC request whose payload is {@link #isPayloadByReference() referenced} extends into a run, with
     * MIDDLE packets and a plain LAST (no ImmDt, no IETH); each extra packet's payload is appended to
     * {@link #payload()} and nothing of it is written to the buffer. The requester's state advances exactly as if
     * each packet had been made by its own call, under one hold of {@code sendLock}. A driver that carries a run to
     * the receiver as one unit hands its description ({@link #runPackets()}, {@link #runAckMask()},
     * {@link #runLastOpcode()}, {@link #runLastPayloadLength()}, {@link #runLastSolicited()}) to the receiving side's
     * {@link io.rvt.transport.header.PacketHeaders#run}; a driver that cannot leaves the limit at 1 (the default).
     *
     * @param packets the most packets, 1 to {@link io.rvt.transport.header.PacketHeaders#MAX_RUN}
     * @return this
     * @throws IllegalArgumentException if out of range
     */
    public TxInfo runLimit(int packets) {
        if (packets < 1 || packets > io.rvt.transport.header.PacketHeaders.MAX_RUN) {
            throw new IllegalArgumentException("run limit must be in 1.."
                    + io.rvt.transport.header.PacketHeaders.MAX_RUN + ", got " + packets);
        }
        runLimit = packets;
        return this;
    }

    /** @return the most packets a run may have ({@link #runLimit(int)}) */
    public int runLimit() {
        return runLimit;
    }

    /** @return how many packets the last {@code makePacket} described: 1, or a run's length */
    public int runPackets() {
        return runPackets;
    }

    /** @return the transport bytes (BTH, extension headers, payload and pad; no ICRC) of all the run's packets */
    public int runLength() {
        return runLength;
    }

    /**
     * @return for a run ({@link #runPackets()} above 1): bit {@code i} set if the run's packet {@code i} (0 is the
     *         first) has the BTH AckReq bit
     */
    public int runAckMask() {
        return runAckMask;
    }

    /** @return the opcode of the run's last packet (the first's if there is one packet) */
    public int runLastOpcode() {
        return runLastOpcode;
    }

    /** @return the payload bytes of the run's last packet */
    public int runLastPayloadLength() {
        return runLastPayloadLength;
    }

    /** @return the BTH SE bit of the run's last packet (a run of one: false; read the packet's own BTH) */
    public boolean runLastSolicited() {
        return runLastSolicited;
    }

    /** The first packet's AckReq bit, for {@link #runAckMask()}; the engine that starts a run sets it. */
    void startRun(boolean ackReq) {
        runAckMask = ackReq ? 1 : 0;
    }

    /** Appends one packet to the run (its payload slices already recorded). */
    void extendRun(int opcode, int transportLength, int payloadLength, boolean ackReq, boolean solicited) {
        if (ackReq) {
            runAckMask |= 1 << runPackets;
        }
        runPackets++;
        runLength += transportLength;
        runLastOpcode = opcode;
        runLastPayloadLength = payloadLength;
        runLastSolicited = solicited;
    }

    /**
     * Asks the engines for payload by reference (see the class comment); set once, before the first packet.
     *
     * @param maxSegments the most payload slices the driver can gather per packet; 0 turns the mode off
     * @param minLength the shortest payload worth referencing (below it a copy is cheaper than a gather)
     * @return this
     */
    public TxInfo payloadByReference(int maxSegments, int minLength) {
        if (maxSegments < 0 || minLength < 0) {
            throw new IllegalArgumentException("maxSegments and minLength must be >= 0: " + maxSegments + ", "
                    + minLength);
        }
        this.maxSegments = maxSegments;
        ownSlices = new PayloadSlices(maxSegments);
        slices = ownSlices;
        minReferenceLength = Math.max(1, minLength);
        clearSegments();
        return this;
    }

    /** @return the most payload slices a packet may reference, 0 if the mode is off */
    public int maxSegments() {
        return maxSegments;
    }

    /**
     * Names where the next {@code makePacket} records its payload slices: the slices of the frame or datagram slot
     * the packet is written into, which the wire then reads as they are. Set it before every {@code makePacket}
     * whose packet goes elsewhere than the last one's; the transport clears it first.
     *
     * @param target the slices, at least {@link #maxSegments()} of them; null for the info's own
     * @return this
     * @throws IllegalArgumentException if {@code target} holds fewer than {@link #maxSegments()} slices
     */
    public TxInfo payloadInto(PayloadSlices target) {
        if (target == null) {
            slices = ownSlices;
        } else if (target.capacity() < maxSegments) {
            throw new IllegalArgumentException("payload slices for " + target.capacity() + " slices, need "
                    + maxSegments);
        } else {
            slices = target;
        }
        return this;
    }

    /**
     * @return true if the last packet's payload was not copied into the packet buffer but recorded in
     *         {@link #payload()}
     */
    public boolean isPayloadByReference() {
        return slices.count() != 0;
    }

    /**
     * Marks the packet just written as the last one its QP has now (an engine that can tell cheaply, under the lock
     * it already holds, sets it): the drain stops without asking for another packet, which would take the QP's
     * {@code sendLock} only to find nothing. Anything that gives the QP more to send schedules it again, as it must
     * anyway.
     */
    public void markDrained() {
        drained = true;
    }

    /** @return true if the engine said the last packet left its QP nothing more to send ({@link #markDrained()}) */
    public boolean isDrained() {
        return drained;
    }

    /** @return the transport headers' length (BTH and extension headers): where payload or pad starts */
    public int headerLength() {
        return length - payloadLength - Packets.padCount(payloadLength);
    }

    /** @return the last packet's payload slices (none unless {@link #isPayloadByReference()}) */
    public PayloadSlices payload() {
        return slices;
    }

    /** @return true if a payload of {@code length} bytes should be referenced rather than copied */
    boolean wantsReference(int length) {
        return maxSegments > 0 && length >= minReferenceLength;
    }

    /**
     * Forgets the previous packet's slices (and their buffers, so that none is kept reachable): what
     * {@code Transport.makePacket} does before each packet.
     */
    public void clearSegments() {
        slices.clear();
        drained = false;
    }

    /**
     * Records the next slice, merged with the previous one when they are adjacent in the same buffer.
     *
     * @return false if no slot is left
     */
    boolean addSegment(ByteBuffer buf, int offset, int len) {
        PayloadSlices ps = slices;
        int n = ps.count();
        if (n == maxSegments && !(n > 0 && ps.buffer(n - 1) == buf && ps.offset(n - 1) + ps.length(n - 1) == offset)) {
            return false;
        }
        return ps.add(buf, offset, len);
    }

    @Override
    public String toString() {
        return "TxInfo{qpn=0x" + Integer.toHexString(qpn) + ", destQpn=0x" + Integer.toHexString(destQpn)
                + ", opcode=0x" + Integer.toHexString(opcode) + ", psn=" + psn + ", length=" + length + ", payload="
                + payloadLength + (isPayloadByReference() ? " in " + slices.count() + " segment(s)" : "") + ", " + ah + '}';
    }
}
