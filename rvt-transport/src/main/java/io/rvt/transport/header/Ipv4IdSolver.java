package io.rvt.transport.header;

/**
 * Finds the IPv4 Identification a RoCEv2 packet's ICRC was computed over, from the ICRC computed with ID 0: a UDP
 * socket does not show the sender's IP header, and Linux numbers the ID of every packet (rxe's
 * {@code prepare_ipv4_hdr} calls {@code __ip_select_ident}).
 *
 * <p>Why it works: a CRC is affine in its message, so for packets of one length the ICRC with ID {@code d} differs
 * from the ICRC with ID 0 by the CRC (zero initial value, no final complement) of a message that is zero but for
 * {@code d}, a linear function of {@code d}'s 16 bits. As polynomials over GF(2), in the CRC-32 polynomial's ring:
 * {@code received ^ computed(0) = D(x) * x^(32 + 8n) mod P(x)}, where {@code D} is the ID's 16 message bits and
 * {@code n} the bytes that follow it. Multiplying the syndrome by {@code x^-(32 + 8n)} (x is invertible: P's
 * constant term is 1) undoes the shift; the packet is accepted exactly when the result has degree below 16, that is
 * when it is some ID's image, and that ID is read off it. Multiplying by a power of x is invertible, so two IDs
 * never give one syndrome: at most one ID matches.
 *
 * <p>What it costs: 16 of the ICRC's 32 check bits. A random corruption passes with probability 2^-16 instead of
 * 2^-32; every single-bit error up to 26 KiB after the ID is still caught (the least distance at which
 * {@code x^-k mod P} has degree below 16 is k = 214,135 bits), and every burst of up to 3 bits from the UDP header
 * to 6.5 KiB after the ID, so in every packet of a 4096-byte MTU ({@code Ipv4IdSolverTest} checks both).
 * Multiplication keeps CRC-32's reflected bit order: bit {@code 31 - i} of an {@code int} is the coefficient of
 * {@code x^i}, as in {@link java.util.zip.CRC32}'s value.
 *
 * <p>Allocation-free. The powers of {@code x^-1} it needs are computed once; the shift to undo for a packet length
 * takes up to 17 multiplications, so an instance keeps the last few lengths' (one multiplication per packet then).
 */
final class Ipv4IdSolver {
    /** CRC-32's polynomial without its x^32 term, reflected (bit 31 is x^0). */
    private static final int POLY = 0xEDB8_8320;
    /** Bytes of the ICRC's pseudo-packet after the Identification, beside the UDP payload: IPv4 14, UDP 8. */
    static final int BYTES_AFTER_ID = Icrc.IPV4_HEADER_LENGTH - 6 + Icrc.UDP_HEADER_LENGTH;
    /** {@code x^-(8 * 2^i) mod P} for every bit of a byte count below 2^17 (IPv4 lengths are 16 bits). */
    private static final int[] INVERSE_BYTE_POWERS = new int[17];
    /** {@code x^-32 mod P}: the CRC register's own 32 bits of shift. */
    private static final int INVERSE_X32;

    static {
        int inv = 1 << 31; // x^0
        for (int i = 0; i < 32; i++) {
            inv = divideByX(inv);
        }
        INVERSE_X32 = inv;
        int p = 1 << 31;
        for (int i = 0; i < 8; i++) {
            p = divideByX(p);
        }
        for (int i = 0; i < INVERSE_BYTE_POWERS.length; i++) {
            INVERSE_BYTE_POWERS[i] = p;
            p = multiply(p, p);
        }
    }

    /** Slots of {@link #lengths}: packets from one peer come in a few lengths (full MTU, ACKs, a message's last). */
    private static final int CACHE_SLOTS = 64;
    /** The lengths (bytes after the ID) whose {@link #inverses} the cache holds, by length modulo its size; 0: none. */
    private final int[] lengths = new int[CACHE_SLOTS];
    /** {@code x^-(32 + 8n) mod P} for the length {@code n} in the same slot of {@link #lengths}. */
    private final int[] inverses = new int[CACHE_SLOTS];

    /** Creates a solver with an empty cache of shifts; not thread-safe (one per {@link Icrc}). */
    Ipv4IdSolver() {
    }

    /**
     * @param syndrome the received ICRC XOR the ICRC computed with Identification 0 (0: the ID is 0)
     * @param lengthWithoutIcrc the UDP payload's bytes before the ICRC (BTH on), as the ICRC was computed over
     * @return the 16-bit Identification whose ICRC is the received one, or -1 if none is
     */
    int solve(int syndrome, int lengthWithoutIcrc) {
        int n = BYTES_AFTER_ID + lengthWithoutIcrc;
        int slot = n & (CACHE_SLOTS - 1);
        int inverse;
        if (lengths[slot] == n) {
            inverse = inverses[slot];
        } else {
            inverse = inverseShift(n);
            lengths[slot] = n;
            inverses[slot] = inverse;
        }
        int d = multiply(syndrome, inverse);
        if ((d & 0xFFFF) != 0) {
            return -1; // a term of degree 16 or more: no 16-bit ID makes this syndrome
        }
        // The ID's first byte on the wire is fed first, least significant bit first: its bit j is x^(15-j), bit
        // 16+j here; the second byte's bit j is x^(7-j), bit 24+j. So the high half holds the bytes swapped.
        return Integer.reverseBytes(d) & 0xFFFF;
    }

    /** @return {@code x^-(32 + 8n) mod P}: undoes the CRC register's 32 bits and {@code n} bytes of shift */
    static int inverseShift(int n) {
        int inverse = INVERSE_X32;
        for (int i = 0; n != 0; i++, n >>>= 1) {
            if ((n & 1) != 0) {
                inverse = multiply(inverse, INVERSE_BYTE_POWERS[i]);
            }
        }
        return inverse;
    }

    /** @return {@code a * b mod P}, both reflected */
    static int multiply(int a, int b) {
        int product = 0;
        for (int m = a; m != 0; m <<= 1) { // a's coefficients from x^0 (bit 31) up; b runs along as b * x^i
            product ^= b & (m >> 31); // branch-free: the coefficients are data, a branch on them mispredicts
            b = (b >>> 1) ^ (POLY & -(b & 1));
        }
        return product;
    }

    /** @return {@code a * x^-1 mod P}: add P when the x^0 term is set (P's own x^0 clears it), then shift down */
    static int divideByX(int a) {
        return a < 0 ? (a ^ POLY) << 1 | 1 : a << 1;
    }
}
