package io.rvt.driver.jni;

import java.nio.ByteBuffer;

/**
 * Datagrams received together: slots in one direct buffer and the {@code struct rvt_rx_desc} array the C library's
 * {@code recvmmsg} fills (length, truncation, source address and port). One per port engine; reused.
 */
final class RxBatch extends Slots {
    /** The datagram did not fit its slot ({@code MSG_TRUNC}). */
    static final int TRUNCATED = 1;
    /** The descriptor holds the received IP header's traffic class, hop limit and flow label. */
    static final int IP_INFO = 2;

    /**
     * @param slots how many datagrams, at most {@link NativeUdp#MAX_BATCH}
     * @param slotSize bytes per datagram
     */
    RxBatch(int slots, int slotSize) {
        super(slots, slotSize, NativeUdp.RX_DESC_SIZE);
    }

    int offset(int i) {
        return i * slotSize;
    }

    int length(int i) {
        return desc.getInt(i * NativeUdp.RX_DESC_SIZE);
    }

    boolean truncated(int i) {
        return (desc.getInt(i * NativeUdp.RX_DESC_SIZE + 4) & TRUNCATED) != 0;
    }

    /**
     * @return the segment size of a datagram UDP GRO coalesced (each segment one RoCEv2 packet, the last possibly
     *         shorter), 0 for a datagram of its own
     */
    int segmentSize(int i) {
        return desc.getInt(i * NativeUdp.RX_DESC_SIZE + 4) >>> NativeUdp.RX_SEGMENT_SHIFT;
    }

    /** @return whether {@link #trafficClass}, {@link #hopLimit} and {@link #flowLabel} are the received header's */
    boolean hasIpInfo(int i) {
        return (desc.getInt(i * NativeUdp.RX_DESC_SIZE + 4) & IP_INFO) != 0;
    }

    /** @return the received IPv4 TOS / IPv6 traffic class */
    int trafficClass(int i) {
        return desc.get(i * NativeUdp.RX_DESC_SIZE + 11) & 0xFF;
    }

    /** @return the received IPv4 TTL / IPv6 hop limit */
    int hopLimit(int i) {
        return desc.getInt(i * NativeUdp.RX_DESC_SIZE + 28) >>> 24;
    }

    /** @return the received IPv6 flow label (0 over IPv4) */
    int flowLabel(int i) {
        return desc.getInt(i * NativeUdp.RX_DESC_SIZE + 28) & 0xF_FFFF;
    }

    int sourcePort(int i) {
        return desc.getShort(i * NativeUdp.RX_DESC_SIZE + 8) & 0xFFFF;
    }

    boolean sourceIsIpv6(int i) {
        return desc.get(i * NativeUdp.RX_DESC_SIZE + 10) == 6;
    }

    /** @return the IPv4 source address, big-endian int */
    int sourceV4(int i) {
        int v = desc.getInt(i * NativeUdp.RX_DESC_SIZE + 12);
        return network(v);
    }

    /** @return the first 8 bytes of the IPv6 source address */
    long sourceHi(int i) {
        long v = desc.getLong(i * NativeUdp.RX_DESC_SIZE + 12);
        return network(v);
    }

    /** @return the last 8 bytes of the IPv6 source address */
    long sourceLo(int i) {
        long v = desc.getLong(i * NativeUdp.RX_DESC_SIZE + 20);
        return network(v);
    }

    /**
     * Fills slot {@code i}'s descriptor (the JDK layer, which learns these from {@code DatagramChannel.receive}).
     *
     * @param i the slot
     * @param length the datagram's length
     * @param truncated whether it was cut to the slot
     * @param port the source port
     * @param ipv6 the source family
     * @param hiOrV4 IPv6 first half, or the IPv4 address
     * @param lo IPv6 second half
     */
    void set(int i, int length, boolean truncated, int port, boolean ipv6, long hiOrV4, long lo) {
        int d = i * NativeUdp.RX_DESC_SIZE;
        ByteBuffer b = desc;
        b.putInt(d, length);
        b.putInt(d + 4, truncated ? TRUNCATED : 0);
        b.putShort(d + 8, (short) port);
        b.put(d + 10, (byte) (ipv6 ? 6 : 4));
        if (ipv6) {
            b.putLong(d + 12, network(hiOrV4));
            b.putLong(d + 20, network(lo));
        } else {
            int v4 = (int) hiOrV4;
            b.putInt(d + 12, network(v4));
        }
    }
}
