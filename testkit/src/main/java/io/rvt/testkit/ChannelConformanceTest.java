package io.rvt.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.CompletionChannel;
import io.rvt.api.CompletionQueue;
import io.rvt.api.CqNotify;
import io.rvt.api.Errno;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.VerbsException;
import io.rvt.api.WcOpcode;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Completion channels over a driver ({@code ibv_create_comp_channel}, {@code ibv_req_notify_cq},
 * {@code ibv_get_cq_event}, {@code ibv_ack_cq_events}): events for completions that crossed the network, solicited
 * events, several CQs on one channel, and the progress hook: the test's one thread, blocked in {@code getCqEvent},
 * is all that runs a driver whose engines only callers run, and the peer's data still arrives.
 */
public abstract class ChannelConformanceTest extends ConformanceTest {
    private static final int BUF = 1 << 16;
    private static final int NEXT = CqNotify.NEXT_COMP.bit();

    private Endpoint[] pair(CompletionChannel a, CompletionChannel b) {
        return verbs.connected(dev[0], a, dev[1], b, QpType.RC, BUF, 7, 1);
    }

    private static CompletionQueue await(CompletionChannel ch) {
        return ch.getCqEvent(Verbs.DEADLINE_NANOS, TimeUnit.NANOSECONDS);
    }

    private void send(Endpoint from, long wrId, int len, int flags) {
        Verbs.fill(from.buffer, 0, len, seed + wrId);
        from.qp.postSend(new SendWorkRequest(1).wrId(wrId).opcode(WrOpcode.SEND).sendFlags(flags)
                .sge(from.mr, 0, len));
    }

    /**
     * The one thread: posts, then blocks in getCqEvent; nothing else runs the fabric of a driver whose engines only
     * callers run (a deterministic driver-sim fabric), so the waiter's progress hook carries the SEND, its ACK and
     * the receive. The event names the receive CQ and its completion holds the peer's bytes.
     */
    @Test
    void shouldDeliverThePeersDataToTheOneThreadBlockedInGetCqEvent() {
        CompletionChannel ch = dev[1].createCompChannel();
        Endpoint[] p = pair(null, ch);
        int len = 3000;
        p[1].qp.postRecv(new RecvWorkRequest(1).wrId(5).sge(p[1].mr, 0, BUF));
        assertThat(p[1].recvCq.reqNotifyCq(NEXT)).isZero();
        send(p[0], 5, len, SendFlag.SIGNALED.bit());
        CompletionQueue got = await(ch);
        assertThat(got).as("the event of the receive (seed %d)", seed).isSameAs(p[1].recvCq);
        WorkCompletion wc = new WorkCompletion();
        assertThat(got.pollCq(wc)).isTrue();
        Verbs.assertSuccess(wc, 5);
        assertThat(wc.byteLen()).isEqualTo(len);
        Verbs.assertPattern(p[1].buffer, 0, len, seed + 5);
        got.ackCqEvents(1);
        Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 5);
        p[1].qp.destroyQp();
        p[1].recvCq.destroyCq();
        assertThatThrownBy(ch::destroyCompChannel).isInstanceOf(VerbsException.class)
                .satisfies(e -> assertThat(((VerbsException) e).errno()).isEqualTo(Errno.EBUSY))
                .hasMessageContaining("1 completion queue");
        p[1].sendCq.destroyCq();
        ch.destroyCompChannel();
    }

    /** Armed SOLICITED, an unsolicited SEND makes no event; a SEND with the solicited-event bit does. */
    @Test
    void shouldWakeOnlyForTheSolicitedSendWhenArmedSolicited() {
        CompletionChannel ch = dev[1].createCompChannel();
        Endpoint[] p = pair(null, ch);
        for (int i = 1; i <= 2; i++) {
            p[1].qp.postRecv(new RecvWorkRequest(1).wrId(i).sge(p[1].mr, 0, BUF));
        }
        p[1].recvCq.reqNotifyCq(CqNotify.SOLICITED.bit());
        send(p[0], 1, 100, SendFlag.SIGNALED.bit());
        verbs.await(p[0].sendCq, 1);
        WorkCompletion first = verbs.await(p[1].recvCq, 1).get(0);
        Verbs.assertSuccess(first, 1);
        assertThat(ch.tryGetCqEvent()).as("an unsolicited receive under a SOLICITED arm (seed %d)", seed).isNull();
        send(p[0], 2, 200, SendFlag.mask(SendFlag.SIGNALED, SendFlag.SOLICITED));
        assertThat(await(ch)).isSameAs(p[1].recvCq);
        WorkCompletion second = new WorkCompletion();
        assertThat(p[1].recvCq.pollCq(second)).isTrue();
        Verbs.assertSuccess(second, 2);
        assertThat(second.opcode()).isEqualTo(WcOpcode.RECV);
        assertThat(p[1].recvCq.unackedCqEvents()).isEqualTo(1);
        p[1].recvCq.ackCqEvents(1);
        verbs.await(p[0].sendCq, 1);
    }

    /**
     * One channel for both of a side's CQs: a SEND each way gives an event for the send CQ and one for the receive
     * CQ; a CQ with an unacknowledged event cannot be destroyed (EBUSY), nor the channel while it has CQs.
     */
    @Test
    void shouldNameEachCqWhenSeveralShareAChannelAndCountTheirEvents() {
        CompletionChannel ch = dev[0].createCompChannel();
        Endpoint[] p = pair(ch, null);
        p[0].qp.postRecv(new RecvWorkRequest(1).wrId(9).sge(p[0].mr, 0, BUF));
        p[1].qp.postRecv(new RecvWorkRequest(1).wrId(8).sge(p[1].mr, 0, BUF));
        p[0].sendCq.reqNotifyCq(NEXT);
        p[0].recvCq.reqNotifyCq(NEXT);
        send(p[0], 7, 64, SendFlag.SIGNALED.bit());
        send(p[1], 8, 64, SendFlag.SIGNALED.bit());
        Set<CompletionQueue> seen = new HashSet<>();
        for (int i = 0; i < 2; i++) {
            CompletionQueue cq = await(ch);
            assertThat(cq).as("event %d (seed %d)", i, seed).isNotNull();
            seen.add(cq);
        }
        assertThat(seen).containsExactlyInAnyOrder(p[0].sendCq, p[0].recvCq);
        assertThat(ch.tryGetCqEvent()).as("one event per arming").isNull();
        for (CompletionQueue cq : List.of(p[0].sendCq, p[0].recvCq)) {
            WorkCompletion wc = new WorkCompletion();
            assertThat(cq.pollCq(wc)).isTrue();
            Verbs.assertSuccess(wc, cq == p[0].sendCq ? 7 : 9);
        }
        verbs.await(p[1].sendCq, 1);
        verbs.await(p[1].recvCq, 1);
        p[0].qp.destroyQp();
        assertThatThrownBy(p[0].sendCq::destroyCq).isInstanceOf(VerbsException.class)
                .satisfies(e -> assertThat(((VerbsException) e).errno()).isEqualTo(Errno.EBUSY))
                .hasMessageContaining("1 completion event");
        assertThatThrownBy(() -> p[0].recvCq.ackCqEvents(2)).isInstanceOf(VerbsException.class)
                .satisfies(e -> assertThat(((VerbsException) e).errno()).isEqualTo(Errno.EINVAL));
        p[0].sendCq.ackCqEvents(1);
        p[0].recvCq.ackCqEvents(1);
        p[0].sendCq.destroyCq();
        p[0].recvCq.destroyCq();
        ch.destroyCompChannel();
    }

    /**
     * A CQ cannot be made on another device's channel nor on a destroyed one: EBADF for both, as libibverbs' create
     * gets from the kernel for a channel descriptor of another context.
     */
    @Test
    @Tag("SEPARATE_DEVICES")
    void shouldRefuseAnotherDevicesOrADestroyedChannel() {
        require(Feature.SEPARATE_DEVICES);
        CompletionChannel other = dev[1].createCompChannel();
        assertThatThrownBy(() -> dev[0].createCq(4, 0, other, null, null)).isInstanceOf(VerbsException.class)
                .satisfies(e -> assertThat(((VerbsException) e).errno()).isEqualTo(Errno.EBADF))
                .hasMessageContaining(dev[1].name());
        other.destroyCompChannel();
        assertThatThrownBy(() -> dev[1].createCq(4, 0, other, null, null)).isInstanceOf(VerbsException.class)
                .satisfies(e -> assertThat(((VerbsException) e).errno()).isEqualTo(Errno.EBADF));
        assertThatThrownBy(() -> other.getCqEvent(0, TimeUnit.SECONDS)).isInstanceOf(VerbsException.class)
                .satisfies(e -> assertThat(((VerbsException) e).errno()).isEqualTo(Errno.EBADF));
    }
}
