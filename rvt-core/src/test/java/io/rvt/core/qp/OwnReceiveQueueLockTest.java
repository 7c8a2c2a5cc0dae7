package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.QpInitAttr;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WorkRequestException;
import io.rvt.core.TestDriver;
import io.rvt.core.srq.RvtSrq;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A QP's own receive queue is consumed under the QP's {@code recvLock}, which is also its consumer lock (no second
 * atomic per received message); an SRQ keeps a lock of its own. The lock order becomes {@code recvLock → p_lock}.
 */
class OwnReceiveQueueLockTest {
    @Test
    void shouldUseTheQpsRecvLockAsTheConsumerLockOfItsOwnQueueOnly() {
        QpEnv env = new QpEnv(new TestDriver());
        RvtQp own = env.rc();
        env.up(own, own.qpNum());
        assertThat(own.rq().consumerLock()).isSameAs(own.recvLock());

        RvtSrq srq = env.srq(8);
        QpInitAttr init = env.init(QpType.RC, 16, 0, 4).srq(srq);
        RvtQp shared = env.create(init);
        assertThat(srq.rq().consumerLock()).isNotSameAs(shared.recvLock());
    }

    @Test
    @Timeout(60)
    void shouldCompleteEveryReceiveOnceWhenPostsRaceTheErrorFlushAndDestroy() throws InterruptedException {
        QpEnv env = new QpEnv(new TestDriver());
        RvtQp qp = env.create(QpType.RC, 16, 256, 4);
        env.up(qp, qp.qpNum());
        int posts = 250;
        CountDownLatch started = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        int[] posted = new int[1];
        Thread poster = new Thread(() -> {
            try {
                for (int i = 0; i < posts; i++) {
                    qp.postRecv(new RecvWorkRequest(0).wrId(i));
                    posted[0]++;
                    if (i == 50) {
                        started.countDown();
                    }
                }
            } catch (WorkRequestException e) {
                started.countDown(); // the destroy below got in first: the rest are refused, never lost
            } catch (Throwable t) {
                failure.set(t);
                started.countDown();
            }
        }, "poster");
        poster.start();
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        env.toErr(qp); // the flush holds recvLock (the own queue's consumer lock), then the producer lock
        poster.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(poster.isAlive()).as("a post deadlocked against the flush").isFalse();
        assertThat(failure.get()).isNull();
        qp.destroyQp(); // frees the queue taking recvLock before the producer lock
        List<WorkCompletion> got = QpEnv.poll(env.rcq);
        assertThat(got).hasSize(posted[0]);
        assertThat(got).allSatisfy(wc -> assertThat(wc.status()).isEqualTo(WcStatus.WR_FLUSH_ERR));
        assertThat(got.stream().mapToLong(WorkCompletion::wrId).distinct().count()).isEqualTo(posted[0]);
    }
}
