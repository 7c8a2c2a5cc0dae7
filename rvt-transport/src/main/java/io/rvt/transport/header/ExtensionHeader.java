package io.rvt.transport.header;

/**
 * The extended transport headers that may follow the BTH (IBA Vol. 1 §9.3), as bits of the mask that
 * {@link Opcode#extensionHeaders(int)} returns, in the order they appear on the wire: DETH, FETH, RETH, AtomicETH,
 * AETH, AtomicAckETH, ImmDt, IETH (FETH, IBTA 1.5's FLUSH header, before the RETH as Linux's rxe sends it). (RDETH, which comes first, belongs to Reliable Datagram, which rvt does not support.)
 */
public final class ExtensionHeader {
    private ExtensionHeader() {
    }

    /** Datagram ETH (UD): Q_Key and source QP; {@link DethDescriptor}. */
    public static final int DETH = 1;
    /** RDMA ETH: virtual address, R_Key, DMA length; {@link RethDescriptor}. */
    public static final int RETH = 1 << 1;
    /** Atomic ETH: virtual address, R_Key, swap/add and compare data; {@link AtomicEthDescriptor}. */
    public static final int ATOMIC_ETH = 1 << 2;
    /** ACK ETH: syndrome and MSN; {@link AethDescriptor}. */
    public static final int AETH = 1 << 3;
    /** Atomic acknowledge ETH: the original remote data; {@link AtomicAckEthDescriptor}. */
    public static final int ATOMIC_ACK_ETH = 1 << 4;
    /** Immediate data; {@link ImmDtDescriptor}. */
    public static final int IMM_DT = 1 << 5;
    /** Invalidate ETH: the R_Key to invalidate; {@link IethDescriptor}. */
    public static final int IETH = 1 << 6;
    /** FLUSH ETH: placement type and selectivity level; {@link FethDescriptor}. */
    public static final int FETH = 1 << 7;

    /** Every extension header bit, in wire order. */
    static final int[] WIRE_ORDER = {DETH, FETH, RETH, ATOMIC_ETH, AETH, ATOMIC_ACK_ETH, IMM_DT, IETH};

    /**
     * @param header one extension header bit
     * @return its length in bytes, or 0 if {@code header} is not exactly one known bit
     */
    public static int length(int header) {
        switch (header) {
            case DETH:
                return DethDescriptor.LENGTH;
            case RETH:
                return RethDescriptor.LENGTH;
            case ATOMIC_ETH:
                return AtomicEthDescriptor.LENGTH;
            case AETH:
                return AethDescriptor.LENGTH;
            case ATOMIC_ACK_ETH:
                return AtomicAckEthDescriptor.LENGTH;
            case IMM_DT:
                return ImmDtDescriptor.LENGTH;
            case IETH:
                return IethDescriptor.LENGTH;
            case FETH:
                return FethDescriptor.LENGTH;
            default:
                return 0;
        }
    }

    /**
     * @param header one extension header bit
     * @return its IBTA name ({@code "RETH"}, {@code "ImmDt"}, ...), or {@code "?"} if not exactly one known bit
     */
    public static String name(int header) {
        switch (header) {
            case DETH:
                return "DETH";
            case RETH:
                return "RETH";
            case ATOMIC_ETH:
                return "AtomicETH";
            case AETH:
                return "AETH";
            case ATOMIC_ACK_ETH:
                return "AtomicAckETH";
            case IMM_DT:
                return "ImmDt";
            case IETH:
                return "IETH";
            case FETH:
                return "FETH";
            default:
                return "?";
        }
    }
}
