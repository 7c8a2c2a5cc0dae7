package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.Gid;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** perftest's {@code struct pingpong_dest} as perftest writes it: the 108-byte text over TCP, 56 bytes with -R. */
class PerftestDestTest {
    private static final PerftestDest DEST = new PerftestDest(0, 16, 0x11, 0x123456, 0x1a2b, 0x7f12_3456_7000L,
            Gid.ipv4Mapped(0xc000_0201), 0);
    /** What perftest's KEY_PRINT_FMT_GID makes of the same values (sprintf, checked by hand against the format). */
    private static final String TEXT = "0000:0010:000011:123456:00001a2b:00007f1234567000:"
            + "00:00:00:00:00:00:00:00:00:00:ff:ff:c0:00:02:01:00000000:";

    @Test
    void shouldWritePerftestsTextInItsFixedBuffer() {
        byte[] wire = DEST.toText();
        assertThat(wire).hasSize(PerftestDest.TEXT_SIZE).hasSize(108);
        assertThat(TEXT).hasSize(107);
        assertThat(new String(wire, 0, 107, StandardCharsets.US_ASCII)).isEqualTo(TEXT);
        assertThat(wire[107]).isZero();
        assertThat(PerftestDest.parseText(wire)).isEqualTo(DEST);
    }

    @Test
    void shouldReadWhatPerftestWritesAndRefuseAnythingElse() {
        byte[] wire = Arrays.copyOf(TEXT.replace("0010", "0080").getBytes(StandardCharsets.US_ASCII), 108);
        assertThat(PerftestDest.parseText(wire).outReads()).isEqualTo(128);
        byte[] pingpong = Arrays.copyOf("0000:000011:123456:00000000000000000000ffffc0000201"
                .getBytes(StandardCharsets.US_ASCII), 108);
        assertThatThrownBy(() -> PerftestDest.parseText(pingpong)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not perftest's LID:OUT:QPN:PSN:RKEY:VADDR:GID:SRQN");
        byte[] bad = Arrays.copyOf(TEXT.replace("123456", "12x456").getBytes(StandardCharsets.US_ASCII), 108);
        assertThatThrownBy(() -> PerftestDest.parseText(bad)).hasMessageContaining("12x456");
    }

    @Test
    void shouldWriteTheStructureBigEndianForRdmaCm() {
        byte[] b = DEST.toBinary(1);
        assertThat(b).hasSize(56);
        ByteBuffer buf = ByteBuffer.wrap(b);
        assertThat(buf.getInt(8)).isEqualTo(0x11);
        assertThat(buf.getInt(16)).isEqualTo(0x1a2b);
        assertThat(buf.getLong(24)).isEqualTo(0x7f12_3456_7000L);
        assertThat(buf.getInt(52)).isEqualTo(1);
        assertThat(PerftestDest.parseBinary(b)).isEqualTo(DEST);
    }

    @Test
    void shouldPrintTheAddressLinesAsPerftest() {
        // perftest's "%#04x" prints 0 as 0000 and the rest with 0x
        assertThat(DEST.describe("local", true, true)).isEqualTo(" local address: LID 0000 QPN 0x0011 PSN 0x123456"
                + " OUT 0x10 RKey 0x001a2b VAddr 0x007f1234567000" + System.lineSeparator()
                + " GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:00:02:01");
        assertThat(DEST.describe("remote", false, false)).startsWith(" remote address: LID 0000 QPN 0x0011 PSN "
                + "0x123456" + System.lineSeparator());
    }

    @Test
    void shouldReadAVersionAsAtofDoes() {
        assertThat(PerftestComm.leadingNumber("6.06")).isEqualTo(6.06);
        assertThat(PerftestComm.leadingNumber("0000:000011:12")).isZero();
        assertThat(PerftestComm.leadingNumber("")).isZero();
        assertThat(RemotePerf.isV4Mapped(Gid.ipv4Mapped(0x7f00_0001))).isTrue();
        assertThat(RemotePerf.isV4Mapped(Gid.of(0xfd00_0000_0000_0000L, 1))).isFalse();
    }
}
