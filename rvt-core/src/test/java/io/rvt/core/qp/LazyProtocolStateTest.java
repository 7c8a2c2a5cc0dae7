package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.Errno;
import io.rvt.api.QpState;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WorkRequestException;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.engine.AckQueue;
import io.rvt.api.spi.engine.SendWqe;
import io.rvt.core.LoopbackTestDriver;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An idle QP holds no protocol state (issue 16, item 7): the RC ack queue, the WQE slots and the receive queue exist
 * from the QP's first way out of RESET, and a QP that returns to RESET keeps them.
 */
class LazyProtocolStateTest {
    private final LoopbackTestDriver driver = new LoopbackTestDriver();
    private final QpEnv env = new QpEnv(driver);

    @Test
    void shouldGiveAQpInResetNoAckQueueAndNoReceiveQueueAndRefuseItsPosts() {
        RvtQp qp = env.rc();

        assertThat(qp.ackQueue().size()).isZero();
        assertThat(qp.rq()).isNull();
        assertThatThrownBy(() -> qp.postRecv(new RecvWorkRequest(0).wrId(1)))
                .isInstanceOfSatisfying(WorkRequestException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL))
                .hasMessageContaining("RESET");
        assertThatThrownBy(() -> qp.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(2)))
                .isInstanceOf(WorkRequestException.class).hasMessageContaining("RESET");
    }

    @Test
    void shouldAllocateOnTheFirstWayOutOfResetAndKeepItAcrossAReset() {
        RvtQp qp = env.rc();
        env.toInit(qp);
        AckQueue aq = qp.ackQueue();
        SendWqe slot = qp.sendQueue().swqe(0);

        assertThat(aq.size()).isEqualTo(env.dev.params().maxAtomic());
        assertThat(qp.rq()).isNotNull();
        env.toReset(qp);
        env.toInit(qp);
        assertThat(qp.ackQueue()).isSameAs(aq);
        assertThat(qp.sendQueue().swqe(0)).isSameAs(slot);
    }

    @Test
    void shouldCarryTrafficWithTheStateKeptAcrossAnErrorAndAReset() {
        RvtQp a = env.rc();
        RvtQp b = env.rc();
        env.toInit(a);
        env.toErr(a);
        assertThat(a.state()).isEqualTo(QpState.ERR);
        env.toReset(a);
        env.connect(a, b);
        b.postRecv(new RecvWorkRequest(0).wrId(40));

        a.postSend(new SendWorkRequest(0).opcode(WrOpcode.SEND).wrId(1));
        driver.drain();

        List<WorkCompletion> sent = QpEnv.poll(env.scq);
        assertThat(sent).extracting(WorkCompletion::wrId).containsExactly(1L);
        assertThat(sent.get(0).status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(QpEnv.poll(env.rcq)).extracting(WorkCompletion::wrId).containsExactly(40L);
    }

    @Test
    void shouldDestroyAQpThatNeverLeftResetAndHadNoTimers() {
        RvtQp qp = env.rc();
        qp.destroyQp(); // no timers to cancel, no receive queue to free
        assertThatThrownBy(qp::destroyQp).hasMessageContaining("destroyed");
    }
}
