package io.rvt.api;

/**
 * Queue pair transport type, with the numeric values of {@code enum ib_qp_type}.
 *
 * <p>rdmavt supports {@link #SMI}, {@link #GSI}, {@link #RC}, {@link #UC} and {@link #UD}; the other types exist so
 * that their values are known and are rejected by {@code createQp} with {@code EOPNOTSUPP}.
 * In an operation table, a type's bit is {@code 1 << value()} (rdmavt: {@code BIT(IB_QPT_x)} in
 * {@code qpt_support}).
 */
public enum QpType {
    /** Subnet management QP (QP0). */
    SMI(0),
    /** General services QP (QP1). */
    GSI(1),
    /** Reliable connected. */
    RC(2),
    /** Unreliable connected. */
    UC(3),
    /** Unreliable datagram. */
    UD(4),
    /** Raw IPv6 (not supported by rdmavt). */
    RAW_IPV6(5),
    /** Raw ethertype (not supported by rdmavt). */
    RAW_ETHERTYPE(6),
    /** Raw packet (not supported by rdmavt). */
    RAW_PACKET(8),
    /** XRC initiator (not supported by rdmavt). */
    XRC_INI(9),
    /** XRC target (not supported by rdmavt). */
    XRC_TGT(10);

    private static final QpType[] BY_VALUE = new QpType[11];

    static {
        for (QpType t : values()) {
            BY_VALUE[t.value] = t;
        }
    }

    private final int value;

    QpType(int value) {
        this.value = value;
    }

    /** @return the {@code ib_qp_type} value */
    public int value() {
        return value;
    }

    /** @return this type's bit in an operation table's QP-type mask, {@code 1 << value()} */
    public int bit() {
        return 1 << value;
    }

    /** @return true for UD, SMI and GSI: the types whose send WRs carry an address handle ("UD-like") */
    public boolean isUdLike() {
        return this == UD || this == SMI || this == GSI;
    }

    /**
     * @param value an {@code ib_qp_type} value
     * @return the type
     * @throws IllegalArgumentException if no type has that value
     */
    public static QpType of(int value) {
        QpType t = value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
        if (t == null) {
            throw new IllegalArgumentException("unknown QP type value: " + value);
        }
        return t;
    }
}
