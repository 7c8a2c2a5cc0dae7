package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.LongUnaryOperator;
import org.junit.jupiter.api.Test;

/** The two-process warm-up's end ({@link WarmUp.Settling}), on a clock and a JIT the test moves. */
class WarmUpSettlingTest {
    private static final long MS = 1_000_000L;

    /** A warm-up whose round trips take {@code nanosAt(now)} each and whose JIT has compiled {@code jitAt(now)} ms. */
    private static final class Run {
        long now;
        final WarmUp.Settling settling;
        private final LongUnaryOperator nanosAt;

        Run(LongUnaryOperator nanosAt, LongUnaryOperator jitAt) {
            this.nanosAt = nanosAt;
            this.settling = new WarmUp.Settling(() -> now, () -> jitAt.applyAsLong(now));
        }

        /** @return when the warm-up ended (ns from its start), or -1 if it had not by {@code limit} */
        long endBefore(long limit) {
            while (now < limit) {
                now += nanosAt.applyAsLong(now);
                if (settling.tick()) {
                    return now;
                }
            }
            return -1;
        }
    }

    @Test
    void shouldEndTheWarmUpSoonAfterASecondWhenTheRateIsSteadyAndTheJitIdle() {
        Run r = new Run(t -> 14_000, t -> 1234);
        long end = r.endBefore(10_000 * MS);
        assertThat(end).as("not before the least warm-up").isGreaterThanOrEqualTo(WarmUp.STEADY_MIN_NANOS);
        assertThat(end).as("within a window after it").isLessThan(WarmUp.STEADY_MIN_NANOS + 60 * MS);
        assertThat(r.settling.tick()).as("stays ended").isTrue();
    }

    @Test
    void shouldKeepWarmingWhileTheJitCompilesThoughTheRateIsSteady() {
        // a plateau: the rate holds while the last hot methods are still being compiled (one a window until 3 s)
        Run r = new Run(t -> 55_000, t -> Math.min(t, 3_000 * MS) / (50 * MS));
        long end = r.endBefore(10_000 * MS);
        assertThat(end).as("after the JIT's last compilation and four quiet windows")
                .isGreaterThanOrEqualTo(3_000 * MS + 4 * 50 * MS).isLessThan(3_000 * MS + 6 * 50 * MS);
    }

    @Test
    void shouldKeepWarmingWhileTheRateStillChanges() {
        // round trips twice as fast every 500 ms, from 180 us to 14 us at 1.84 s; the JIT reports nothing
        long fast = 1_840 * MS;
        Run r = new Run(t -> Math.max(14_000, (long) (180_000 * Math.pow(2, -t / (500.0 * MS)))), t -> 0);
        long end = r.endBefore(10_000 * MS);
        assertThat(end).as("once four windows agree within 10 %").isGreaterThan(fast)
                .isLessThan(fast + 4 * 50 * MS + 60 * MS);
    }

    @Test
    void shouldEndAfterFiveSecondsWhateverTheJitDoes() {
        Run r = new Run(t -> 20_000, t -> t / MS);
        long end = r.endBefore(20_000 * MS);
        assertThat(end).isGreaterThanOrEqualTo(WarmUp.SETTLE_MAX_NANOS).isLessThan(WarmUp.SETTLE_MAX_NANOS + 60 * MS);
    }
}
