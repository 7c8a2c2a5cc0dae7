package io.rvt.launcher.pingpong;

import io.rvt.api.Gid;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The examples' {@code struct pingpong_dest} as they exchange it over TCP ({@code pp_client_exch_dest},
 * {@code pp_server_exch_dest}): the text {@code "%04x:%06x:%06x:%s"} of LID, QPN, PSN and the GID as 32 hex digits in
 * memory order ({@code gid_to_wire_gid}), sent as a fixed 52-byte buffer with its NUL.
 *
 * @param lid the port's LID (0 on RoCE)
 * @param qpn the QP number
 * @param psn the QP's send PSN (its peer's receive PSN)
 * @param gid the port GID of the sender's {@code -g} index, or zero without one
 */
public record PingpongDest(int lid, int qpn, int psn, Gid gid) {
    /** The buffer's size: the longest text and its NUL. */
    public static final int WIRE_SIZE = "0000:000000:000000:00000000000000000000000000000000".length() + 1;
    /** What the client sends after the server's answer, with its NUL. */
    static final byte[] DONE = "done\0".getBytes(StandardCharsets.US_ASCII);
    private static final Pattern TEXT = Pattern.compile(
            "([0-9a-fA-F]{1,4}):([0-9a-fA-F]{1,6}):([0-9a-fA-F]{1,6}):([0-9a-fA-F]{32})");

    /** @return the 52 bytes on the wire */
    public byte[] toWire() {
        String text = String.format(Locale.ROOT, "%04x:%06x:%06x:%s", lid, qpn, psn,
                HexFormat.of().formatHex(gid.toBytes()));
        byte[] wire = new byte[WIRE_SIZE];
        byte[] t = text.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(t, 0, wire, 0, Math.min(t.length, WIRE_SIZE - 1));
        return wire;
    }

    /**
     * @param wire the 52 bytes received
     * @return the peer's destination
     * @throws IllegalArgumentException quoting the text if it is not the examples' format
     */
    public static PingpongDest parse(byte[] wire) {
        int end = 0;
        while (end < wire.length && wire[end] != 0) {
            end++;
        }
        String text = new String(wire, 0, end, StandardCharsets.US_ASCII);
        Matcher m = TEXT.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("the peer's address '" + text + "' is not the examples' "
                    + "LID:QPN:PSN:GID");
        }
        return new PingpongDest(Integer.parseInt(m.group(1), 16), Integer.parseInt(m.group(2), 16),
                Integer.parseInt(m.group(3), 16), Gid.of(HexFormat.of().parseHex(m.group(4))));
    }

    /** @return as the examples print it: {@code LID 0x0000, QPN 0x000011, PSN 0x123456, GID ::ffff:192.0.2.1} */
    public String describe() {
        return describe(", ");
    }

    /**
     * @param beforeGid what separates the PSN and the GID: {@code ", "}, or ibv_ud_pingpong's {@code ": "} in its
     *        local address line
     * @return as the examples print it
     */
    public String describe(String beforeGid) {
        return String.format(Locale.ROOT, "LID 0x%04x, QPN 0x%06x, PSN 0x%06x%sGID %s", lid, qpn, psn, beforeGid,
                ntop(gid));
    }

    /**
     * @param gid a GID
     * @return it as the examples print it, glibc's {@code inet_ntop(AF_INET6)}: the longest run of two or more zero
     *         groups as {@code ::}, hex groups without leading zeros, and an IPv4-mapped ({@code ::ffff:a.b.c.d}) or
     *         IPv4-compatible ({@code ::a.b.c.d}) address with its last 32 bits dotted
     */
    public static String ntop(Gid gid) {
        byte[] b = gid.toBytes();
        int[] w = new int[8];
        for (int i = 0; i < 8; i++) {
            w[i] = (b[2 * i] & 0xFF) << 8 | b[2 * i + 1] & 0xFF;
        }
        int bestBase = -1;
        int bestLen = 0;
        for (int i = 0; i < 8;) {
            if (w[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && w[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestBase = i;
                bestLen = j - i;
            }
            i = j;
        }
        if (bestLen < 2) {
            bestBase = -1;
        }
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestBase) {
                s.append(':');
                i += bestLen - 1;
                if (i == 7) {
                    s.append(':');
                }
                continue;
            }
            if (i > 0) {
                s.append(':');
            }
            if (i == 6 && bestBase == 0 && (bestLen == 6 || bestLen == 5 && w[5] == 0xffff)) {
                s.append(b[12] & 0xFF).append('.').append(b[13] & 0xFF).append('.').append(b[14] & 0xFF).append('.')
                        .append(b[15] & 0xFF);
                break;
            }
            s.append(Integer.toHexString(w[i]));
        }
        return s.toString();
    }
}
