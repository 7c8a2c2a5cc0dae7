package io.rvt.transport.header;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.Gid;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class IcrcTest {
    private final Icrc icrc = new Icrc();

    private static ByteBuffer wrap(BufferKind kind, byte[] bytes, int offset) {
        ByteBuffer buf = kind.allocate(offset + bytes.length + 7);
        buf.put(offset, bytes);
        return buf;
    }

    /**
     * A RoCEv2 CNP captured on a Mellanox ConnectX-4 Lx, from scapy's test/contrib/roce.uts ("RoCE CNP captured on
     * ConnectX-4 Lx"): IPv4 10.0.17.1 to 10.0.18.1, TOS 0xc2, ID 0x718c, DF, TTL 64; UDP 0 to 4791; the UDP
     * payload below, whose last 4 bytes are the ICRC the NIC computed. Hardware, not another implementation.
     */
    @Test
    void shouldReproduceIcrcOfCnpCapturedFromConnectX4WhenRoceV4() {
        byte[] udpPayload = HexFormat.of().parseHex(
                "8100ffff4000011800000000" + "00000000000000000000000000000000" + "82fd002a");
        for (BufferKind kind : BufferKind.values()) {
            ByteBuffer buf = wrap(kind, udpPayload, 3);
            int value = icrc.computeRoceV4(0x0A00_1101, 0x0A00_1201, 0x718c, true, 0, 4791, buf, 3,
                    udpPayload.length - 4);
            assertThat(value).as("%s", kind).isEqualTo(0x2a00fd82);
            assertThat(Icrc.read(buf, 3 + udpPayload.length - 4)).isEqualTo(0x2a00fd82);
            assertThat(icrc.checkRoceV4(0x0A00_1101, 0x0A00_1201, 0x718c, true, 0, 4791, buf, 3, udpPayload.length))
                    .isTrue();
            assertThat(icrc.checkRoceV4(0x0A00_1101, 0x0A00_1201, 0x718d, true, 0, 4791, buf, 3, udpPayload.length))
                    .as("IPv4 Identification is covered").isFalse();

            PacketHeaders h = new PacketHeaders();
            assertThat(new PacketParser().parse(buf, 3, udpPayload.length, Framing.ROCEV2, h))
                    .isEqualTo(RejectReason.OK);
            assertThat(h.opcode()).isEqualTo(Opcode.ROCE_CNP);
            assertThat(h.becn()).isTrue();
            assertThat(h.fecn()).isFalse();
            assertThat(h.destQp()).isEqualTo(0x118);
            assertThat(h.pkey()).isEqualTo(0xFFFF);
            assertThat(h.payloadLength()).isZero();
        }
    }

    /**
     * scapy's "RoCE layer" example in test/contrib/roce.uts: a UC SEND Only over IPv4 192.168.0.7 to itself, ID 1144,
     * DF, UDP 49152 to 4791, 18 bytes of payload plus 2 pad bytes; scapy computes ICRC 0x78f353f3 as it reads the
     * wire bytes big-endian (zlib.crc32 written little-endian), so the wire bytes are 78 f3 53 f3. An independent
     * implementation, not hardware.
     */
    @Test
    void shouldMatchScapyUcSendOnlyExampleWhenRoceV4() {
        byte[] udpPayload = HexFormat.of().parseHex("2460ffff000000d300cf1710"
                + "4630818be28935d90e9a955054 01be885e50 0000".replace(" ", "") + "78f353f3");
        for (BufferKind kind : BufferKind.values()) {
            ByteBuffer buf = wrap(kind, udpPayload, 0);
            assertThat(icrc.checkRoceV4(0xC0A8_0007, 0xC0A8_0007, 1144, true, 49152, 4791, buf, 0, udpPayload.length))
                    .as("%s", kind).isTrue();
            PacketHeaders h = new PacketHeaders();
            assertThat(new PacketParser().parse(buf, 0, udpPayload.length, Framing.ROCEV2, h))
                    .isEqualTo(RejectReason.OK);
            assertThat(h.opcode()).isEqualTo(Opcode.UC_SEND_ONLY);
            assertThat(h.migReq()).isTrue();
            assertThat(h.padCount()).isEqualTo(2);
            assertThat(h.destQp()).isEqualTo(211);
            assertThat(h.psn()).isEqualTo(13571856);
            assertThat(h.payloadLength()).isEqualTo(18);
        }
    }

    @Test
    void shouldAgreeWithReferenceImplementationWhenPacketsAreRandom() {
        long seed = 0x1C5C_0001L;
        System.out.println("IcrcTest reference seed " + seed);
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int n = 0; n < 3_000; n++) {
            int kindIndex = rnd.nextInt(BufferKind.values().length + 1);
            int offset = rnd.nextInt(0, 16);
            int bodyLength = rnd.nextInt(0, 3_000);
            int type = rnd.nextInt(4); // IB local, IB global, RoCE v4, RoCE v6
            int headers = type == 0 ? 8 + 12 : type == 1 ? 48 + 12 : 12;
            byte[] packet = new byte[headers + bodyLength];
            for (int i = 0; i < packet.length; i++) {
                packet[i] = (byte) rnd.nextInt();
            }
            if (type < 2) {
                packet[1] = (byte) ((packet[1] & ~3) | (type == 0 ? 2 : 3));
            }
            ByteBuffer buf = kindIndex < BufferKind.values().length
                    ? wrap(BufferKind.values()[kindIndex], packet, offset)
                    : wrap(BufferKind.HEAP_BIG_ENDIAN, packet, offset).asReadOnlyBuffer();
            String what = "seed " + seed + ", case " + n + ", type " + type + ", length " + packet.length + ", "
                    + (kindIndex < BufferKind.values().length ? BufferKind.values()[kindIndex] : "read-only");
            int srcIp = rnd.nextInt();
            int dstIp = rnd.nextInt();
            int id = rnd.nextInt(0x10000);
            boolean df = rnd.nextBoolean();
            int sport = rnd.nextInt(0x10000);
            Gid src = Gid.of(rnd.nextLong(), rnd.nextLong());
            Gid dst = Gid.of(rnd.nextLong(), rnd.nextLong());
            int expected;
            int actual;
            switch (type) {
                case 0:
                case 1:
                    expected = ReferenceIcrc.ib(packet);
                    actual = icrc.computeIb(buf, offset, packet.length);
                    break;
                case 2:
                    expected = ReferenceIcrc.roceV4(srcIp, dstIp, id, df, sport, 4791, packet);
                    actual = icrc.computeRoceV4(srcIp, dstIp, id, df, sport, 4791, buf, offset, packet.length);
                    break;
                default:
                    expected = ReferenceIcrc.roceV6(src, dst, sport, 4791, packet);
                    actual = icrc.computeRoceV6(src, dst, sport, 4791, buf, offset, packet.length);
                    break;
            }
            assertThat(actual).as(what).isEqualTo(expected);
        }
    }

    @Test
    void shouldChangeOnlyWhenAnInvariantBitChangesWhenNativeIb() {
        long seed = 0x1C5C_0002L;
        SplittableRandom rnd = new SplittableRandom(seed);
        for (boolean global : new boolean[] {false, true}) {
            int headers = global ? 60 : 20;
            byte[] packet = new byte[headers + 37];
            for (int i = 0; i < packet.length; i++) {
                packet[i] = (byte) rnd.nextInt();
            }
            packet[1] = (byte) ((packet[1] & ~3) | (global ? 3 : 2));
            int original = icrc.computeIb(ByteBuffer.wrap(packet), 0, packet.length);
            for (int pos = 0; pos < packet.length; pos++) {
                int variant = variantBits(global, pos);
                for (int flip = 1; flip < 256; flip++) {
                    if (pos == 1 && (flip & 3) != 0) {
                        continue; // LNH decides the framing itself
                    }
                    byte[] changed = packet.clone();
                    changed[pos] ^= (byte) flip;
                    int value = icrc.computeIb(ByteBuffer.wrap(changed), 0, changed.length);
                    String what = String.format("seed %d, global %b, byte %d, flip 0x%02x", seed, global, pos, flip);
                    if ((flip & ~variant) == 0) {
                        assertThat(value).as(what + ": masked field").isEqualTo(original);
                    } else {
                        assertThat(value).as(what + ": invariant bit").isNotEqualTo(original);
                    }
                }
            }
        }
    }

    /** Bits of byte {@code pos} that routers or switches may change (IBA 7.8.1). */
    private static int variantBits(boolean global, int pos) {
        if (global) {
            if (pos < 8) {
                return 0xFF; // whole LRH
            }
            int grh = pos - 8;
            if (grh == 0) {
                return 0x0F; // TClass high nibble (IPVer is covered)
            }
            if (grh >= 1 && grh <= 3 || grh == 7) {
                return 0xFF; // TClass low nibble, FlowLabel, HopLmt
            }
            return pos == 48 + 4 ? 0xFF : 0; // BTH resv8a
        }
        if (pos == 0) {
            return 0xF0; // VL
        }
        return pos == 8 + 4 ? 0xFF : 0;
    }

    @Test
    void shouldChangeWithEveryCoveredInputAndNotWithResv8aWhenRoce() {
        SplittableRandom rnd = new SplittableRandom(0x1C5C_0003L);
        byte[] payload = new byte[12 + 16 + 24];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) rnd.nextInt();
        }
        ByteBuffer buf = ByteBuffer.wrap(payload);
        int v4 = icrc.computeRoceV4(0x0A000001, 0x0A000002, 7, true, 1000, 4791, buf, 0, payload.length);
        assertThat(icrc.computeRoceV4(0x0A000003, 0x0A000002, 7, true, 1000, 4791, buf, 0, payload.length))
                .isNotEqualTo(v4);
        assertThat(icrc.computeRoceV4(0x0A000001, 0x0A000003, 7, true, 1000, 4791, buf, 0, payload.length))
                .isNotEqualTo(v4);
        assertThat(icrc.computeRoceV4(0x0A000001, 0x0A000002, 8, true, 1000, 4791, buf, 0, payload.length))
                .isNotEqualTo(v4);
        assertThat(icrc.computeRoceV4(0x0A000001, 0x0A000002, 7, false, 1000, 4791, buf, 0, payload.length))
                .isNotEqualTo(v4);
        assertThat(icrc.computeRoceV4(0x0A000001, 0x0A000002, 7, true, 1001, 4791, buf, 0, payload.length))
                .isNotEqualTo(v4);
        assertThat(icrc.computeRoceV4(0x0A000001, 0x0A000002, 7, true, 1000, 4792, buf, 0, payload.length))
                .isNotEqualTo(v4);
        assertThat(icrc.computeRoceV4(0x0A000001, 0x0A000002, 7, true, 1000, 4791, buf, 0, payload.length - 4))
                .isNotEqualTo(v4);
        Gid a = Gid.of(0xFE80_0000_0000_0000L, 1);
        Gid b = Gid.of(0xFE80_0000_0000_0000L, 2);
        int v6 = icrc.computeRoceV6(a, b, 1000, 4791, buf, 0, payload.length);
        assertThat(v6).isNotEqualTo(v4);
        assertThat(icrc.computeRoceV6(b, a, 1000, 4791, buf, 0, payload.length)).isNotEqualTo(v6);
        assertThat(icrc.computeRoceV6(a, b, 1000, 4790, buf, 0, payload.length)).isNotEqualTo(v6);

        for (int pos = 0; pos < payload.length; pos++) {
            byte saved = payload[pos];
            payload[pos] ^= (byte) (1 + rnd.nextInt(255));
            int changed4 = icrc.computeRoceV4(0x0A000001, 0x0A000002, 7, true, 1000, 4791, buf, 0, payload.length);
            int changed6 = icrc.computeRoceV6(a, b, 1000, 4791, buf, 0, payload.length);
            payload[pos] = saved;
            if (pos == BthDescriptor.RESV8A_OFFSET) {
                assertThat(changed4).as("byte %d", pos).isEqualTo(v4);
                assertThat(changed6).as("byte %d", pos).isEqualTo(v6);
            } else {
                assertThat(changed4).as("byte %d", pos).isNotEqualTo(v4);
                assertThat(changed6).as("byte %d", pos).isNotEqualTo(v6);
            }
        }
    }

    @Test
    void shouldLeavePositionLimitAndMarkAloneWhenComputing() {
        for (BufferKind kind : BufferKind.values()) {
            ByteBuffer buf = kind.allocate(3000);
            buf.position(100).mark().position(2000).limit(2900);
            icrc.computeRoceV4(1, 2, 3, true, 4, 5, buf, 17, 2800);
            icrc.computeIb(buf, 5, 2800);
            assertThat(buf.position()).isEqualTo(2000);
            assertThat(buf.limit()).isEqualTo(2900);
            assertThat(buf.reset().position()).isEqualTo(100);
        }
    }

    @Test
    void shouldStoreIcrcLeastSignificantByteFirstWhateverTheBufferOrder() {
        for (BufferKind kind : BufferKind.values()) {
            ByteBuffer buf = kind.allocate(6);
            Icrc.write(buf, 1, 0x2a00fd82);
            assertThat(BufferKind.bytes(buf)).containsExactly(0, 0x82, 0xfd, 0x00, 0x2a, 0);
            assertThat(Icrc.read(buf, 1)).isEqualTo(0x2a00fd82);
        }
    }

    @Test
    void shouldWriteWhatCheckAcceptsWhenRoundTripped() {
        SplittableRandom rnd = new SplittableRandom(0x1C5C_0004L);
        byte[] bytes = new byte[8 + 40 + 12 + 40 + 4];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) rnd.nextInt();
        }
        bytes[1] = (byte) ((bytes[1] & ~3) | 3);
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        icrc.writeIb(buf, 0, bytes.length);
        assertThat(icrc.checkIb(buf, 0, bytes.length)).isTrue();
        bytes[70] ^= 1;
        assertThat(icrc.checkIb(buf, 0, bytes.length)).isFalse();

        Gid a = Gid.of(1, 2);
        Gid b = Gid.of(3, 4);
        icrc.writeRoceV6(a, b, 9, 4791, buf, 8, 56);
        assertThat(icrc.checkRoceV6(a, b, 9, 4791, buf, 8, 56)).isTrue();
        assertThat(icrc.checkRoceV6(b, a, 9, 4791, buf, 8, 56)).isFalse();
        icrc.writeRoceV4(1, 2, 3, false, 9, 4791, buf, 8, 56);
        assertThat(icrc.checkRoceV4(1, 2, 3, false, 9, 4791, buf, 8, 56)).isTrue();
        assertThat(icrc.checkRoceV4(1, 2, 3, true, 9, 4791, buf, 8, 56)).isFalse();
    }

    @Test
    void shouldRejectOrThrowByContractWhenPacketIsTooShort() {
        ByteBuffer buf = ByteBuffer.allocate(64);
        LrhDescriptor.lnh(buf, 0, LrhDescriptor.LNH_IBA_GLOBAL);
        assertThat(icrc.checkIb(buf, 0, 8 + 40 + 12 + 3)).isFalse();
        assertThat(icrc.checkIb(buf, 0, 4)).isFalse();
        assertThat(icrc.checkRoceV4(1, 2, 3, true, 4, 5, buf, 0, 15)).isFalse();
        assertThat(icrc.checkRoceV6(Gid.ZERO, Gid.ZERO, 4, 5, buf, 0, 0)).isFalse();
        assertThatThrownBy(() -> icrc.computeIb(buf, 0, 59))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lengthWithoutIcrc=59");
        assertThatThrownBy(() -> icrc.computeRoceV4(1, 2, 3, true, 4, 5, buf, 0, 11))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lengthWithoutIcrc=11");
        assertThatThrownBy(() -> icrc.computeRoceV4(1, 2, 3, true, 4, 5, buf, 60, 12))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> icrc.checkIb(buf, 10, 60)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    /**
     * An RC FLUSH of Linux's rxe as captured on the wire (Debian 13, 6.12.118, 192.0.2.2 to 192.0.2.1, IP ID 0x5fb2,
     * DF): its ICRC covers the masked headers, then BTH, FETH and RETH once more, unmasked (rxe's opcode table gives
     * FLUSH no payload offset). Checked, its IP ID recovered, and written again the same by the gathering path.
     */
    @Test
    void shouldComputeLinuxRxesFlushIcrcOverThePacketTwice() {
        byte[] udp = HexFormat.of().parseHex("1c00ffff0000000780799b710000000100000000000120100001020000000100dba65d5c");
        ByteBuffer buf = ByteBuffer.wrap(udp);
        int guest = 0xC000_0202;
        int host = 0xC000_0201;
        assertThat(icrc.checkRoceV4(guest, host, 0x5fb2, true, 0xc0ee, 4791, buf, 0, udp.length)).isTrue();
        assertThat(icrc.recoverRoceV4Id(guest, host, true, 0xc0ee, 4791, buf, 0, udp.length)).isEqualTo(0x5fb2);
        int wire = Icrc.read(buf, udp.length - Icrc.LENGTH);
        assertThat(icrc.startRoceV4(guest, host, 0x5fb2, true, 0xc0ee, 4791, buf, 0, udp.length - Icrc.LENGTH)
                .add(buf, 12, 20).value()).isEqualTo(wire);
        // the same bytes as any other opcode: IBTA's ICRC, which is not the one rxe sent
        byte[] other = udp.clone();
        other[0] = 0x0A; // RC RDMA WRITE ONLY's code, for the CRC's sake
        ByteBuffer o = ByteBuffer.wrap(other);
        icrc.writeRoceV4(guest, host, 0x5fb2, true, 0xc0ee, 4791, o, 0, other.length);
        o.put(0, (byte) 0x1C);
        assertThat(icrc.checkRoceV4(guest, host, 0x5fb2, true, 0xc0ee, 4791, o, 0, other.length)).isFalse();
        Gid a = Gid.of(1, 2);
        Gid b = Gid.of(3, 4);
        icrc.writeRoceV6(a, b, 9, 4791, buf, 0, udp.length);
        assertThat(icrc.checkRoceV6(a, b, 9, 4791, buf, 0, udp.length)).isTrue();
    }
}
