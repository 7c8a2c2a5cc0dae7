package io.rvt.driver.jni;

import java.nio.ByteBuffer;

/**
 * Datagrams waiting to go out together: slots in one direct buffer (a packet is written straight into its slot) and,
 * beside it, the {@code struct rvt_tx_desc} array the C library's {@code sendmmsg} reads (address and length of one
 * or two segments, destination). One per sending thread and port; reused, so sending allocates nothing.
 */
final class TxBatch extends Slots {
    /** Per slot: the destination and the length (for the JDK layer, which sends slot by slot). */
    final Peer[] peers;
    final int[] lengths;

    /**
     * @param slots how many datagrams, at most {@link NativeUdp#MAX_BATCH}
     * @param slotSize bytes per datagram
     */
    TxBatch(int slots, int slotSize) {
        super(slots, slotSize, NativeUdp.TX_DESC_SIZE);
        this.peers = new Peer[slots];
        this.lengths = new int[slots];
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
        int i = count++;
        peers[i] = to;
        lengths[i] = length;
        int d = i * NativeUdp.TX_DESC_SIZE;
        ByteBuffer b = desc;
        b.putLong(d, dataAddress + (long) i * slotSize);
        b.putInt(d + 8, length);
        b.putInt(d + 12, length2);
        b.putLong(d + 16, address2);
        b.putShort(d + 24, (short) to.port);
        b.put(d + 26, (byte) (to.ipv6 ? 6 : 4));
        b.putInt(d + 28, to.linkLocal ? scopeId : 0);
        if (to.ipv6) {
            b.putLong(d + 32, network(to.hi));
            b.putLong(d + 40, network(to.lo));
        } else {
            b.putInt(d + 32, network(to.v4));
            b.putInt(d + 36, 0);
            b.putLong(d + 40, 0);
        }
    }

    /** Forgets every queued datagram. */
    void clear() {
        for (int i = 0; i < count; i++) {
            peers[i] = null;
        }
        count = 0;
    }
}
