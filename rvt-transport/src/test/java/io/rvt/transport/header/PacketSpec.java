package io.rvt.transport.header;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Gid;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/** Random field values for one packet, able to write the packet and to check what a parser made of it. */
final class PacketSpec {
    // fixed RoCEv2 pseudo-header inputs for the ICRC of generated RoCE packets
    static final int SRC_IP = 0x0A00_0001;
    static final int DST_IP = 0x0A00_0002;
    static final int IP_ID = 0x1234;
    static final int UDP_SRC_PORT = 0xC001;

    final Framing framing;
    final boolean global;
    final int opcode;
    final int payloadLength;

    int vl;
    int sl;
    int dlid;
    int slid;
    int trafficClass;
    int flowLabel;
    int hopLimit;
    Gid sgid;
    Gid dgid;
    boolean se;
    boolean migReq;
    boolean ackReq;
    int pkey;
    int destQp;
    int psn;
    long va;
    int rkey;
    int dmaLength;
    int aeth;
    int qkey;
    int srcQp;
    int immediate;
    int iethRkey;
    int placementType;
    int selectivityLevel;
    long swapAdd;
    long compare;
    long origRemData;
    byte[] payload;

    private PacketSpec(Framing framing, boolean global, int opcode, int payloadLength) {
        this.framing = framing;
        this.global = global;
        this.opcode = opcode;
        this.payloadLength = payloadLength;
    }

    static PacketSpec random(SplittableRandom rnd, Framing framing, boolean global, int opcode, int payloadLength) {
        PacketSpec s = new PacketSpec(framing, global, opcode, payloadLength);
        s.vl = rnd.nextInt(16);
        s.sl = rnd.nextInt(16);
        s.dlid = rnd.nextInt(0x10000);
        s.slid = rnd.nextInt(0x10000);
        s.trafficClass = rnd.nextInt(256);
        s.flowLabel = rnd.nextInt(1 << 20);
        s.hopLimit = rnd.nextInt(256);
        s.sgid = Gid.of(rnd.nextLong(), rnd.nextLong());
        s.dgid = Gid.of(rnd.nextLong(), rnd.nextLong());
        s.se = rnd.nextBoolean();
        s.migReq = rnd.nextBoolean();
        s.ackReq = rnd.nextBoolean();
        s.pkey = rnd.nextInt(0x10000);
        s.destQp = rnd.nextInt(1 << 24);
        s.psn = rnd.nextInt(1 << 24);
        s.va = rnd.nextLong();
        s.rkey = rnd.nextInt();
        s.dmaLength = rnd.nextInt();
        s.aeth = rnd.nextInt();
        s.qkey = rnd.nextInt();
        s.iethRkey = rnd.nextInt();
        s.placementType = rnd.nextInt(16);
        s.selectivityLevel = rnd.nextInt(4);
        s.immediate = rnd.nextInt();
        s.iethRkey = rnd.nextInt();
        s.swapAdd = rnd.nextLong();
        s.compare = rnd.nextLong();
        s.origRemData = rnd.nextLong();
        s.payload = new byte[payloadLength];
        for (int i = 0; i < payloadLength; i++) {
            s.payload[i] = (byte) rnd.nextInt();
        }
        return s;
    }

    int length() {
        return framing == Framing.IB_LRH
                ? PacketBuilder.ibLength(opcode, global, payloadLength)
                : PacketBuilder.roceLength(opcode, payloadLength);
    }

    /** Writes the packet, ICRC included, at {@code offset}; returns its length. */
    int write(ByteBuffer buf, int offset, Icrc icrc) {
        int length = length();
        int pad = PacketBuilder.padCount(payloadLength);
        int i = offset;
        if (framing == Framing.IB_LRH) {
            int lnh = global ? LrhDescriptor.LNH_IBA_GLOBAL : LrhDescriptor.LNH_IBA_LOCAL;
            i = LrhDescriptor.write(buf, i, vl, sl, lnh, dlid, 0, slid);
            if (global) {
                i = GrhDescriptor.write(buf, i, trafficClass, flowLabel, 0, hopLimit, sgid, dgid);
            }
        }
        i = BthDescriptor.write(buf, i, opcode, se, migReq, pad, pkey, destQp, ackReq, psn);
        int ext = Opcode.extensionHeaders(opcode);
        if ((ext & ExtensionHeader.DETH) != 0) {
            i = DethDescriptor.write(buf, i, qkey, srcQp);
        }
        if ((ext & ExtensionHeader.FETH) != 0) {
            i = FethDescriptor.write(buf, i, placementType, selectivityLevel);
        }
        if ((ext & ExtensionHeader.RETH) != 0) {
            i = RethDescriptor.write(buf, i, va, rkey, dmaLength);
        }
        if ((ext & ExtensionHeader.ATOMIC_ETH) != 0) {
            i = AtomicEthDescriptor.write(buf, i, va, rkey, swapAdd, compare);
        }
        if ((ext & ExtensionHeader.AETH) != 0) {
            i = AethDescriptor.write(buf, i, aeth >>> 24, aeth);
        }
        if ((ext & ExtensionHeader.ATOMIC_ACK_ETH) != 0) {
            i = AtomicAckEthDescriptor.write(buf, i, origRemData);
        }
        if ((ext & ExtensionHeader.IMM_DT) != 0) {
            i = ImmDtDescriptor.write(buf, i, immediate);
        }
        if ((ext & ExtensionHeader.IETH) != 0) {
            i = IethDescriptor.write(buf, i, iethRkey);
        }
        if (Opcode.isCnp(opcode)) {
            for (int k = 0; k < Opcode.CNP_RESERVED_LENGTH; k++) {
                buf.put(i++, (byte) 0);
            }
        }
        buf.put(i, payload, 0, payloadLength);
        i = PacketBuilder.writePad(buf, i + payloadLength, pad);
        assertThat(i + Icrc.LENGTH).isEqualTo(offset + length);
        if (framing == Framing.IB_LRH) {
            PacketBuilder.fillIbLengths(buf, offset, length);
            icrc.writeIb(buf, offset, length);
        } else {
            icrc.writeRoceV4(SRC_IP, DST_IP, IP_ID, true, UDP_SRC_PORT, Framing.ROCEV2_UDP_PORT, buf, offset, length);
        }
        return length;
    }

    void assertParsed(PacketHeaders h, int offset) {
        int length = length();
        assertThat(h.result()).as("%s", h).isEqualTo(RejectReason.OK);
        assertThat(h.framing()).isEqualTo(framing);
        assertThat(h.offset()).isEqualTo(offset);
        assertThat(h.length()).isEqualTo(length);
        int bth = offset;
        if (framing == Framing.IB_LRH) {
            assertThat(h.lrhOffset()).isEqualTo(offset);
            assertThat(h.vl()).isEqualTo(vl);
            assertThat(h.sl()).isEqualTo(sl);
            assertThat(h.lnh()).isEqualTo(global ? 3 : 2);
            assertThat(h.dlid()).isEqualTo(dlid);
            assertThat(h.slid()).isEqualTo(slid);
            assertThat(h.packetLengthWords() * 4).isEqualTo(length);
            bth += LrhDescriptor.LENGTH;
            assertThat(h.hasGrh()).isEqualTo(global);
            if (global) {
                assertThat(h.grhOffset()).isEqualTo(bth);
                assertThat(h.trafficClass()).isEqualTo(trafficClass);
                assertThat(h.flowLabel()).isEqualTo(flowLabel);
                assertThat(h.hopLimit()).isEqualTo(hopLimit);
                assertThat(h.nextHeader()).isEqualTo(GrhDescriptor.NEXT_HEADER_IBA);
                assertThat(h.grhPayloadLength()).isEqualTo(length - 48);
                assertThat(h.sgidEquals(sgid)).isTrue();
                assertThat(h.dgidEquals(dgid)).isTrue();
                assertThat(h.sgid()).isEqualTo(sgid);
                assertThat(h.dgid()).isEqualTo(dgid);
                bth += GrhDescriptor.LENGTH;
            }
        } else {
            assertThat(h.hasLrh()).isFalse();
            assertThat(h.hasGrh()).isFalse();
        }
        assertThat(h.bthOffset()).isEqualTo(bth);
        assertThat(h.opcode()).isEqualTo(opcode);
        assertThat(h.solicitedEvent()).isEqualTo(se);
        assertThat(h.migReq()).isEqualTo(migReq);
        assertThat(h.ackReq()).isEqualTo(ackReq);
        assertThat(h.padCount()).isEqualTo(PacketBuilder.padCount(payloadLength));
        assertThat(h.pkey()).isEqualTo(pkey);
        assertThat(h.destQp()).isEqualTo(destQp);
        assertThat(h.psn()).isEqualTo(psn);
        assertThat(h.fecn()).isFalse();
        assertThat(h.becn()).isFalse();
        int ext = Opcode.extensionHeaders(opcode);
        assertThat(h.extensions()).isEqualTo(ext);
        assertThat(h.rethVirtualAddress()).isEqualTo((ext & ExtensionHeader.RETH) != 0 ? va : 0);
        assertThat(h.rethRkey()).isEqualTo((ext & ExtensionHeader.RETH) != 0 ? rkey : 0);
        assertThat(h.rethDmaLength()).isEqualTo((ext & ExtensionHeader.RETH) != 0 ? dmaLength : 0);
        assertThat(h.atomicVirtualAddress()).isEqualTo((ext & ExtensionHeader.ATOMIC_ETH) != 0 ? va : 0);
        assertThat(h.atomicRkey()).isEqualTo((ext & ExtensionHeader.ATOMIC_ETH) != 0 ? rkey : 0);
        assertThat(h.atomicSwapAddData()).isEqualTo((ext & ExtensionHeader.ATOMIC_ETH) != 0 ? swapAdd : 0);
        assertThat(h.atomicCompareData()).isEqualTo((ext & ExtensionHeader.ATOMIC_ETH) != 0 ? compare : 0);
        assertThat(h.aeth()).isEqualTo((ext & ExtensionHeader.AETH) != 0 ? aeth : 0);
        assertThat(h.atomicAckOrigRemData()).isEqualTo((ext & ExtensionHeader.ATOMIC_ACK_ETH) != 0 ? origRemData : 0);
        assertThat(h.dethQkey()).isEqualTo((ext & ExtensionHeader.DETH) != 0 ? qkey : 0);
        assertThat(h.dethSrcQp()).isEqualTo((ext & ExtensionHeader.DETH) != 0 ? srcQp : 0);
        assertThat(h.immediateData()).isEqualTo((ext & ExtensionHeader.IMM_DT) != 0 ? immediate : 0);
        assertThat(h.iethRkey()).isEqualTo((ext & ExtensionHeader.IETH) != 0 ? iethRkey : 0);
        assertThat(h.fethPlacementType()).isEqualTo((ext & ExtensionHeader.FETH) != 0 ? placementType : 0);
        assertThat(h.fethSelectivityLevel()).isEqualTo((ext & ExtensionHeader.FETH) != 0 ? selectivityLevel : 0);
        for (int header : ExtensionHeader.WIRE_ORDER) {
            int expected = (ext & header) != 0 ? bth + Opcode.extensionOffset(opcode, header) : -1;
            assertThat(h.extensionOffset(header)).isEqualTo(expected);
        }
        assertThat(h.payloadOffset()).isEqualTo(bth + Opcode.headerLength(opcode));
        assertThat(h.payloadLength()).isEqualTo(payloadLength);
        assertThat(h.icrcOffset()).isEqualTo(offset + length - Icrc.LENGTH);
    }
}
