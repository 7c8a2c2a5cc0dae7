package io.rvt.launcher;

import java.nio.ByteBuffer;

/**
 * The payload ping-pong sends: every byte depends on a per-message stamp and its position, so a lost, stale,
 * shifted or corrupted byte anywhere in the message is caught. Filling and checking go eight bytes at a time and
 * allocate nothing.
 */
final class DataPattern {
    private DataPattern() {
    }

    /**
     * Fills {@code len} bytes of {@code buf} from {@code off} with the pattern of {@code stamp}.
     *
     * @param buf the buffer
     * @param off the first byte
     * @param len how many bytes
     * @param stamp identifies the message
     */
    static void fill(ByteBuffer buf, int off, int len, long stamp) {
        int words = len >>> 3;
        for (int i = 0; i < words; i++) {
            buf.putLong(off + (i << 3), word(stamp, i));
        }
        for (int i = words << 3; i < len; i++) {
            buf.put(off + i, expected(stamp, i));
        }
    }

    /**
     * Checks that {@code len} bytes of {@code buf} from {@code off} hold the pattern of {@code stamp}.
     *
     * @param buf the buffer
     * @param off the first byte
     * @param len how many bytes
     * @param stamp the message's stamp
     * @return -1 if all match, else the index (from {@code off}) of the first byte that differs
     */
    static int firstMismatch(ByteBuffer buf, int off, int len, long stamp) {
        int words = len >>> 3;
        for (int i = 0; i < words; i++) {
            if (buf.getLong(off + (i << 3)) != word(stamp, i)) {
                for (int b = i << 3; b < (i << 3) + 8; b++) {
                    if (buf.get(off + b) != expected(stamp, b)) {
                        return b;
                    }
                }
            }
        }
        for (int b = words << 3; b < len; b++) {
            if (buf.get(off + b) != expected(stamp, b)) {
                return b;
            }
        }
        return -1;
    }

    /**
     * @param a a stamp
     * @param b another
     * @param len a message's length
     * @return true if the two stamps' patterns differ somewhere in the first {@code len} bytes, so that a received
     *         message tells which of the two it carries
     */
    static boolean distinguishable(long a, long b, int len) {
        for (int i = 0; i < len; i++) {
            if (expected(a, i) != expected(b, i)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param stamp the message's stamp
     * @param index a byte's index in the message
     * @return the byte the pattern puts there
     */
    static byte expected(long stamp, int index) {
        // putLong is big-endian: byte 0 of a word is its most significant byte
        return (byte) (word(stamp, index >>> 3) >>> ((7 - (index & 7)) << 3));
    }

    private static long word(long stamp, int index) {
        long z = stamp * 0x9E3779B97F4A7C15L + index * 0xC2B2AE3D27D4EB4FL;
        z = (z ^ (z >>> 31)) * 0xBF58476D1CE4E5B9L;
        return z ^ (z >>> 29);
    }
}
