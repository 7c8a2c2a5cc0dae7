package io.rvt.transport.header;

import io.rvt.api.Gid;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.zip.CRC32;

/**
 * The invariant CRC (IBA Vol. 1 §7.8.1; RoCEv2: Annex A17): a CRC-32 (the Ethernet polynomial, as
 * {@link CRC32} computes it) over every byte a packet keeps from source to destination, with the fields that
 * switches and routers may change replaced by ones. It covers:
 *
 * <ul>
 *   <li><b>native IB, local</b> (LNH = IBA local): the LRH with VL set to ones, the BTH with resv8a (byte 4: FECN,
 *       BECN, reserved) set to ones, then every byte up to the ICRC;</li>
 *   <li><b>native IB, global</b> (LNH = IBA global): 8 bytes of ones in place of the whole LRH (routers rewrite it),
 *       the GRH with TClass, FlowLabel and HopLmt set to ones, then BTH and the rest as above;</li>
 *   <li><b>RoCEv2</b>: 8 bytes of ones standing for the LRH, the IPv4 header with TOS, TTL and header checksum set to
 *       ones (the Identification field is covered) or the IPv6 header with traffic class, flow label and hop limit
 *       set to ones, the UDP header with its checksum set to ones, then BTH and the rest as above.</li>
 * </ul>
 *
 * <p>The value is {@code CRC32.getValue()} of those bytes (initial value all ones, reflected, final complement), and
 * it goes on the wire least significant byte first: {@link #write} and {@link #read} do that conversion. Sources:
 * Linux rxe {@code drivers/infiniband/sw/rxe/rxe_icrc.c} (seeds {@code crc32_le} with the CRC of 8 bytes of 0xFF,
 * masks exactly these IPv4/IPv6/UDP/BTH fields, stores {@code ~crc} as a host-order u32, i.e. little-endian on
 * x86); a RoCEv2 CNP captured from a ConnectX-4 Lx in scapy's {@code test/contrib/roce.uts} ends in the bytes
 * {@code 82 fd 00 2a}, which is this class's value {@code 0x2a00fd82} written little-endian (checked in the tests).
 * For global IB packets the ICRC covers of the GRH only IPVer, PayLen, NxtHdr, SGID and DGID, and none of the LRH,
 * which a router rewrites (T. Shanley, <i>InfiniBand Network Architecture</i>, MindShare 2002, ch. 25 "Packet CRCs",
 * summarising IBA §7.8.1); that masked LRH is the 8 bytes of ones RoCE starts with (rxe's comment on its seed).
 *
 * <p>For RoCEv2 the IP and UDP headers are not in the buffer (a UDP socket does not show them), so they are
 * rebuilt from parameters exactly as the kernel sends them: IPv4 version/IHL 0x45, total length, Identification,
 * flags (DF or not), fragment offset 0, protocol 17; IPv6 payload length and next header 17; UDP ports and length.
 * The Identification is covered, and a receiver does not see it: {@link #recoverRoceV4Id} checks a packet by solving
 * for the one ID its ICRC matches under.
 *
 * <p><b>Linux's RC FLUSH</b> (opcode 0x1C, rxe since 6.2) is the one exception, and rvt follows Linux on the wire:
 * rxe's opcode table gives FLUSH no payload offset, so its ICRC ({@code rxe_icrc_generate}, checked the same way by
 * {@code rxe_icrc_check}) covers, after the masked headers, FETH and RETH, the packet's bytes from the BTH to the
 * ICRC a second time, unmasked, as if they were payload. Found against Debian 13's 6.12.118 (2026-12-02): every one
 * of 111 captured FLUSH packets of rxe's failed IBTA's ICRC and matched this one; rxe drops a FLUSH whose ICRC is
 * IBTA's silently. {@link #startRoceV4}, {@link #startRoceV6} and the compute, check and write methods of RoCEv2 do
 * this for a BTH whose opcode is 0x1C ({@link #value()} adds the repeat); native IB framing
 * keeps IBTA's ICRC.
 *
 * <p>An instance keeps a {@link CRC32}, a scratch array for the masked header copies and an IPv4 ID solver with its
 * cache, so it allocates nothing per packet; it is not thread-safe: use one per thread (one per driver agent).
 * Buffers are read with absolute indexes: their position, limit and mark are never touched. Heap buffers are read in
 * place; direct and read-only buffers are copied through the scratch array in chunks.
 */
public final class Icrc {
    /** Length of the ICRC field in bytes. */
    public static final int LENGTH = 4;
    /** Length of an IPv4 header without options, as RoCEv2 sends it. */
    public static final int IPV4_HEADER_LENGTH = 20;
    /** Length of an IPv6 header. */
    public static final int IPV6_HEADER_LENGTH = 40;
    /** Length of a UDP header. */
    public static final int UDP_HEADER_LENGTH = 8;

    /** RC FLUSH's opcode, whose RoCEv2 ICRC Linux's rxe computes over its headers twice (see the class comment). */
    static final int LINUX_FLUSH_OPCODE = 0x1C;

    /** The largest RoCEv2 UDP payload whose IPv4 total length still fits 16 bits. */
    static final int MAX_ROCE_PAYLOAD = 0xFFFF - IPV4_HEADER_LENGTH - UDP_HEADER_LENGTH;

    private static final int ONES = 0xFF;
    private static final int IP_PROTOCOL_UDP = 17;
    private static final int IPV4_DONT_FRAGMENT = 0x4000;
    /** Room for the largest masked prefix (8 + 40 + 8 + 12 bytes) and a useful chunk of payload. */
    private static final int SCRATCH_LENGTH = 1024;

    private final CRC32 crc = new CRC32();
    private final Ipv4IdSolver idSolver = new Ipv4IdSolver();
    private final byte[] scratch = new byte[SCRATCH_LENGTH];
    /** Big-endian view of {@link #scratch}, for writing the rebuilt headers. */
    private final ByteBuffer scratchBuf = ByteBuffer.wrap(scratch);
    /** A Linux FLUSH's packet, which {@link #value()} covers once more (null otherwise). */
    private ByteBuffer repeat;
    private int repeatOffset;
    private int repeatLength;

    /** Creates an instance with its own scratch state. */
    public Icrc() {
    }

    /**
     * Computes the ICRC of a native IB packet (framing {@link Framing#IB_LRH}); LNH decides whether a GRH is there.
     *
     * @param packet the buffer
     * @param offset index of the first byte of the LRH
     * @param lengthWithoutIcrc bytes from the LRH up to (not including) the ICRC
     * @return the ICRC value (see the class comment for its byte order on the wire)
     * @throws IllegalArgumentException if {@code lengthWithoutIcrc} is shorter than LRH, GRH (if LNH says so) and BTH
     * @throws IndexOutOfBoundsException if the range is not inside the buffer's limit
     */
    public int computeIb(ByteBuffer packet, int offset, int lengthWithoutIcrc) {
        Objects.checkFromIndexSize(offset, lengthWithoutIcrc, packet.limit());
        repeat = null;
        boolean global = LrhDescriptor.lnh(packet, offset) == LrhDescriptor.LNH_IBA_GLOBAL;
        int headers = LrhDescriptor.LENGTH + (global ? GrhDescriptor.LENGTH : 0) + BthDescriptor.LENGTH;
        if (lengthWithoutIcrc < headers) {
            throw new IllegalArgumentException("packet too short for its headers: lengthWithoutIcrc="
                    + lengthWithoutIcrc + ", headers=" + headers + (global ? " (LRH, GRH, BTH)" : " (LRH, BTH)"));
        }
        int n;
        if (global) {
            fillOnes(0, LrhDescriptor.LENGTH);
            packet.get(offset + LrhDescriptor.LENGTH, scratch, 8, GrhDescriptor.LENGTH);
            maskGrh(8);
            n = 8 + GrhDescriptor.LENGTH;
        } else {
            packet.get(offset, scratch, 0, LrhDescriptor.LENGTH);
            scratch[LrhDescriptor.VL_LVER_OFFSET] |= (byte) 0xF0;
            n = LrhDescriptor.LENGTH;
        }
        int bth = offset + headers - BthDescriptor.LENGTH;
        n = copyMaskedBth(packet, bth, n);
        crc.reset();
        crc.update(scratch, 0, n);
        update(packet, bth + BthDescriptor.LENGTH, offset + lengthWithoutIcrc - bth - BthDescriptor.LENGTH);
        return (int) crc.getValue();
    }

    /**
     * Computes the ICRC of a RoCEv2 packet carried over IPv4. TOS and TTL are not parameters: they are masked.
     *
     * @param srcIp the IPv4 source address, big-endian int ({@code 10.0.0.1} is {@code 0x0A000001})
     * @param dstIp the IPv4 destination address, big-endian int
     * @param ipId the IPv4 Identification the sender's IP layer puts in the header, 16 bits
     * @param dontFragment whether the IPv4 DF flag is set (Linux sets it when path MTU discovery is on)
     * @param udpSrcPort the UDP source port
     * @param udpDstPort the UDP destination port (normally {@link Framing#ROCEV2_UDP_PORT})
     * @param udpPayload the buffer holding the UDP payload, BTH first
     * @param offset index of the first byte of the BTH
     * @param lengthWithoutIcrc bytes from the BTH up to (not including) the ICRC
     * @return the ICRC value
     * @throws IllegalArgumentException if {@code lengthWithoutIcrc} is shorter than a BTH or longer than IPv4 allows
     * @throws IndexOutOfBoundsException if the range is not inside the buffer's limit
     */
    public int computeRoceV4(int srcIp, int dstIp, int ipId, boolean dontFragment, int udpSrcPort, int udpDstPort,
            ByteBuffer udpPayload, int offset, int lengthWithoutIcrc) {
        checkRoceLength(lengthWithoutIcrc);
        Objects.checkFromIndexSize(offset, lengthWithoutIcrc, udpPayload.limit());
        startRoceV4(srcIp, dstIp, ipId, dontFragment, udpSrcPort, udpDstPort, udpPayload, offset, lengthWithoutIcrc);
        return add(udpPayload, offset + BthDescriptor.LENGTH, lengthWithoutIcrc - BthDescriptor.LENGTH).value();
    }

    /**
     * Starts the ICRC of a RoCEv2 packet over IPv4 whose bytes are not contiguous (a payload gathered from elsewhere):
     * covers the masked pseudo-header and the BTH; feed every later byte with {@link #add}, in wire order, then read
     * {@link #value()}. Parameters as for {@link #computeRoceV4}, but only the BTH need be at {@code offset}.
     *
     * @param srcIp the IPv4 source address
     * @param dstIp the IPv4 destination address
     * @param ipId the IPv4 Identification
     * @param dontFragment whether DF is set
     * @param udpSrcPort the UDP source port
     * @param udpDstPort the UDP destination port
     * @param bth the buffer holding the BTH
     * @param offset index of the BTH
     * @param lengthWithoutIcrc the whole packet's bytes from the BTH up to the ICRC
     * @return this
     */
    public Icrc startRoceV4(int srcIp, int dstIp, int ipId, boolean dontFragment, int udpSrcPort, int udpDstPort,
            ByteBuffer bth, int offset, int lengthWithoutIcrc) {
        checkRoceLength(lengthWithoutIcrc);
        int udpLength = UDP_HEADER_LENGTH + lengthWithoutIcrc + LENGTH;
        ByteBuffer s = scratchBuf;
        fillOnes(0, 8);
        // IPv4 header at 8: version/IHL, TOS (masked), total length, Identification, flags + fragment offset,
        // TTL (masked), protocol, header checksum (masked), addresses
        s.putInt(8, 0x45 << 24 | ONES << 16 | (IPV4_HEADER_LENGTH + udpLength));
        s.putInt(12, (ipId & 0xFFFF) << 16 | (dontFragment ? IPV4_DONT_FRAGMENT : 0));
        s.putInt(16, ONES << 24 | IP_PROTOCOL_UDP << 16 | 0xFFFF);
        s.putInt(20, srcIp);
        s.putInt(24, dstIp);
        int n = putUdp(28, udpSrcPort, udpDstPort, udpLength);
        return startRoce(bth, offset, n, lengthWithoutIcrc);
    }

    /**
     * Computes the ICRC of a RoCEv2 packet carried over IPv6. Traffic class, flow label and hop limit are not
     * parameters: they are masked.
     *
     * @param src the IPv6 source address (for IPv4-mapped GIDs use {@link #computeRoceV4})
     * @param dst the IPv6 destination address
     * @param udpSrcPort the UDP source port
     * @param udpDstPort the UDP destination port (normally {@link Framing#ROCEV2_UDP_PORT})
     * @param udpPayload the buffer holding the UDP payload, BTH first
     * @param offset index of the first byte of the BTH
     * @param lengthWithoutIcrc bytes from the BTH up to (not including) the ICRC
     * @return the ICRC value
     * @throws IllegalArgumentException if {@code lengthWithoutIcrc} is shorter than a BTH or too long for UDP
     * @throws IndexOutOfBoundsException if the range is not inside the buffer's limit
     */
    public int computeRoceV6(Gid src, Gid dst, int udpSrcPort, int udpDstPort, ByteBuffer udpPayload, int offset,
            int lengthWithoutIcrc) {
        checkRoceLength(lengthWithoutIcrc);
        Objects.checkFromIndexSize(offset, lengthWithoutIcrc, udpPayload.limit());
        startRoceV6(src, dst, udpSrcPort, udpDstPort, udpPayload, offset, lengthWithoutIcrc);
        return add(udpPayload, offset + BthDescriptor.LENGTH, lengthWithoutIcrc - BthDescriptor.LENGTH).value();
    }

    /**
     * {@link #startRoceV4}'s IPv6 counterpart: starts the ICRC of a gathered RoCEv2 packet over IPv6.
     *
     * @param src the IPv6 source address
     * @param dst the IPv6 destination address
     * @param udpSrcPort the UDP source port
     * @param udpDstPort the UDP destination port
     * @param bth the buffer holding the BTH
     * @param offset index of the BTH
     * @param lengthWithoutIcrc the whole packet's bytes from the BTH up to the ICRC
     * @return this
     */
    public Icrc startRoceV6(Gid src, Gid dst, int udpSrcPort, int udpDstPort, ByteBuffer bth, int offset,
            int lengthWithoutIcrc) {
        checkRoceLength(lengthWithoutIcrc);
        int udpLength = UDP_HEADER_LENGTH + lengthWithoutIcrc + LENGTH;
        ByteBuffer s = scratchBuf;
        fillOnes(0, 8);
        // IPv6 header at 8: version 6 and all of traffic class and flow label masked, payload length,
        // next header, hop limit (masked), addresses
        s.putInt(8, 0x6FFF_FFFF);
        s.putInt(12, udpLength << 16 | IP_PROTOCOL_UDP << 8 | ONES);
        src.write(s, 16);
        dst.write(s, 32);
        int n = putUdp(8 + IPV6_HEADER_LENGTH, udpSrcPort, udpDstPort, udpLength);
        return startRoce(bth, offset, n, lengthWithoutIcrc);
    }

    /**
     * Reads an ICRC field (least significant byte first on the wire).
     *
     * @param buf the buffer
     * @param index index of the first ICRC byte
     * @return the ICRC value
     */
    public static int read(ByteBuffer buf, int index) {
        return Integer.reverseBytes(Bytes.i32(buf, index));
    }

    /**
     * Writes an ICRC field (least significant byte first on the wire).
     *
     * @param buf the buffer
     * @param index index of the first ICRC byte
     * @param icrc the ICRC value
     */
    public static void write(ByteBuffer buf, int index, int icrc) {
        Bytes.i32(buf, index, Integer.reverseBytes(icrc));
    }

    /**
     * Computes a native IB packet's ICRC and writes it into its last 4 bytes.
     *
     * @param packet the buffer
     * @param offset index of the first byte of the LRH
     * @param length bytes from the LRH to the end of the ICRC
     * @throws IllegalArgumentException if the packet is too short for its headers and ICRC
     */
    public void writeIb(ByteBuffer packet, int offset, int length) {
        write(packet, offset + length - LENGTH, computeIb(packet, offset, length - LENGTH));
    }

    /**
     * Checks a native IB packet's ICRC. Never throws for a range inside the buffer.
     *
     * @param packet the buffer
     * @param offset index of the first byte of the LRH
     * @param length bytes from the LRH to the end of the ICRC
     * @return true if the ICRC matches; false if not or if the packet is too short for its headers and ICRC
     * @throws IndexOutOfBoundsException if the range is not inside the buffer's limit
     */
    public boolean checkIb(ByteBuffer packet, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, packet.limit());
        if (length < LrhDescriptor.LENGTH) {
            return false;
        }
        boolean global = LrhDescriptor.lnh(packet, offset) == LrhDescriptor.LNH_IBA_GLOBAL;
        if (length < LrhDescriptor.LENGTH + (global ? GrhDescriptor.LENGTH : 0) + BthDescriptor.LENGTH + LENGTH) {
            return false;
        }
        return computeIb(packet, offset, length - LENGTH) == read(packet, offset + length - LENGTH);
    }

    /**
     * Computes a RoCEv2-over-IPv4 packet's ICRC and writes it into the last 4 bytes of the UDP payload.
     *
     * @param srcIp the IPv4 source address
     * @param dstIp the IPv4 destination address
     * @param ipId the IPv4 Identification
     * @param dontFragment whether DF is set
     * @param udpSrcPort the UDP source port
     * @param udpDstPort the UDP destination port
     * @param udpPayload the buffer holding the UDP payload
     * @param offset index of the first byte of the BTH
     * @param length bytes from the BTH to the end of the ICRC (the UDP payload length)
     */
    public void writeRoceV4(int srcIp, int dstIp, int ipId, boolean dontFragment, int udpSrcPort, int udpDstPort,
            ByteBuffer udpPayload, int offset, int length) {
        write(udpPayload, offset + length - LENGTH, computeRoceV4(srcIp, dstIp, ipId, dontFragment, udpSrcPort,
                udpDstPort, udpPayload, offset, length - LENGTH));
    }

    /**
     * Checks a RoCEv2-over-IPv4 packet's ICRC. Never throws for a range inside the buffer.
     *
     * @param srcIp the IPv4 source address
     * @param dstIp the IPv4 destination address
     * @param ipId the IPv4 Identification
     * @param dontFragment whether DF is set
     * @param udpSrcPort the UDP source port
     * @param udpDstPort the UDP destination port
     * @param udpPayload the buffer holding the UDP payload
     * @param offset index of the first byte of the BTH
     * @param length bytes from the BTH to the end of the ICRC (the UDP payload length)
     * @return true if the ICRC matches; false if not or if the length cannot hold a BTH and an ICRC
     * @throws IndexOutOfBoundsException if the range is not inside the buffer's limit
     */
    public boolean checkRoceV4(int srcIp, int dstIp, int ipId, boolean dontFragment, int udpSrcPort, int udpDstPort,
            ByteBuffer udpPayload, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, udpPayload.limit());
        if (!isRoceLength(length - LENGTH)) {
            return false;
        }
        return computeRoceV4(srcIp, dstIp, ipId, dontFragment, udpSrcPort, udpDstPort, udpPayload, offset,
                length - LENGTH) == read(udpPayload, offset + length - LENGTH);
    }

    /**
     * Checks a RoCEv2-over-IPv4 packet's ICRC without knowing the sender's IPv4 Identification, which a UDP socket
     * does not show: the ICRC is computed with ID 0 (rvt's own packets: a match costs what {@link #checkRoceV4}
     * costs); if that does not match, the one ID whose ICRC would be the received one, if any, is solved for from
     * the difference (the CRC is affine in the ID's 16 bits; see {@code Ipv4IdSolver}). A match under a solved ID
     * keeps 16 of the ICRC's 32 check bits: a random corruption passes with probability 2^-16, though every
     * single-bit error in a packet of up to 26 KiB is still caught. Never throws for a range inside the buffer;
     * allocates nothing.
     *
     * @param srcIp the IPv4 source address
     * @param dstIp the IPv4 destination address
     * @param dontFragment whether DF is set (Linux's rxe sets it)
     * @param udpSrcPort the UDP source port
     * @param udpDstPort the UDP destination port
     * @param udpPayload the buffer holding the UDP payload
     * @param offset index of the first byte of the BTH
     * @param length bytes from the BTH to the end of the ICRC (the UDP payload length)
     * @return the Identification (0-65535) the ICRC matches under, 0 if it matches under 0; -1 if it matches under
     *         none or the length cannot hold a BTH and an ICRC
     * @throws IndexOutOfBoundsException if the range is not inside the buffer's limit
     */
    public int recoverRoceV4Id(int srcIp, int dstIp, boolean dontFragment, int udpSrcPort, int udpDstPort,
            ByteBuffer udpPayload, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, udpPayload.limit());
        if (!isRoceLength(length - LENGTH)) {
            return -1;
        }
        int syndrome = computeRoceV4(srcIp, dstIp, 0, dontFragment, udpSrcPort, udpDstPort, udpPayload, offset,
                length - LENGTH) ^ read(udpPayload, offset + length - LENGTH);
        // Linux's FLUSH: the ICRC covers the packet twice, so the ID is that much further from its end
        int covered = (length - LENGTH) * (isLinuxFlush(udpPayload, offset) ? 2 : 1);
        return syndrome == 0 ? 0 : idSolver.solve(syndrome, covered);
    }

    /**
     * Computes a RoCEv2-over-IPv6 packet's ICRC and writes it into the last 4 bytes of the UDP payload.
     *
     * @param src the IPv6 source address
     * @param dst the IPv6 destination address
     * @param udpSrcPort the UDP source port
     * @param udpDstPort the UDP destination port
     * @param udpPayload the buffer holding the UDP payload
     * @param offset index of the first byte of the BTH
     * @param length bytes from the BTH to the end of the ICRC (the UDP payload length)
     */
    public void writeRoceV6(Gid src, Gid dst, int udpSrcPort, int udpDstPort, ByteBuffer udpPayload, int offset,
            int length) {
        write(udpPayload, offset + length - LENGTH,
                computeRoceV6(src, dst, udpSrcPort, udpDstPort, udpPayload, offset, length - LENGTH));
    }

    /**
     * Checks a RoCEv2-over-IPv6 packet's ICRC. Never throws for a range inside the buffer.
     *
     * @param src the IPv6 source address
     * @param dst the IPv6 destination address
     * @param udpSrcPort the UDP source port
     * @param udpDstPort the UDP destination port
     * @param udpPayload the buffer holding the UDP payload
     * @param offset index of the first byte of the BTH
     * @param length bytes from the BTH to the end of the ICRC (the UDP payload length)
     * @return true if the ICRC matches; false if not or if the length cannot hold a BTH and an ICRC
     * @throws IndexOutOfBoundsException if the range is not inside the buffer's limit
     */
    public boolean checkRoceV6(Gid src, Gid dst, int udpSrcPort, int udpDstPort, ByteBuffer udpPayload, int offset,
            int length) {
        Objects.checkFromIndexSize(offset, length, udpPayload.limit());
        if (!isRoceLength(length - LENGTH)) {
            return false;
        }
        return computeRoceV6(src, dst, udpSrcPort, udpDstPort, udpPayload, offset, length - LENGTH)
                == read(udpPayload, offset + length - LENGTH);
    }

    private static boolean isRoceLength(int lengthWithoutIcrc) {
        return lengthWithoutIcrc >= BthDescriptor.LENGTH && lengthWithoutIcrc <= MAX_ROCE_PAYLOAD - LENGTH;
    }

    private static void checkRoceLength(int lengthWithoutIcrc) {
        if (!isRoceLength(lengthWithoutIcrc)) {
            throw new IllegalArgumentException("RoCEv2 length out of range: lengthWithoutIcrc=" + lengthWithoutIcrc
                    + ", min=" + BthDescriptor.LENGTH + ", max=" + (MAX_ROCE_PAYLOAD - LENGTH));
        }
    }

    private int putUdp(int at, int srcPort, int dstPort, int udpLength) {
        scratchBuf.putInt(at, (srcPort & 0xFFFF) << 16 | (dstPort & 0xFFFF));
        scratchBuf.putInt(at + 4, udpLength << 16 | 0xFFFF); // checksum masked
        return at + UDP_HEADER_LENGTH;
    }

    private Icrc startRoce(ByteBuffer bth, int offset, int n, int lengthWithoutIcrc) {
        Objects.checkFromIndexSize(offset, BthDescriptor.LENGTH, bth.limit());
        n = copyMaskedBth(bth, offset, n);
        crc.reset();
        crc.update(scratch, 0, n);
        repeat = null;
        if (isLinuxFlush(bth, offset)) {
            Objects.checkFromIndexSize(offset, lengthWithoutIcrc, bth.limit());
            repeat = bth;
            repeatOffset = offset;
            repeatLength = lengthWithoutIcrc;
        }
        return this;
    }

    /** @return whether the BTH at offset is an RC FLUSH's, whose RoCEv2 ICRC Linux covers its packet twice */
    private static boolean isLinuxFlush(ByteBuffer bth, int offset) {
        return (bth.get(offset) & 0xFF) == LINUX_FLUSH_OPCODE;
    }

    /**
     * Feeds the next bytes of a packet started with {@link #startRoceV4} or {@link #startRoceV6} to the ICRC, without
     * touching the buffer's position or limit (a direct buffer is read through a scratch array, not copied whole).
     *
     * @param buf the buffer
     * @param index the first byte
     * @param length bytes
     * @return this
     */
    public Icrc add(ByteBuffer buf, int index, int length) {
        update(buf, index, length);
        return this;
    }

    /** @return the ICRC of the bytes fed since the start */
    public int value() {
        if (repeat != null) { // Linux's FLUSH: the packet once more, after everything else
            ByteBuffer b = repeat;
            repeat = null;
            update(b, repeatOffset, repeatLength);
        }
        return (int) crc.getValue();
    }

    /** Copies the BTH at {@code bth} to {@code scratch[at]} with resv8a set to ones; returns the end in scratch. */
    private int copyMaskedBth(ByteBuffer packet, int bth, int at) {
        packet.get(bth, scratch, at, BthDescriptor.LENGTH);
        scratch[at + BthDescriptor.RESV8A_OFFSET] = (byte) ONES;
        return at + BthDescriptor.LENGTH;
    }

    /** Sets TClass, FlowLabel and HopLmt of the GRH copy at {@code scratch[at]} to ones, keeping IPVer. */
    private void maskGrh(int at) {
        scratch[at] |= 0x0F;
        scratch[at + 1] = (byte) ONES;
        scratch[at + 2] = (byte) ONES;
        scratch[at + 3] = (byte) ONES;
        scratch[at + GrhDescriptor.HOP_LIMIT_OFFSET] = (byte) ONES;
    }

    private void fillOnes(int from, int to) {
        for (int i = from; i < to; i++) {
            scratch[i] = (byte) ONES;
        }
    }

    /** Feeds {@code length} bytes at {@code index} to the CRC without touching the buffer's position or limit. */
    private void update(ByteBuffer buf, int index, int length) {
        Objects.checkFromIndexSize(index, length, buf.limit());
        if (buf.hasArray()) {
            crc.update(buf.array(), buf.arrayOffset() + index, length);
            return;
        }
        // Direct or read-only: CRC32.update(ByteBuffer) would move the position (or allocate for read-only heap
        // buffers), and a slice or duplicate per packet allocates, so copy through the scratch array instead.
        while (length > 0) {
            int chunk = Math.min(length, SCRATCH_LENGTH);
            buf.get(index, scratch, 0, chunk);
            crc.update(scratch, 0, chunk);
            index += chunk;
            length -= chunk;
        }
    }
}
