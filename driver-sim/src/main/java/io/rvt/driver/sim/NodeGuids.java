package io.rvt.driver.sim;

import io.rvt.api.Gid;
import io.rvt.driver.sim.fabric.Fabric;

/**
 * The node GUID of an HCA that sets none ({@link SimDriver.Builder#nodeGuid}): derived from what identifies it, its
 * fabric's seed and its name (a pattern such as {@code sim%d} as given), so that the same program on a fabric with the
 * same seed gives the same GUIDs and GIDs in every run, also within one JVM (tests, bundle restarts), whatever other
 * HCAs the JVM made before. Port {@code n}'s GUID is the node GUID + {@code n}. Two HCAs of one name on one fabric
 * (or a hash collision) take the next candidate of the name's sequence, so GUIDs on a fabric stay unique: the first
 * candidate whose port GIDs no attached port has. {@link #LOCK} makes the look-up and the attach one step.
 */
final class NodeGuids {
    /** Held from choosing a node GUID until the HCA's ports are attached, so that two HCAs never pick one. */
    static final Object LOCK = new Object();
    /** Node GUIDs are 16 apart (at most 16 ports), above the fabric's own port GUIDs (GUID_BASE | index). */
    private static final long FIRST = Fabric.GUID_BASE + 0x10_0000L;
    /** Candidates of a name: 2^24 blocks of 16, so the GUID stays within GUID_BASE's low 32 bits. */
    private static final int BLOCK_BITS = 24;

    private NodeGuids() {
    }

    /**
     * @param fabric the HCA's fabric
     * @param name its name (or name pattern)
     * @param ports its ports
     * @return the first candidate of the name whose port GIDs are free on the fabric; call under {@link #LOCK}
     */
    static long free(Fabric fabric, String name, int ports) {
        for (int k = 0;; k++) {
            long guid = candidate(fabric.seed(), name, k);
            if (portsFree(fabric, guid, ports)) {
                return guid;
            }
        }
    }

    /**
     * @param seed the fabric's seed
     * @param name the HCA's name
     * @param k which candidate: 0 first
     * @return the {@code k}-th node GUID the name may have on a fabric with this seed
     */
    static long candidate(long seed, String name, int k) {
        long h = 0xCBF2_9CE4_8422_2325L ^ seed; // FNV-1a over the name's chars, from the seed
        for (int i = 0; i < name.length(); i++) {
            h = (h ^ name.charAt(i)) * 0x0100_0000_01B3L;
        }
        h += k * 0x9E37_79B9_7F4A_7C15L;
        h = (h ^ (h >>> 30)) * 0xBF58_476D_1CE4_E5B9L; // SplitMix64's finaliser: every bit of the input counts
        h = (h ^ (h >>> 27)) * 0x94D0_49BB_1331_11EBL;
        h ^= h >>> 31;
        return FIRST + (h >>> (64 - BLOCK_BITS)) * 16;
    }

    private static boolean portsFree(Fabric fabric, long nodeGuid, int ports) {
        for (int p = 1; p <= ports; p++) {
            if (fabric.port(Gid.of(fabric.gidPrefix(), nodeGuid + p)).isPresent()) {
                return false;
            }
        }
        return true;
    }
}
