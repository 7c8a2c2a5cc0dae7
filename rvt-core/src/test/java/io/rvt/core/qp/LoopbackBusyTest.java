package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.QpState;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.core.LoopbackTestDriver;
import io.rvt.core.TestUtil;
import io.rvt.core.base.SpinningLock;
import java.lang.reflect.Field;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The loopback's S_BUSY hand-off loses no work (semantics §8.6): rdmavt decides "queue empty, stop" and clears
 * {@code RVT_S_BUSY} in one {@code s_lock} section, so a poster whose {@code do_send} finds the QP busy can rely on
 * the running loopback to see its WQE. If the stop decision and the clearing are two sections, a WQE posted in
 * between is stranded: the poster's loopback returns because the QP is busy, and the busy one has already decided to
 * stop.
 */
class LoopbackBusyTest {
    /** A send lock that parks one thread before its n-th acquisition. */
    static final class PausingLock extends SpinningLock {
        volatile Thread target;
        volatile int pauseAt;
        private int count;
        final CountDownLatch paused = new CountDownLatch(1);
        final CountDownLatch resume = new CountDownLatch(1);

        @Override
        public void lock() {
            if (Thread.currentThread() == target && ++count == pauseAt) {
                paused.countDown();
                try {
                    resume.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            super.lock();
        }
    }

    private static PausingLock installPausingSendLock(RvtQp qp) throws ReflectiveOperationException {
        PausingLock lock = new PausingLock();
        Field f = RvtQp.class.getDeclaredField("sendLock");
        f.setAccessible(true);
        f.set(qp, lock);
        return lock;
    }

    @Test
    @Timeout(30)
    void shouldProcessAWqePostedWhileTheRunningLoopbackIsStopping() throws Exception {
        LoopbackTestDriver driver = new LoopbackTestDriver();
        QpEnv env = new QpEnv(driver);
        RvtQp a = env.rc();
        RvtQp b = env.rc();
        env.connect(a, b);
        b.postRecv(new RecvWorkRequest(0).wrId(40));
        PausingLock lock = installPausingSendLock(a);
        // The loopback thread takes a's sendLock to set BUSY (1), to find the queue empty (2), then once more to
        // clear BUSY if that is a separate section (3): it is parked before (3).
        lock.pauseAt = 3;
        Thread loopback = new Thread(a::rucLoopback, "loopback");
        lock.target = loopback;

        loopback.start();
        TestUtil.await(() -> lock.paused.getCount() == 0 || !loopback.isAlive(),
                "the loopback to park before clearing S_BUSY, or to finish");
        a.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(1)); // empty queue: do_send runs the engine
        lock.resume.countDown();
        loopback.join(TimeUnit.SECONDS.toMillis(10));
        assertThat(loopback.isAlive()).isFalse();
        driver.drain(); // whatever the engine scheduled

        List<WorkCompletion> sent = QpEnv.poll(env.scq);
        assertThat(sent).as("the WQE posted while the loopback was stopping was processed").hasSize(1);
        assertThat(sent.get(0).status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(QpEnv.poll(env.rcq)).extracting(WorkCompletion::wrId).containsExactly(40L);
        assertThat(a.sendQueue().head()).isEqualTo(a.sendQueue().last());
        assertThat(a.state()).isEqualTo(QpState.RTS);
    }
}
