package io.rvt.driver.jni;

import io.rvt.api.PathMtu;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Enumeration;

/**
 * A port's active MTU from the network interface that holds its address, as a RoCE NIC reports it (ib_core's
 * {@code iboe_get_mtu}, which mlx5 and rdma_cm's RoCE path records use; Linux rxe's {@code rxe_set_mtu} is the same
 * with 80 bytes of headers instead of 96): the interface's MTU less the worst case of the headers around a RoCEv2
 * payload, rounded down to an IBTA MTU, and never above the MTU the port was built with (its max MTU, which sizes
 * its receive slots). A 1500-byte Ethernet gives 1024, 9000 and loopback's 65536 give 4096.
 *
 * <p>The interface: the one a link-local IPv6 address names ({@code fe80::1%eth0}), else the one that holds the
 * address, else the one whose subnet holds it, the longest prefix winning ({@code 127.0.0.2} is bound through
 * {@code lo}'s {@code 127.0.0.1/8}). A port bound to an address no interface holds or covers reports the MTU it was
 * built with. The interface's MTU is read again on every {@link #active()} (a {@code SIOCGIFMTU} ioctl), so a change
 * ({@code ip link set dev eth0 mtu 9000}) shows at the next port query, as a RoCE NIC reports a new active MTU on its
 * netdev's event; an interface renamed or re-created is looked up again, and while none holds the address the last
 * MTU read stands.
 */
final class LinkMtu {
    /**
     * The bytes of an interface MTU a RoCEv2 packet's payload may not use, as {@code iboe_get_mtu} counts them: an
     * IPv6 header (40, the GRH's place), UDP (8), BTH (12), XRCETH (4), AtomicETH (28) and ICRC (4). rvt's largest
     * headers before a payload (BTH, RETH, ImmDt: 32), its pad (at most 3) and ICRC fit in it over IPv6 and IPv4.
     */
    static final int ROCE_HEADROOM = 40 + 8 + 12 + 4 + 28 + 4;

    private final InetAddress address;
    private final PathMtu max;
    /** The interface found, or null. */
    private volatile NetworkInterface nif;
    /** The interface's MTU at the last reading, 0 if never read. */
    private volatile int lastLinkMtu;

    /**
     * @param address the port's bound address (a link-local IPv6 address with its scope)
     * @param max the MTU the port was built with: the active MTU's ceiling
     */
    LinkMtu(InetAddress address, PathMtu max) {
        this.address = address;
        this.max = max;
        this.nif = find(address);
        linkMtu();
    }

    /**
     * The IBTA MTU of a link, as {@code iboe_get_mtu} derives it: the largest of 256..4096 that fits in
     * {@code linkMtu - }{@value #ROCE_HEADROOM}; 256 for a link too small for that (as {@code rxe_set_mtu} does).
     *
     * @param linkMtu an interface's MTU in bytes
     * @return the path MTU a port on that link supports
     */
    static PathMtu ofLink(int linkMtu) {
        int room = linkMtu - ROCE_HEADROOM;
        for (int v = PathMtu.MTU_4096.value(); v > PathMtu.MTU_256.value(); v--) {
            if (room >= PathMtu.of(v).bytes()) {
                return PathMtu.of(v);
            }
        }
        return PathMtu.MTU_256;
    }

    /** @return the port's active MTU now: its interface's, at most the port's max MTU */
    PathMtu active() {
        int link = linkMtu();
        if (link <= 0) {
            return max;
        }
        PathMtu m = ofLink(link);
        return m.value() < max.value() ? m : max;
    }

    /** @return the interface's MTU, read now (the interface looked up again if it is gone), or 0 if none is known */
    int linkMtu() {
        int v = read(nif);
        if (v <= 0) {
            NetworkInterface again = find(address);
            if (again != null) {
                nif = again;
                v = read(again);
            }
        }
        if (v > 0) {
            lastLinkMtu = v;
            return v;
        }
        return lastLinkMtu;
    }

    /** @return the interface's name, or null if no interface holds or covers the address */
    String interfaceName() {
        NetworkInterface n = nif;
        return n == null ? null : n.getName();
    }

    private static int read(NetworkInterface n) {
        if (n == null) {
            return 0;
        }
        try {
            return n.getMTU();
        } catch (SocketException e) {
            return 0; // gone or renamed: looked up again
        }
    }

    /** The interface a link-local address names, else the one holding the address, else the longest subnet. */
    private static NetworkInterface find(InetAddress address) {
        try {
            if (address instanceof Inet6Address a6 && a6.getScopeId() != 0) {
                NetworkInterface scoped = a6.getScopedInterface();
                return scoped != null ? scoped : NetworkInterface.getByIndex(a6.getScopeId());
            }
            NetworkInterface holder = NetworkInterface.getByInetAddress(address);
            if (holder != null) {
                return holder;
            }
            NetworkInterface best = null;
            int bestPrefix = -1;
            for (Enumeration<NetworkInterface> all = NetworkInterface.getNetworkInterfaces(); all.hasMoreElements();) {
                NetworkInterface n = all.nextElement();
                for (InterfaceAddress ia : n.getInterfaceAddresses()) {
                    int prefix = ia.getNetworkPrefixLength();
                    if (prefix > bestPrefix && inSubnet(address, ia.getAddress(), prefix)) {
                        best = n;
                        bestPrefix = prefix;
                    }
                }
            }
            return best;
        } catch (SocketException e) {
            return null;
        }
    }

    /** @return whether {@code a} lies in {@code net}'s subnet of {@code prefix} bits (same family) */
    static boolean inSubnet(InetAddress a, InetAddress net, int prefix) {
        byte[] x = a.getAddress();
        byte[] y = net == null ? new byte[0] : net.getAddress();
        if (x.length != y.length || prefix < 0 || prefix > x.length * 8) {
            return false;
        }
        for (int bit = 0; bit < prefix; bit++) {
            int mask = 0x80 >>> (bit & 7);
            if ((x[bit >>> 3] & mask) != (y[bit >>> 3] & mask)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        String n = interfaceName();
        return n == null ? "no interface holds " + address.getHostAddress() + ": active MTU " + max.bytes()
                : n + " MTU " + lastLinkMtu + ": active MTU " + active().bytes();
    }
}
