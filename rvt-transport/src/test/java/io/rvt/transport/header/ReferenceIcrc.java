package io.rvt.transport.header;

import io.rvt.api.Gid;
import java.util.zip.CRC32;

/**
 * A deliberately plain ICRC for cross-checking {@link Icrc}: build the whole masked pseudo-packet as a byte array,
 * byte by byte from the rules (IBA 7.8.1, RoCEv2 A17; rxe_icrc.c), and run {@link CRC32} over it once. Shares no
 * code with the class under test.
 */
final class ReferenceIcrc {
    private ReferenceIcrc() {
    }

    /** @param packet LRH .. last byte before the ICRC */
    static int ib(byte[] packet) {
        boolean global = (packet[1] & 3) == 3;
        byte[] p;
        if (global) {
            p = packet.clone();
            for (int i = 0; i < 8; i++) {
                p[i] = (byte) 0xFF; // whole LRH
            }
            p[8] = (byte) (p[8] | 0x0F); // TClass high nibble
            p[9] = (byte) 0xFF; // TClass low nibble + FlowLabel
            p[10] = (byte) 0xFF;
            p[11] = (byte) 0xFF;
            p[15] = (byte) 0xFF; // HopLmt
            p[48 + 4] = (byte) 0xFF; // BTH resv8a
        } else {
            p = packet.clone();
            p[0] = (byte) (p[0] | 0xF0); // VL
            p[8 + 4] = (byte) 0xFF; // BTH resv8a
        }
        return crc(p);
    }

    /** @param udpPayload BTH .. last byte before the ICRC */
    static int roceV4(int srcIp, int dstIp, int ipId, boolean df, int sport, int dport, byte[] udpPayload) {
        int udpLength = 8 + udpPayload.length + 4;
        int totalLength = 20 + udpLength;
        byte[] p = new byte[8 + 20 + 8 + udpPayload.length];
        int i = 0;
        for (; i < 8; i++) {
            p[i] = (byte) 0xFF;
        }
        p[i++] = 0x45;
        p[i++] = (byte) 0xFF; // TOS
        p[i++] = (byte) (totalLength >> 8);
        p[i++] = (byte) totalLength;
        p[i++] = (byte) (ipId >> 8);
        p[i++] = (byte) ipId;
        p[i++] = (byte) (df ? 0x40 : 0);
        p[i++] = 0;
        p[i++] = (byte) 0xFF; // TTL
        p[i++] = 17;
        p[i++] = (byte) 0xFF; // checksum
        p[i++] = (byte) 0xFF;
        for (int shift = 24; shift >= 0; shift -= 8) {
            p[i++] = (byte) (srcIp >> shift);
        }
        for (int shift = 24; shift >= 0; shift -= 8) {
            p[i++] = (byte) (dstIp >> shift);
        }
        i = udp(p, i, sport, dport, udpLength);
        System.arraycopy(udpPayload, 0, p, i, udpPayload.length);
        p[i + 4] = (byte) 0xFF; // BTH resv8a
        return crc(linuxFlush(p, udpPayload));
    }

    static int roceV6(Gid src, Gid dst, int sport, int dport, byte[] udpPayload) {
        int udpLength = 8 + udpPayload.length + 4;
        byte[] p = new byte[8 + 40 + 8 + udpPayload.length];
        int i = 0;
        for (; i < 8; i++) {
            p[i] = (byte) 0xFF;
        }
        p[i++] = 0x6F; // version 6, traffic class high nibble masked
        p[i++] = (byte) 0xFF;
        p[i++] = (byte) 0xFF;
        p[i++] = (byte) 0xFF;
        p[i++] = (byte) (udpLength >> 8);
        p[i++] = (byte) udpLength;
        p[i++] = 17;
        p[i++] = (byte) 0xFF; // hop limit
        System.arraycopy(src.toBytes(), 0, p, i, 16);
        i += 16;
        System.arraycopy(dst.toBytes(), 0, p, i, 16);
        i += 16;
        i = udp(p, i, sport, dport, udpLength);
        System.arraycopy(udpPayload, 0, p, i, udpPayload.length);
        p[i + 4] = (byte) 0xFF;
        return crc(linuxFlush(p, udpPayload));
    }

    private static int udp(byte[] p, int i, int sport, int dport, int udpLength) {
        p[i++] = (byte) (sport >> 8);
        p[i++] = (byte) sport;
        p[i++] = (byte) (dport >> 8);
        p[i++] = (byte) dport;
        p[i++] = (byte) (udpLength >> 8);
        p[i++] = (byte) udpLength;
        p[i++] = (byte) 0xFF;
        p[i++] = (byte) 0xFF;
        return i;
    }

    /** Linux's RC FLUSH (opcode 0x1C): the UDP payload once more, unmasked, after the pseudo-packet. */
    private static byte[] linuxFlush(byte[] p, byte[] udpPayload) {
        if ((udpPayload[0] & 0xFF) != 0x1C) {
            return p;
        }
        byte[] twice = java.util.Arrays.copyOf(p, p.length + udpPayload.length);
        System.arraycopy(udpPayload, 0, twice, p.length, udpPayload.length);
        return twice;
    }

    private static int crc(byte[] p) {
        CRC32 crc = new CRC32();
        crc.update(p);
        return (int) crc.getValue();
    }
}
