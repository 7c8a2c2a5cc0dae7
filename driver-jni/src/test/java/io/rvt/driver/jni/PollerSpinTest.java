package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The spin before a poller waits: fixed, or following the port's idle gaps after KVM's halt polling, a gap that
 * ended in a wait judged with its wake-up in it (twice the maximum).
 */
class PollerSpinTest {
    private static final long MAX = 50_000;

    @Test
    void shouldSpinTheWholeMaximumWhenFixed() {
        PollerSpin s = new PollerSpin(MAX, false);
        for (int i = 0; i < 5; i++) {
            s.waiting();
            s.gapEnded(10 * MAX);
        }
        assertThat(s.spinNanos()).isEqualTo(MAX);
    }

    @Test
    void shouldHalveTheSpinDownToNoneWhileWaitedGapsOutlastTwiceTheMaximum() {
        PollerSpin s = new PollerSpin(MAX, true);
        assertThat(s.spinNanos()).as("it starts at the maximum").isEqualTo(MAX);
        s.waiting();
        s.gapEnded(2 * MAX);
        assertThat(s.spinNanos()).as("within twice the maximum: the wake-up may be what made it long")
                .isEqualTo(MAX);
        s.waiting();
        s.gapEnded(2 * MAX + 1);
        assertThat(s.spinNanos()).isEqualTo(MAX / 2);
        for (int i = 0; i < 10; i++) {
            s.waiting();
            s.gapEnded(3 * MAX);
        }
        assertThat(s.spinNanos()).as("below the growth's start it stops spinning").isZero();
    }

    @Test
    void shouldStopSpinningAtOnceWhenAGapOutlastsFourTimesTheMaximum() {
        PollerSpin s = new PollerSpin(MAX, true);
        s.waiting();
        s.gapEnded(4 * MAX);
        assertThat(s.spinNanos()).isEqualTo(MAX / 2);
        s.waiting();
        s.gapEnded(4 * MAX + 1);
        assertThat(s.spinNanos()).isZero();
    }

    @Test
    void shouldDoubleTheSpinFromItsStartUpToTheMaximumWhileWaitedGapsEndWithinTwiceIt() {
        PollerSpin s = new PollerSpin(MAX, true);
        s.waiting();
        s.gapEnded(5 * MAX);
        assertThat(s.spinNanos()).isZero();
        s.waiting();
        s.gapEnded(2 * MAX);
        assertThat(s.spinNanos()).isEqualTo(PollerSpin.GROW_FROM_NANOS);
        s.waiting();
        s.gapEnded(MAX / 2);
        assertThat(s.spinNanos()).isEqualTo(2 * PollerSpin.GROW_FROM_NANOS);
        for (int i = 0; i < 10; i++) {
            s.waiting();
            s.gapEnded(MAX);
        }
        assertThat(s.spinNanos()).as("never above the maximum").isEqualTo(MAX);
    }

    @Test
    void shouldKeepTheSpinWhenNoWaitEndedTheGap() {
        PollerSpin s = new PollerSpin(MAX, true);
        s.waiting();
        s.gapEnded(3 * MAX);
        long spin = s.spinNanos();
        s.gapEnded(spin / 2); // work came while it spun
        s.gapEnded(10 * MAX); // a gap that never waited (the backstop found the work) says nothing either
        assertThat(s.spinNanos()).isEqualTo(spin);
    }
}
