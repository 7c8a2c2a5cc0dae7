package io.rvt.launcher;

import io.rvt.api.Gid;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * perftest's {@code struct pingpong_dest} (perftest_resources.h): what each side tells the other about one QP. Over
 * TCP (perftest_communication.c {@code ethernet_write_keys}) it is the text
 * {@code "%04x:%04x:%06x:%06x:%08x:%016llx:"} of LID, outstanding reads, QPN, PSN, rkey and address, then the GID as
 * 16 {@code "%02x:"} and the SRQ number {@code "%08x:"}: 107 characters and a NUL, 108 bytes whatever the values
 * (a RoCE port always has a GID index, so the format without GID, 59 bytes, is not used here). Over rdma_cm with
 * {@code -R} ({@code rdma_write_keys}) it is the C structure itself with its integers big-endian: 56 bytes (LID, out
 * reads, QPN, PSN, rkey, 4 bytes of padding, address, GID, SRQ number, GID index).
 *
 * @param lid the port's LID (0 on RoCE)
 * @param outReads RDMA READs and atomics the sender's QP takes in flight ({@code -o})
 * @param qpn the QP number
 * @param psn the QP's first send PSN
 * @param rkey the rkey of the region the peer writes, reads and adds to
 * @param vaddr the address in it the peer targets
 * @param gid the sender's GID
 * @param srqn the SRQ number (XRC, DC; 0 here)
 */
record PerftestDest(int lid, int outReads, int qpn, int psn, int rkey, long vaddr, Gid gid, int srqn) {
    /** The text's buffer with its NUL ({@code KEY_MSG_SIZE_GID}). */
    static final int TEXT_SIZE = 108;
    /** {@code sizeof(struct pingpong_dest)} on LP64. */
    static final int BINARY_SIZE = 56;

    /** @return the 108 bytes perftest writes to its socket */
    byte[] toText() {
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "%04x:%04x:%06x:%06x:%08x:%016x:", lid,
                outReads, qpn, psn, rkey, vaddr));
        for (byte b : gid.toBytes()) {
            s.append(String.format(Locale.ROOT, "%02x:", b & 0xFF));
        }
        s.append(String.format(Locale.ROOT, "%08x:", srqn));
        byte[] wire = new byte[TEXT_SIZE];
        byte[] t = s.toString().getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(t, 0, wire, 0, Math.min(t.length, TEXT_SIZE - 1));
        return wire;
    }

    /**
     * @param wire the 108 bytes read from the peer
     * @return its destination
     * @throws IllegalArgumentException quoting the text if it is not perftest's
     */
    static PerftestDest parseText(byte[] wire) {
        int end = 0;
        while (end < wire.length && wire[end] != 0) {
            end++;
        }
        String text = new String(wire, 0, end, StandardCharsets.US_ASCII);
        String[] f = text.split(":", -1);
        // 6 fields, 16 GID bytes, the SRQ number and what follows the last ':'
        if (f.length != 24 || !f[23].isEmpty()) {
            throw new IllegalArgumentException("the peer's QP data '" + text + "' is not perftest's "
                    + "LID:OUT:QPN:PSN:RKEY:VADDR:GID:SRQN");
        }
        try {
            byte[] gid = new byte[16];
            for (int i = 0; i < 16; i++) {
                gid[i] = (byte) Integer.parseInt(f[6 + i], 16);
            }
            return new PerftestDest(Integer.parseInt(f[0], 16), Integer.parseInt(f[1], 16),
                    Integer.parseInt(f[2], 16), Integer.parseInt(f[3], 16), Integer.parseUnsignedInt(f[4], 16),
                    Long.parseUnsignedLong(f[5], 16), Gid.of(gid), Integer.parseUnsignedInt(f[22], 16));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the peer's QP data '" + text + "' is not perftest's "
                    + "LID:OUT:QPN:PSN:RKEY:VADDR:GID:SRQN (" + e.getMessage() + ")", e);
        }
    }

    /**
     * @param gidIndex the sender's GID index
     * @return the 56 bytes perftest sends with {@code -R}
     */
    byte[] toBinary(int gidIndex) {
        ByteBuffer b = ByteBuffer.allocate(BINARY_SIZE).putInt(lid).putInt(outReads).putInt(qpn).putInt(psn)
                .putInt(rkey).putInt(0).putLong(vaddr);
        b.put(gid.toBytes());
        return b.putInt(srqn).putInt(gidIndex).array();
    }

    /**
     * @param b at least 40 bytes of the peer's SEND (perftest reads no further than the GID)
     * @return its destination
     * @throws IllegalArgumentException if it is too short
     */
    static PerftestDest parseBinary(byte[] b) {
        if (b.length < 48) {
            throw new IllegalArgumentException("the peer's QP data is " + b.length + " bytes, not perftest's "
                    + BINARY_SIZE);
        }
        ByteBuffer buf = ByteBuffer.wrap(b);
        int lid = buf.getInt();
        int out = buf.getInt();
        int qpn = buf.getInt();
        int psn = buf.getInt();
        int rkey = buf.getInt();
        buf.getInt();
        long vaddr = buf.getLong();
        byte[] gid = new byte[16];
        buf.get(gid);
        int srqn = buf.remaining() >= 4 ? buf.getInt() : 0;
        return new PerftestDest(lid, out, qpn, psn, rkey, vaddr, Gid.of(gid), srqn);
    }

    /**
     * @param side "local" or "remote"
     * @param rdma whether the test is RDMA (its rkey and address are printed), {@code read} also the outstanding
     *        reads
     * @param read READ and atomics
     * @return perftest's lines for it ({@code ctx_print_pingpong_data}): {@code  local address: LID 0000 QPN 0x0011
     *         PSN 0x123456 RKey ... VAddr ...} and the GID as 16 decimal bytes ({@code MGID:} for a multicast
     *         group's, as perftest's with {@code -g})
     */
    String describe(String side, boolean rdma, boolean read) {
        StringBuilder s = new StringBuilder(" ").append(side).append(" address: LID ").append(alt(lid, 4))
                .append(" QPN ").append(alt(qpn, 6)).append(" PSN ").append(alt(psn, 6));
        if (read) {
            s.append(" OUT ").append(alt(outReads, 4));
        }
        if (rdma || read) {
            s.append(" RKey ").append(alt(rkey & 0xFFFF_FFFFL, 8)).append(" VAddr ").append(alt(vaddr, 16));
        }
        // perftest's gidArray: a multicast group's GID is printed as the MGID
        s.append(System.lineSeparator()).append(gid.isMulticast() ? " MGID:" : " GID:");
        byte[] g = gid.toBytes();
        for (int i = 0; i < 16; i++) {
            s.append(i == 0 ? " " : ":").append(String.format(Locale.ROOT, "%02d", g[i] & 0xFF));
        }
        return s.toString();
    }

    /** @return C's {@code %#0Nx}: 0x and zero-padded hex to N characters in all, but zero as N zeros */
    private static String alt(long v, int width) {
        if (v == 0) {
            return "0".repeat(width);
        }
        String h = Long.toHexString(v);
        return "0x" + "0".repeat(Math.max(0, width - 2 - h.length())) + h;
    }
}
