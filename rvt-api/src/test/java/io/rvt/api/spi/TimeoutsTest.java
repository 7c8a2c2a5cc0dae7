package io.rvt.api.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TimeoutsTest {

    @Test
    void shouldMatchRdmavtExamplesWhenHzIs1000() {
        for (int t = 0; t <= 9; t++) {
            assertThat(Timeouts.timeoutToTicks(t, 1000)).as("t=%d", t).isEqualTo(4);
        }
        assertThat(Timeouts.timeoutToTicks(10, 1000)).isEqualTo(8);
        assertThat(Timeouts.timeoutToTicks(14, 1000)).isEqualTo(69);
        assertThat(Timeouts.timeoutToTicks(17, 1000)).isEqualTo(540);
        assertThat(Timeouts.timeoutToTicks(20, 1000)).isEqualTo(4296);
    }

    @Test
    void shouldMatchRdmavtExampleWhenHzIs250() {
        assertThat(Timeouts.timeoutToTicks(14, 250)).isEqualTo(20);
        assertThat(Timeouts.timeoutToTicks(0, 250)).isEqualTo(4);
    }

    @Test
    void shouldComputeCeilingThenTruncatingScaleWhenAnyCodeIsGiven() {
        for (int hz : new int[] {100, 250, 300, 1000, 1024}) {
            for (int t = 0; t <= 31; t++) {
                long usecs = 1L << t;
                long ticks = (usecs * hz + 999_999) / 1_000_000;
                assertThat(Timeouts.timeoutToTicks(t, hz)).as("t=%d hz=%d", t, hz).isEqualTo(ticks * 4096 / 1000);
            }
        }
        assertThat(Timeouts.timeoutToTicks(31, 1000)).isEqualTo(2147484L * 4096 / 1000);
    }

    @Test
    void shouldActAs31WhenCodeIsAbove31() {
        for (int hz : new int[] {100, 250, 1000}) {
            long at31 = Timeouts.timeoutToTicks(31, hz);
            for (int t = 32; t <= 255; t++) {
                assertThat(Timeouts.timeoutToTicks(t, hz)).as("t=%d hz=%d", t, hz).isEqualTo(at31);
            }
            assertThat(Timeouts.timeoutToTicks(Integer.MAX_VALUE, hz)).isEqualTo(at31);
        }
    }

    @Test
    void shouldNotDecreaseWhenCodeGrows() {
        for (int hz : new int[] {1, 100, 250, 300, 1000, 10_000}) {
            long prev = -1;
            for (int t = 0; t <= 255; t++) {
                long ticks = Timeouts.timeoutToTicks(t, hz);
                assertThat(ticks).as("t=%d hz=%d", t, hz).isGreaterThanOrEqualTo(prev);
                prev = ticks;
            }
        }
    }

    @Test
    void shouldRoundUpWhenMicrosecondsAreConvertedToTicks() {
        assertThat(Timeouts.usecsToTicks(0, 1000)).isZero();
        assertThat(Timeouts.usecsToTicks(1, 1000)).isEqualTo(1);
        assertThat(Timeouts.usecsToTicks(1000, 1000)).isEqualTo(1);
        assertThat(Timeouts.usecsToTicks(1001, 1000)).isEqualTo(2);
        assertThat(Timeouts.usecsToTicks(10_000, 100)).isEqualTo(1);
        assertThat(Timeouts.usecsToTicks(10_001, 100)).isEqualTo(2);
        assertThat(Timeouts.usecsToTicks(4000, 250)).isEqualTo(1);
        assertThat(Timeouts.usecsToTicks(4001, 250)).isEqualTo(2);
        assertThat(Timeouts.usecsToTicks(1_000_000, 1000)).isEqualTo(1000);
    }

    @Test
    void shouldEqualCeilingOfExactQuotientWhenRandomInputsAreConverted() {
        long seed = 0x7173_0001L;
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int i = 0; i < 10_000; i++) {
            long usecs = rnd.nextLong(0, 1L << 40);
            int hz = rnd.nextInt(1, 10_001);
            long exact = -Math.floorDiv(-usecs * hz, 1_000_000L); // ceil(usecs * hz / 1e6)
            long ticks = Timeouts.usecsToTicks(usecs, hz);
            assertThat(ticks).as("seed %d, usecs %d, hz %d", seed, usecs, hz).isEqualTo(exact);
            // ticks is the smallest count whose duration covers usecs
            assertThat(ticks * 1_000_000L).as("seed %d, usecs %d, hz %d", seed, usecs, hz)
                    .isGreaterThanOrEqualTo(usecs * hz);
            if (ticks > 0) {
                assertThat((ticks - 1) * 1_000_000L).as("seed %d, usecs %d, hz %d", seed, usecs, hz)
                        .isLessThan(usecs * hz);
            }
        }
    }

    @Test
    void shouldConvertTicksToNanosWhenHzDividesOneSecond() {
        assertThat(Timeouts.ticksToNanos(1, 1000)).isEqualTo(1_000_000L);
        assertThat(Timeouts.ticksToNanos(69, 1000)).isEqualTo(69_000_000L);
        assertThat(Timeouts.ticksToNanos(20, 250)).isEqualTo(80_000_000L);
        assertThat(Timeouts.ticksToNanos(0, 100)).isZero();
    }

    @Test
    void shouldMatchIbtaRnrTableWhenEveryCodeIsLookedUp() {
        int[] table = {
            655360, 10, 20, 30, 40, 60, 80, 120,
            160, 240, 320, 480, 640, 960, 1280, 1920,
            2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
            40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
        };
        for (int code = 0; code < 32; code++) {
            assertThat(Timeouts.rnrTableToMicros(code)).as("code %d", code).isEqualTo(table[code]);
        }
    }

    @Test
    void shouldUseLowFiveBitsWhenRnrCodeIsWider() {
        for (int code = 0; code < 32; code++) {
            int expected = Timeouts.rnrTableToMicros(code);
            for (int high : new int[] {0x20, 0x40, 0xE0, 0x1F00, 0x8000_0000}) {
                assertThat(Timeouts.rnrTableToMicros(code | high)).as("code 0x%x", code | high).isEqualTo(expected);
            }
        }
        assertThat(Timeouts.rnrTableToMicros(-1)).isEqualTo(491520);
        // an AETH of an RNR NAK carries the code in bits 28..24: (aeth >> 24) & 0x1F
        int aeth = (Aeth.SYNDROME_RNR_NAK << 29) | (14 << 24) | 0x123456;
        assertThat(Timeouts.rnrTableToMicros(aeth >> 24)).isEqualTo(1280);
    }
}
