package io.rvt.driver.jni;

import io.rvt.api.Gid;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * A RoCEv2 destination: an IP address (from a GID: IPv4-mapped GIDs {@code ::ffff:a.b.c.d} are IPv4, every other GID
 * is the IPv6 address with the same 16 bytes) and a UDP port. Immutable; made once per destination and cached, so
 * that resolving an address handle on the send path allocates nothing.
 */
final class Peer {
    final Gid gid;
    final boolean ipv6;
    /** IPv4 address, big-endian int (IPv4 peers). */
    final int v4;
    /** First and last 8 bytes of the IPv6 address (IPv6 peers; for IPv4 the mapped form). */
    final long hi;
    final long lo;
    final int port;
    /** An IPv6 link-local address ({@code fe80::/10}): sent with the sending port's interface as its scope. */
    final boolean linkLocal;
    /** The address for the JDK layer (without a scope; {@link JdkDatagrams} adds its own to link-local ones). */
    final InetSocketAddress socketAddress;

    Peer(Gid gid, int port) {
        this.gid = gid;
        this.ipv6 = !isIpv4Mapped(gid);
        this.hi = gid.subnetPrefix();
        this.lo = gid.interfaceId();
        this.v4 = (int) lo;
        this.port = port;
        this.linkLocal = ipv6 && (hi >>> 54) == (0xFE80L >>> 6);
        this.socketAddress = new InetSocketAddress(toInetAddress(gid), port);
    }

    /**
     * @param gid a GID
     * @return true if it is an IPv4-mapped IPv6 address ({@code ::ffff:a.b.c.d})
     */
    static boolean isIpv4Mapped(Gid gid) {
        return gid.subnetPrefix() == 0 && (gid.interfaceId() >>> 32) == 0xFFFFL;
    }

    /**
     * @param address an IPv4 or IPv6 address
     * @return its GID: IPv4-mapped for IPv4
     */
    static Gid gidOf(InetAddress address) {
        if (address instanceof Inet4Address) {
            byte[] b = address.getAddress();
            return Gid.ipv4Mapped((b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF));
        }
        return Gid.of(address.getAddress());
    }

    /**
     * @param gid a GID
     * @return the IP address it stands for
     */
    static InetAddress toInetAddress(Gid gid) {
        try {
            byte[] raw = gid.toBytes();
            if (isIpv4Mapped(gid)) {
                return InetAddress.getByAddress(new byte[] {raw[12], raw[13], raw[14], raw[15]});
            }
            return Inet6Address.getByAddress(null, raw, null);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("16 bytes are always an address", e);
        }
    }

    /**
     * @param address an address
     * @param port a port
     * @return {@code a.b.c.d:port} or {@code [v6]:port}
     */
    static String format(InetAddress address, int port) {
        String host = address.getHostAddress();
        return (address instanceof Inet6Address ? "[" + host + "]" : host) + ":" + port;
    }

    @Override
    public String toString() {
        return format(socketAddress.getAddress(), port);
    }

    /** The IPv4 group address of an MGID: the address of an IPv4-mapped one, else 239.x.y.z from its low 24 bits. */
    static int groupV4(Gid mgid) {
        return isIpv4Mapped(mgid) ? (int) mgid.interfaceId()
                : 0xEF00_0000 | (int) (mgid.interfaceId() & 0xFF_FFFF);
    }
}
