package io.rvt.transport.header;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link Icrc#recoverRoceV4Id}: a RoCEv2 packet over IPv4 is accepted under the IP Identification its sender used
 * (Linux numbers it per packet), which is recovered exactly, and a packet with a flipped bit is rejected. Packets are
 * built with the project's header codec and their ICRC computed with the true ID; the solver is cross-checked against
 * computing the ICRC for every one of the 65,536 IDs.
 */
class Ipv4IdSolverTest {
    private static final long SEED = 0x1D50_1DL;
    private static final int[] OPCODES = {Opcode.RC_SEND_ONLY, Opcode.RC_SEND_FIRST, Opcode.RC_RDMA_WRITE_ONLY,
        Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, Opcode.UD_SEND_ONLY_WITH_IMMEDIATE, Opcode.UC_SEND_LAST};
    private static final int DPORT = Framing.ROCEV2_UDP_PORT;

    private final Icrc icrc = new Icrc();

    /** A packet with a good ICRC over {@code id}, at offset 0 of a buffer of {@code kind}. */
    private record Packet(ByteBuffer buf, int length, int id) {
        byte[] bytes() {
            byte[] b = new byte[length];
            buf.get(0, b);
            return b;
        }
    }

    private Packet packet(SplittableRandom rnd, BufferKind kind, int payload, int id) {
        int opcode = payload == 0 && rnd.nextBoolean() ? Opcode.RC_ACKNOWLEDGE : OPCODES[rnd.nextInt(OPCODES.length)];
        PacketSpec spec = PacketSpec.random(rnd, Framing.ROCEV2, false, opcode, opcode == Opcode.RC_ACKNOWLEDGE
                ? 0 : payload);
        ByteBuffer buf = kind.allocate(spec.length());
        int length = spec.write(buf, 0, icrc);
        icrc.writeRoceV4(PacketSpec.SRC_IP, PacketSpec.DST_IP, id, true, PacketSpec.UDP_SRC_PORT, DPORT, buf, 0,
                length);
        return new Packet(buf, length, id);
    }

    private int recover(ByteBuffer buf, int length) {
        return icrc.recoverRoceV4Id(PacketSpec.SRC_IP, PacketSpec.DST_IP, true, PacketSpec.UDP_SRC_PORT, DPORT, buf, 0,
                length);
    }

    private static int nonZeroId(SplittableRandom rnd) {
        return 1 + rnd.nextInt(0xFFFF);
    }

    /** Payload lengths: every one up to 64, then up to 4096 + 256 in steps, and a few long ones up to IPv4's limit. */
    private static List<Integer> payloadLengths(SplittableRandom rnd) {
        List<Integer> out = new ArrayList<>();
        for (int n = 0; n <= 64; n++) {
            out.add(n);
        }
        for (int n = 65; n <= 4096 + 256; n += 1 + rnd.nextInt(61)) {
            out.add(n);
        }
        out.add(4096);
        out.add(9000);
        out.add(32_768);
        out.add(65_000);
        return out;
    }

    @Test
    void shouldRecoverTheIdOfPacketsWithRandomNonZeroIds() {
        SplittableRandom rnd = new SplittableRandom(SEED);
        int n = 0;
        for (int payload : payloadLengths(rnd)) {
            for (BufferKind kind : BufferKind.values()) {
                Packet p = packet(rnd, kind, payload, nonZeroId(rnd));
                String what = kind + ", payload " + payload + ", id " + p.id;
                assertThat(icrc.checkRoceV4(PacketSpec.SRC_IP, PacketSpec.DST_IP, 0, true, PacketSpec.UDP_SRC_PORT,
                        DPORT, p.buf, 0, p.length)).as("ID 0 does not match: %s", what).isFalse();
                assertThat(recover(p.buf, p.length)).as(what).isEqualTo(p.id);
                n++;
            }
        }
        assertThat(n).isGreaterThan(500);
    }

    @Test
    void shouldAcceptIdZeroAsBefore() {
        SplittableRandom rnd = new SplittableRandom(SEED + 1);
        for (int payload : new int[] {0, 1, 64, 1024, 4096}) {
            Packet p = packet(rnd, BufferKind.HEAP_BIG_ENDIAN, payload, 0);
            assertThat(recover(p.buf, p.length)).as("payload %d", payload).isZero();
        }
    }

    /**
     * Hardware and another implementation: a CNP captured from a ConnectX-4 Lx (ID 0x718c) and scapy's UC SEND
     * example (ID 1144), as in {@link IcrcTest}.
     */
    @Test
    void shouldRecoverTheIdsOfPacketsFromHardwareAndScapy() {
        byte[] cnp = HexFormat.of().parseHex("8100ffff4000011800000000" + "00000000000000000000000000000000"
                + "82fd002a");
        assertThat(icrc.recoverRoceV4Id(0x0A00_1101, 0x0A00_1201, true, 0, DPORT, ByteBuffer.wrap(cnp), 0,
                cnp.length)).isEqualTo(0x718c);
        byte[] uc = HexFormat.of().parseHex("2460ffff000000d300cf1710" + "4630818be28935d90e9a95505401be885e500000"
                + "78f353f3");
        assertThat(icrc.recoverRoceV4Id(0xC0A8_0007, 0xC0A8_0007, true, 49152, DPORT, ByteBuffer.wrap(uc), 0,
                uc.length)).isEqualTo(1144);
        uc[20] ^= 0x04;
        assertThat(icrc.recoverRoceV4Id(0xC0A8_0007, 0xC0A8_0007, true, 49152, DPORT, ByteBuffer.wrap(uc), 0,
                uc.length)).as("a bit flipped in the payload").isEqualTo(-1);
    }

    /**
     * One flipped bit anywhere the ICRC covers (headers, payload, pad, the ICRC itself; not BTH resv8a, which it
     * masks), in packets of many lengths and IDs: rejected.
     */
    @Test
    void shouldRejectAPacketWithAFlippedBitAnywhere() {
        SplittableRandom rnd = new SplittableRandom(SEED + 2);
        int rejected = 0;
        for (int payload : payloadLengths(rnd)) {
            BufferKind kind = BufferKind.values()[rnd.nextInt(BufferKind.values().length)];
            Packet p = packet(rnd, kind, payload, nonZeroId(rnd));
            int flips = payload > 8000 ? 8 : 40;
            for (int f = 0; f < flips; f++) {
                int at = f < 4 ? p.length - 1 - f : f < 16 ? rnd.nextInt(BthDescriptor.LENGTH) : rnd.nextInt(p.length);
                if (at == BthDescriptor.RESV8A_OFFSET) {
                    continue;
                }
                byte bit = (byte) (1 << rnd.nextInt(8));
                p.buf.put(at, (byte) (p.buf.get(at) ^ bit));
                assertThat(recover(p.buf, p.length)).as("%s, payload %d, id %d, byte %d of %d flipped", kind, payload,
                        p.id, at, p.length).isEqualTo(-1);
                p.buf.put(at, (byte) (p.buf.get(at) ^ bit));
                rejected++;
            }
            assertThat(recover(p.buf, p.length)).isEqualTo(p.id);
        }
        assertThat(rejected).isGreaterThan(5_000);
    }

    /** Every single bit of a full 4 KiB-MTU packet and of a short one, flipped in turn: each rejected. */
    @Test
    void shouldRejectEverySingleBitFlipOfWholePackets() {
        SplittableRandom rnd = new SplittableRandom(SEED + 3);
        for (int payload : new int[] {4096, 37}) {
            Packet p = packet(rnd, BufferKind.HEAP_LITTLE_ENDIAN, payload, nonZeroId(rnd));
            byte[] a = p.buf.array();
            for (int at = 0; at < p.length; at++) {
                if (at == BthDescriptor.RESV8A_OFFSET) {
                    continue;
                }
                for (int bit = 0; bit < 8; bit++) {
                    a[at] ^= (byte) (1 << bit);
                    int got = recover(p.buf, p.length);
                    a[at] ^= (byte) (1 << bit);
                    if (got != -1) {
                        throw new AssertionError("accepted with byte " + at + " bit " + bit + " flipped: id " + got);
                    }
                }
            }
        }
    }

    /**
     * The solver against brute force: for good packets and corrupted ones, the IDs whose computed ICRC equals the
     * received one are exactly the solver's answer (one ID, or none when it says -1).
     */
    @Test
    void shouldAgreeWithComputingTheIcrcForEveryId() {
        SplittableRandom rnd = new SplittableRandom(SEED + 4);
        int[][] cases = {{0, 0}, {12, 0}, {1000, 0}, {4096, 0}, {64, 1}, {1500, 3}};
        for (int[] c : cases) {
            Packet p = packet(rnd, BufferKind.DIRECT_BIG_ENDIAN, c[0], nonZeroId(rnd));
            for (int k = 0; k < c[1]; k++) { // corrupt: bits flipped at random
                int at = BthDescriptor.LENGTH + rnd.nextInt(p.length - BthDescriptor.LENGTH);
                p.buf.put(at, (byte) (p.buf.get(at) ^ (1 << rnd.nextInt(8))));
            }
            int received = Icrc.read(p.buf, p.length - Icrc.LENGTH);
            List<Integer> matching = new ArrayList<>();
            for (int id = 0; id <= 0xFFFF; id++) {
                if (icrc.computeRoceV4(PacketSpec.SRC_IP, PacketSpec.DST_IP, id, true, PacketSpec.UDP_SRC_PORT, DPORT,
                        p.buf, 0, p.length - Icrc.LENGTH) == received) {
                    matching.add(id);
                }
            }
            int solved = recover(p.buf, p.length);
            assertThat(matching).as("payload %d, %d bits flipped", c[0], c[1])
                    .isEqualTo(solved < 0 ? List.of() : List.of(solved));
            if (c[1] == 0) {
                assertThat(solved).isEqualTo(p.id);
            }
        }
    }

    /**
     * 16 of the 32 check bits: of random syndromes (what random corruption leaves), about one in 65,536 is some ID's
     * image; every accepted one's ID reproduces the syndrome.
     */
    @Test
    void shouldAcceptAboutOneRandomSyndromeIn65536() {
        SplittableRandom rnd = new SplittableRandom(SEED + 5);
        Ipv4IdSolver solver = new Ipv4IdSolver();
        int trials = 1 << 22;
        int accepted = 0;
        for (int i = 0; i < trials; i++) {
            int syndrome = rnd.nextInt();
            int length = BthDescriptor.LENGTH + rnd.nextInt(4200);
            int id = solver.solve(syndrome, length);
            if (id >= 0) {
                accepted++;
                assertThat(syndromeOf(id, length)).isEqualTo(syndrome);
            }
        }
        assertThat(accepted).as("accepted of 2^22 (expected 64)").isBetween(32, 110);
    }

    /** What ID {@code id} adds to the ICRC of a packet of {@code length} bytes before the ICRC, by computing it. */
    private int syndromeOf(int id, int length) {
        ByteBuffer zeros = ByteBuffer.allocate(length);
        return icrc.computeRoceV4(1, 2, id, true, 3, DPORT, zeros, 0, length)
                ^ icrc.computeRoceV4(1, 2, 0, true, 3, DPORT, zeros, 0, length);
    }

    /**
     * The guarantees the class comment states, from the algebra: a single-bit error at distance k bits after the ID
     * passes only if {@code x^-k mod P} has degree below 16, which first happens at k = 214,135 (26 KiB); a burst of
     * 2 or 3 bits from the UDP header on (k >= 113) first passes at k = 53,259 (6.5 KiB), beyond any packet of a
     * 4096-byte MTU.
     */
    @Test
    void shouldCatchEverySingleBitErrorWithin26KibAndEveryShortBurstWithin6Kib() {
        int longest = 8 * (Ipv4IdSolver.BYTES_AFTER_ID + Icrc.MAX_ROCE_PAYLOAD);
        int[] inverse = new int[longest + 1]; // x^-k mod P
        inverse[0] = 1 << 31;
        int firstSingle = -1;
        for (int k = 1; k <= longest; k++) {
            inverse[k] = Ipv4IdSolver.divideByX(inverse[k - 1]);
            if (firstSingle < 0 && (inverse[k] & 0xFFFF) == 0) {
                firstSingle = k;
            }
        }
        assertThat(firstSingle).isEqualTo(214_135);
        int udpHeader = 8 * (Icrc.IPV4_HEADER_LENGTH - 6) + 1;
        int firstBurst = -1;
        for (int k = udpHeader + 2; k <= longest && firstBurst < 0; k++) {
            // bursts x^-k * (1 + x), (1 + x^2), (1 + x + x^2): their bits at distances k, k-1, k-2
            int b2 = inverse[k] ^ inverse[k - 1];
            int b3 = inverse[k] ^ inverse[k - 2];
            int b3full = b3 ^ inverse[k - 1];
            if ((b2 & 0xFFFF) == 0 || (b3 & 0xFFFF) == 0 || (b3full & 0xFFFF) == 0) {
                firstBurst = k;
            }
        }
        assertThat(firstBurst).isEqualTo(53_259);
        int mtuPacket = 8 * (Ipv4IdSolver.BYTES_AFTER_ID + PacketBuilder.roceLength(Opcode.RC_RDMA_WRITE_FIRST, 4096));
        assertThat(firstBurst).isGreaterThan(mtuPacket);
    }

    @Test
    void shouldMultiplyAsPolynomialsModuloTheCrcPolynomial() {
        int x = 1 << 30;
        assertThat(Ipv4IdSolver.multiply(1 << 31, 0x1234_5678)).as("1 * a").isEqualTo(0x1234_5678);
        assertThat(Ipv4IdSolver.multiply(x, Ipv4IdSolver.divideByX(0x1234_5678))).as("x * a / x")
                .isEqualTo(0x1234_5678);
        SplittableRandom rnd = new SplittableRandom(SEED + 6);
        for (int i = 0; i < 1000; i++) {
            int a = rnd.nextInt();
            int b = rnd.nextInt();
            int c = rnd.nextInt();
            assertThat(Ipv4IdSolver.multiply(a, b)).isEqualTo(Ipv4IdSolver.multiply(b, a));
            assertThat(Ipv4IdSolver.multiply(a, b ^ c))
                    .isEqualTo(Ipv4IdSolver.multiply(a, b) ^ Ipv4IdSolver.multiply(a, c));
        }
    }
}
