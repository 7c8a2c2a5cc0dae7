package io.rvt.it.interop;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * One entry of the guest's rxe0 port 1 GID table, as sysfs shows it ({@code ports/1/gids/N},
 * {@code ports/1/gid_attrs/types/N}).
 *
 * @param index the GID index ({@code -g}/{@code -x} of the rdma-core and perftest tools, {@code sgid_index})
 * @param address the GID as an address: an {@link java.net.Inet4Address} for an IPv4-mapped GID
 *        ({@code ::ffff:a.b.c.d}), else an {@link java.net.Inet6Address}
 * @param type the GID type, e.g. {@code RoCE v2} or {@code IB/RoCE v1}
 */
public record GuestGid(int index, InetAddress address, String type) {
    /** @return true for a RoCE v2 GID (RoCEv2 over UDP 4791, what rvt's driver-jni speaks) */
    public boolean isRoceV2() {
        return type.equals("RoCE v2");
    }

    /**
     * Parses a line {@code INDEX GID TYPE...} as LinuxPeer's sysfs reader prints it.
     *
     * @param line e.g. {@code 1 0000:0000:0000:0000:0000:ffff:c000:0202 RoCE v2}
     * @return the entry
     * @throws IllegalArgumentException naming the line if it is not one
     */
    static GuestGid parse(String line) {
        String[] f = line.trim().split("\\s+", 3);
        if (f.length < 3 || !f[1].matches("[0-9a-f]{4}(:[0-9a-f]{4}){7}")) {
            throw new IllegalArgumentException("not a GID table line: '" + line + "'");
        }
        try {
            return new GuestGid(Integer.parseInt(f[0]), InetAddress.getByName(f[1]), f[2]);
        } catch (UnknownHostException | NumberFormatException e) {
            throw new IllegalArgumentException("not a GID table line: '" + line + "'", e);
        }
    }
}
