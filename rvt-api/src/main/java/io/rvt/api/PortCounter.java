package io.rvt.api;

/**
 * Per-port counters ({@code struct rvt_ibport}'s {@code n_*} fields and violation counters). rdmavt increments the
 * first five itself; the rest belong to the driver's transport. Read with {@link Device#portCounter(int, PortCounter)}.
 */
public enum PortCounter {
    /** {@code n_rc_timeouts}: RC retry timer expiries. */
    RC_TIMEOUTS,
    /** {@code n_pkt_drops}: packets (or loopback messages) dropped. */
    PKT_DROPS,
    /** {@code n_loop_pkts}: messages delivered by software loopback. */
    LOOP_PKTS,
    /** {@code n_rnr_naks}: RNR NAKs sent (loopback) or received. */
    RNR_NAKS,
    /** {@code n_rc_crwaits}: times an RC WQE waited for SSN credits. */
    RC_CRWAITS,
    /** {@code n_rc_resends}: RC packets retransmitted. */
    RC_RESENDS,
    /** {@code n_seq_naks}: PSN sequence error NAKs. */
    SEQ_NAKS,
    /** {@code n_rdma_seq}: RDMA READ response sequence errors. */
    RDMA_SEQ,
    /** {@code n_rc_dupreq}: duplicate RC requests. */
    RC_DUPREQ,
    /** {@code n_rc_acks}: RC ACKs received. */
    RC_ACKS,
    /** {@code n_rc_qacks}: RC ACKs coalesced. */
    RC_QACKS,
    /** {@code n_rc_delayed_comp}: RC completions delayed. */
    RC_DELAYED_COMP,
    /** {@code n_other_naks}: other NAKs. */
    OTHER_NAKS,
    /** {@code n_dmawait}: waits for send resources. */
    DMA_WAIT,
    /** {@code n_unaligned}: misaligned requests. */
    UNALIGNED,
    /** {@code pkey_violations}: packets with a bad P_Key. */
    PKEY_VIOLATIONS,
    /** {@code qkey_violations}: packets with a bad Q_Key (reset by {@code modifyPort(RESET_QKEY_CNTR)}). */
    QKEY_VIOLATIONS,
    /** Packets sent on the port. */
    TX_PACKETS,
    /** Packets received on the port. */
    RX_PACKETS,
    /** Bytes sent on the port. */
    TX_BYTES,
    /** Bytes received on the port. */
    RX_BYTES,
    /** Malformed packets dropped by the receive path (bad header, bad ICRC, unknown QP). */
    RX_MALFORMED,
    /**
     * RC/UC packets dropped because their source address is not the QP's remote GID (rxe's {@code check_addr}); a
     * driver that knows the sender's address counts them (driver-jni).
     */
    RX_ADDR_MISMATCH,
    /**
     * RC requests dropped because their PSN is ahead of the expected one: every one, where {@link #SEQ_NAKS} counts
     * the one NAK a gap earns (rxe's {@code out_of_seq_request}).
     */
    RC_OUT_OF_SEQ,
    /** Multicast packets that arrived on a port that has joined no group. */
    RX_MCAST_NO_GROUP,
    /** UD packets dropped because their payload is longer than the port's MTU. */
    RX_UD_OVERSIZE,
    /**
     * Datagrams the host's kernel dropped before the driver could read them (a full socket receive buffer); only a
     * driver over kernel sockets that can read the socket's drop count sees them.
     */
    RX_KERNEL_DROPS,
    /**
     * rvt extension: RoCEv2 packets over IPv4 accepted with an ICRC that matched under a non-zero IP Identification
     * the driver solved for (a UDP socket does not show it; Linux numbers it per packet); such a match keeps 16 of
     * the ICRC's 32 check bits. Only a driver over UDP sockets counts them (driver-jni).
     */
    RX_IPV4_ID_SOLVED
}
