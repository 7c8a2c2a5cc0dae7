package io.rvt.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class GidTest {

    private static final byte[] SAMPLE = {
        (byte) 0xFE, (byte) 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x11, 0x75, 0x00, 0x00, 0x6F, (byte) 0xA1, 0x02
    };

    @Test
    void shouldSplitBytesInNetworkOrderWhenCreatedFromBytes() {
        Gid g = Gid.of(SAMPLE);
        assertThat(g.subnetPrefix()).isEqualTo(0xFE80_0000_0000_0000L);
        assertThat(g.interfaceId()).isEqualTo(0x0011_7500_006F_A102L);
        assertThat(g.toBytes()).containsExactly(SAMPLE);
    }

    @Test
    void shouldRoundTripBytesWhenRandomGidsAreConverted() {
        long seed = 0x61D_0001L;
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int i = 0; i < 1000; i++) {
            byte[] raw = new byte[16];
            for (int j = 0; j < 16; j++) {
                raw[j] = (byte) rnd.nextInt(256);
            }
            Gid g = Gid.of(raw);
            assertThat(g.toBytes()).as("seed %d, case %d", seed, i).containsExactly(raw);
            assertThat(Gid.of(g.subnetPrefix(), g.interfaceId())).as("seed %d, case %d", seed, i).isEqualTo(g);
        }
    }

    @Test
    void shouldRejectRawWhenNot16Bytes() {
        assertThatThrownBy(() -> Gid.of(new byte[15])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("16").hasMessageContaining("15");
        assertThatThrownBy(() -> Gid.of(new byte[17])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("17");
        assertThatThrownBy(() -> Gid.of((byte[]) null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null");
    }

    @Test
    void shouldReturnZeroConstantWhenBothHalvesAreZero() {
        assertThat(Gid.of(0, 0)).isSameAs(Gid.ZERO);
        assertThat(Gid.of(new byte[16])).isSameAs(Gid.ZERO);
    }

    @Test
    void shouldReadAndWriteNetworkOrderAtIndexWhenBufferIsBigEndian() {
        ByteBuffer buf = ByteBuffer.allocate(40);
        buf.position(3);
        Gid g = Gid.of(SAMPLE);
        g.write(buf, 7);
        byte[] at = Arrays.copyOfRange(buf.array(), 7, 23);
        assertThat(at).containsExactly(SAMPLE);
        assertThat(buf.position()).as("absolute write leaves the position").isEqualTo(3);
        assertThat(Gid.read(buf, 7)).isEqualTo(g);
        assertThat(buf.position()).isEqualTo(3);
        assertThat(buf.array()[6]).isZero();
        assertThat(buf.array()[23]).isZero();
    }

    @Test
    void shouldReadAndWriteNetworkOrderWhenBufferIsLittleEndian() {
        for (ByteBuffer buf : new ByteBuffer[] {
            ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN),
            ByteBuffer.allocateDirect(32).order(ByteOrder.LITTLE_ENDIAN)}) {
            Gid g = Gid.of(SAMPLE);
            g.write(buf, 4);
            byte[] at = new byte[16];
            for (int i = 0; i < 16; i++) {
                at[i] = buf.get(4 + i);
            }
            assertThat(at).as("bytes written to a %s buffer", buf.order()).containsExactly(SAMPLE);
            assertThat(buf.order()).isEqualTo(ByteOrder.LITTLE_ENDIAN);
            ByteBuffer in = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).put(SAMPLE);
            assertThat(Gid.read(in, 0)).as("read from a little-endian buffer").isEqualTo(g);
        }
    }

    @Test
    void shouldFormatEightGroupsOfFourHexDigitsWhenToStringIsCalled() {
        assertThat(Gid.of(SAMPLE).toString()).isEqualTo("fe80:0000:0000:0000:0011:7500:006f:a102");
        assertThat(Gid.ZERO.toString()).isEqualTo("0000:0000:0000:0000:0000:0000:0000:0000");
        assertThat(Gid.of(-1L, -1L).toString()).isEqualTo("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff");
        assertThat(Gid.of(0x0001_0002_0003_0004L, 0x0005_0006_0007_0008L).toString())
                .isEqualTo("0001:0002:0003:0004:0005:0006:0007:0008");
    }

    @Test
    void shouldOrderLikeMemcmpWhenCompareBytesIsCalled() {
        long seed = 0x61D_0002L;
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int i = 0; i < 5000; i++) {
            byte[] a = new byte[16];
            byte[] b = new byte[16];
            for (int j = 0; j < 16; j++) {
                a[j] = (byte) rnd.nextInt(256);
            }
            System.arraycopy(a, 0, b, 0, 16);
            // differ at a random position (or not at all), so that long common prefixes are covered
            int k = rnd.nextInt(17);
            if (k < 16) {
                b[k] = (byte) rnd.nextInt(256);
                for (int j = k + 1; j < 16; j++) {
                    b[j] = (byte) rnd.nextInt(256);
                }
            }
            int expected = Integer.signum(Arrays.compareUnsigned(a, b));
            assertThat(Integer.signum(Gid.of(a).compareBytes(Gid.of(b))))
                    .as("seed %d, case %d: %s vs %s", seed, i, Gid.of(a), Gid.of(b)).isEqualTo(expected);
            assertThat(Integer.signum(Gid.of(b).compareBytes(Gid.of(a))))
                    .as("seed %d, case %d (reversed)", seed, i).isEqualTo(-expected);
        }
    }

    @Test
    void shouldOrderHighBytesUnsignedWhenSignBitsDiffer() {
        Gid low = Gid.of(0x7FFF_FFFF_FFFF_FFFFL, 0);
        Gid high = Gid.of(0x8000_0000_0000_0000L, 0);
        assertThat(low.compareBytes(high)).isNegative();
        assertThat(high.compareBytes(low)).isPositive();
        assertThat(Gid.of(0, 0x80L << 56).compareBytes(Gid.of(0, 1))).isPositive();
        assertThat(high.compareBytes(Gid.of(0x8000_0000_0000_0000L, 0))).isZero();
    }

    @Test
    void shouldMapIpv4AddressWhenIpv4MappedIsCalled() {
        Gid g = Gid.ipv4Mapped(0xC0A8_0101); // 192.168.1.1
        assertThat(g.toBytes()).containsExactly(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xFF, (byte) 0xFF,
                (byte) 192, (byte) 168, 1, 1);
        assertThat(g.toString()).isEqualTo("0000:0000:0000:0000:0000:ffff:c0a8:0101");
        assertThat(Gid.ipv4Mapped(-1).interfaceId()).isEqualTo(0x0000_FFFF_FFFF_FFFFL);
    }

    @Test
    void shouldBeMulticastOnlyWhenFirstByteIsFF() {
        assertThat(Gid.of(0xFF12_401B_0000_0000L, 1).isMulticast()).isTrue();
        assertThat(Gid.of(0xFF00_0000_0000_0000L, 0).isMulticast()).isTrue();
        assertThat(Gid.of(0xFE80_0000_0000_0000L, 0).isMulticast()).isFalse();
        assertThat(Gid.of(0x00FF_0000_0000_0000L, 0).isMulticast()).isFalse();
        assertThat(Gid.of(0, -1L).isMulticast()).isFalse();
        assertThat(Gid.ZERO.isMulticast()).isFalse();
    }

    @Test
    void shouldBeEqualWithSameHashWhenBothHalvesMatch() {
        Gid a = Gid.of(SAMPLE);
        Gid b = Gid.of(0xFE80_0000_0000_0000L, 0x0011_7500_006F_A102L);
        assertThat(a).isEqualTo(b).isNotSameAs(b);
        assertThat(a.hashCode()).isEqualTo(b.hashCode());
        assertThat(a).isNotEqualTo(Gid.of(0xFE80_0000_0000_0000L, 0x0011_7500_006F_A103L));
        assertThat(a).isNotEqualTo(Gid.of(0xFE80_0000_0000_0001L, 0x0011_7500_006F_A102L));
        assertThat(Gid.of(1, 2)).isNotEqualTo(Gid.of(2, 1));
        assertThat(a).isNotEqualTo(null).isNotEqualTo("fe80::");
    }
}
