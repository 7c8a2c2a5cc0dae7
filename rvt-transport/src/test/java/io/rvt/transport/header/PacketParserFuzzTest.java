package io.rvt.transport.header;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * 100,000 packets, half random bytes and half valid packets with random damage: the parser never throws, returns a
 * known code, and what it accepts is self-consistent and agrees with the descriptors. A parser without the ICRC
 * check must agree on every structural verdict.
 */
class PacketParserFuzzTest {
    private static final int CASES = 100_000;

    private final Icrc icrc = new Icrc();
    private final PacketParser strict = new PacketParser();
    private final PacketParser lenient = new PacketParser(false);
    private final PacketHeaders h = new PacketHeaders();
    private final PacketHeaders h2 = new PacketHeaders();
    private final int[] validOpcodes = validOpcodes();

    private static int[] validOpcodes() {
        int[] all = new int[256];
        int n = 0;
        for (int op = 0; op < 256; op++) {
            if (Opcode.isValid(op)) {
                all[n++] = op;
            }
        }
        return Arrays.copyOf(all, n);
    }

    @Test
    void shouldNeverThrowAndStayConsistentWhenPacketsAreRandomOrDamaged() {
        long seed = 0xF0_22ED_0001L;
        System.out.println("PacketParserFuzzTest seed " + seed);
        SplittableRandom rnd = new SplittableRandom(seed);
        int[] counts = new int[RejectReason.COUNT];
        for (int n = 0; n < CASES; n++) {
            ByteBuffer buf;
            int offset;
            int length;
            Framing framing = rnd.nextBoolean() ? Framing.IB_LRH : Framing.ROCEV2;
            String what;
            if ((n & 1) == 0) {
                BufferKind kind = BufferKind.values()[rnd.nextInt(BufferKind.values().length)];
                buf = kind.allocate(rnd.nextInt(0, 160));
                for (int i = 0; i < buf.capacity(); i++) {
                    buf.put(i, (byte) rnd.nextInt());
                }
                offset = rnd.nextInt(-2, buf.capacity() + 3);
                length = rnd.nextInt(-2, buf.capacity() + 5);
                what = "seed " + seed + ", case " + n + " (random " + kind + ")";
            } else {
                int opcode = validOpcodes[rnd.nextInt(validOpcodes.length)];
                int payload = Opcode.hasPayload(opcode) ? rnd.nextInt(0, 41) : 0;
                PacketSpec spec = PacketSpec.random(rnd, framing, rnd.nextBoolean(), opcode, payload);
                BufferKind kind = BufferKind.values()[rnd.nextInt(BufferKind.values().length)];
                offset = rnd.nextInt(0, 5);
                buf = kind.allocate(offset + spec.length() + 8);
                length = spec.write(buf, offset, icrc);
                int mutations = rnd.nextInt(0, 4);
                for (int m = 0; m < mutations; m++) {
                    length = mutate(rnd, buf, offset, length, framing);
                }
                what = "seed " + seed + ", case " + n + " (" + Opcode.name(opcode) + " " + framing + ", " + mutations
                        + " mutations)";
            }
            int rc = 0;
            int rc2 = 0;
            try {
                rc = strict.parse(buf, offset, length, framing, h);
                rc2 = lenient.parse(buf, offset, length, framing, h2);
            } catch (RuntimeException e) {
                fail(what + " threw", e);
            }
            assertThat(rc).as(what).isBetween(0, RejectReason.COUNT - 1);
            assertThat(h.result()).as(what).isEqualTo(rc);
            if (rc == RejectReason.BAD_ICRC) {
                assertThat(framing).as(what).isEqualTo(Framing.IB_LRH);
                assertThat(rc2).as(what).isEqualTo(RejectReason.OK);
            } else {
                assertThat(rc2).as(what).isEqualTo(rc);
            }
            if (rc2 == RejectReason.OK) {
                assertConsistent(what, buf, offset, length, framing, h2);
            }
            if (rc == RejectReason.OK && framing == Framing.IB_LRH) {
                assertThat(icrc.checkIb(buf, offset, length)).as(what).isTrue();
            }
            counts[rc]++;
        }
        StringBuilder sb = new StringBuilder("PacketParserFuzzTest verdicts:");
        for (int code = 0; code < counts.length; code++) {
            sb.append(' ').append(RejectReason.name(code)).append('=').append(counts[code]);
        }
        System.out.println(sb);
        assertThat(counts[RejectReason.OK]).isGreaterThan(CASES / 20);
        assertThat(Arrays.stream(counts).filter(c -> c > 0).count()).isEqualTo(RejectReason.COUNT);
    }

    /** Damages a valid packet; returns the (possibly changed) length to parse. */
    private static int mutate(SplittableRandom rnd, ByteBuffer buf, int offset, int length, Framing framing) {
        int bth = offset + (framing == Framing.IB_LRH ? (LrhDescriptor.lnh(buf, offset) == 3 ? 48 : 8) : 0);
        if (bth + GrhDescriptor.LENGTH + BthDescriptor.LENGTH > buf.capacity()) {
            bth = offset; // an earlier mutation made the LRH claim a GRH the buffer has no room for
        }
        switch (rnd.nextInt(9)) {
            case 0: {
                int at = offset + rnd.nextInt(Math.max(1, length));
                buf.put(at, (byte) (buf.get(at) ^ (1 << rnd.nextInt(8))));
                return length;
            }
            case 1: {
                int at = offset + rnd.nextInt(Math.max(1, length));
                buf.put(at, (byte) rnd.nextInt());
                return length;
            }
            case 2:
                return length - rnd.nextInt(1, 9);
            case 3:
                return Math.min(buf.capacity() - offset, length + rnd.nextInt(1, 9));
            case 4:
                BthDescriptor.opcode(buf, bth, rnd.nextInt(256));
                return length;
            case 5:
                BthDescriptor.padCount(buf, bth, rnd.nextInt(4));
                return length;
            case 6:
                if (framing == Framing.IB_LRH) {
                    LrhDescriptor.lnh(buf, offset, rnd.nextInt(4));
                    LrhDescriptor.packetLength(buf, offset, rnd.nextInt(0x800));
                }
                return length;
            case 7:
                BthDescriptor.transportVersion(buf, bth, rnd.nextInt(3));
                return length;
            default:
                if (framing == Framing.IB_LRH && LrhDescriptor.lnh(buf, offset) == 3
                        && offset + 8 + GrhDescriptor.LENGTH <= buf.capacity()) {
                    GrhDescriptor.payloadLength(buf, offset + 8, GrhDescriptor.payloadLength(buf, offset + 8) + 4);
                    GrhDescriptor.ipVersion(buf, offset + 8, rnd.nextInt(5, 8));
                }
                return length;
        }
    }

    private void assertConsistent(String what, ByteBuffer buf, int offset, int length, Framing framing,
            PacketHeaders p) {
        int bth = offset;
        if (framing == Framing.IB_LRH) {
            assertThat(p.lrhOffset()).as(what).isEqualTo(offset);
            assertThat(p.packetLengthWords() * 4).as(what).isEqualTo(length);
            assertThat(p.lnh()).as(what).isIn(2, 3);
            bth += 8;
            if (p.lnh() == 3) {
                assertThat(p.grhOffset()).as(what).isEqualTo(offset + 8);
                assertThat(GrhDescriptor.ipVersion(buf, bth)).as(what).isEqualTo(6);
                assertThat(p.grhPayloadLength()).as(what).isEqualTo(length - 48);
                assertThat(p.dgidInterfaceId()).as(what).isEqualTo(GrhDescriptor.dgidInterfaceId(buf, bth));
                bth += 40;
            } else {
                assertThat(p.hasGrh()).as(what).isFalse();
            }
        } else {
            assertThat(p.hasLrh() || p.hasGrh()).as(what).isFalse();
        }
        int opcode = p.opcode();
        assertThat(p.bthOffset()).as(what).isEqualTo(bth);
        assertThat(opcode).as(what).isEqualTo(BthDescriptor.opcode(buf, bth));
        assertThat(Opcode.isValid(opcode)).as(what).isTrue();
        assertThat(p.psn()).as(what).isEqualTo(BthDescriptor.psn(buf, bth));
        assertThat(p.destQp()).as(what).isEqualTo(BthDescriptor.destQp(buf, bth));
        assertThat(p.pkey()).as(what).isEqualTo(BthDescriptor.pkey(buf, bth));
        assertThat(p.transportVersion()).as(what).isZero();
        assertThat(p.extensions()).as(what).isEqualTo(Opcode.extensionHeaders(opcode));
        if (p.hasExtension(ExtensionHeader.RETH)) {
            assertThat(p.rethDmaLength()).as(what)
                    .isEqualTo(RethDescriptor.dmaLength(buf, p.extensionOffset(ExtensionHeader.RETH)));
        }
        if (p.hasExtension(ExtensionHeader.AETH)) {
            assertThat(p.aeth()).as(what).isEqualTo(AethDescriptor.value(buf, p.extensionOffset(ExtensionHeader.AETH)));
        }
        if (p.hasExtension(ExtensionHeader.DETH)) {
            assertThat(p.dethSrcQp()).as(what)
                    .isEqualTo(DethDescriptor.srcQp(buf, p.extensionOffset(ExtensionHeader.DETH)));
        }
        assertThat(p.payloadOffset()).as(what).isEqualTo(bth + Opcode.headerLength(opcode));
        assertThat(p.payloadLength()).as(what).isNotNegative();
        assertThat(p.padCount()).as(what).isBetween(0, 3);
        assertThat((p.payloadLength() + p.padCount()) % 4).as(what).isZero();
        if (!Opcode.hasPayload(opcode)) {
            assertThat(p.payloadLength() + p.padCount()).as(what).isZero();
        }
        assertThat(p.payloadOffset() + p.payloadLength() + p.padCount() + Icrc.LENGTH).as(what)
                .isEqualTo(offset + length);
        assertThat(p.icrcOffset()).as(what).isEqualTo(offset + length - 4);
        assertThat(p.icrc()).as(what).isEqualTo(Icrc.read(buf, offset + length - 4));
    }
}
