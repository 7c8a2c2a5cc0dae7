package io.rvt.driver.jni;

import io.rvt.transport.TxInfo;
import java.nio.ByteBuffer;

/**
 * Datagrams waiting to go out together: slots in one direct buffer (a packet is written straight into its slot) and,
 * beside it, the {@code struct rvt_tx_desc} array the C library's {@code sendmmsg} reads (destination, and the
 * segments the datagram is gathered from: its slot, or its slot's headers, slices of registered memory and its slot's
 * tail). One per sending thread and port; reused, so sending allocates nothing.
 */
final class TxBatch extends Slots {
    /** Payload slices one datagram may reference: every segment but the slot's head and tail. */
    static final int MAX_PAYLOAD_SEGMENTS = NativeUdp.TX_SEGS - 2;
    private static final int SEG_OFFSET = 32;
    private static final int SEG_SIZE = 16;

    /**
     * Per slot: the destination and the datagram's whole length (the JDK layer sends slot by slot, so only
     * datagrams that lie whole in their slot).
     */
    final Peer[] peers;
    final int[] lengths;
    /** Per slot: bytes of the slot that precede the referenced slices, and the first of its {@link #pinned}. */
    private final int[] headLengths;
    private final int[] firstPin;
    /** The referenced slices of the queued datagrams: buffers kept reachable until they are sent. */
    private final ByteBuffer[] pinned;
    private final int[] pinOffsets;
    private final int[] pinLengths;
    private int pinnedCount;
    /** The last buffer whose address was asked for, and that address (one native call per buffer change). */
    private ByteBuffer lastBuffer;
    private long lastAddress;
    /** The IP header fields of the datagrams queued next ({@link #ipHeader}). */
    private int trafficClass;
    private int hopLimit;
    private int flowLabel;

    /**
     * @param slots how many datagrams, at most {@link NativeUdp#MAX_BATCH}
     * @param slotSize bytes per datagram
     */
    TxBatch(int slots, int slotSize) {
        super(slots, slotSize, NativeUdp.TX_DESC_SIZE);
        this.peers = new Peer[slots];
        this.lengths = new int[slots];
        this.headLengths = new int[slots];
        this.firstPin = new int[slots + 1];
        this.pinned = new ByteBuffer[slots * MAX_PAYLOAD_SEGMENTS];
        this.pinOffsets = new int[pinned.length];
        this.pinLengths = new int[pinned.length];
    }

    /**
     * Sets the IP header fields of the datagrams queued from now on: the GRH of their address, as RoCEv2 maps it.
     *
     * @param tclass the IPv4 TOS / IPv6 traffic class (DSCP and ECN bits)
     * @param hops the IPv4 TTL / IPv6 hop limit, 0 for the socket's default
     * @param flow the IPv6 flow label (20 bits), 0 for the kernel's
     */
    void ipHeader(int tclass, int hops, int flow) {
        trafficClass = tclass & 0xFF;
        hopLimit = hops & 0xFF;
        flowLabel = flow & 0xF_FFFF;
    }

    /** @return true if no slot is left */
    boolean isFull() {
        return count == slots;
    }

    /** @return the offset of the next free slot in {@link #data} */
    int nextOffset() {
        return count * slotSize;
    }

    /**
     * Queues the packet written into the next free slot.
     *
     * @param to the destination
     * @param length its length
     */
    void add(Peer to, int length) {
        addGather(to, length, 0, 0, 0);
    }

    /**
     * Queues the packet written into the next free slot.
     *
     * @param to the destination
     * @param length its length
     * @param scopeId the sending socket's interface, used if {@code to} is link-local
     */
    void add(Peer to, int length, int scopeId) {
        addGather(to, length, 0, 0, scopeId);
    }

    /**
     * Queues the packet in the next free slot followed by a second segment gathered from elsewhere (registered
     * memory in a direct buffer): the C library sends both as one datagram without copying the second.
     *
     * @param to the destination
     * @param length bytes of the slot
     * @param address2 address of the second segment (0: none)
     * @param length2 its length
     * @param scopeId the sending socket's interface, used if {@code to} is link-local
     */
    void addGather(Peer to, int length, long address2, int length2, int scopeId) {
        int d = head(to, length + length2, scopeId);
        long slot = dataAddress + (long) (count - 1) * slotSize;
        segment(d, 0, slot, length);
        int n = 1;
        if (length2 > 0) {
            segment(d, n++, address2, length2);
        }
        desc.put(d + 3, (byte) n);
    }

    /**
     * Queues a packet whose payload stays in registered memory: the next free slot's first {@code headLength}
     * bytes, then {@code tx}'s payload slices (direct buffers), then the slot's {@code tailLength} bytes after the
     * head (pad and ICRC).
     *
     * @param to the destination
     * @param headLength transport header bytes at the start of the slot
     * @param tx the packet's info, with at most {@link #MAX_PAYLOAD_SEGMENTS} slices
     * @param tailLength bytes after the head in the slot
     * @param scopeId the sending socket's interface, used if {@code to} is link-local
     */
    void addReferenced(Peer to, int headLength, TxInfo tx, int tailLength, int scopeId) {
        int d = head(to, headLength + tx.payloadLength() + tailLength, scopeId);
        long slot = dataAddress + (long) (count - 1) * slotSize;
        segment(d, 0, slot, headLength);
        headLengths[count - 1] = headLength;
        int n = tx.segments();
        for (int i = 0; i < n; i++) {
            ByteBuffer b = tx.segmentBuffer(i);
            pinned[pinnedCount] = b;
            pinOffsets[pinnedCount] = tx.segmentOffset(i);
            pinLengths[pinnedCount++] = tx.segmentLength(i);
            segment(d, i + 1, addressOf(b) + tx.segmentOffset(i), tx.segmentLength(i));
        }
        firstPin[count] = pinnedCount;
        segment(d, n + 1, slot + headLength, tailLength);
        desc.put(d + 3, (byte) (n + 2));
    }

    /**
     * Copies datagram {@code i} (queued by {@code add} or {@link #addReferenced}) as it goes on the wire, slices
     * included (for layers that cannot gather).
     *
     * @param i a queued datagram
     * @param dst where to copy, at least {@code lengths[i]} bytes
     */
    void copyDatagram(int i, byte[] dst) {
        int slot = i * slotSize;
        int head = headLengths[i];
        data.get(slot, dst, 0, head);
        int at = head;
        for (int p = firstPin[i]; p < firstPin[i + 1]; p++) {
            pinned[p].get(pinOffsets[p], dst, at, pinLengths[p]);
            at += pinLengths[p];
        }
        data.get(slot + head, dst, at, lengths[i] - at);
    }

    private long addressOf(ByteBuffer b) {
        if (b != lastBuffer) {
            lastAddress = NativeUdp.address(b);
            lastBuffer = b;
        }
        return lastAddress;
    }

    private void segment(int d, int i, long address, int length) {
        desc.putLong(d + SEG_OFFSET + i * SEG_SIZE, address);
        desc.putLong(d + SEG_OFFSET + i * SEG_SIZE + 8, length);
    }

    /** Takes the next slot for {@code to}, writes its descriptor's destination; returns the descriptor's offset. */
    private int head(Peer to, int length, int scopeId) {
        int i = count++;
        peers[i] = to;
        lengths[i] = length;
        headLengths[i] = length;
        firstPin[i + 1] = pinnedCount;
        int d = i * NativeUdp.TX_DESC_SIZE;
        ByteBuffer b = desc;
        b.putShort(d, (short) to.port);
        b.put(d + 2, (byte) (to.ipv6 ? 6 : 4));
        b.putInt(d + 4, to.linkLocal ? scopeId : 0);
        if (to.ipv6) {
            b.putLong(d + 8, network(to.hi));
            b.putLong(d + 16, network(to.lo));
        } else {
            b.putInt(d + 8, network(to.v4));
            b.putInt(d + 12, 0);
            b.putLong(d + 16, 0);
        }
        b.putInt(d + 24, flowLabel);
        b.put(d + 28, (byte) trafficClass);
        b.put(d + 29, (byte) hopLimit);
        return d;
    }

    /** Forgets every queued datagram. */
    void clear() {
        for (int i = 0; i < count; i++) {
            peers[i] = null;
        }
        for (int i = 0; i < pinnedCount; i++) {
            pinned[i] = null;
        }
        pinnedCount = 0;
        count = 0;
    }
}
