package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.core.TestDriver;
import io.rvt.core.TestUtil;
import io.rvt.core.mr.RvtMr;
import io.rvt.core.srq.RvtSrq;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A receive WQE taken for a message that ends in one packet ({@code getRwqeForOnePacket}) validates its SGEs
 * without region references while the QP's {@code recvLock} is held; a {@code deregMr} of the region meanwhile waits
 * for that lock (its {@code rvt_qp_mr_clean}), so it returns only after the receive used the region or pinned it.
 */
class UnreferencedReceiveSgeTest {
    private static final int USER_AND_TABLE = 2;

    private final QpEnv env = new QpEnv(new TestDriver());
    private final RvtMr mr = env.reg(64);

    /** @return an RTS RC QP on its own receive queue, one receive of the whole region posted */
    private RvtQp ownQueueQp() {
        RvtQp qp = env.rc();
        env.up(qp, qp.qpNum());
        qp.postRecv(new RecvWorkRequest(1).wrId(7).sge(mr, 0, 64));
        return qp;
    }

    /** Takes the receive for one packet under {@code recvLock}, checks the region's count, puts it. */
    private void takeAndPut(RvtQp qp, boolean borrowed) {
        qp.recvLock().lock();
        try {
            assertThat(qp.responder().getRwqeForOnePacket()).isEqualTo(1);
            assertThat(qp.responder().sge.isBorrowed()).isEqualTo(borrowed);
            assertThat(mr.refCount()).isEqualTo(USER_AND_TABLE + (borrowed ? 0 : 1));
            if (borrowed) {
                qp.responder().sge.pin();
                assertThat(mr.refCount()).isEqualTo(USER_AND_TABLE + 1);
            }
            qp.responder().sge.putSs();
        } finally {
            qp.recvLock().unlock();
        }
        assertThat(mr.refCount()).isEqualTo(USER_AND_TABLE);
    }

    @Test
    void shouldTakeNoRegionReferenceForOnePacketOnTheOwnQueueAndOneWhenPinned() {
        RvtQp qp = ownQueueQp();
        takeAndPut(qp, true);
        assertThat(qp.responder().wrId).isEqualTo(7);
    }

    @Test
    void shouldTakeRegionReferencesOnAnSrq() {
        RvtSrq srq = env.srq(8);
        QpInitAttr init = env.init(QpType.RC, 16, 0, 4).srq(srq);
        RvtQp qp = env.create(init);
        env.up(qp, qp.qpNum());
        srq.postSrqRecv(new RecvWorkRequest(1).wrId(8).sge(mr, 0, 64));
        takeAndPut(qp, false); // an SRQ's PD need not be the QP's
    }

    @Test
    @Timeout(60)
    void shouldKeepDeregMrWaitingUntilTheReceiveUsedTheRegionAndReleasedRecvLock() throws InterruptedException {
        check(false);
    }

    @Test
    @Timeout(60)
    void shouldErrorTheQpAndFinishDeregWhenABorrowedReceiveWasPinnedAndLeftLive() throws InterruptedException {
        check(true);
    }

    private void check(boolean leaveLive) throws InterruptedException {
        RvtQp qp = ownQueueQp();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread dereg = QpEnv.deregThread(mr, failure);
        qp.recvLock().lock(); // a receive in progress
        try {
            assertThat(qp.responder().getRwqeForOnePacket()).isEqualTo(1);
            dereg.start();
            TestUtil.await(() -> qp.recvLock().isParked(dereg) || !dereg.isAlive(),
                    "deregMr to wait for the receiving QP's recvLock");
            assertThat(dereg.isAlive()).as("deregMr returned while a receive used the region").isTrue();
            mr.memory().put(0, (byte) 1); // the region is still the receive's to write
            if (leaveLive) {
                qp.responder().sge.pin(); // as RcEngine does before it unlocks
            } else {
                qp.responder().sge.putSs(); // used up
            }
        } finally {
            qp.recvLock().unlock();
        }
        dereg.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(dereg.isAlive()).isFalse();
        assertThat(failure.get()).isNull();
        assertThat(mr.refCount()).isZero();
        assertThat(qp.state()).isEqualTo(leaveLive ? QpState.ERR : QpState.RTS);
    }
}
