package io.rvt.transport.header;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** The buffer flavours every codec test runs on: the codec must not care about byte order or heap vs direct. */
enum BufferKind {
    HEAP_BIG_ENDIAN(false, ByteOrder.BIG_ENDIAN),
    HEAP_LITTLE_ENDIAN(false, ByteOrder.LITTLE_ENDIAN),
    DIRECT_BIG_ENDIAN(true, ByteOrder.BIG_ENDIAN),
    DIRECT_LITTLE_ENDIAN(true, ByteOrder.LITTLE_ENDIAN);

    private final boolean direct;
    private final ByteOrder order;

    BufferKind(boolean direct, ByteOrder order) {
        this.direct = direct;
        this.order = order;
    }

    ByteBuffer allocate(int capacity) {
        return (direct ? ByteBuffer.allocateDirect(capacity) : ByteBuffer.allocate(capacity)).order(order);
    }

    static byte[] bytes(ByteBuffer buf) {
        byte[] out = new byte[buf.capacity()];
        for (int i = 0; i < out.length; i++) {
            out[i] = buf.get(i);
        }
        return out;
    }
}
