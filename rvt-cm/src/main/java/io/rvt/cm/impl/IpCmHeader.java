package io.rvt.cm.impl;

import io.rvt.api.Gid;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;

/**
 * rdma_cm's IP CM header at the start of a REQ's (and SIDR_REQ's) private data for the IP port spaces (IBTA Annex
 * A11 "RDMA IP CM Service"; the kernel's {@code struct cma_hdr}): byte 0 the CM version (0), byte 1 the IP version in
 * its upper 4 bits (4 or 6), bytes 2-3 the source port, then the 16-byte source and destination addresses (IPv4 in
 * the last 4 bytes of each, after 12 zero bytes). 36 bytes, big-endian.
 */
final class IpCmHeader {
    static final int LENGTH = 36;
    static final int VERSION = 0;

    private IpCmHeader() {
    }

    /**
     * @param src the source GID (IPv4-mapped for IPv4)
     * @param dst the destination GID
     * @return true if both GIDs are IPv4-mapped ({@code ::ffff:a.b.c.d}), so the header says IPv4
     */
    static boolean isIpv4(Gid src, Gid dst) {
        return ipv4Mapped(src) && ipv4Mapped(dst);
    }

    static boolean ipv4Mapped(Gid g) {
        return g.subnetPrefix() == 0 && (g.interfaceId() >>> 32) == 0xFFFF;
    }

    /**
     * Writes the header into {@code out[0..36)}.
     *
     * @param out the private data
     * @param src the source GID
     * @param dst the destination GID
     * @param srcPort the source port
     */
    static void write(byte[] out, Gid src, Gid dst, int srcPort) {
        ByteBuffer b = ByteBuffer.wrap(out);
        boolean v4 = isIpv4(src, dst);
        b.put(0, (byte) VERSION);
        b.put(1, (byte) ((v4 ? 4 : 6) << 4));
        b.putShort(2, (short) srcPort);
        writeAddress(b, 4, src, v4);
        writeAddress(b, 20, dst, v4);
    }

    private static void writeAddress(ByteBuffer b, int at, Gid g, boolean v4) {
        if (v4) {
            for (int i = 0; i < 12; i++) {
                b.put(at + i, (byte) 0);
            }
            b.putInt(at + 12, (int) g.interfaceId());
        } else {
            g.write(b, at);
        }
    }

    /**
     * @param data private data
     * @param len its length
     * @return true if it starts with a well-formed header (version 0, IP version 4 or 6)
     */
    static boolean present(byte[] data, int len) {
        if (len < LENGTH || data[0] != VERSION) {
            return false;
        }
        int ipv = (data[1] & 0xFF) >>> 4;
        return ipv == 4 || ipv == 6;
    }

    /** @return the IP version of a present header (4 or 6) */
    static int ipVersion(byte[] data) {
        return (data[1] & 0xFF) >>> 4;
    }

    /** @return the source port of a present header */
    static int sourcePort(byte[] data) {
        return ((data[2] & 0xFF) << 8) | (data[3] & 0xFF);
    }

    /**
     * @param data private data with a header
     * @param source true for the source address, false for the destination
     * @return the address and, for the source, the source port (destination: port 0)
     */
    static InetSocketAddress address(byte[] data, boolean source) {
        int at = source ? 4 : 20;
        byte[] raw;
        if (ipVersion(data) == 4) {
            raw = new byte[] {data[at + 12], data[at + 13], data[at + 14], data[at + 15]};
        } else {
            raw = new byte[16];
            System.arraycopy(data, at, raw, 0, 16);
        }
        try {
            return new InetSocketAddress(InetAddress.getByAddress(raw), source ? sourcePort(data) : 0);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("a 4- or 16-byte address is always valid", e);
        }
    }
}
