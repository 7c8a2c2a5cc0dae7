package io.rvt.transport.header;

/**
 * The BTH OpCode byte (IBA Vol. 1 §9.2.1): bits 7..5 name the transport ({@link #RC}, {@link #UC}, {@link #RD},
 * {@link #UD}, {@link #CNP}), bits 4..0 the operation ({@link #SEND_FIRST} ... {@link #SEND_ONLY_WITH_INVALIDATE}).
 * A static table answers, per opcode byte: is it valid for rvt, which extended transport headers follow the BTH
 * ({@link ExtensionHeader} bits, always in wire order), does it carry payload, how long are its transport headers,
 * and what kind of packet it is. Every method takes any {@code int} and never throws: values outside 0..255 are
 * simply invalid.
 *
 * <p>Valid opcodes: RC all of SEND*, RDMA_WRITE*, RDMA_READ*, ACKNOWLEDGE, ATOMIC_ACKNOWLEDGE, COMPARE_SWAP,
 * FETCH_ADD, SEND_*_WITH_INVALIDATE, and IBTA 1.5's FLUSH and ATOMIC_WRITE (as Linux's rxe sends them); UC the SEND*
 * and RDMA_WRITE* ones; UD SEND_ONLY and SEND_ONLY_WITH_IMMEDIATE; and the RoCEv2 congestion notification packet
 * {@link #ROCE_CNP}. Reliable Datagram (RD) is not supported, so every RD opcode is invalid, as are the reserved codes.
 *
 * <p>Message position: {@link #isFirst}, {@link #isMiddle} and {@link #isLast} follow the opcode names; {@link #isOnly}
 * holds for the *_ONLY opcodes and for every single-packet operation (RDMA READ request, the atomics, ACKNOWLEDGE,
 * ATOMIC_ACKNOWLEDGE). rxe's START/END masks are {@link #isStart} and {@link #isEnd}.
 */
public final class Opcode {
    private Opcode() {
    }

    /** Transport prefix: Reliable Connection. */
    public static final int RC = 0x00;
    /** Transport prefix: Unreliable Connection. */
    public static final int UC = 0x20;
    /** Transport prefix: Reliable Datagram (not supported: every RD opcode is invalid here). */
    public static final int RD = 0x40;
    /** Transport prefix: Unreliable Datagram. */
    public static final int UD = 0x60;
    /** Transport prefix: congestion notification (RoCEv2 CNP is {@link #ROCE_CNP}). */
    public static final int CNP = 0x80;
    /** The transport bits of an opcode. */
    public static final int TRANSPORT_MASK = 0xE0;
    /** The operation bits of an opcode. */
    public static final int OPERATION_MASK = 0x1F;

    /** Operation: first packet of a multi-packet SEND. */
    public static final int SEND_FIRST = 0x00;
    /** Operation: middle packet of a SEND. */
    public static final int SEND_MIDDLE = 0x01;
    /** Operation: last packet of a SEND. */
    public static final int SEND_LAST = 0x02;
    /** Operation: last packet of a SEND, with ImmDt. */
    public static final int SEND_LAST_WITH_IMMEDIATE = 0x03;
    /** Operation: a SEND in one packet. */
    public static final int SEND_ONLY = 0x04;
    /** Operation: a SEND in one packet, with ImmDt. */
    public static final int SEND_ONLY_WITH_IMMEDIATE = 0x05;
    /** Operation: first packet of an RDMA WRITE (RETH). */
    public static final int RDMA_WRITE_FIRST = 0x06;
    /** Operation: middle packet of an RDMA WRITE. */
    public static final int RDMA_WRITE_MIDDLE = 0x07;
    /** Operation: last packet of an RDMA WRITE. */
    public static final int RDMA_WRITE_LAST = 0x08;
    /** Operation: last packet of an RDMA WRITE, with ImmDt. */
    public static final int RDMA_WRITE_LAST_WITH_IMMEDIATE = 0x09;
    /** Operation: an RDMA WRITE in one packet (RETH). */
    public static final int RDMA_WRITE_ONLY = 0x0A;
    /** Operation: an RDMA WRITE in one packet (RETH, ImmDt). */
    public static final int RDMA_WRITE_ONLY_WITH_IMMEDIATE = 0x0B;
    /** Operation: RDMA READ request (RETH, no payload). */
    public static final int RDMA_READ_REQUEST = 0x0C;
    /** Operation: first packet of an RDMA READ response (AETH). */
    public static final int RDMA_READ_RESPONSE_FIRST = 0x0D;
    /** Operation: middle packet of an RDMA READ response. */
    public static final int RDMA_READ_RESPONSE_MIDDLE = 0x0E;
    /** Operation: last packet of an RDMA READ response (AETH). */
    public static final int RDMA_READ_RESPONSE_LAST = 0x0F;
    /** Operation: an RDMA READ response in one packet (AETH). */
    public static final int RDMA_READ_RESPONSE_ONLY = 0x10;
    /** Operation: ACK or NAK (AETH, no payload). */
    public static final int ACKNOWLEDGE = 0x11;
    /** Operation: atomic ACK (AETH, AtomicAckETH, no payload). */
    public static final int ATOMIC_ACKNOWLEDGE = 0x12;
    /** Operation: atomic compare and swap (AtomicETH, no payload). */
    public static final int COMPARE_SWAP = 0x13;
    /** Operation: atomic fetch and add (AtomicETH, no payload). */
    public static final int FETCH_ADD = 0x14;
    /** Operation: last packet of a SEND, with IETH (RC only). */
    public static final int SEND_LAST_WITH_INVALIDATE = 0x16;
    /** Operation: a SEND in one packet, with IETH (RC only). */
    public static final int SEND_ONLY_WITH_INVALIDATE = 0x17;
    /** Operation: FLUSH (IBTA 1.5; {@code IB_OPCODE_FLUSH}): FETH, RETH, no payload (RC only). */
    public static final int FLUSH = 0x1C;
    /** Operation: ATOMIC_WRITE (IBTA 1.5; {@code IB_OPCODE_ATOMIC_WRITE}): RETH, 8 bytes of payload (RC only). */
    public static final int ATOMIC_WRITE = 0x1D;

    /** {@code IB_OPCODE_RC_FLUSH}: answered with a zero-length RDMA READ RESPONSE ONLY, as rxe does. */
    public static final int RC_FLUSH = RC | FLUSH;
    /** {@code IB_OPCODE_RC_ATOMIC_WRITE}: answered with a zero-length RDMA READ RESPONSE ONLY, as rxe does. */
    public static final int RC_ATOMIC_WRITE = RC | ATOMIC_WRITE;
    /** {@code IB_OPCODE_RC_SEND_FIRST}. */
    public static final int RC_SEND_FIRST = RC | SEND_FIRST;
    /** {@code IB_OPCODE_RC_SEND_MIDDLE}. */
    public static final int RC_SEND_MIDDLE = RC | SEND_MIDDLE;
    /** {@code IB_OPCODE_RC_SEND_LAST}. */
    public static final int RC_SEND_LAST = RC | SEND_LAST;
    /** {@code IB_OPCODE_RC_SEND_LAST_WITH_IMMEDIATE}. */
    public static final int RC_SEND_LAST_WITH_IMMEDIATE = RC | SEND_LAST_WITH_IMMEDIATE;
    /** {@code IB_OPCODE_RC_SEND_ONLY}. */
    public static final int RC_SEND_ONLY = RC | SEND_ONLY;
    /** {@code IB_OPCODE_RC_SEND_ONLY_WITH_IMMEDIATE}. */
    public static final int RC_SEND_ONLY_WITH_IMMEDIATE = RC | SEND_ONLY_WITH_IMMEDIATE;
    /** {@code IB_OPCODE_RC_RDMA_WRITE_FIRST}. */
    public static final int RC_RDMA_WRITE_FIRST = RC | RDMA_WRITE_FIRST;
    /** {@code IB_OPCODE_RC_RDMA_WRITE_MIDDLE}. */
    public static final int RC_RDMA_WRITE_MIDDLE = RC | RDMA_WRITE_MIDDLE;
    /** {@code IB_OPCODE_RC_RDMA_WRITE_LAST}. */
    public static final int RC_RDMA_WRITE_LAST = RC | RDMA_WRITE_LAST;
    /** {@code IB_OPCODE_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE}. */
    public static final int RC_RDMA_WRITE_LAST_WITH_IMMEDIATE = RC | RDMA_WRITE_LAST_WITH_IMMEDIATE;
    /** {@code IB_OPCODE_RC_RDMA_WRITE_ONLY}. */
    public static final int RC_RDMA_WRITE_ONLY = RC | RDMA_WRITE_ONLY;
    /** {@code IB_OPCODE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE}. */
    public static final int RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE = RC | RDMA_WRITE_ONLY_WITH_IMMEDIATE;
    /** {@code IB_OPCODE_RC_RDMA_READ_REQUEST}. */
    public static final int RC_RDMA_READ_REQUEST = RC | RDMA_READ_REQUEST;
    /** {@code IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST}. */
    public static final int RC_RDMA_READ_RESPONSE_FIRST = RC | RDMA_READ_RESPONSE_FIRST;
    /** {@code IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE}. */
    public static final int RC_RDMA_READ_RESPONSE_MIDDLE = RC | RDMA_READ_RESPONSE_MIDDLE;
    /** {@code IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST}. */
    public static final int RC_RDMA_READ_RESPONSE_LAST = RC | RDMA_READ_RESPONSE_LAST;
    /** {@code IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY}. */
    public static final int RC_RDMA_READ_RESPONSE_ONLY = RC | RDMA_READ_RESPONSE_ONLY;
    /** {@code IB_OPCODE_RC_ACKNOWLEDGE}. */
    public static final int RC_ACKNOWLEDGE = RC | ACKNOWLEDGE;
    /** {@code IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE}. */
    public static final int RC_ATOMIC_ACKNOWLEDGE = RC | ATOMIC_ACKNOWLEDGE;
    /** {@code IB_OPCODE_RC_COMPARE_SWAP}. */
    public static final int RC_COMPARE_SWAP = RC | COMPARE_SWAP;
    /** {@code IB_OPCODE_RC_FETCH_ADD}. */
    public static final int RC_FETCH_ADD = RC | FETCH_ADD;
    /** {@code IB_OPCODE_RC_SEND_LAST_WITH_INVALIDATE}. */
    public static final int RC_SEND_LAST_WITH_INVALIDATE = RC | SEND_LAST_WITH_INVALIDATE;
    /** {@code IB_OPCODE_RC_SEND_ONLY_WITH_INVALIDATE}. */
    public static final int RC_SEND_ONLY_WITH_INVALIDATE = RC | SEND_ONLY_WITH_INVALIDATE;

    /** {@code IB_OPCODE_UC_SEND_FIRST}. */
    public static final int UC_SEND_FIRST = UC | SEND_FIRST;
    /** {@code IB_OPCODE_UC_SEND_MIDDLE}. */
    public static final int UC_SEND_MIDDLE = UC | SEND_MIDDLE;
    /** {@code IB_OPCODE_UC_SEND_LAST}. */
    public static final int UC_SEND_LAST = UC | SEND_LAST;
    /** {@code IB_OPCODE_UC_SEND_LAST_WITH_IMMEDIATE}. */
    public static final int UC_SEND_LAST_WITH_IMMEDIATE = UC | SEND_LAST_WITH_IMMEDIATE;
    /** {@code IB_OPCODE_UC_SEND_ONLY}. */
    public static final int UC_SEND_ONLY = UC | SEND_ONLY;
    /** {@code IB_OPCODE_UC_SEND_ONLY_WITH_IMMEDIATE}. */
    public static final int UC_SEND_ONLY_WITH_IMMEDIATE = UC | SEND_ONLY_WITH_IMMEDIATE;
    /** {@code IB_OPCODE_UC_RDMA_WRITE_FIRST}. */
    public static final int UC_RDMA_WRITE_FIRST = UC | RDMA_WRITE_FIRST;
    /** {@code IB_OPCODE_UC_RDMA_WRITE_MIDDLE}. */
    public static final int UC_RDMA_WRITE_MIDDLE = UC | RDMA_WRITE_MIDDLE;
    /** {@code IB_OPCODE_UC_RDMA_WRITE_LAST}. */
    public static final int UC_RDMA_WRITE_LAST = UC | RDMA_WRITE_LAST;
    /** {@code IB_OPCODE_UC_RDMA_WRITE_LAST_WITH_IMMEDIATE}. */
    public static final int UC_RDMA_WRITE_LAST_WITH_IMMEDIATE = UC | RDMA_WRITE_LAST_WITH_IMMEDIATE;
    /** {@code IB_OPCODE_UC_RDMA_WRITE_ONLY}. */
    public static final int UC_RDMA_WRITE_ONLY = UC | RDMA_WRITE_ONLY;
    /** {@code IB_OPCODE_UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE}. */
    public static final int UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE = UC | RDMA_WRITE_ONLY_WITH_IMMEDIATE;

    /** {@code IB_OPCODE_UD_SEND_ONLY}: BTH, DETH, payload. */
    public static final int UD_SEND_ONLY = UD | SEND_ONLY;
    /** {@code IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE}: BTH, DETH, ImmDt, payload. */
    public static final int UD_SEND_ONLY_WITH_IMMEDIATE = UD | SEND_ONLY_WITH_IMMEDIATE;

    /**
     * The RoCEv2 congestion notification packet (IBA Annex A17, binary 100_00001): a BTH (with BECN set, DestQP the
     * QP whose traffic was marked, P_Key 0xFFFF) and 16 reserved bytes, which this table counts as header, so a CNP
     * has no payload.
     */
    public static final int ROCE_CNP = CNP | 0x01;
    /** The 16 reserved bytes after a CNP's BTH. */
    public static final int CNP_RESERVED_LENGTH = 16;

    private static final int VALID = 1;
    private static final int PAYLOAD = 1 << 1;
    private static final int REQUEST = 1 << 2;
    private static final int RESPONSE = 1 << 3;
    private static final int FIRST = 1 << 4;
    private static final int MIDDLE = 1 << 5;
    private static final int LAST = 1 << 6;
    private static final int ONLY = 1 << 7;
    private static final int SEND = 1 << 8;
    private static final int WRITE = 1 << 9;
    private static final int READ_REQUEST = 1 << 10;
    private static final int READ_RESPONSE = 1 << 11;
    private static final int ATOMIC = 1 << 12;
    private static final int ACK = 1 << 13;
    private static final int ATOMIC_ACK = 1 << 14;
    private static final int CONGESTION = 1 << 15;
    private static final int FLUSH_REQUEST = 1 << 16;
    private static final int ATOMIC_WRITE_REQUEST = 1 << 17;

    /** Kind bits per opcode byte; 0 means invalid. */
    private static final int[] FLAGS = new int[256];
    /** ExtensionHeader bits per opcode byte. */
    private static final byte[] EXTENSIONS = new byte[256];
    /** BTH + extension headers (+ CNP's reserved bytes), in bytes, per opcode byte. */
    private static final byte[] HEADER_LENGTH = new byte[256];
    private static final String[] NAMES = new String[256];

    static {
        // The RC rows; UC and UD take a subset and UD adds a DETH (IBA Vol. 1 §9.2.1, OpCode table).
        rc(SEND_FIRST, "SEND_FIRST", REQUEST | SEND | PAYLOAD | FIRST, 0);
        rc(SEND_MIDDLE, "SEND_MIDDLE", REQUEST | SEND | PAYLOAD | MIDDLE, 0);
        rc(SEND_LAST, "SEND_LAST", REQUEST | SEND | PAYLOAD | LAST, 0);
        rc(SEND_LAST_WITH_IMMEDIATE, "SEND_LAST_WITH_IMMEDIATE", REQUEST | SEND | PAYLOAD | LAST,
                ExtensionHeader.IMM_DT);
        rc(SEND_ONLY, "SEND_ONLY", REQUEST | SEND | PAYLOAD | ONLY, 0);
        rc(SEND_ONLY_WITH_IMMEDIATE, "SEND_ONLY_WITH_IMMEDIATE", REQUEST | SEND | PAYLOAD | ONLY,
                ExtensionHeader.IMM_DT);
        rc(RDMA_WRITE_FIRST, "RDMA_WRITE_FIRST", REQUEST | WRITE | PAYLOAD | FIRST, ExtensionHeader.RETH);
        rc(RDMA_WRITE_MIDDLE, "RDMA_WRITE_MIDDLE", REQUEST | WRITE | PAYLOAD | MIDDLE, 0);
        rc(RDMA_WRITE_LAST, "RDMA_WRITE_LAST", REQUEST | WRITE | PAYLOAD | LAST, 0);
        rc(RDMA_WRITE_LAST_WITH_IMMEDIATE, "RDMA_WRITE_LAST_WITH_IMMEDIATE", REQUEST | WRITE | PAYLOAD | LAST,
                ExtensionHeader.IMM_DT);
        rc(RDMA_WRITE_ONLY, "RDMA_WRITE_ONLY", REQUEST | WRITE | PAYLOAD | ONLY, ExtensionHeader.RETH);
        rc(RDMA_WRITE_ONLY_WITH_IMMEDIATE, "RDMA_WRITE_ONLY_WITH_IMMEDIATE", REQUEST | WRITE | PAYLOAD | ONLY,
                ExtensionHeader.RETH | ExtensionHeader.IMM_DT);
        rc(RDMA_READ_REQUEST, "RDMA_READ_REQUEST", REQUEST | READ_REQUEST | ONLY, ExtensionHeader.RETH);
        rc(RDMA_READ_RESPONSE_FIRST, "RDMA_READ_RESPONSE_FIRST", RESPONSE | READ_RESPONSE | PAYLOAD | FIRST,
                ExtensionHeader.AETH);
        rc(RDMA_READ_RESPONSE_MIDDLE, "RDMA_READ_RESPONSE_MIDDLE", RESPONSE | READ_RESPONSE | PAYLOAD | MIDDLE, 0);
        rc(RDMA_READ_RESPONSE_LAST, "RDMA_READ_RESPONSE_LAST", RESPONSE | READ_RESPONSE | PAYLOAD | LAST,
                ExtensionHeader.AETH);
        rc(RDMA_READ_RESPONSE_ONLY, "RDMA_READ_RESPONSE_ONLY", RESPONSE | READ_RESPONSE | PAYLOAD | ONLY,
                ExtensionHeader.AETH);
        rc(ACKNOWLEDGE, "ACKNOWLEDGE", RESPONSE | ACK | ONLY, ExtensionHeader.AETH);
        rc(ATOMIC_ACKNOWLEDGE, "ATOMIC_ACKNOWLEDGE", RESPONSE | ATOMIC_ACK | ONLY,
                ExtensionHeader.AETH | ExtensionHeader.ATOMIC_ACK_ETH);
        rc(COMPARE_SWAP, "COMPARE_SWAP", REQUEST | ATOMIC | ONLY, ExtensionHeader.ATOMIC_ETH);
        rc(FETCH_ADD, "FETCH_ADD", REQUEST | ATOMIC | ONLY, ExtensionHeader.ATOMIC_ETH);
        rc(SEND_LAST_WITH_INVALIDATE, "SEND_LAST_WITH_INVALIDATE", REQUEST | SEND | PAYLOAD | LAST,
                ExtensionHeader.IETH);
        rc(SEND_ONLY_WITH_INVALIDATE, "SEND_ONLY_WITH_INVALIDATE", REQUEST | SEND | PAYLOAD | ONLY,
                ExtensionHeader.IETH);
        // IBTA 1.5, with rxe's headers (rxe_opcode.c): FLUSH is BTH FETH RETH, ATOMIC_WRITE is BTH RETH + 8 bytes.
        rc(FLUSH, "FLUSH", REQUEST | FLUSH_REQUEST | ONLY, ExtensionHeader.FETH | ExtensionHeader.RETH);
        rc(ATOMIC_WRITE, "ATOMIC_WRITE", REQUEST | ATOMIC_WRITE_REQUEST | PAYLOAD | ONLY, ExtensionHeader.RETH);

        for (int op = SEND_FIRST; op <= RDMA_WRITE_ONLY_WITH_IMMEDIATE; op++) {
            copy(RC | op, UC | op, "UC_", 0);
        }
        copy(RC_SEND_ONLY, UD_SEND_ONLY, "UD_", ExtensionHeader.DETH);
        copy(RC_SEND_ONLY_WITH_IMMEDIATE, UD_SEND_ONLY_WITH_IMMEDIATE, "UD_", ExtensionHeader.DETH);

        FLAGS[ROCE_CNP] = VALID | CONGESTION;
        HEADER_LENGTH[ROCE_CNP] = (byte) (BthDescriptor.LENGTH + CNP_RESERVED_LENGTH);
        NAMES[ROCE_CNP] = "CNP";
    }

    private static void rc(int op, String name, int flags, int extensions) {
        FLAGS[op] = VALID | flags;
        EXTENSIONS[op] = (byte) extensions;
        HEADER_LENGTH[op] = (byte) (BthDescriptor.LENGTH + extensionLength(extensions));
        NAMES[op] = "RC_" + name;
    }

    private static void copy(int from, int to, String prefix, int extraExtensions) {
        int extensions = EXTENSIONS[from] | extraExtensions;
        FLAGS[to] = FLAGS[from];
        EXTENSIONS[to] = (byte) extensions;
        HEADER_LENGTH[to] = (byte) (BthDescriptor.LENGTH + extensionLength(extensions));
        NAMES[to] = prefix + NAMES[from].substring(3);
    }

    private static int extensionLength(int extensions) {
        int length = 0;
        for (int header : ExtensionHeader.WIRE_ORDER) {
            if ((extensions & header) != 0) {
                length += ExtensionHeader.length(header);
            }
        }
        return length;
    }

    private static int flags(int opcode) {
        return (opcode & ~0xFF) == 0 ? FLAGS[opcode] : 0;
    }

    /**
     * @param opcode an opcode byte
     * @return true if rvt knows this opcode (see the class comment); false for RD, reserved codes, and values
     *         outside 0..255
     */
    public static boolean isValid(int opcode) {
        return flags(opcode) != 0;
    }

    /**
     * @param opcode an opcode byte
     * @return its transport prefix ({@link #RC}, {@link #UC}, {@link #RD}, {@link #UD}, {@link #CNP})
     */
    public static int transport(int opcode) {
        return opcode & TRANSPORT_MASK;
    }

    /**
     * @param opcode an opcode byte
     * @return its operation bits ({@link #SEND_FIRST} ... {@link #SEND_ONLY_WITH_INVALIDATE})
     */
    public static int operation(int opcode) {
        return opcode & OPERATION_MASK;
    }

    /**
     * @param opcode an opcode byte
     * @return the {@link ExtensionHeader} bits of the headers that follow the BTH; 0 if none or invalid
     */
    public static int extensionHeaders(int opcode) {
        return isValid(opcode) ? EXTENSIONS[opcode] & 0xFF : 0;
    }

    /**
     * @param opcode an opcode byte
     * @param header one {@link ExtensionHeader} bit
     * @return true if a valid {@code opcode} carries that header
     */
    public static boolean hasExtension(int opcode, int header) {
        return (extensionHeaders(opcode) & header) != 0;
    }

    /**
     * @param opcode an opcode byte
     * @param header one {@link ExtensionHeader} bit
     * @return where that header starts, in bytes from the first byte of the BTH; -1 if the opcode does not carry it
     *         or is invalid
     */
    public static int extensionOffset(int opcode, int header) {
        int extensions = extensionHeaders(opcode);
        if ((extensions & header) == 0 || Integer.bitCount(header) != 1) {
            return -1;
        }
        int offset = BthDescriptor.LENGTH;
        for (int h : ExtensionHeader.WIRE_ORDER) {
            if (h == header) {
                return offset;
            }
            if ((extensions & h) != 0) {
                offset += ExtensionHeader.length(h);
            }
        }
        return -1;
    }

    /**
     * @param opcode an opcode byte
     * @return the length in bytes of the BTH and the extension headers (for {@link #ROCE_CNP}, with its 16 reserved
     *         bytes), that is where the payload starts relative to the BTH; 0 if invalid
     */
    public static int headerLength(int opcode) {
        return isValid(opcode) ? HEADER_LENGTH[opcode] : 0;
    }

    /**
     * @param opcode an opcode byte
     * @return true if packets with this opcode carry payload (SEND*, RDMA_WRITE*, RDMA_READ_RESPONSE*; the payload
     *         may still be empty for *_ONLY and *_LAST)
     */
    public static boolean hasPayload(int opcode) {
        return (flags(opcode) & PAYLOAD) != 0;
    }

    /**
     * @param opcode an opcode byte
     * @return true for requester-to-responder packets (SEND*, RDMA_WRITE*, RDMA READ request, atomics)
     */
    public static boolean isRequest(int opcode) {
        return (flags(opcode) & REQUEST) != 0;
    }

    /**
     * @param opcode an opcode byte
     * @return true for responder-to-requester packets (RDMA READ responses, ACKs)
     */
    public static boolean isResponse(int opcode) {
        return (flags(opcode) & RESPONSE) != 0;
    }

    /**
     * @param opcode an opcode byte
     * @return true for the *_FIRST opcodes
     */
    public static boolean isFirst(int opcode) {
        return (flags(opcode) & FIRST) != 0;
    }

    /**
     * @param opcode an opcode byte
     * @return true for the *_MIDDLE opcodes
     */
    public static boolean isMiddle(int opcode) {
        return (flags(opcode) & MIDDLE) != 0;
    }

    /**
     * @param opcode an opcode byte
     * @return true for the *_LAST* opcodes
     */
    public static boolean isLast(int opcode) {
        return (flags(opcode) & LAST) != 0;
    }

    /**
     * @param opcode an opcode byte
     * @return true for the *_ONLY* opcodes and the single-packet operations (RDMA READ request, atomics,
     *         ACKNOWLEDGE, ATOMIC_ACKNOWLEDGE)
     */
    public static boolean isOnly(int opcode) {
        return (flags(opcode) & ONLY) != 0;
    }

    /**
     * @param opcode an opcode byte
     * @return true if the packet starts a message ({@link #isFirst} or {@link #isOnly})
     */
    public static boolean isStart(int opcode) {
        return (flags(opcode) & (FIRST | ONLY)) != 0;
    }

    /**
     * @param opcode an opcode byte
     * @return true if the packet ends a message ({@link #isLast} or {@link #isOnly})
     */
    public static boolean isEnd(int opcode) {
        return (flags(opcode) & (LAST | ONLY)) != 0;
    }

    /**
     * @param opcode an opcode byte
     * @return true if an ImmDt header follows (the *_WITH_IMMEDIATE opcodes)
     */
    public static boolean hasImmediate(int opcode) {
        return hasExtension(opcode, ExtensionHeader.IMM_DT);
    }

    /**
     * @param opcode an opcode byte
     * @return true if an IETH follows (the SEND_*_WITH_INVALIDATE opcodes)
     */
    public static boolean hasInvalidate(int opcode) {
        return hasExtension(opcode, ExtensionHeader.IETH);
    }

    /**
     * @param opcode an opcode byte
     * @return true for the SEND* opcodes of RC, UC and UD
     */
    public static boolean isSend(int opcode) {
        return (flags(opcode) & SEND) != 0;
    }

    /**
     * @param opcode an opcode byte
     * @return true for the RDMA_WRITE* opcodes of RC and UC
     */
    public static boolean isRdmaWrite(int opcode) {
        return (flags(opcode) & WRITE) != 0;
    }

    /**
     * @param opcode an opcode byte
     * @return true for {@link #RC_RDMA_READ_REQUEST}
     */
    public static boolean isRdmaReadRequest(int opcode) {
        return (flags(opcode) & READ_REQUEST) != 0;
    }

    /**
     * @param opcode an opcode byte
     * @return true for the RC_RDMA_READ_RESPONSE_* opcodes
     */
    public static boolean isRdmaReadResponse(int opcode) {
        return (flags(opcode) & READ_RESPONSE) != 0;
    }

    /**
     * @param opcode an opcode byte
     * @return true for an RDMA READ request or response
     */
    public static boolean isRdmaRead(int opcode) {
        return (flags(opcode) & (READ_REQUEST | READ_RESPONSE)) != 0;
    }

    /**
     * @param opcode an opcode byte
     * @return true for the atomic requests {@link #RC_COMPARE_SWAP}, {@link #RC_FETCH_ADD}
     */
    public static boolean isAtomic(int opcode) {
        return (flags(opcode) & ATOMIC) != 0;
    }

    /**
     * @param opcode an opcode byte
     * @return true for {@link #RC_FLUSH}
     */
    public static boolean isFlush(int opcode) {
        return (flags(opcode) & FLUSH_REQUEST) != 0;
    }

    /**
     * @param opcode an opcode byte
     * @return true for {@link #RC_ATOMIC_WRITE}
     */
    public static boolean isAtomicWrite(int opcode) {
        return (flags(opcode) & ATOMIC_WRITE_REQUEST) != 0;
    }

    /**
     * @param opcode an opcode byte
     * @return true for {@link #RC_ACKNOWLEDGE} (an ACK or a NAK)
     */
    public static boolean isAcknowledge(int opcode) {
        return (flags(opcode) & ACK) != 0;
    }

    /**
     * @param opcode an opcode byte
     * @return true for {@link #RC_ATOMIC_ACKNOWLEDGE}
     */
    public static boolean isAtomicAcknowledge(int opcode) {
        return (flags(opcode) & ATOMIC_ACK) != 0;
    }

    /**
     * @param opcode an opcode byte
     * @return true for {@link #ROCE_CNP}
     */
    public static boolean isCnp(int opcode) {
        return (flags(opcode) & CONGESTION) != 0;
    }

    /**
     * @param opcode an opcode byte
     * @return its name as in this class ({@code "RC_SEND_FIRST"}, {@code "UD_SEND_ONLY"}, {@code "CNP"}), or
     *         {@code "INVALID"}; a constant string, nothing is allocated
     */
    public static String name(int opcode) {
        return isValid(opcode) ? NAMES[opcode] : "INVALID";
    }
}
