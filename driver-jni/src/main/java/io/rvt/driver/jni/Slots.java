package io.rvt.driver.jni;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * What a send and a receive batch share: {@code slots} datagram slots of {@code slotSize} bytes in one direct buffer,
 * a direct array of C descriptors beside it (native byte order), their addresses for the C library (0 when it is not
 * loaded), and a view per slot for the JDK layer. Reused for every batch: nothing is allocated per datagram.
 */
abstract class Slots {
    final int slots;
    final int slotSize;
    /** The datagrams, slot {@code i} at {@code i * slotSize}; big-endian, as the header codec writes. */
    final ByteBuffer data;
    /** The descriptors. */
    final ByteBuffer desc;
    final long dataAddress;
    final long descAddress;
    /** Per slot: a view of the slot. */
    final ByteBuffer[] views;
    /** How many slots are in use. */
    int count;

    /**
     * @param slots how many datagrams, at most {@link NativeUdp#MAX_BATCH}
     * @param slotSize bytes per datagram
     * @param descSize bytes per descriptor
     */
    Slots(int slots, int slotSize, int descSize) {
        if (slots < 1 || slots > NativeUdp.MAX_BATCH) {
            throw new IllegalArgumentException("batch must be 1.." + NativeUdp.MAX_BATCH + " datagrams, got " + slots);
        }
        this.slots = slots;
        this.slotSize = slotSize;
        this.data = ByteBuffer.allocateDirect(slots * slotSize);
        this.desc = ByteBuffer.allocateDirect(slots * descSize).order(ByteOrder.nativeOrder());
        boolean nat = NativeUdp.isAvailable();
        this.dataAddress = nat ? NativeUdp.address(data) : 0;
        this.descAddress = nat ? NativeUdp.address(desc) : 0;
        this.views = new ByteBuffer[slots];
        for (int i = 0; i < slots; i++) {
            views[i] = data.slice(i * slotSize, slotSize);
        }
    }

    /** @return {@code v} as the descriptors store a big-endian (network order) value */
    final long network(long v) {
        return desc.order() == ByteOrder.BIG_ENDIAN ? v : Long.reverseBytes(v);
    }

    /** @return {@code v} as the descriptors store a big-endian (network order) value */
    final int network(int v) {
        return desc.order() == ByteOrder.BIG_ENDIAN ? v : Integer.reverseBytes(v);
    }
}
