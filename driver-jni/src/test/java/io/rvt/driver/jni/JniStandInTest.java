package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Device;
import io.rvt.api.PortCounter;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A polling thread that the machine takes off its core inside a port's engine (issue 27: a spinning poller spends
 * most of its time there, and beside two CPU hogs one was off the cores for up to 553 ms) no longer silences the
 * port: after the quiet period the port's backstop stands in with a lane of its own, receiving, ACKing and answering
 * until the caller moves on. The stall is made on purpose: the socket's receive holds one named thread inside the
 * engine until the test lets it go (the fault, not a synchronisation).
 */
@Timeout(120)
class JniStandInTest {
    /** Holds {@link #thread} inside the socket's receive, in the engine, until released. */
    static final class Stall {
        volatile Thread thread;
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        void holdIfStalled() {
            if (Thread.currentThread() == thread) {
                entered.countDown();
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** A socket whose receive stalls the {@link Stall}'s thread. */
    static final class StallingDatagrams extends ForwardingDatagrams {
        private final Stall stall;

        StallingDatagrams(Datagrams real, Stall stall) {
            super(real);
            this.stall = stall;
        }

        @Override
        public int receive(RxBatch batch) {
            stall.holdIfStalled();
            return real.receive(batch);
        }
    }

    @Test
    void shouldReceiveAckAndAnswerBesideAPollerStalledInsideThePortsEngine() throws Exception {
        Stall stall = new Stall();
        try (JniFixture f = new JniFixture(31, "127.0.0.1").decorate(io -> new StallingDatagrams(io, stall))) {
            Device[] dev = f.open(2);
            JniDriver b = f.drivers().get(1);
            Verbs verbs = new Verbs(f);
            Endpoint[] p = verbs.connected(dev[0], dev[1], QpType.RC, 4096, 7, 1);
            Verbs.fill(p[0].buffer, 0, 4096, 5);
            p[1].qp.postRecv(new RecvWorkRequest(1).wrId(1).sge(p[1].mr, 0, 4096));
            // progress until inside the receive: a call that finds the backstop mid-cycle returns without entering
            Thread poller = new Thread(() -> {
                while (stall.entered.getCount() > 0) {
                    b.progress(32);
                }
            }, "stalled-poller");
            stall.thread = poller;
            poller.start();
            try {
                assertThat(stall.entered.await(20, TimeUnit.SECONDS)).as("the poller is inside B's engine").isTrue();
                long start = System.nanoTime();
                p[0].qp.postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.SEND)
                        .sendFlags(SendFlag.SIGNALED.bit()).sge(p[0].mr, 0, 4096));
                WorkCompletion wc = verbs.await(p[0].sendCq, 1).get(0);
                long took = System.nanoTime() - start;
                // the SEND was received and ACKed by B while its poller stayed stalled in B's engine; without the
                // stand-in nothing runs B's engine then, and A's retries run out (RETRY_EXC_ERR after 5.3 s)
                assertThat(wc.status()).as("A's SEND after %d ms, %d RC timeouts", took / 1_000_000,
                        dev[0].portCounter(1, PortCounter.RC_TIMEOUTS)).isEqualTo(WcStatus.SUCCESS);
                assertThat(poller.isAlive()).as("the poller is still stalled").isTrue();
                assertThat(stall.release.getCount()).isEqualTo(1);
                assertThat(b.port(1).standInWork()).as("cycles the backstop ran beside the stalled poller")
                        .isPositive();
                assertThat(b.statistics(1).socketCalls().standInCycles())
                        .as("the same cycles, as the launcher reads them")
                        .isPositive();
                Verbs.assertSuccess(verbs.await(p[1].recvCq, 1).get(0), 1);
                Verbs.assertPattern(p[1].buffer, 0, 4096, 5);

                // B answers too: its own SEND goes out and is ACKed while the poller is still held
                Verbs.fill(p[1].buffer, 0, 4096, 6);
                p[0].qp.postRecv(new RecvWorkRequest(1).wrId(3).sge(p[0].mr, 0, 4096));
                p[1].qp.postSend(new SendWorkRequest(1).wrId(4).opcode(WrOpcode.SEND)
                        .sendFlags(SendFlag.SIGNALED.bit()).sge(p[1].mr, 0, 4096));
                Verbs.assertSuccess(verbs.await(p[1].sendCq, 1).get(0), 4);
                Verbs.assertSuccess(verbs.await(p[0].recvCq, 1).get(0), 3);
                Verbs.assertPattern(p[0].buffer, 0, 4096, 6);
                assertThat(poller.isAlive()).as("the poller is still stalled").isTrue();
            } finally {
                stall.release.countDown();
                poller.join(TimeUnit.SECONDS.toMillis(30));
            }
            assertThat(poller.isAlive()).as("the poller left the engine once released").isFalse();

            // the caller's lane takes over again: a ping-pong both ways, every byte checked
            for (int i = 0; i < 20; i++) {
                int from = i & 1;
                int to = from ^ 1;
                Verbs.fill(p[from].buffer, 0, 4096, 10 + i);
                p[to].qp.postRecv(new RecvWorkRequest(1).wrId(100 + i).sge(p[to].mr, 0, 4096));
                p[from].qp.postSend(new SendWorkRequest(1).wrId(200 + i).opcode(WrOpcode.SEND)
                        .sendFlags(SendFlag.SIGNALED.bit()).sge(p[from].mr, 0, 4096));
                Verbs.assertSuccess(verbs.await(p[from].sendCq, 1).get(0), 200 + i);
                Verbs.assertSuccess(verbs.await(p[to].recvCq, 1).get(0), 100 + i);
                Verbs.assertPattern(p[to].buffer, 0, 4096, 10 + i);
            }
        }
    }
}
