package io.rvt.transport;

import io.rvt.api.AhAttr;

/**
 * Where the packet that {@link Transport#makePacket} just wrote goes, and what a driver needs to put the link-level
 * headers in front of it (LRH and GRH for native InfiniBand, IP and UDP for RoCEv2) and the ICRC after it.
 *
 * <p>Mutable and reused: a driver keeps one per send loop; every successful {@code makePacket} overwrites every
 * field. The route is a copy ({@link #ah()}), taken under the QP's {@code sendLock}, so it stays valid after the WQE
 * it came from has been completed and its slot reused by a poster.
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
        return this;
    }

    @Override
    public String toString() {
        return "TxInfo{qpn=0x" + Integer.toHexString(qpn) + ", destQpn=0x" + Integer.toHexString(destQpn)
                + ", opcode=0x" + Integer.toHexString(opcode) + ", psn=" + psn + ", length=" + length + ", payload="
                + payloadLength + ", " + ah + '}';
    }
}
