package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The steps of a command's first bandwidth warm-up ({@link WarmUp#untilSteady}): streaming like the row, short under loss. */
class WarmUpStepTest {

    @Test
    void shouldGrowItsStepsToFillTheSendWindowWhenStepsAreQuick() {
        List<Integer> steps = new ArrayList<>();
        WarmUp.untilSteady(64, steps::add);
        assertThat(steps.get(0)).as("the first step").isEqualTo(WarmUp.STEP);
        assertThat(steps).as("steps once grown").contains(WarmUp.STREAM_STEP);
        assertThat(steps).allSatisfy(n -> assertThat(n).isBetween(WarmUp.STEP, WarmUp.STREAM_STEP));
    }

    @Test
    void shouldHalveItsStepAfterOneThatTookAsLongAsAnRcTimeout() {
        List<Integer> steps = new ArrayList<>();
        List<Long> startedAt = new ArrayList<>();
        WarmUp.untilSteady(64, n -> {
            steps.add(n);
            startedAt.add(System.nanoTime());
            if (n >= 4 * WarmUp.STEP) { // a step this long meets "loss": it takes 30 ms
                long until = System.nanoTime() + 30_000_000L;
                while (System.nanoTime() - until < 0) {
                    Thread.onSpinWait();
                }
            }
        });
        // Bounded by the warm-up's own clock, not by the wall time the test took (a loaded machine stretches that):
        // its deadline runs from before the first step, and the clock is read at the end of a 50 ms window, so at
        // most two steps (30 ms each) start after it.
        long deadline = startedAt.get(0) + WarmUp.STEADY_MAX_NANOS;
        assertThat(startedAt.stream().filter(t -> t - deadline > 0).count())
                .as("steps started after the warm-up's longest").isLessThanOrEqualTo(2);
        for (int i = 1; i < steps.size(); i++) {
            if (steps.get(i - 1) >= 4 * WarmUp.STEP) {
                assertThat(steps.get(i)).as("the step after a slow step %d", i).isEqualTo(steps.get(i - 1) / 2);
            }
        }
        assertThat(steps).as("never grown past the slow size's double").allSatisfy(n -> assertThat(n)
                .isLessThanOrEqualTo(4 * WarmUp.STEP));
    }
}
