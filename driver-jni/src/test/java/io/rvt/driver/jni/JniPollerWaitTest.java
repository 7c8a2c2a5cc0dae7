package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A poller that finds its port idle waits in {@code poll} instead of asking the socket again at once
 * ({@link JniDriverBuilder#pollerWaitNanos}): between two processes each one's spinning poller kept the core from the
 * peer it waited for. Counted, not timed: with an idle time of 1 ns every idle progress call after the first waits
 * ({@link SocketCalls#pollerWaits}); one that receives does not wait; with two PROGRESS ports in the JVM,
 * or the wait off, none waits. The backstops are kept out (a quiet period of a minute): only this thread's calls run
 * the engines.
 */
@Timeout(120)
class JniPollerWaitTest {
    private static final int CALLS = 50;

    @Test
    void shouldWaitInPollAtEveryIdleProgressCallOfTheJvmsOnlyPort() throws Exception {
        try (JniFixture f = fixture(1, 1)) {
            f.open(1);
            JniDriver d = f.drivers().get(0);
            assertThat(PortEngine.progressPorts()).as("PROGRESS ports of this JVM (a test left a driver open?)")
                    .isEqualTo(1);
            d.progress(256); // the idle time starts
            SocketCalls c0 = d.statistics(1).socketCalls();
            for (int i = 0; i < CALLS; i++) {
                assertThat(d.progress(256)).isZero();
            }
            SocketCalls idle = d.statistics(1).socketCalls().minus(c0);
            assertThat(idle.pollerWaits()).as("waits in poll").isEqualTo(CALLS);
            assertThat(idle.receiveCalls()).as("each call still asks the socket once first").isEqualTo(CALLS);

            // a datagram: the call that receives it does work and does not wait (its cycle after the receive
            // starts the idle time again); the next idle call waits
            sendJunk(d, 1);
            long malformed0 = d.statistics(1).malformed();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            long waitsBefore;
            do {
                waitsBefore = d.statistics(1).socketCalls().pollerWaits();
                d.progress(256);
            } while (d.statistics(1).malformed() == malformed0 && System.nanoTime() - deadline < 0);
            assertThat(d.statistics(1).malformed() - malformed0).isEqualTo(1);
            assertThat(d.statistics(1).socketCalls().pollerWaits()).as("waits of the call that received")
                    .isEqualTo(waitsBefore);
            d.progress(256);
            assertThat(d.statistics(1).socketCalls().pollerWaits()).isEqualTo(waitsBefore + 1);
        }
    }

    @Test
    void shouldNotWaitWhileTheJvmRunsAnotherProgressPort() throws Exception {
        try (JniFixture f = fixture(2, 1)) {
            f.open(2); // an in-process pair: the datagram a poller of one waits for may be the other's to receive
            JniDriver d = f.drivers().get(0);
            assertThat(PortEngine.progressPorts()).isEqualTo(2);
            d.progress(256);
            SocketCalls c0 = d.statistics(1).socketCalls();
            for (int i = 0; i < CALLS; i++) {
                d.progress(256);
            }
            SocketCalls idle = d.statistics(1).socketCalls().minus(c0);
            assertThat(idle.pollerWaits()).isZero();
            assertThat(idle.emptyReceives()).isEqualTo(CALLS);
        }
        assertThat(PortEngine.progressPorts()).as("closed ports leave the count").isZero();
    }

    @Test
    void shouldNeverWaitWhenTheWaitIsOff() throws Exception {
        try (JniFixture f = fixture(3, 0)) {
            f.open(1);
            JniDriver d = f.drivers().get(0);
            for (int i = 0; i <= CALLS; i++) {
                d.progress(256);
            }
            assertThat(d.statistics(1).socketCalls().pollerWaits()).isZero();
        }
        assertThatThrownBy(() -> JniDriver.builder().pollerWaitNanos(-1)).isInstanceOf(
                IllegalArgumentException.class).hasMessage("pollerWaitNanos must be at least 0, got -1");
    }

    /**
     * Gaps five times the wait: the adaptive spin stops after the first (a poller waits at its second idle call), the
     * fixed one spins the whole wait in every gap. Counted in empty receives before a gap's first wait.
     */
    @Test
    void shouldStopSpinningWhenTheGapsOutlastTheWaitUnlessTheSpinIsFixed() throws Exception {
        long wait = TimeUnit.MILLISECONDS.toNanos(20); // longer than a busy machine's preemptions: the spin is counted
        try (JniFixture f = fixture(4, wait).adaptivePollerSpin(true)) {
            f.open(1);
            JniDriver d = f.drivers().get(0);
            long[] adaptive = emptyReceivesBeforeWaitPerGap(d, wait, 4);
            assertThat(Arrays.stream(adaptive).skip(1).max().getAsLong())
                    .as("later gaps' empty receives, adaptive: %s", Arrays.toString(adaptive)).isLessThanOrEqualTo(2);
            assertThat(adaptive[0]).as("the first gap spins the whole wait: %s", Arrays.toString(adaptive))
                    .isGreaterThan(2);
        }
        try (JniFixture f = fixture(5, wait)) { // fixed, the default
            f.open(1);
            long[] fixed = emptyReceivesBeforeWaitPerGap(f.drivers().get(0), wait, 3);
            assertThat(Arrays.stream(fixed).min().getAsLong()).as("fixed: every gap spins the wait: %s",
                    Arrays.toString(fixed)).isGreaterThan(2);
        }
    }

    /**
     * Runs {@code gaps} idle gaps (progress calls until one waited, then until the gap is five times {@code wait}),
     * each ended by a datagram.
     *
     * @return per gap, the empty receives before its first wait
     */
    private static long[] emptyReceivesBeforeWaitPerGap(JniDriver d, long wait, int gaps) throws Exception {
        long[] counts = new long[gaps];
        for (int g = 0; g < gaps; g++) {
            SocketCalls start = d.statistics(1).socketCalls();
            long gapStart = System.nanoTime();
            long deadline = gapStart + TimeUnit.SECONDS.toNanos(30);
            SocketCalls c;
            while ((c = d.statistics(1).socketCalls().minus(start)).pollerWaits() == 0) {
                assertThat(d.progress(256)).as("gap %d stays idle", g).isZero();
                assertThat(System.nanoTime() - deadline).as("gap %d waited within 30 s", g).isNegative();
            }
            counts[g] = c.emptyReceives() - 1; // the call that waited asked the socket first
            while (System.nanoTime() - gapStart < 5 * wait) {
                d.progress(256);
            }
            long malformed0 = d.statistics(1).malformed();
            sendJunk(d, 1);
            while (d.statistics(1).malformed() == malformed0) {
                d.progress(256);
                assertThat(System.nanoTime() - deadline).as("gap %d's datagram within 30 s", g).isNegative();
            }
        }
        return counts;
    }

    private static JniFixture fixture(int seed, long waitNanos) {
        return new JniFixture(seed, "127.0.0.1").backstopQuietNanos(TimeUnit.SECONDS.toNanos(60))
                .pollerWaitNanos(waitNanos);
    }

    private static void sendJunk(JniDriver d, int n) throws Exception {
        InetAddress local = InetAddress.getByName("127.0.0.1");
        try (DatagramSocket s = new DatagramSocket(0, local)) {
            byte[] junk = new byte[100];
            for (int i = 0; i < n; i++) {
                s.send(new DatagramPacket(junk, junk.length, local, d.localPort(1)));
            }
        }
    }
}
