package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.Gid;
import io.rvt.launcher.pingpong.PingpongDest;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The examples' 52-byte {@code LID:QPN:PSN:GID} and their {@code inet_ntop} form of a GID. */
class PingpongDestTest {
    @Test
    void shouldWriteTheExamplesText() {
        Gid gid = Gid.of(HexFormat.of().parseHex("00000000000000000000ffffc0000201"));
        byte[] wire = new PingpongDest(0, 0x11, 0xabcdef, gid).toWire();
        assertThat(wire).hasSize(52);
        assertThat(new String(wire, 0, 51, StandardCharsets.US_ASCII))
                .isEqualTo("0000:000011:abcdef:00000000000000000000ffffc0000201");
        assertThat(wire[51]).isZero();
        assertThat(PingpongDest.parse(wire)).isEqualTo(new PingpongDest(0, 0x11, 0xabcdef, gid));
        assertThat(PingpongDest.parse(wire).describe())
                .isEqualTo("LID 0x0000, QPN 0x000011, PSN 0xabcdef, GID ::ffff:192.0.2.1");
    }

    @Test
    void shouldRefuseWhatIsNotTheExamplesText() {
        byte[] wire = new byte[52];
        byte[] t = "0000:000011:zz:".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(t, 0, wire, 0, t.length);
        assertThatThrownBy(() -> PingpongDest.parse(wire)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'0000:000011:zz:' is not the examples' LID:QPN:PSN:GID");
    }

    @Test
    void shouldPrintGidsAsInetNtopDoes() {
        assertThat(ntop("00000000000000000000000000000000")).isEqualTo("::");
        assertThat(ntop("00000000000000000000000000000001")).isEqualTo("::1");
        assertThat(ntop("fe800000000000000000000000000001")).isEqualTo("fe80::1");
        assertThat(ntop("20010db8000000000000000000000000")).isEqualTo("2001:db8::");
        assertThat(ntop("20010db8000000010000000000000002")).isEqualTo("2001:db8:0:1::2");
        assertThat(ntop("00000000000000000000ffff7f000001")).isEqualTo("::ffff:127.0.0.1");
        assertThat(ntop("000000000000000000000000c0000201")).isEqualTo("::192.0.2.1");
        assertThat(ntop("fe800000000000005054fffe123456ab")).isEqualTo("fe80::5054:fffe:1234:56ab");
        assertThat(ntop("20010db8000100020003000400050006")).isEqualTo("2001:db8:1:2:3:4:5:6");
    }

    private static String ntop(String hex) {
        return PingpongDest.ntop(Gid.of(HexFormat.of().parseHex(hex)));
    }
}
