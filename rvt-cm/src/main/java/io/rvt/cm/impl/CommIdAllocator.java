package io.rvt.cm.impl;

import java.util.function.IntPredicate;

/**
 * Local communication IDs that a peer cannot predict from the ones it has seen. ib_cm allocates IDs cyclically from
 * an xarray and XORs them with one random operand ({@code cm_alloc_id_priv}, {@code random_id_operand}): no ID comes
 * back before 2^32 others, but consecutive IDs differ in their low bits only, so one ID seen gives the next ones
 * away. This allocator keeps the cyclic index and passes it through a keyed permutation of the 32-bit values instead
 * (four Feistel rounds on 16-bit halves, each keyed by a 32-bit round key): still a bijection, so the cycle's
 * uniqueness holds, but neighbouring indices land far apart. Zero (the "not known yet" of a remote ID field) and IDs
 * still live are skipped. Not thread-safe: the engine's monitor guards it.
 */
final class CommIdAllocator {
    private static final int ROUNDS = 4;
    private final int[] keys = new int[ROUNDS];
    private int index;

    /**
     * @param seed 128 bits of key material (from the system's strong entropy, or from a replaying clock's seed)
     * @param start the first index of the cycle
     */
    CommIdAllocator(long[] seed, int start) {
        keys[0] = (int) seed[0];
        keys[1] = (int) (seed[0] >>> 32);
        keys[2] = (int) seed[1];
        keys[3] = (int) (seed[1] >>> 32);
        index = start;
    }

    /**
     * @param live whether an ID is still in use
     * @return the next ID of the cycle that is neither 0 nor live
     */
    int next(IntPredicate live) {
        int id;
        do {
            id = permute(index++);
        } while (id == 0 || live.test(id));
        return id;
    }

    /** @return {@code x} through the keyed permutation */
    int permute(int x) {
        int left = x >>> 16;
        int right = x & 0xFFFF;
        for (int k : keys) {
            int f = round(right, k);
            int next = left ^ f;
            left = right;
            right = next;
        }
        return (left << 16) | right;
    }

    /** The round function: the half and the key mixed by a 32-bit finalizer (MurmurHash3's), 16 bits kept. */
    private static int round(int half, int key) {
        int h = half ^ key;
        h ^= h >>> 16;
        h *= 0x85EB_CA6B;
        h ^= h >>> 13;
        h *= 0xC2B2_AE35;
        h ^= h >>> 16;
        return h & 0xFFFF;
    }
}
