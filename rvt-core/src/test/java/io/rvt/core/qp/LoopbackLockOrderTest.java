package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.QpState;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WrOpcode;
import io.rvt.core.LoopbackTestDriver;
import io.rvt.core.TestUtil;
import io.rvt.core.base.SpinningLock;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The loopback never waits for a QP's {@code recvLock} while holding that QP's {@code sendLock} (semantics §1.5,
 * §8.6: rdmavt's sender-side {@code r_lock} inside {@code s_lock} is an ABBA hazard the Java port must not copy). A
 * thread that holds {@code recvLock} and then takes {@code sendLock} (as modify, reset and the retry timer do) would
 * otherwise deadlock with it.
 */
class LoopbackLockOrderTest {
    private static void awaitQueued(SpinningLock lock, Thread t) {
        TestUtil.await(() -> lock.isParked(t) || !t.isAlive(),
                "the loopback thread to wait for recvLock");
        assertThat(t.isAlive()).as("loopback thread ended without waiting for recvLock").isTrue();
    }

    private void check(boolean flush) throws InterruptedException {
        LoopbackTestDriver driver = new LoopbackTestDriver();
        QpEnv env = new QpEnv(driver);
        RvtQp a = env.rc();
        RvtQp b = env.rc();
        env.connect(a, b);
        a.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(1)
                .next(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(2)));
        if (flush) {
            env.toErr(a);
        } else {
            RecvWorkRequest r = new RecvWorkRequest(0).wrId(9);
            b.postRecv(r);
            b.postRecv(r);
        }
        assertThat(a.state()).isEqualTo(flush ? QpState.ERR : QpState.RTS);

        a.recvLock().lock(); // as modifyQp, a reset or the retry timer: recvLock, then sendLock
        Thread t = new Thread(a::rucLoopback, "loopback");
        boolean gotSendLock = false;
        try {
            t.start();
            awaitQueued(a.recvLock(), t);
            gotSendLock = a.sendLock().tryLock(1, TimeUnit.SECONDS);
            assertThat(gotSendLock).as("the loopback waits for recvLock while holding sendLock").isTrue();
        } finally {
            if (gotSendLock) {
                a.sendLock().unlock();
            }
            a.recvLock().unlock();
            t.join(TimeUnit.SECONDS.toMillis(5));
        }
        assertThat(t.isAlive()).isFalse();
        driver.drain();
        assertThat(a.sendQueue().head()).isEqualTo(a.sendQueue().last());
    }

    @Test
    @Timeout(20)
    void shouldNotHoldSendLockWhileWaitingForRecvLockWhenFlushing() throws InterruptedException {
        check(true);
    }

    @Test
    @Timeout(20)
    void shouldNotHoldSendLockWhileWaitingForRecvLockWhenCompleting() throws InterruptedException {
        check(false);
    }
}
