package io.rvt.transport.header;

/**
 * Where a packet buffer starts and which headers precede the BTH, as {@link PacketParser#parse} needs to know.
 */
public enum Framing {
    /**
     * Native InfiniBand: the LRH, then a GRH if LNH is {@link LrhDescriptor#LNH_IBA_GLOBAL} (a BTH directly if LNH is
     * {@link LrhDescriptor#LNH_IBA_LOCAL}), the transport headers, payload, pad and ICRC. The link-level VCRC is not
     * part of the buffer: PktLen must equal the buffer length.
     */
    IB_LRH,
    /**
     * RoCEv2 (IBA Annex A17): the UDP payload, from the BTH to the ICRC. The IP and UDP headers stay outside (a UDP
     * socket does not show them), so the parser cannot check the ICRC; see {@link Icrc#checkRoceV4} and
     * {@link Icrc#checkRoceV6}.
     */
    ROCEV2;

    /** The UDP destination port of RoCEv2 ({@code ROCE_V2_UDP_DPORT}). */
    public static final int ROCEV2_UDP_PORT = 4791;
}
