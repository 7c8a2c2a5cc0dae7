package io.rvt.launcher;

import io.rvt.api.AhAttr;
import io.rvt.api.Gid;

/**
 * perftest's multicast SENDs ({@code -g}, {@code --mcg}; {@code -M}, {@code --MGID}; multicast_resources.c
 * {@code set_multicast_gid}, send_bw.c and send_lat.c {@code send_set_up_connection}): over UD, the receiving side's
 * QP is attached to a multicast group ({@code ibv_attach_mcast}) and tells the peer the group's MGID and MLID, with QP
 * number {@link #QPNUM_MCAST}, in place of its own GID, LID and QPN; the sending side addresses its SENDs to the group
 * (a GRH to the MGID, the LRH to the MLID), so that the fabric delivers them to every QP attached. In a bandwidth test
 * the server's QP is attached and the client sends; in a latency test each side attaches its QP to its own group
 * and sends to the other's. The groups are perftest's {@code MCG_GID}, {@code ff01:0:2:c985::}, for the server and
 * the same with its last byte 1 for the client, or both the one {@code -M} names.
 *
 * <p>rvt has no subnet administrator to join a group at (perftest's {@code join_multicast_group}, an SA MAD on IB;
 * on RoCE it joins nothing either): the MLID is {@link #mlid(Gid) derived from the MGID}, so both sides of one group
 * agree on it without one.
 *
 * @param userMgid the group {@code -M} names, or null for perftest's defaults
 */
record PerftestMcast(Gid userMgid) {
    /** perftest's {@code QPNUM_MCAST}: the QPN a multicast receiver advertises and a multicast packet carries. */
    static final int QPNUM_MCAST = 0xFFFFFF;
    /** perftest's {@code MCG_GID}: {@code {255,1,0,0,0,2,201,133,0,...,0}}. */
    static final Gid MCG_GID = Gid.of(0xFF01_0000_0002_C985L, 0);
    /** The first multicast LID ({@code IB_MULTICAST_LID_BASE}). */
    static final int MULTICAST_LID_BASE = 0xC000;

    /**
     * perftest's {@code set_multicast_gid}.
     *
     * @param client the client's group (else the server's)
     * @return the group of that side's QP: {@code -M}'s for both, else {@link #MCG_GID}, its last byte plus one for
     *         the client
     */
    Gid group(boolean client) {
        if (userMgid != null) {
            return userMgid;
        }
        return client ? Gid.of(MCG_GID.subnetPrefix(), MCG_GID.interfaceId() + 1) : MCG_GID;
    }

    /**
     * The group's LID, as rvt has no subnet administrator to assign one: {@link #MULTICAST_LID_BASE} plus the MGID's
     * low 13 bits (perftest's server and client groups: {@code 0xc000} and {@code 0xc001}).
     *
     * @param mgid a multicast GID
     * @return its LID, {@code 0xc000} to {@code 0xdfff}
     */
    static int mlid(Gid mgid) {
        return MULTICAST_LID_BASE | (int) (mgid.interfaceId() & 0x1FFF);
    }

    /**
     * The address of a group as perftest's sender makes it ({@code ctx_modify_qp_to_rtr} with {@code -g}, which sets
     * GID index 0): a GRH to the MGID, the LRH to the MLID.
     *
     * @param mgid the group
     * @param mlid its LID; 0 (a RoCE peer's, which has no LIDs) for {@link #mlid(Gid)}
     * @param port this side's port
     * @param sgidIndex this side's GID index ({@code -x}), 0 if none
     * @return the address vector
     */
    static AhAttr address(Gid mgid, int mlid, int port, int sgidIndex) {
        return new AhAttr().dlid(mlid != 0 ? mlid : mlid(mgid)).sl(0).srcPathBits(0).portNum(port).global(true)
                .hopLimit(RemotePerf.HOP_LIMIT).dgid(mgid).sgidIndex(Math.max(0, sgidIndex));
    }

    /**
     * Reads {@code -M}'s value as perftest does: 16 byte values separated by colons, each decimal or {@code 0x} hex
     * (C's {@code strtoll} with base 0), e.g. {@code 255:1:0:0:0:2:201:133:0:0:0:0:0:0:0:7}; rvt also takes the
     * IPv6 form of {@code rvt devices}' GIDs ({@code ff01:0000:0002:c985:0000:0000:0000:0007}).
     *
     * @param v the value
     * @return the group
     * @throws UsageException naming the value if it is not a multicast GID
     */
    static Gid parse(String v) {
        String[] f = v.split(":", -1);
        byte[] raw = new byte[16];
        try {
            if (f.length == 16) {
                for (int i = 0; i < 16; i++) {
                    String b = f[i].trim();
                    int x = b.startsWith("0x") || b.startsWith("0X") ? Integer.parseInt(b.substring(2), 16)
                            : Integer.parseInt(b);
                    if (x < 0 || x > 255) {
                        throw new NumberFormatException(b);
                    }
                    raw[i] = (byte) x;
                }
            } else if (f.length == 8) {
                for (int i = 0; i < 8; i++) {
                    int x = Integer.parseInt(f[i], 16);
                    if (x < 0 || x > 0xFFFF || f[i].length() > 4) {
                        throw new NumberFormatException(f[i]);
                    }
                    raw[2 * i] = (byte) (x >>> 8);
                    raw[2 * i + 1] = (byte) x;
                }
            } else {
                throw new NumberFormatException(v);
            }
        } catch (NumberFormatException e) {
            throw new UsageException("option --MGID: '" + v + "' is not a GID (perftest's 16 bytes separated by "
                    + "colons, e.g. 255:1:0:0:0:2:201:133:0:0:0:0:0:0:0:0, or 8 groups of hex digits)");
        }
        Gid g = Gid.of(raw);
        if (!g.isMulticast()) {
            throw new UsageException("option --MGID: '" + v + "' is not a multicast GID (its first byte is "
                    + (raw[0] & 0xFF) + ", not 255)");
        }
        return g;
    }
}
