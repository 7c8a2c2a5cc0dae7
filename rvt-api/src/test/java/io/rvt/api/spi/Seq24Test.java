package io.rvt.api.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class Seq24Test {

    /** {@code (a - b) mod 2^24} as a value in {@code [-2^23, 2^23)}, computed with longs. */
    private static long modDelta(int a, int b) {
        long d = Math.floorMod((long) a - (long) b, 1L << 24);
        return d >= (1L << 23) ? d - (1L << 24) : d;
    }

    @Test
    void shouldOrderAcrossWrapWhenValuesAreAdjacentAtTheEdge() {
        assertThat(Seq24.cmpMsn(0, 0xFFFFFF)).isPositive();
        assertThat(Seq24.cmpMsn(0xFFFFFF, 0)).isNegative();
        assertThat(Seq24.cmpMsn(5, 5)).isZero();
        assertThat(Seq24.cmpMsn(6, 5)).isPositive();
        assertThat(Seq24.cmpMsn(5, 6)).isNegative();
        assertThat(Seq24.MASK).isEqualTo(0xFFFFFF);
    }

    @Test
    void shouldIgnoreHighByteWhenComparing() {
        long seed = 0x5E9_0001L;
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int i = 0; i < 10_000; i++) {
            int a = rnd.nextInt() & 0xFFFFFF;
            int hi = rnd.nextInt() & 0xFF000000;
            assertThat(Seq24.cmpMsn(a | 0xFF000000, a)).as("seed %d, a 0x%x", seed, a).isZero();
            assertThat(Seq24.cmpMsn(a | hi, a)).as("seed %d, a 0x%x, hi 0x%x", seed, a, hi).isZero();
            assertThat(Seq24.cmpMsn(a, a | hi)).as("seed %d, a 0x%x, hi 0x%x", seed, a, hi).isZero();
        }
    }

    @Test
    void shouldHaveSignOfModularDistanceWhenRandomValuesAreCompared() {
        long seed = 0x5E9_0002L;
        SplittableRandom rnd = new SplittableRandom(seed);
        int checked = 0;
        for (int i = 0; i < 100_000; i++) {
            int a = rnd.nextInt();
            // mix far-apart pairs with close ones around the wrap
            int b = (i & 1) == 0 ? rnd.nextInt() : a + rnd.nextInt(-1000, 1000);
            long d = modDelta(a, b);
            if (d == -(1L << 23)) {
                continue; // exactly 2^23 apart: order undefined
            }
            checked++;
            assertThat(Integer.signum(Seq24.cmpMsn(a, b))).as("seed %d, a 0x%x, b 0x%x", seed, a, b)
                    .isEqualTo(Long.signum(d));
            assertThat((long) Seq24.delta(a, b)).as("seed %d, a 0x%x, b 0x%x", seed, a, b).isEqualTo(d);
        }
        assertThat(checked).isGreaterThan(99_000);
    }

    @Test
    void shouldGiveSignedDistanceInHalfOpenRangeWhenDeltaIsAsked() {
        assertThat(Seq24.delta(0, 0xFFFFFF)).isEqualTo(1);
        assertThat(Seq24.delta(0xFFFFFF, 0)).isEqualTo(-1);
        assertThat(Seq24.delta(0x800000, 0)).isEqualTo(-0x800000);
        assertThat(Seq24.delta(0x7FFFFF, 0)).isEqualTo(0x7FFFFF);
        assertThat(Seq24.delta(0x12345678, 0x345678)).isZero();
    }

    @Test
    void shouldWrapAt2To24WhenAdding() {
        assertThat(Seq24.add(0xFFFFFF, 1)).isZero();
        assertThat(Seq24.add(0xFFFFFE, 3)).isEqualTo(1);
        assertThat(Seq24.add(0, -1)).isEqualTo(0xFFFFFF);
        assertThat(Seq24.add(0x12FFFFFF, 0)).isEqualTo(0xFFFFFF);
        long seed = 0x5E9_0003L;
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int i = 0; i < 10_000; i++) {
            int psn = rnd.nextInt();
            int n = rnd.nextInt();
            int sum = Seq24.add(psn, n);
            assertThat(sum).as("seed %d, psn 0x%x, n %d", seed, psn, n)
                    .isEqualTo((int) Math.floorMod((long) psn + n, 1L << 24));
        }
    }

    @Test
    void shouldShiftDifferenceWhenDriverComparesPsns() {
        // qib: 24-bit PSNs, shift 8
        assertThat(Seq24.cmpPsn(0, 0xFFFFFF, 8)).isPositive();
        assertThat(Seq24.cmpPsn(0xFFFFFF, 0, 8)).isNegative();
        // hfi1: 31-bit PSNs, shift 1
        assertThat(Seq24.cmpPsn(0, 0x7FFFFFFF, 1)).isPositive();
        assertThat(Seq24.cmpPsn(0x7FFFFFFF, 0, 1)).isNegative();
        assertThat(Seq24.cmpPsn(0x80000000, 0, 1)).isZero();
        assertThat(Seq24.cmpPsn(10, 3, 8)).isEqualTo(7 << 8);
    }
}
