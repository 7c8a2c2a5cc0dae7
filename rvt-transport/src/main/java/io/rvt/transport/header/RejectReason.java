package io.rvt.transport.header;

/**
 * Why {@link PacketParser#parse} dropped a packet: {@link #OK} (0) or one of the codes below, in the order the parser
 * checks them. Codes are small consecutive ints so a driver can count drops in a {@code long[COUNT]} indexed by
 * code, allocation-free; {@link #name(int)} gives a constant string for logs.
 */
public final class RejectReason {
    private RejectReason() {
    }

    /** Parsed: the packet is well formed (and, if checked, its ICRC matches). */
    public static final int OK = 0;
    /**
     * Too short for the headers its LRH, LNH and opcode announce plus the ICRC, or the range given to the parser is
     * not inside the buffer's limit.
     */
    public static final int TRUNCATED = 1;
    /** LRH: LVer is not 0. */
    public static final int BAD_LRH = 2;
    /** LRH: LNH is raw or IP (0 or 1), not an IBA transport packet. */
    public static final int BAD_LNH = 3;
    /** LRH PktLen (in words) or GRH PayLen disagrees with the buffer length. */
    public static final int LENGTH_MISMATCH = 4;
    /** GRH: IPVer is not 6. */
    public static final int BAD_GRH_VERSION = 5;
    /** GRH: NxtHdr is not 0x1B (IBA transport). */
    public static final int BAD_GRH_NEXT_HEADER = 6;
    /** BTH: TVer is not 0. */
    public static final int BAD_TVER = 7;
    /** BTH: the opcode is reserved, Reliable Datagram, or otherwise not supported ({@link Opcode#isValid}). */
    public static final int UNKNOWN_OPCODE = 8;
    /**
     * PadCnt does not fit: payload plus pad is not a multiple of 4, PadCnt exceeds the bytes after the headers, or
     * an opcode without payload has a non-zero PadCnt.
     */
    public static final int BAD_PAD = 9;
    /** An opcode without payload (RDMA READ request, ACK, atomics, CNP) has bytes between its headers and ICRC. */
    public static final int UNEXPECTED_PAYLOAD = 10;
    /** The ICRC does not match the packet (native IB, when the parser checks it). */
    public static final int BAD_ICRC = 11;
    /** The number of codes, {@link #OK} included. */
    public static final int COUNT = 12;

    private static final String[] NAMES = {
        "OK", "TRUNCATED", "BAD_LRH", "BAD_LNH", "LENGTH_MISMATCH", "BAD_GRH_VERSION", "BAD_GRH_NEXT_HEADER",
        "BAD_TVER", "UNKNOWN_OPCODE", "BAD_PAD", "UNEXPECTED_PAYLOAD", "BAD_ICRC"
    };

    /**
     * @param code a code returned by {@link PacketParser#parse}
     * @return its constant name, or {@code "UNKNOWN"} for any other value
     */
    public static String name(int code) {
        return code >= 0 && code < COUNT ? NAMES[code] : "UNKNOWN";
    }
}
