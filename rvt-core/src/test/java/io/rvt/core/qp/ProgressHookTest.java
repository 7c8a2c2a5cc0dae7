package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.RvtDriver;
import io.rvt.core.LoopbackTestDriver;
import io.rvt.core.mr.RvtMr;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * rvt-core calls the driver's progress hook ({@link RvtDriver#progress(int)}) from an empty {@code pollCq} and from
 * the waits of its verbs, so an engine that runs only where the application calls (no thread of its own) still moves:
 * a completion appears in the poll that ran it, and {@code destroyQp} and {@code deregMr} get the references that
 * the engine holds back without any other thread.
 */
@Timeout(60)
class ProgressHookTest {
    /** A loopback whose engine runs only in the progress hook (the post only queues), holding what it is told to. */
    static final class ProgressOnlyDriver extends LoopbackTestDriver {
        final List<Integer> budgets = new CopyOnWriteArrayList<>();
        final List<Thread> threads = new CopyOnWriteArrayList<>();
        final AtomicInteger calls = new AtomicInteger();
        /** References the engine holds until the next progress. */
        volatile DriverQp heldQp;
        volatile RvtMr heldMr;

        @Override
        public void doSend(DriverQp qp) {
            scheduleSendNoLock(qp); // queued: the engine runs only when progressed
        }

        @Override
        public int progress(int budget) {
            calls.incrementAndGet();
            budgets.add(budget);
            threads.add(Thread.currentThread());
            int work = drain();
            DriverQp q = heldQp;
            if (q != null) {
                heldQp = null;
                q.release();
                work++;
            }
            RvtMr m = heldMr;
            if (m != null) {
                heldMr = null;
                m.release();
                work++;
            }
            return work;
        }
    }

    @Test
    void shouldRunTheDriversProgressFromPollCqWhenTheCqIsEmptyAndReturnWhatItCompleted() {
        ProgressOnlyDriver driver = new ProgressOnlyDriver();
        QpEnv env = new QpEnv(driver);
        RvtQp a = env.rc();
        RvtQp b = env.rc();
        env.connect(a, b);
        b.postRecv(new RecvWorkRequest(0).wrId(7));
        a.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(8).sendFlags(SendFlag.SIGNALED.bit()));
        assertThat(driver.queued()).as("the post only queued the engine").isNotEmpty();
        int before = driver.calls.get();

        WorkCompletion wc = new WorkCompletion();
        assertThat(env.scq.pollCq(wc)).as("the poll that ran the engine returns its completion").isTrue();
        assertThat(wc.wrId()).isEqualTo(8);
        assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(driver.calls.get() - before).isEqualTo(1);
        assertThat(driver.budgets.get(driver.budgets.size() - 1)).isEqualTo(RvtDriver.POLL_BUDGET);
        assertThat(driver.threads.get(driver.threads.size() - 1)).isSameAs(Thread.currentThread());

        // a CQ with an entry is polled without progressing
        int calls = driver.calls.get();
        WorkCompletion[] out = {new WorkCompletion()};
        assertThat(env.rcq.pollCq(out, 1)).isEqualTo(1);
        assertThat(out[0].wrId()).isEqualTo(7);
        assertThat(driver.calls.get()).isEqualTo(calls);
        // an empty one progresses once more and finds nothing
        assertThat(env.rcq.pollCq(out, 1)).isZero();
        assertThat(driver.calls.get()).isEqualTo(calls + 1);
    }

    @Test
    void shouldProgressTheEngineWhileDestroyQpWaitsForItsReference() {
        ProgressOnlyDriver driver = new ProgressOnlyDriver();
        QpEnv env = new QpEnv(driver);
        RvtQp qp = env.rc();
        qp.retain();
        driver.heldQp = qp; // the engine holds it (a packet being processed), and lets go when it runs
        int before = driver.calls.get();
        qp.destroyQp(); // would wait forever: no other thread runs the engine
        assertThat(driver.heldQp).isNull();
        assertThat(driver.calls.get()).isGreaterThan(before);
        assertThat(driver.budgets.get(driver.budgets.size() - 1)).isEqualTo(RvtDriver.WAIT_BUDGET);
    }

    @Test
    void shouldProgressTheEngineWhileDeregMrWaitsForInFlightWork() {
        ProgressOnlyDriver driver = new ProgressOnlyDriver();
        QpEnv env = new QpEnv(driver);
        RvtMr mr = env.reg(4096);
        mr.retain();
        driver.heldMr = mr; // in-flight work references the region
        int before = driver.calls.get();
        mr.deregMr();
        assertThat(driver.heldMr).isNull();
        assertThat(driver.calls.get()).isGreaterThan(before);
        assertThat(driver.threads.get(driver.threads.size() - 1)).isSameAs(Thread.currentThread());
    }
}
