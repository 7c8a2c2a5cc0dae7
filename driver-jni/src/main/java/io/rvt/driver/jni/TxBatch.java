package io.rvt.driver.jni;

import io.rvt.transport.header.PayloadSlices;
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
    /** Per slot: bytes of the slot that precede the referenced slices. */
    private final int[] headLengths;
    /**
     * Per slot: the payload slices of its datagram, which the transport records straight into
     * ({@code TxInfo.payloadInto(payloadOf(slot))}); they keep the buffers reachable until the datagram is sent.
     */
    private final PayloadSlices[] payloads;
    /** The last buffer whose address was asked for, and that address (one native call per buffer change). */
    private ByteBuffer lastBuffer;
    private long lastAddress;
    /** The IP header fields of the datagrams queued next ({@link #ipHeader}). */
    private int trafficClass;
    private int hopLimit;
    private int flowLabel;
    /** System calls the last {@link Datagrams#send} of this batch made (it sets them; {@link SocketCalls}). */
    int sendCalls;
    /** Datagrams of the last {@link Datagrams#send} that left as UDP GSO segments ({@link SocketCalls}). */
    int gsoSegments;

    /**
     * @param slots how many datagrams, at most {@link NativeUdp#MAX_BATCH}
     * @param slotSize bytes per datagram
     */
    TxBatch(int slots, int slotSize) {
        super(slots, slotSize, NativeUdp.TX_DESC_SIZE);
        this.peers = new Peer[slots];
        this.lengths = new int[slots];
        this.headLengths = new int[slots];
        this.payloads = new PayloadSlices[slots];
        for (int i = 0; i < slots; i++) {
            payloads[i] = new PayloadSlices(MAX_PAYLOAD_SEGMENTS);
        }
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

    /** @return the payload slices of the next free slot: where the transport records the next packet's payload */
    PayloadSlices nextPayload() {
        return payloads[count];
    }

    /**
     * Moves the packet built in the slot at {@code from} (bytes offset) to the next free slot: its {@code inSlot}
     * bytes, and its payload slices by exchanging the two slots' slice holders (a packet that referenced them keeps
     * pointing at the same holder).
     *
     * @param from the packet's offset
     * @param inSlot its bytes in the slot
     * @return its new offset
     */
    int moveToNext(int from, int inSlot) {
        int to = nextOffset();
        if (from != to) {
            data.put(to, data, from, inSlot);
            int a = from / slotSize;
            PayloadSlices t = payloads[a];
            payloads[a] = payloads[count];
            payloads[count] = t;
        }
        return to;
    }

    /**
     * Copies the packet at {@code from} into the next free slot for a second destination, its payload slices
     * included.
     *
     * @param from the packet's offset
     * @param inSlot its bytes in the slot
     * @return the copy's offset
     */
    int copyToNext(int from, int inSlot) {
        int to = nextOffset();
        if (from != to) {
            data.put(to, data, from, inSlot);
            payloads[count].copyFrom(payloads[from / slotSize]);
        }
        return to;
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
     * bytes, then the slot's payload slices ({@link #nextPayload()}, direct buffers), then the slot's
     * {@code tailLength} bytes after the head (pad and ICRC).
     *
     * @param to the destination
     * @param headLength transport header bytes at the start of the slot
     * @param tailLength bytes after the head in the slot
     * @param scopeId the sending socket's interface, used if {@code to} is link-local
     */
    void addReferenced(Peer to, int headLength, int tailLength, int scopeId) {
        PayloadSlices payload = payloads[count];
        int d = head(to, headLength + payload.totalLength() + tailLength, scopeId);
        long slot = dataAddress + (long) (count - 1) * slotSize;
        segment(d, 0, slot, headLength);
        headLengths[count - 1] = headLength;
        int n = payload.count();
        for (int i = 0; i < n; i++) {
            segment(d, i + 1, addressOf(payload.buffer(i)) + payload.offset(i), payload.length(i));
        }
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
        PayloadSlices payload = payloads[i];
        for (int p = 0; p < payload.count(); p++) {
            payload.buffer(p).get(payload.offset(p), dst, at, payload.length(p));
            at += payload.length(p);
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
            payloads[i].clear();
        }
        count = 0;
    }
}
