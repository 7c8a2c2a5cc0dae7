package io.rvt.launcher;

import io.rvt.api.Device;
import io.rvt.api.PathMtu;
import io.rvt.api.PortAttr;

/**
 * Which port of a device a test runs on and how it addresses its peer: perftest's and ibv_rc_pingpong's {@code -i}
 * (port), {@code -m} (path MTU) and {@code -x} (GID index: a global address, a GRH, from that source GID).
 *
 * @param port the port number, from 1
 * @param mtu the path MTU in bytes, or 0 for the port's active MTU
 * @param gidIndex the source GID index of a global address, or -1 for the default (a LID where the port has one,
 *                 else GID 0)
 */
record LinkOptions(int port, int mtu, int gidIndex) {
    /** Port 1, its active MTU, LIDs where there are any. */
    static final LinkOptions DEFAULT = new LinkOptions(1, 0, -1);

    /**
     * Checks that the device has the port and the GID index.
     *
     * @param device a device the test runs on
     * @throws UsageException naming the option, the value and the device
     */
    void check(Device device) {
        int ports = device.portCount();
        if (port > ports) {
            throw new UsageException("option --ib-port: " + device.name() + " has no port " + port + " (it has "
                    + ports + ")");
        }
        int gids = device.queryPort(port, new PortAttr()).gidTblLen();
        if (gidIndex >= gids) {
            throw new UsageException("option --gid-index: " + device.name() + " port " + port + " has no GID "
                    + gidIndex + " (its table holds " + gids + ")");
        }
    }

    /**
     * @param device a device
     * @return the path MTU on it: {@link #mtu} if given and not above the port's active MTU, else the active MTU
     */
    PathMtu pathMtu(Device device) {
        PathMtu active = device.queryPort(port, new PortAttr()).activeMtu();
        return mtu > 0 && mtu < active.bytes() ? PathMtu.ofBytes(mtu) : active;
    }
}
