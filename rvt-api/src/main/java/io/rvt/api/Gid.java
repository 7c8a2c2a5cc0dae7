package io.rvt.api;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A 128-bit global identifier ({@code union ib_gid}): a 64-bit subnet prefix and a 64-bit interface id, in network
 * order when written to bytes. Immutable, so it can be shared between address-handle copies without allocation.
 */
public final class Gid {
    /** The all-zero GID. */
    public static final Gid ZERO = new Gid(0, 0);

    private final long subnetPrefix;
    private final long interfaceId;

    private Gid(long subnetPrefix, long interfaceId) {
        this.subnetPrefix = subnetPrefix;
        this.interfaceId = interfaceId;
    }

    /**
     * @param subnetPrefix the upper 64 bits
     * @param interfaceId the lower 64 bits
     * @return the GID
     */
    public static Gid of(long subnetPrefix, long interfaceId) {
        return subnetPrefix == 0 && interfaceId == 0 ? ZERO : new Gid(subnetPrefix, interfaceId);
    }

    /**
     * @param raw 16 bytes in network order
     * @return the GID
     * @throws IllegalArgumentException if {@code raw} is not 16 bytes long
     */
    public static Gid of(byte[] raw) {
        if (raw == null || raw.length != 16) {
            throw new IllegalArgumentException("gid must be 16 bytes, got " + (raw == null ? "null" : raw.length));
        }
        ByteBuffer b = ByteBuffer.wrap(raw);
        return of(b.getLong(), b.getLong());
    }

    /**
     * Reads 16 bytes in network order at an absolute index.
     *
     * @param buf the buffer
     * @param index index of the first byte
     * @return the GID
     */
    public static Gid read(ByteBuffer buf, int index) {
        return of(bigEndian(buf, buf.getLong(index)), bigEndian(buf, buf.getLong(index + 8)));
    }

    /** @return {@code v}, read from or to be written to {@code buf}, converted between network and buffer order */
    private static long bigEndian(ByteBuffer buf, long v) {
        return buf.order() == ByteOrder.BIG_ENDIAN ? v : Long.reverseBytes(v);
    }

    /**
     * The IPv4-mapped GID {@code ::ffff:a.b.c.d} that RoCEv2 uses for an IPv4 address.
     *
     * @param ipv4 the address as a big-endian int
     * @return the GID
     */
    public static Gid ipv4Mapped(int ipv4) {
        return of(0, 0x0000_FFFF_0000_0000L | (ipv4 & 0xFFFF_FFFFL));
    }

    /** @return the upper 64 bits ({@code global.subnet_prefix}) */
    public long subnetPrefix() {
        return subnetPrefix;
    }

    /** @return the lower 64 bits ({@code global.interface_id}) */
    public long interfaceId() {
        return interfaceId;
    }

    /** @return true if the first byte is 0xFF (a multicast GID) */
    public boolean isMulticast() {
        return (subnetPrefix >>> 56) == 0xFF;
    }

    /**
     * Writes the 16 bytes in network order at an absolute index.
     *
     * @param buf the buffer
     * @param index index of the first byte
     */
    public void write(ByteBuffer buf, int index) {
        buf.putLong(index, bigEndian(buf, subnetPrefix));
        buf.putLong(index + 8, bigEndian(buf, interfaceId));
    }

    /** @return the 16 bytes in network order */
    public byte[] toBytes() {
        byte[] raw = new byte[16];
        write(ByteBuffer.wrap(raw), 0);
        return raw;
    }

    /**
     * Orders GIDs as {@code memcmp} of their 16 bytes does (rdmavt keeps multicast groups in that order).
     *
     * @param other another GID
     * @return negative, zero or positive
     */
    public int compareBytes(Gid other) {
        int c = Long.compareUnsigned(subnetPrefix, other.subnetPrefix);
        return c != 0 ? c : Long.compareUnsigned(interfaceId, other.interfaceId);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Gid && ((Gid) o).subnetPrefix == subnetPrefix && ((Gid) o).interfaceId == interfaceId;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(subnetPrefix) * 31 + Long.hashCode(interfaceId);
    }

    /** @return the GID as eight colon-separated groups of four hex digits */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            long word = i < 4 ? subnetPrefix : interfaceId;
            int group = (int) (word >>> (48 - 16 * (i & 3))) & 0xFFFF;
            if (i > 0) {
                sb.append(':');
            }
            String hex = Integer.toHexString(group);
            sb.append("0000", hex.length(), 4).append(hex);
        }
        return sb.toString();
    }
}
