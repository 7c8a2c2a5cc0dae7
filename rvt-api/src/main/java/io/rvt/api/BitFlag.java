package io.rvt.api;

/**
 * One bit of an {@code int} mask: what this package's flag enums ({@link AccessFlag}, {@link SendFlag},
 * {@link WcFlag}, {@link PortModifyFlag}, {@link SrqAttrMask}, {@link CqNotify}, {@link QpAttrMask}) have in common.
 * Their {@code ALL}, {@code mask} and {@code describe} are written once, here.
 */
interface BitFlag {
    /** @return this flag's bit */
    int bit();

    /** @return the constant's name (an enum's {@code name()}) */
    String name();

    /**
     * @param flags flags
     * @return the mask with each flag's bit set
     */
    static int union(BitFlag[] flags) {
        int m = 0;
        for (BitFlag f : flags) {
            m |= f.bit();
        }
        return m;
    }

    /**
     * Renders a mask for messages, e.g. {@code "LOCAL_WRITE|REMOTE_READ"}; bits no flag has are shown in hex.
     *
     * @param mask a mask
     * @param flags every flag of the enum, in declaration order
     * @return the names of the set bits joined by {@code |}, or {@code "0"}
     */
    static String describe(int mask, BitFlag[] flags) {
        if (mask == 0) {
            return "0";
        }
        StringBuilder sb = new StringBuilder();
        int rest = mask;
        for (BitFlag f : flags) {
            if ((mask & f.bit()) != 0) {
                if (sb.length() > 0) {
                    sb.append('|');
                }
                sb.append(f.name());
                rest &= ~f.bit();
            }
        }
        if (rest != 0) {
            if (sb.length() > 0) {
                sb.append('|');
            }
            sb.append("0x").append(Integer.toHexString(rest));
        }
        return sb.toString();
    }
}
