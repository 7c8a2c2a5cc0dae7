package io.rvt.core.qp;

import static io.rvt.api.Errno.EINVAL;
import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.QpType;
import io.rvt.api.spi.DriverParams;
import io.rvt.core.TestDriver;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * rdmavt's QPN allocator (semantics §7.1, properties §11.5 items 43–46), driven directly with small parameters and
 * many seeded random cases. Every assertion message carries the seed.
 */
class QpnTableTest {
    private static final int PAGE = QpnTable.BITS_PER_PAGE;
    /** hfi1's KDETH range. */
    private static final int KDETH_START = 0x800000;
    private static final int KDETH_END = 0x80FFFF;
    /** One reserved QPN in page 32: far from the QPNs the tests look at, and it makes nmaps = 32. */
    private static final int FAR = 32 * PAGE;

    private static QpnTable table(int start, int inc, int qos, int resStart, int resEnd) {
        DriverParams p = TestDriver.defaultParams().qpnStart(start).qpnInc(inc).qosShift(qos).qpnResStart(resStart)
                .qpnResEnd(resEnd).build();
        return new QpnTable(p);
    }

    private static int alloc(QpnTable t) {
        return t.alloc(QpType.RC, 0, false);
    }

    @Test
    void shouldStepByIncrFromStartWithinAPage() {
        for (long seed = 0; seed < 200; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            int inc = 1 + r.nextInt(4);
            int qos = r.nextInt(3);
            int incr = inc << qos;
            int start = r.nextInt(4000);
            QpnTable t = table(start, inc, qos, FAR, FAR);
            assertThat(t.increment()).isEqualTo(incr);
            for (int k = 1; k <= 300; k++) {
                assertThat(alloc(t)).as("seed %d, inc %d << qos %d, start %d, allocation %d", seed, inc, qos, start,
                        k).isEqualTo(start + k * incr);
            }
        }
    }

    @Test
    void shouldTakeLastPlusIncrInTheNextPageWhenTheStepCrossesAPageEnd() {
        for (long seed = 0; seed < 200; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            int inc = 1 + r.nextInt(4);
            int qos = r.nextInt(3);
            int incr = inc << qos;
            int page = r.nextInt(8);
            int start = (page + 1) * PAGE - 1 - r.nextInt(3 * incr + 1);
            QpnTable t = table(start, inc, qos, FAR, FAR);
            int last = start;
            for (int k = 0; k < 8; k++) {
                int q = alloc(t);
                assertThat(q).as("seed %d: incr %d, last %d (page end %d)", seed, incr, last, (page + 1) * PAGE)
                        .isEqualTo(last + incr);
                last = q;
            }
        }
    }

    @Test
    void shouldStartNextPageAtBasePlusIncrKeepingBitZeroWhenTheScanRunsOffAPage() {
        for (long seed = 0; seed < 200; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            int inc = 1 + r.nextInt(4);
            int qos = r.nextInt(3);
            int incr = inc << qos;
            int page = r.nextInt(8);
            int pageEnd = (page + 1) * PAGE;
            // The page's last QPNs are reserved, at least one step's worth: some candidate lands in them.
            int tail = incr + r.nextInt(2 * incr + 1);
            int resStart = pageEnd - tail;
            int start = resStart - 1 - r.nextInt(3 * incr);
            QpnTable t = table(start, inc, qos, resStart, pageEnd - 1);
            int last = start;
            while (last + incr < resStart) {
                int q = alloc(t);
                assertThat(q).as("seed %d before the reserved tail", seed).isEqualTo(last + incr);
                last = q;
            }
            int offset = last % PAGE + incr;
            while (offset < PAGE) {
                offset += incr; // used (reserved) candidates up to the page end
            }
            int expected = pageEnd + (incr | (offset & 1));
            assertThat(alloc(t)).as("seed %d: incr %d, last %d, reserved [%d, %d], overflow offset %d", seed, incr,
                    last, resStart, pageEnd - 1, offset).isEqualTo(expected);
            assertThat(alloc(t)).as("seed %d: stepping on in the new page", seed).isEqualTo(expected + incr);
        }
    }

    @Test
    void shouldContinueFromIncrWithBitZeroFlippedWhenTheQpnSpaceWraps() {
        for (long seed = 0; seed < 200; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            int inc = 1 + r.nextInt(2);
            int qos = 1 + r.nextInt(2); // incr >= 2: the bit-0 toggle is visible
            int incr = inc << qos;
            int start = 0xFFFFFF - r.nextInt(4 * incr);
            QpnTable t = table(start, inc, qos, FAR, FAR);
            int last = start;
            while (last + incr < 1 << 24) {
                int q = alloc(t);
                assertThat(q).as("seed %d", seed).isEqualTo(last + incr);
                last = q;
            }
            int expected = incr | ((last & 1) ^ 1);
            assertThat(alloc(t)).as("seed %d: incr %d, last 0x%x wraps", seed, incr, last).isEqualTo(expected);
            assertThat(alloc(t)).as("seed %d: then steps by incr", seed).isEqualTo(expected + incr);
        }
    }

    @Test
    void shouldNeverReturnReservedOrLiveQpnsWhenAllocatingAndFreeingAtRandom() {
        for (long seed = 0; seed < 40; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            int inc = 1 + r.nextInt(3);
            int qos = r.nextInt(2);
            int resStart = r.nextInt(3 * PAGE);
            int resEnd = resStart + r.nextInt(PAGE + 100);
            int start = r.nextInt(2 * PAGE);
            QpnTable t = table(start, inc, qos, resStart, resEnd);
            Set<Integer> live = new HashSet<>();
            for (int step = 0; step < 6000; step++) {
                if (!live.isEmpty() && r.nextInt(3) == 0) {
                    int victim = live.iterator().next();
                    live.remove(victim);
                    t.free(victim, QpType.RC, 0);
                    assertThat(t.isUsed(victim)).as("seed %d: freed 0x%x", seed, victim).isFalse();
                    continue;
                }
                int q = alloc(t);
                assertThat(q).as("seed %d step %d", seed, step).isPositive();
                assertThat(q < resStart || q > resEnd).as("seed %d: 0x%x in reserved [0x%x, 0x%x]", seed, q,
                        resStart, resEnd).isTrue();
                assertThat(live.add(q)).as("seed %d: 0x%x handed out twice", seed, q).isTrue();
                assertThat(t.isUsed(q)).isTrue();
            }
            for (int q = resStart; q <= resEnd; q++) {
                if (!t.isUsed(q)) {
                    throw new AssertionError("seed " + seed + ": reserved 0x" + Integer.toHexString(q)
                            + " is no longer marked");
                }
            }
        }
    }

    @Test
    void shouldGiveEachPortOneQp0AndQp1AndAllowThemAgainWhenFreed() {
        QpnTable t = table(1, 1, 0, 0, 0);

        assertThat(t.alloc(QpType.SMI, 1, false)).isZero();
        assertThat(t.alloc(QpType.GSI, 1, false)).isEqualTo(1);
        assertThat(t.alloc(QpType.SMI, 2, false)).as("per port").isZero();
        assertThat(t.alloc(QpType.GSI, 2, false)).isEqualTo(1);
        assertThat(t.alloc(QpType.SMI, 1, false)).as("second QP0 on port 1").isEqualTo(-EINVAL.value());
        assertThat(t.alloc(QpType.GSI, 2, false)).as("second QP1 on port 2").isEqualTo(-EINVAL.value());

        t.free(0, QpType.SMI, 1);
        assertThat(t.alloc(QpType.SMI, 1, false)).as("rvt clears the flag at destroy").isZero();
        assertThat(t.alloc(QpType.SMI, 2, false)).isEqualTo(-EINVAL.value());
        assertThat(alloc(t)).as("ordinary QPNs are unaffected").isEqualTo(2);
    }

    @Test
    void shouldMarkTheReservedRangeAtConstruction() {
        QpnTable t = table(0, 1, 0, KDETH_START, KDETH_END);

        assertThat(t.isUsed(KDETH_START)).isTrue();
        assertThat(t.isUsed(KDETH_END)).isTrue();
        assertThat(t.isUsed(KDETH_START - 1)).isFalse();
        assertThat(t.isUsed(KDETH_END + 1)).isFalse();
    }

    @Test
    void shouldNeverHandOutQpnZeroOrOneWhenStartIsZeroAndIncrementIsOne() {
        QpnTable t = new QpnTable(TestDriver.defaultParams().qpnStart(0).qpnInc(1).qosShift(0).qpnResStart(0)
                .qpnResEnd(0).build());
        for (int i = 0; i < 40000; i++) {
            int qpn = t.alloc(QpType.RC, 0, false);
            assertThat(qpn).as("allocation %d", i).isGreaterThan(1);
        }
        assertThat(t.alloc(QpType.GSI, 1, false)).as("the port's QP1 is still available").isEqualTo(1);
    }
}
