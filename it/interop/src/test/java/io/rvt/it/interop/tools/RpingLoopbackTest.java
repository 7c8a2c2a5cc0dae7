package io.rvt.it.interop.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** rvt's rping server and client against each other, on two driver-jni HCAs of this JVM. */
class RpingLoopbackTest {
    @ParameterizedTest
    @CsvSource({"127.0.0.1, 64, 10", "::1, 64, 10", "127.0.0.1, 65535, 3", "::1, 65535, 3"})
    void shouldReadAndWriteEveryPingBack(String address, int size, int count) throws Exception {
        try (LoopbackPair pair = new LoopbackPair(address)) {
            String[] common = {"-p", "17174", "-C", Integer.toString(count), "-S", Integer.toString(size), "-V",
                "--timeout", "60"};
            ToolResult[] r = pair.run(new Rping(), args("-s", common), new Rping(),
                    args("-c", common, "-a", address), Duration.ofSeconds(90));
            assertThat(r[0].ok()).as(r[0].format()).isTrue();
            assertThat(r[1].ok()).as(r[1].format()).isTrue();
            assertThat(r[0].number("pings")).isEqualTo(count);
            assertThat(r[0].number("bytes_checked")).isEqualTo((long) count * size);
            assertThat(r[1].number("bytes_checked")).isEqualTo((long) count * size);
            assertThat(r[0].number("icrc_errors") + r[1].number("icrc_errors")).isZero();
            // both sides waited on their completion channel, as rping's cq_thread does
            assertThat(r[0].number("cq_events")).as(r[0].format()).isPositive();
            assertThat(r[1].number("cq_events")).as(r[1].format()).isPositive();
        }
    }

    @Test
    void shouldFillPingsAsRpingDoes() {
        // rping.c: snprintf(start_buf, size, "rdma-ping-%d: ", ping), then 65..122 from 65 + ping % 58, NUL last
        ByteBuffer p0 = RpingData.ping(30, 0);
        assertThat(ascii(p0, 29)).isEqualTo("rdma-ping-0: ABCDEFGHIJKLMNOP");
        assertThat(p0.get(29)).isZero();
        ByteBuffer p57 = RpingData.ping(30, 57);
        assertThat(ascii(p57, 29)).isEqualTo("rdma-ping-57: zABCDEFGHIJKLMN");
        ByteBuffer p58 = RpingData.ping(30, 58);
        assertThat(ascii(p58, 29)).isEqualTo("rdma-ping-58: ABCDEFGHIJKLMNO");
        ByteBuffer wraps = RpingData.ping(80, 1);
        assertThat(ascii(wraps, 79)).isEqualTo("rdma-ping-1: BCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyzABCDEFGHI");
    }

    @Test
    void shouldLayTheAdvertisementOutBigEndian() {
        // a region's buffer in native order (as rvt's are): the struct is big-endian all the same
        ByteBuffer b = ByteBuffer.allocate(RpingData.INFO_SIZE).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        RpingData.putInfo(b, 0x0102030405060708L, 0x0a0b0c0d, 65535);
        assertThat(RpingData.size(b)).isEqualTo(65535);
        assertThat(b.array()).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 0x0a, 0x0b, 0x0c, 0x0d, 0, 0, (byte) 0xff,
                (byte) 0xff);
    }

    private static String ascii(ByteBuffer b, int n) {
        byte[] out = new byte[n];
        b.get(0, out);
        return new String(out, StandardCharsets.US_ASCII);
    }

    private static String[] args(String role, String[] common, String... more) {
        String[] a = new String[1 + common.length + more.length];
        a[0] = role;
        System.arraycopy(common, 0, a, 1, common.length);
        System.arraycopy(more, 0, a, 1 + common.length, more.length);
        return a;
    }
}
