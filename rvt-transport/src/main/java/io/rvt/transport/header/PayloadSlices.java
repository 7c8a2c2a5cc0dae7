package io.rvt.transport.header;

import java.nio.ByteBuffer;

/**
 * A packet's payload where it lies instead of in the packet buffer: up to {@link #capacity()} slices of buffers
 * (registered memory), in order, adding up to the payload. The one shape the payload has from the transport to the
 * wire and back: the transport records it ({@code TxInfo}), a driver's frame or datagram batch owns the instance the
 * transport wrote into, and the receive side reads it ({@link PacketHeaders#payloadSlices(PayloadSlices)}), so no
 * slice is copied field by field between stages.
 *
 * <p>Mutable and reused; not thread-safe: owned by whoever holds the packet. {@link #clear()} forgets the buffers,
 * so none stays reachable.
 */
public final class PayloadSlices {
    private final ByteBuffer[] buffers;
    private final int[] offsets;
    private final int[] lengths;
    private int count;
    private int totalLength;

    /**
     * @param capacity the most slices
     */
    public PayloadSlices(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity must be >= 0, got " + capacity);
        }
        buffers = new ByteBuffer[capacity];
        offsets = new int[capacity];
        lengths = new int[capacity];
    }

    /** @return the most slices */
    public int capacity() {
        return buffers.length;
    }

    /** @return the slices in use; 0 when the payload is not held here */
    public int count() {
        return count;
    }

    /** @return the bytes of all slices */
    public int totalLength() {
        return totalLength;
    }

    /**
     * @param i a slice, below {@link #count()}
     * @return its buffer
     */
    public ByteBuffer buffer(int i) {
        return buffers[i];
    }

    /**
     * @param i a slice, below {@link #count()}
     * @return the index of its first byte in {@link #buffer(int)}
     */
    public int offset(int i) {
        return offsets[i];
    }

    /**
     * @param i a slice, below {@link #count()}
     * @return its length in bytes
     */
    public int length(int i) {
        return lengths[i];
    }

    /**
     * Appends a slice, merged with the last one when it continues it in the same buffer.
     *
     * @param buf the memory
     * @param offset index of the slice's first byte in {@code buf}
     * @param length its length
     * @return false if a new slice was needed and none is left (nothing changed)
     */
    public boolean add(ByteBuffer buf, int offset, int length) {
        int last = count - 1;
        if (last >= 0 && buffers[last] == buf && offsets[last] + lengths[last] == offset) {
            lengths[last] += length;
            totalLength += length;
            return true;
        }
        if (count == buffers.length) {
            return false;
        }
        buffers[count] = buf;
        offsets[count] = offset;
        lengths[count] = length;
        count++;
        totalLength += length;
        return true;
    }

    /**
     * Copies the slices' bytes into {@code dst}, one after another.
     *
     * @param dst the destination (absolute indexes; position and limit untouched)
     * @param index where the first byte goes
     * @return the index after the last byte
     */
    public int copyTo(ByteBuffer dst, int index) {
        for (int i = 0; i < count; i++) {
            dst.put(index, buffers[i], offsets[i], lengths[i]);
            index += lengths[i];
        }
        return index;
    }

    /**
     * Makes this hold the same slices as {@code other} (for a packet sent twice: a duplicate, a multicast copy).
     *
     * @param other the slices to reference
     * @throws IllegalArgumentException if they do not fit
     */
    public void copyFrom(PayloadSlices other) {
        if (other.count > buffers.length) {
            throw new IllegalArgumentException(other.count + " slices do not fit " + buffers.length);
        }
        clear();
        for (int i = 0; i < other.count; i++) {
            buffers[i] = other.buffers[i];
            offsets[i] = other.offsets[i];
            lengths[i] = other.lengths[i];
        }
        count = other.count;
        totalLength = other.totalLength;
    }

    /** Forgets every slice (and its buffer, so that no sender's memory stays reachable). */
    public void clear() {
        for (int i = 0; i < count; i++) {
            buffers[i] = null;
        }
        count = 0;
        totalLength = 0;
    }

    @Override
    public String toString() {
        return "PayloadSlices{" + count + " slice(s), " + totalLength + " bytes}";
    }
}
