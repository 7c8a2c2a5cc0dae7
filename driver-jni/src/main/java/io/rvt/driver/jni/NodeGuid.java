package io.rvt.driver.jni;

import java.net.InetAddress;
import java.util.List;

/** A {@link JniDriver}'s node GUID ({@code ibv_devinfo}'s {@code node_guid}, the CM's local CA GUID). */
final class NodeGuid {
    /** The node GUID's top 20 bits; the hash of what identifies the HCA fills the rest. */
    private static final long PREFIX = 0x0052_5000_0000_0000L;

    private NodeGuid() {
    }

    /**
     * The node GUID, from what identifies the HCA: its name and each port's address and bound UDP port (the
     * ephemeral one where 0 was asked). The same configuration gives the same GUID in every run, also again within
     * one JVM (tests, bundle restarts); two HCAs that coexist on one host differ in an address or a port, so in the
     * GUID (a 40-bit hash: a collision is a chance of about one in 10^12 per pair). Port n's GUID is not this one +
     * n: a RoCEv2 port's GID is its IP address.
     */
    static long of(String name, List<InetAddress> addresses, PortEngine[] ports) {
        long h = 0xCBF2_9CE4_8422_2325L; // FNV-1a over the name, the addresses' bytes and the bound ports
        for (int i = 0; i < name.length(); i++) {
            h = (h ^ name.charAt(i)) * 0x0100_0000_01B3L;
        }
        for (int i = 0; i < ports.length; i++) {
            for (byte x : addresses.get(i).getAddress()) {
                h = (h ^ (x & 0xFF)) * 0x0100_0000_01B3L;
            }
            h = (h ^ ports[i].io.localPort()) * 0x0100_0000_01B3L;
        }
        h = (h ^ (h >>> 30)) * 0xBF58_476D_1CE4_E5B9L; // SplitMix64's finaliser: every bit of the input counts
        h = (h ^ (h >>> 27)) * 0x94D0_49BB_1331_11EBL;
        h ^= h >>> 31;
        return PREFIX | (h >>> 24) << 4; // the 40 bits above the low 4 (left 0, as rdmavt drivers' node GUIDs)
    }
}
