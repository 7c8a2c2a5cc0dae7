package io.rvt.it.interop.tools;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * What rping puts on the wire besides its RDMA data: {@code struct rping_rdma_info} (librdmacm/examples/rping.c),
 * the 16-byte buffer advertisement the client SENDs, {@code __be64 buf; __be32 rkey; __be32 size;}; and the ping
 * data the client fills its source buffer with for ping {@code n}: the text {@code "rdma-ping-<n>: "}, then the
 * characters 'A'..'z' (65..122) in a cycle that starts at {@code 65 + n % 58}, and a NUL as the last byte (the
 * server writes back {@code strlen + 1} bytes, so the data holds no other NUL).
 */
final class RpingData {
    /** The size of {@code struct rping_rdma_info}. */
    static final int INFO_SIZE = 16;
    /** rping's smallest {@code -S}: {@code sizeof("2147483647") + sizeof("rdma-ping-%d: ")}. */
    static final int MIN_SIZE = 11 + 15;
    /** rping's largest {@code -S} ({@code RPING_BUFSIZE - 1}). */
    static final int MAX_SIZE = 64 * 1024 - 1;

    private RpingData() {
    }

    /**
     * Writes an advertisement.
     *
     * @param buf the send buffer
     * @param addr the advertised buffer's address
     * @param rkey its rkey
     * @param size its size
     */
    static void putInfo(ByteBuffer buf, long addr, int rkey, int size) {
        ByteBuffer be = bigEndian(buf);
        be.putLong(0, addr);
        be.putInt(8, rkey);
        be.putInt(12, size);
    }

    /**
     * @param buf a received advertisement
     * @return its address
     */
    static long addr(ByteBuffer buf) {
        return bigEndian(buf).getLong(0);
    }

    /**
     * @param buf a received advertisement
     * @return its rkey
     */
    static int rkey(ByteBuffer buf) {
        return bigEndian(buf).getInt(8);
    }

    /**
     * @param buf a received advertisement
     * @return its size
     */
    static int size(ByteBuffer buf) {
        return bigEndian(buf).getInt(12);
    }

    /** A region's buffer may be in native order (rvt's are little-endian here): the struct is big-endian. */
    private static ByteBuffer bigEndian(ByteBuffer buf) {
        return buf.duplicate().order(ByteOrder.BIG_ENDIAN);
    }

    /**
     * Fills a buffer with ping {@code ping}'s data, as rping's client does.
     *
     * @param buf the buffer
     * @param size the ping size ({@code -S})
     * @param ping the ping's number, from 0
     */
    static void fillPing(ByteBuffer buf, int size, int ping) {
        byte[] head = ("rdma-ping-" + ping + ": ").getBytes(StandardCharsets.US_ASCII);
        int n = Math.min(head.length, size - 1);
        for (int i = 0; i < n; i++) {
            buf.put(i, head[i]);
        }
        int c = 65 + ping % 58;
        for (int i = head.length; i < size; i++) {
            buf.put(i, (byte) c);
            c = c == 122 ? 65 : c + 1;
        }
        buf.put(size - 1, (byte) 0);
    }

    /**
     * @param size a ping size
     * @param ping a ping's number
     * @return a buffer holding exactly that ping's data
     */
    static ByteBuffer ping(int size, int ping) {
        ByteBuffer b = ByteBuffer.allocate(size);
        fillPing(b, size, ping);
        return b;
    }
}
