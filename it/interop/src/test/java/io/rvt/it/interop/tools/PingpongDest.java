package io.rvt.it.interop.tools;

import io.rvt.api.Gid;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The ibv_*_pingpong examples' {@code struct pingpong_dest} as they exchange it over TCP
 * (libibverbs/examples/rc_pingpong.c, {@code pp_client_exch_dest}/{@code pp_server_exch_dest}): the text
 * {@code "%04x:%06x:%06x:%s"} of LID, QPN, PSN and the GID as 32 hex digits in memory order
 * ({@code gid_to_wire_gid}), sent as a fixed 52-byte buffer, {@code sizeof "0000:000000:000000:" + 32 digits},
 * with its NUL.
 *
 * @param lid the port's LID (0 on RoCE)
 * @param qpn the QP number
 * @param psn the QP's send PSN (its peer's receive PSN)
 * @param gid the port GID of the tool's {@code -g} index, or zero without one
 */
record PingpongDest(int lid, int qpn, int psn, Gid gid) {
    /** The buffer's size: the longest text and its NUL. */
    static final int WIRE_SIZE = "0000:000000:000000:00000000000000000000000000000000".length() + 1;
    /** What the client sends after the server's answer, with its NUL. */
    static final byte[] DONE = "done\0".getBytes(StandardCharsets.US_ASCII);
    private static final Pattern TEXT = Pattern.compile("([0-9a-fA-F]+):([0-9a-fA-F]+):([0-9a-fA-F]+):([0-9a-fA-F]{32})");

    /** @return the 52 bytes on the wire */
    byte[] toWire() {
        String text = String.format("%04x:%06x:%06x:%s", lid, qpn, psn, HexFormat.of().formatHex(gid.toBytes()));
        byte[] wire = new byte[WIRE_SIZE];
        byte[] t = text.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(t, 0, wire, 0, Math.min(t.length, WIRE_SIZE - 1));
        return wire;
    }

    /**
     * @param wire the 52 bytes received
     * @return the peer's destination
     * @throws ToolFailure quoting the text if it is not the examples' format
     */
    static PingpongDest parse(byte[] wire) throws ToolFailure {
        int end = 0;
        while (end < wire.length && wire[end] != 0) {
            end++;
        }
        String text = new String(wire, 0, end, StandardCharsets.US_ASCII);
        Matcher m = TEXT.matcher(text);
        if (!m.matches()) {
            throw new ToolFailure("the peer's address '" + text + "' is not LID:QPN:PSN:GID");
        }
        return new PingpongDest(Integer.parseInt(m.group(1), 16), Integer.parseInt(m.group(2), 16),
                Integer.parseInt(m.group(3), 16), Gid.of(HexFormat.of().parseHex(m.group(4))));
    }

    /** @return as the examples print it: {@code LID 0x0000, QPN 0x000011, PSN 0x123456, GID ::ffff:192.0.2.1} */
    String describe() {
        return String.format("LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s", lid, qpn, psn, gid);
    }
}
