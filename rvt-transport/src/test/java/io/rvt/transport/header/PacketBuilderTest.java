package io.rvt.transport.header;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class PacketBuilderTest {

    @Test
    void shouldPadPayloadToAMultipleOfFour() {
        int[] expected = {0, 3, 2, 1, 0, 3, 2, 1, 0};
        for (int n = 0; n < expected.length; n++) {
            assertThat(PacketBuilder.padCount(n)).as("payload %d", n).isEqualTo(expected[n]);
            assertThat((n + PacketBuilder.padCount(n)) % 4).isZero();
        }
    }

    @Test
    void shouldCountHeadersPayloadPadAndIcrcWhenComputingLengths() {
        assertThat(PacketBuilder.roceLength(Opcode.RC_SEND_ONLY, 0)).isEqualTo(12 + 4);
        assertThat(PacketBuilder.roceLength(Opcode.RC_SEND_ONLY, 1)).isEqualTo(12 + 4 + 4);
        assertThat(PacketBuilder.roceLength(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE, 5)).isEqualTo(12 + 8 + 4 + 8 + 4);
        assertThat(PacketBuilder.roceLength(Opcode.RC_COMPARE_SWAP, 0)).isEqualTo(12 + 28 + 4);
        assertThat(PacketBuilder.roceLength(Opcode.ROCE_CNP, 0)).isEqualTo(12 + 16 + 4);
        assertThat(PacketBuilder.ibLength(Opcode.RC_SEND_ONLY, false, 3)).isEqualTo(8 + 12 + 4 + 4);
        assertThat(PacketBuilder.ibLength(Opcode.RC_SEND_ONLY, true, 3)).isEqualTo(8 + 40 + 12 + 4 + 4);
        assertThat(PacketBuilder.ibLength(Opcode.RC_SEND_ONLY, false, 4096)).isEqualTo(8 + 12 + 4096 + 4);
    }

    @Test
    void shouldThrowWithNamesAndValuesWhenArgumentsAreBad() {
        assertThatThrownBy(() -> PacketBuilder.roceLength(0x44, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0x44");
        assertThatThrownBy(() -> PacketBuilder.roceLength(Opcode.RC_ACKNOWLEDGE, 4))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("RC_ACKNOWLEDGE")
                .hasMessageContaining("payloadLength=4");
        assertThatThrownBy(() -> PacketBuilder.roceLength(Opcode.RC_SEND_ONLY, -1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PacketBuilder.ibLength(Opcode.RC_SEND_ONLY, true, 8192))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max=8188");
        ByteBuffer buf = ByteBuffer.allocate(64);
        assertThatThrownBy(() -> PacketBuilder.fillIbLengths(buf, 0, 30))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("length=30");
    }

    @Test
    void shouldFillPktLenAndPayLenWhenPacketIsGlobal() {
        ByteBuffer buf = BufferKind.DIRECT_LITTLE_ENDIAN.allocate(128);
        LrhDescriptor.write(buf, 4, 1, 2, LrhDescriptor.LNH_IBA_GLOBAL, 3, 0, 5);
        PacketBuilder.fillIbLengths(buf, 4, 100);
        assertThat(LrhDescriptor.packetLength(buf, 4)).isEqualTo(25);
        assertThat(GrhDescriptor.payloadLength(buf, 12)).isEqualTo(100 - 48);
        assertThat(LrhDescriptor.slid(buf, 4)).isEqualTo(5);

        LrhDescriptor.lnh(buf, 4, LrhDescriptor.LNH_IBA_LOCAL);
        GrhDescriptor.payloadLength(buf, 12, 0);
        PacketBuilder.fillIbLengths(buf, 4, 40);
        assertThat(LrhDescriptor.packetLength(buf, 4)).isEqualTo(10);
        assertThat(GrhDescriptor.payloadLength(buf, 12)).as("no GRH: untouched").isZero();
    }

    @Test
    void shouldWriteZeroPadBytes() {
        ByteBuffer buf = ByteBuffer.allocate(8);
        for (int i = 0; i < 8; i++) {
            buf.put(i, (byte) 0x55);
        }
        assertThat(PacketBuilder.writePad(buf, 2, 3)).isEqualTo(5);
        assertThat(BufferKind.bytes(buf)).containsExactly(0x55, 0x55, 0, 0, 0, 0x55, 0x55, 0x55);
    }
}
