package io.rvt.it.interop.tools;

import java.nio.ByteBuffer;

/** Byte checks shared by the tools: a region holds what it should, or the failure names the first wrong byte. */
final class Messages {
    /** What a receive buffer is filled with before it is posted, so that a byte the peer never wrote shows. */
    static final byte SCRIBBLE = (byte) 0xA5;

    private Messages() {
    }

    /**
     * @param buf a buffer
     * @param off where the region starts
     * @param len its length
     * @param value the byte to fill it with
     */
    static void fill(ByteBuffer buf, int off, int len, byte value) {
        for (int i = 0; i < len; i++) {
            buf.put(off + i, value);
        }
    }

    /**
     * @param what the message, for the failure
     * @param got the buffer that received it
     * @param gotOff where it starts there
     * @param want the bytes it must hold
     * @param wantOff where they start
     * @param len how many
     * @throws ToolFailure naming the first wrong byte's offset and both values
     */
    static void check(String what, ByteBuffer got, int gotOff, ByteBuffer want, int wantOff, int len)
            throws ToolFailure {
        int at = got.slice(gotOff, len).mismatch(want.slice(wantOff, len));
        if (at >= 0) {
            throw new ToolFailure(what + ": byte " + at + " of " + len + " is 0x"
                    + Integer.toHexString(got.get(gotOff + at) & 0xFF) + ", expected 0x"
                    + Integer.toHexString(want.get(wantOff + at) & 0xFF));
        }
    }

    /**
     * @param what the message, for the failure
     * @param got the buffer that received it
     * @param off where it starts
     * @param len its length
     * @param value the byte every one must be
     * @throws ToolFailure naming the first wrong byte
     */
    static void checkAll(String what, ByteBuffer got, int off, int len, byte value) throws ToolFailure {
        for (int i = 0; i < len; i++) {
            if (got.get(off + i) != value) {
                throw new ToolFailure(what + ": byte " + i + " of " + len + " is 0x"
                        + Integer.toHexString(got.get(off + i) & 0xFF) + ", expected 0x"
                        + Integer.toHexString(value & 0xFF));
            }
        }
    }

    /**
     * @param what the completion, for the failure
     * @param got its byte count
     * @param want the message's size
     * @throws ToolFailure if they differ
     */
    static void checkLength(String what, int got, int want) throws ToolFailure {
        if (got != want) {
            throw new ToolFailure(what + ": " + got + " bytes, expected " + want);
        }
    }
}
