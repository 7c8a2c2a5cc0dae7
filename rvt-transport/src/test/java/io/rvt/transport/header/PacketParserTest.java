package io.rvt.transport.header;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PacketParserTest {
    private final Icrc icrc = new Icrc();
    private final PacketParser parser = new PacketParser();
    private final PacketHeaders headers = new PacketHeaders();

    private int parse(ByteBuffer buf, int offset, int length, Framing framing) {
        int rc = parser.parse(buf, offset, length, framing, headers);
        assertThat(headers.result()).isEqualTo(rc);
        return rc;
    }

    interface Mutation {
        void apply(ByteBuffer buf);
    }

    @Test
    void shouldProduceEveryRejectReasonFromOneCraftedPacketEach() {
        int send = Opcode.RC_SEND_ONLY;
        int ibLocal = PacketBuilder.ibLength(send, false, 8);
        int ibGlobal = PacketBuilder.ibLength(send, true, 8);
        int roce = PacketBuilder.roceLength(send, 8);
        Object[][] cases = {
            // expected, framing, global, length, mutation
            {RejectReason.OK, Framing.IB_LRH, true, ibGlobal, (Mutation) b -> { }},
            {RejectReason.TRUNCATED, Framing.ROCEV2, false, 15, (Mutation) b -> { }},
            {RejectReason.BAD_LRH, Framing.IB_LRH, false, ibLocal,
                (Mutation) b -> LrhDescriptor.linkVersion(b, 0, 2)},
            {RejectReason.BAD_LNH, Framing.IB_LRH, false, ibLocal, (Mutation) b -> LrhDescriptor.lnh(b, 0, 0)},
            {RejectReason.LENGTH_MISMATCH, Framing.IB_LRH, false, ibLocal + 4, (Mutation) b -> { }},
            {RejectReason.BAD_GRH_VERSION, Framing.IB_LRH, true, ibGlobal,
                (Mutation) b -> GrhDescriptor.ipVersion(b, 8, 0)},
            {RejectReason.BAD_GRH_NEXT_HEADER, Framing.IB_LRH, true, ibGlobal,
                (Mutation) b -> GrhDescriptor.nextHeader(b, 8, 0x1C)},
            {RejectReason.BAD_TVER, Framing.ROCEV2, false, roce,
                (Mutation) b -> BthDescriptor.transportVersion(b, 0, 15)},
            {RejectReason.UNKNOWN_OPCODE, Framing.ROCEV2, false, roce,
                (Mutation) b -> BthDescriptor.opcode(b, 0, 0x42)},
            {RejectReason.BAD_PAD, Framing.ROCEV2, false, roce - 1, (Mutation) b -> { }},
            {RejectReason.UNEXPECTED_PAYLOAD, Framing.ROCEV2, false, roce,
                (Mutation) b -> BthDescriptor.opcode(b, 0, Opcode.RC_ACKNOWLEDGE)},
            {RejectReason.BAD_ICRC, Framing.IB_LRH, false, ibLocal, (Mutation) b -> b.put(22, (byte) ~b.get(22))},
        };
        BitSet seen = new BitSet();
        for (Object[] c : cases) {
            Framing framing = (Framing) c[1];
            ByteBuffer buf = framing == Framing.ROCEV2 ? roce(send, 8) : ib((boolean) c[2], send, 8);
            ((Mutation) c[4]).apply(buf);
            int rc = parse(buf, 0, (int) c[3], framing);
            assertThat(RejectReason.name(rc)).isEqualTo(RejectReason.name((int) c[0]));
            seen.set(rc);
        }
        assertThat(seen.cardinality()).as("every code, OK included").isEqualTo(RejectReason.COUNT);
    }

    @Test
    void shouldParseEveryValidOpcodeWhenPayloadNeedsAnyPad() {
        long seed = 0x9A25_0001L;
        System.out.println("PacketParserTest seed " + seed);
        SplittableRandom rnd = new SplittableRandom(seed);
        int parsed = 0;
        for (int opcode = 0; opcode < 256; opcode++) {
            if (!Opcode.isValid(opcode)) {
                continue;
            }
            int[] payloads = Opcode.hasPayload(opcode) ? new int[] {0, 1, 2, 3, 4, 5, 6, 7, 256, 4093} : new int[] {0};
            for (int payload : payloads) {
                for (int framing = 0; framing < 3; framing++) {
                    BufferKind kind = BufferKind.values()[rnd.nextInt(BufferKind.values().length)];
                    Framing f = framing == 2 ? Framing.ROCEV2 : Framing.IB_LRH;
                    PacketSpec spec = PacketSpec.random(rnd, f, framing == 1, opcode, payload);
                    int offset = rnd.nextInt(0, 9);
                    ByteBuffer buf = kind.allocate(offset + spec.length() + rnd.nextInt(0, 5));
                    int length = spec.write(buf, offset, icrc);
                    buf.position(rnd.nextInt(buf.capacity() + 1));

                    assertThat(parse(buf, offset, length, f))
                            .as("seed %d, %s, payload %d, %s, %s", seed, Opcode.name(opcode), payload, f, kind)
                            .isEqualTo(RejectReason.OK);
                    spec.assertParsed(headers, offset);
                    parsed++;
                }
            }
        }
        assertThat(parsed).isEqualTo(3 * ((40 - 7) * 10 + 7)); // 40 valid opcodes, 7 without payload
    }

    /** A valid RoCEv2 RC SEND Only with {@code payload} bytes in a heap buffer at offset 0. */
    private ByteBuffer roce(int opcode, int payload) {
        PacketSpec spec = PacketSpec.random(new SplittableRandom(opcode * 31L + payload), Framing.ROCEV2, false,
                opcode, payload);
        ByteBuffer buf = ByteBuffer.allocate(spec.length() + 16);
        spec.write(buf, 0, icrc);
        return buf;
    }

    private ByteBuffer ib(boolean global, int opcode, int payload) {
        PacketSpec spec = PacketSpec.random(new SplittableRandom(opcode * 37L + payload), Framing.IB_LRH, global,
                opcode, payload);
        ByteBuffer buf = ByteBuffer.allocate(spec.length() + 16);
        spec.write(buf, 0, icrc);
        return buf;
    }

    @Test
    void shouldReadEveryHeaderFieldAsTheDescriptorsDoWhenItsBitsAreRandom() {
        SplittableRandom rnd = new SplittableRandom(16);
        int send = Opcode.RC_SEND_ONLY;
        int length = PacketBuilder.ibLength(send, true, 8);
        for (int round = 0; round < 2000; round++) {
            ByteBuffer buf = ib(true, send, 8);
            if (round % 2 == 1) {
                ByteBuffer direct = ByteBuffer.allocateDirect(buf.capacity()).put(buf.rewind());
                buf = direct.order(java.nio.ByteOrder.LITTLE_ENDIAN); // the parser ignores the buffer's order
            }
            // every bit the word reads take apart, except those that decide validity (LVer, LNH, PktLen, IPVer,
            // PayLen, NxtHdr, TVer, OpCode, PadCnt)
            buf.put(0, (byte) ((rnd.nextInt(16) << 4) | LrhDescriptor.linkVersion(buf, 0)));
            buf.put(1, (byte) ((rnd.nextInt(16) << 4) | (rnd.nextInt(4) << 2) | LrhDescriptor.lnh(buf, 0)));
            LrhDescriptor.dlid(buf, 0, rnd.nextInt(0x10000));
            buf.put(4, (byte) ((rnd.nextInt(32) << 3) | (buf.get(4) & 0x07)));
            LrhDescriptor.slid(buf, 0, rnd.nextInt(0x10000));
            GrhDescriptor.trafficClass(buf, 8, rnd.nextInt(256));
            GrhDescriptor.flowLabel(buf, 8, rnd.nextInt(1 << 20));
            GrhDescriptor.hopLimit(buf, 8, rnd.nextInt(256));
            int bth = 48;
            BthDescriptor.solicitedEvent(buf, bth, rnd.nextBoolean());
            BthDescriptor.migReq(buf, bth, rnd.nextBoolean());
            BthDescriptor.pkey(buf, bth, rnd.nextInt(0x10000));
            buf.put(bth + 4, (byte) rnd.nextInt(256)); // FECN, BECN, resv6
            BthDescriptor.destQp(buf, bth, rnd.nextInt(1 << 24));
            buf.put(bth + 8, (byte) rnd.nextInt(256)); // AckReq, resv7
            BthDescriptor.psn(buf, bth, rnd.nextInt(1 << 24));
            PacketParser noIcrc = new PacketParser(false);
            String what = "round " + round;
            assertThat(noIcrc.parse(buf, 0, length, Framing.IB_LRH, headers)).as(what).isEqualTo(RejectReason.OK);
            assertThat(headers.vl()).as(what).isEqualTo(LrhDescriptor.vl(buf, 0));
            assertThat(headers.sl()).as(what).isEqualTo(LrhDescriptor.sl(buf, 0));
            assertThat(headers.lnh()).as(what).isEqualTo(LrhDescriptor.lnh(buf, 0));
            assertThat(headers.dlid()).as(what).isEqualTo(LrhDescriptor.dlid(buf, 0));
            assertThat(headers.packetLengthWords()).as(what).isEqualTo(LrhDescriptor.packetLength(buf, 0));
            assertThat(headers.slid()).as(what).isEqualTo(LrhDescriptor.slid(buf, 0));
            assertThat(headers.trafficClass()).as(what).isEqualTo(GrhDescriptor.trafficClass(buf, 8));
            assertThat(headers.flowLabel()).as(what).isEqualTo(GrhDescriptor.flowLabel(buf, 8));
            assertThat(headers.grhPayloadLength()).as(what).isEqualTo(GrhDescriptor.payloadLength(buf, 8));
            assertThat(headers.nextHeader()).as(what).isEqualTo(GrhDescriptor.nextHeader(buf, 8));
            assertThat(headers.hopLimit()).as(what).isEqualTo(GrhDescriptor.hopLimit(buf, 8));
            assertThat(headers.opcode()).as(what).isEqualTo(BthDescriptor.opcode(buf, bth));
            assertThat(headers.solicitedEvent()).as(what).isEqualTo(BthDescriptor.solicitedEvent(buf, bth));
            assertThat(headers.migReq()).as(what).isEqualTo(BthDescriptor.migReq(buf, bth));
            assertThat(headers.padCount()).as(what).isEqualTo(BthDescriptor.padCount(buf, bth));
            assertThat(headers.transportVersion()).as(what).isEqualTo(BthDescriptor.transportVersion(buf, bth));
            assertThat(headers.pkey()).as(what).isEqualTo(BthDescriptor.pkey(buf, bth));
            assertThat(headers.fecn()).as(what).isEqualTo(BthDescriptor.fecn(buf, bth));
            assertThat(headers.becn()).as(what).isEqualTo(BthDescriptor.becn(buf, bth));
            assertThat(headers.destQp()).as(what).isEqualTo(BthDescriptor.destQp(buf, bth));
            assertThat(headers.ackReq()).as(what).isEqualTo(BthDescriptor.ackReq(buf, bth));
            assertThat(headers.psn()).as(what).isEqualTo(BthDescriptor.psn(buf, bth));
        }
    }

    @Test
    void shouldRejectAsTruncatedWhenRangeOrHeadersDoNotFit() {
        ByteBuffer buf = roce(Opcode.RC_SEND_ONLY, 8);
        int length = PacketBuilder.roceLength(Opcode.RC_SEND_ONLY, 8);
        assertThat(parse(buf, 0, length, Framing.ROCEV2)).isEqualTo(RejectReason.OK);
        buf.limit(length - 1);
        assertThat(parse(buf, 0, length, Framing.ROCEV2)).isEqualTo(RejectReason.TRUNCATED);
        assertThat(parse(buf, -1, 20, Framing.ROCEV2)).isEqualTo(RejectReason.TRUNCATED);
        assertThat(parse(buf, 0, -20, Framing.ROCEV2)).isEqualTo(RejectReason.TRUNCATED);
        assertThat(parse(buf, Integer.MAX_VALUE, Integer.MAX_VALUE, Framing.ROCEV2))
                .isEqualTo(RejectReason.TRUNCATED);
        buf.limit(buf.capacity());
        assertThat(parse(buf, 0, 15, Framing.ROCEV2)).isEqualTo(RejectReason.TRUNCATED);
        assertThat(parse(buf, 0, 0, Framing.ROCEV2)).isEqualTo(RejectReason.TRUNCATED);
        assertThat(parse(buf, 0, 7, Framing.IB_LRH)).isEqualTo(RejectReason.TRUNCATED);

        // the opcode needs a RETH that is not there
        BthDescriptor.opcode(buf, 0, Opcode.RC_RDMA_WRITE_ONLY);
        assertThat(parse(buf, 0, 12 + 4 + 8, Framing.ROCEV2)).isEqualTo(RejectReason.TRUNCATED);
        assertThat(headers.bthOffset()).isZero();
        assertThat(headers.payloadOffset()).isEqualTo(-1);
        assertThat(headers.extensions()).isZero();
        assertThat(headers.extensionOffset(ExtensionHeader.RETH)).isEqualTo(-1);

        // LRH says global, PktLen agrees with the length, but a GRH does not fit
        ByteBuffer ib = ByteBuffer.allocate(64);
        LrhDescriptor.write(ib, 0, 0, 0, LrhDescriptor.LNH_IBA_GLOBAL, 1, 8, 2);
        assertThat(parse(ib, 0, 32, Framing.IB_LRH)).isEqualTo(RejectReason.TRUNCATED);
        // LRH local, PktLen agrees, but no room for BTH + ICRC
        LrhDescriptor.write(ib, 0, 0, 0, LrhDescriptor.LNH_IBA_LOCAL, 1, 4, 2);
        assertThat(parse(ib, 0, 16, Framing.IB_LRH)).isEqualTo(RejectReason.TRUNCATED);
        assertThat(headers.hasLrh()).isTrue();
        assertThat(headers.bthOffset()).isEqualTo(-1);
    }

    @Test
    void shouldRejectBadLrhWhenLinkVersionIsNotZero() {
        ByteBuffer buf = ib(false, Opcode.RC_SEND_ONLY, 4);
        LrhDescriptor.linkVersion(buf, 0, 1);
        assertThat(parse(buf, 0, PacketBuilder.ibLength(Opcode.RC_SEND_ONLY, false, 4), Framing.IB_LRH))
                .isEqualTo(RejectReason.BAD_LRH);
    }

    @Test
    void shouldRejectBadLnhWhenPacketIsRawOrIp() {
        int length = PacketBuilder.ibLength(Opcode.RC_SEND_ONLY, false, 4);
        for (int lnh : new int[] {LrhDescriptor.LNH_RAW, LrhDescriptor.LNH_IP_NON_IBA}) {
            ByteBuffer buf = ib(false, Opcode.RC_SEND_ONLY, 4);
            LrhDescriptor.lnh(buf, 0, lnh);
            assertThat(parse(buf, 0, length, Framing.IB_LRH)).as("LNH %d", lnh).isEqualTo(RejectReason.BAD_LNH);
        }
    }

    @Test
    void shouldRejectLengthMismatchWhenPktLenOrPayLenDisagree() {
        int local = PacketBuilder.ibLength(Opcode.RC_SEND_ONLY, false, 8);
        ByteBuffer buf = ib(false, Opcode.RC_SEND_ONLY, 8);
        assertThat(parse(buf, 0, local, Framing.IB_LRH)).isEqualTo(RejectReason.OK);
        assertThat(parse(buf, 0, local + 4, Framing.IB_LRH)).isEqualTo(RejectReason.LENGTH_MISMATCH);
        assertThat(parse(buf, 0, local + 2, Framing.IB_LRH)).as("a VCRC is not expected")
                .isEqualTo(RejectReason.LENGTH_MISMATCH);
        LrhDescriptor.packetLength(buf, 0, local / 4 - 1);
        assertThat(parse(buf, 0, local, Framing.IB_LRH)).isEqualTo(RejectReason.LENGTH_MISMATCH);

        int global = PacketBuilder.ibLength(Opcode.RC_SEND_ONLY, true, 8);
        ByteBuffer g = ib(true, Opcode.RC_SEND_ONLY, 8);
        GrhDescriptor.payloadLength(g, 8, global - 48 + 4);
        assertThat(parse(g, 0, global, Framing.IB_LRH)).isEqualTo(RejectReason.LENGTH_MISMATCH);
        assertThat(headers.hasGrh()).isTrue();
    }

    @Test
    void shouldRejectGrhWhenVersionOrNextHeaderIsWrong() {
        int length = PacketBuilder.ibLength(Opcode.UD_SEND_ONLY, true, 3);
        ByteBuffer buf = ib(true, Opcode.UD_SEND_ONLY, 3);
        GrhDescriptor.ipVersion(buf, 8, 4);
        assertThat(parse(buf, 0, length, Framing.IB_LRH)).isEqualTo(RejectReason.BAD_GRH_VERSION);
        buf = ib(true, Opcode.UD_SEND_ONLY, 3);
        GrhDescriptor.nextHeader(buf, 8, 17);
        assertThat(parse(buf, 0, length, Framing.IB_LRH)).isEqualTo(RejectReason.BAD_GRH_NEXT_HEADER);
    }

    @Test
    void shouldRejectBadTverAndUnknownOpcodes() {
        int length = PacketBuilder.roceLength(Opcode.RC_SEND_ONLY, 4);
        ByteBuffer buf = roce(Opcode.RC_SEND_ONLY, 4);
        BthDescriptor.transportVersion(buf, 0, 1);
        assertThat(parse(buf, 0, length, Framing.ROCEV2)).isEqualTo(RejectReason.BAD_TVER);
        for (int opcode : new int[] {0x15, 0x44, 0x60, 0x80, 0xC5}) {
            buf = roce(Opcode.RC_SEND_ONLY, 4);
            BthDescriptor.opcode(buf, 0, opcode);
            assertThat(parse(buf, 0, length, Framing.ROCEV2)).as("0x%x", opcode)
                    .isEqualTo(RejectReason.UNKNOWN_OPCODE);
            assertThat(headers.opcode()).isEqualTo(opcode);
        }
    }

    @Test
    void shouldRejectBadPadWhenPadCountDoesNotFitTheLength() {
        // 5 bytes between BTH and ICRC: not a multiple of 4
        ByteBuffer buf = roce(Opcode.RC_SEND_ONLY, 5);
        assertThat(parse(buf, 0, 12 + 5 + 4, Framing.ROCEV2)).isEqualTo(RejectReason.BAD_PAD);
        // no payload bytes at all but PadCnt 3
        buf = roce(Opcode.RC_SEND_ONLY, 0);
        BthDescriptor.padCount(buf, 0, 3);
        assertThat(parse(buf, 0, 16, Framing.ROCEV2)).isEqualTo(RejectReason.BAD_PAD);
        // PadCnt on an opcode without payload
        buf = roce(Opcode.RC_ACKNOWLEDGE, 0);
        BthDescriptor.padCount(buf, 0, 1);
        assertThat(parse(buf, 0, 20, Framing.ROCEV2)).isEqualTo(RejectReason.BAD_PAD);
        // PadCnt 3 with 4 bytes after the headers: one byte of payload, fine
        buf = roce(Opcode.RC_SEND_ONLY, 1);
        assertThat(parse(buf, 0, 20, Framing.ROCEV2)).isEqualTo(RejectReason.OK);
        assertThat(headers.payloadLength()).isEqualTo(1);
        assertThat(headers.padCount()).isEqualTo(3);
    }

    @Test
    void shouldRejectUnexpectedPayloadWhenOpcodeCarriesNone() {
        int[] opcodes = {Opcode.RC_ACKNOWLEDGE, Opcode.RC_RDMA_READ_REQUEST, Opcode.RC_FETCH_ADD,
            Opcode.RC_ATOMIC_ACKNOWLEDGE, Opcode.ROCE_CNP};
        for (int opcode : opcodes) {
            int length = PacketBuilder.roceLength(opcode, 0);
            ByteBuffer buf = roce(opcode, 0);
            assertThat(parse(buf, 0, length, Framing.ROCEV2)).isEqualTo(RejectReason.OK);
            assertThat(parse(buf, 0, length + 4, Framing.ROCEV2)).as(Opcode.name(opcode))
                    .isEqualTo(RejectReason.UNEXPECTED_PAYLOAD);
        }
    }

    @Test
    void shouldRejectBadIcrcWhenNativePacketIsCorruptedUnlessCheckIsOff() {
        for (boolean global : new boolean[] {false, true}) {
            int length = PacketBuilder.ibLength(Opcode.RC_RDMA_WRITE_FIRST, global, 64);
            ByteBuffer buf = ib(global, Opcode.RC_RDMA_WRITE_FIRST, 64);
            assertThat(parse(buf, 0, length, Framing.IB_LRH)).isEqualTo(RejectReason.OK);
            int payloadAt = headers.payloadOffset();
            buf.put(payloadAt + 10, (byte) (buf.get(payloadAt + 10) ^ 0x40));
            assertThat(parse(buf, 0, length, Framing.IB_LRH)).isEqualTo(RejectReason.BAD_ICRC);
            assertThat(new PacketParser(false).parse(buf, 0, length, Framing.IB_LRH, headers))
                    .isEqualTo(RejectReason.OK);
            // a switch may change VL and FECN/BECN without breaking the ICRC
            buf.put(payloadAt + 10, (byte) (buf.get(payloadAt + 10) ^ 0x40));
            LrhDescriptor.vl(buf, 0, LrhDescriptor.vl(buf, 0) ^ 5);
            BthDescriptor.becn(buf, headers.bthOffset(), true);
            assertThat(parse(buf, 0, length, Framing.IB_LRH)).isEqualTo(RejectReason.OK);
            assertThat(headers.becn()).isTrue();
        }
    }

    @Test
    void shouldForgetThePreviousPacketWhenParsingTheNextIntoTheSameHeaders() {
        ByteBuffer good = ib(true, Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 100);
        int length = PacketBuilder.ibLength(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, true, 100);
        assertThat(parse(good, 0, length, Framing.IB_LRH)).isEqualTo(RejectReason.OK);
        assertThat(headers.rethRkey()).isNotZero();
        ByteBuffer bad = roce(Opcode.RC_SEND_ONLY, 4);
        BthDescriptor.transportVersion(bad, 0, 2);
        assertThat(parse(bad, 0, 20, Framing.ROCEV2)).isEqualTo(RejectReason.BAD_TVER);
        assertThat(headers.hasGrh()).isFalse();
        assertThat(headers.hasLrh()).isFalse();
        assertThat(headers.rethRkey()).isZero();
        assertThat(headers.immediateData()).isZero();
        assertThat(headers.extensions()).isZero();
        assertThat(headers.payloadOffset()).isEqualTo(-1);
        assertThat(headers.toString()).startsWith("BAD_TVER ROCEV2 [0, +20]");
        headers.clear();
        assertThat(headers.framing()).isNull();
        assertThat(headers.offset()).isEqualTo(-1);
    }

    @Test
    void shouldNameEveryReasonWhenAsked() {
        assertThat(RejectReason.name(RejectReason.OK)).isEqualTo("OK");
        assertThat(RejectReason.name(RejectReason.BAD_ICRC)).isEqualTo("BAD_ICRC");
        assertThat(RejectReason.name(RejectReason.UNEXPECTED_PAYLOAD)).isEqualTo("UNEXPECTED_PAYLOAD");
        assertThat(RejectReason.name(-1)).isEqualTo("UNKNOWN");
        assertThat(RejectReason.name(RejectReason.COUNT)).isEqualTo("UNKNOWN");
        for (int code = 0; code < RejectReason.COUNT; code++) {
            assertThat(RejectReason.name(code)).isNotEqualTo("UNKNOWN");
        }
    }
}
