package io.rvt.transport.header;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Big-endian reads and writes at absolute indexes, whatever the buffer's byte order: the descriptors must not
 * depend on how a driver configured its buffers, and the wire is network order.
 */
final class Bytes {
    private Bytes() {
    }

    static int u8(ByteBuffer buf, int index) {
        return buf.get(index) & 0xFF;
    }

    static void u8(ByteBuffer buf, int index, int value) {
        buf.put(index, (byte) value);
    }

    static int u16(ByteBuffer buf, int index) {
        short v = buf.getShort(index);
        return (buf.order() == ByteOrder.BIG_ENDIAN ? v : Short.reverseBytes(v)) & 0xFFFF;
    }

    static void u16(ByteBuffer buf, int index, int value) {
        short v = (short) value;
        buf.putShort(index, buf.order() == ByteOrder.BIG_ENDIAN ? v : Short.reverseBytes(v));
    }

    /** Three bytes; read one by one so that a field at the start of a buffer never reads before it. */
    static int u24(ByteBuffer buf, int index) {
        return (u8(buf, index) << 16) | u16(buf, index + 1);
    }

    static void u24(ByteBuffer buf, int index, int value) {
        u8(buf, index, value >>> 16);
        u16(buf, index + 1, value);
    }

    static int i32(ByteBuffer buf, int index) {
        int v = buf.getInt(index);
        return buf.order() == ByteOrder.BIG_ENDIAN ? v : Integer.reverseBytes(v);
    }

    static void i32(ByteBuffer buf, int index, int value) {
        buf.putInt(index, buf.order() == ByteOrder.BIG_ENDIAN ? value : Integer.reverseBytes(value));
    }

    static long i64(ByteBuffer buf, int index) {
        long v = buf.getLong(index);
        return buf.order() == ByteOrder.BIG_ENDIAN ? v : Long.reverseBytes(v);
    }

    static void i64(ByteBuffer buf, int index, long value) {
        buf.putLong(index, buf.order() == ByteOrder.BIG_ENDIAN ? value : Long.reverseBytes(value));
    }

    /** @return the bits of the byte at {@code index} selected by {@code mask}, shifted down by {@code shift} */
    static int bits(ByteBuffer buf, int index, int mask, int shift) {
        return (u8(buf, index) & mask) >>> shift;
    }

    /** Replaces the bits selected by {@code mask} with {@code value << shift}, keeping the others. */
    static void bits(ByteBuffer buf, int index, int mask, int shift, int value) {
        u8(buf, index, (u8(buf, index) & ~mask) | ((value << shift) & mask));
    }
}
