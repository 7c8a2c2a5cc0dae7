package io.rvt.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.AccessFlag;
import io.rvt.api.MemoryRegion;
import io.rvt.api.PortCounter;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.SigType;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.transport.header.AethDescriptor;
import io.rvt.transport.header.BthDescriptor;
import io.rvt.transport.header.LrhDescriptor;
import io.rvt.transport.header.Opcode;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** RC retry, RNR, NAK and resource rules: what the requester reports and what happens to both QPs. */
class RcErrorTest extends TwoNodeTest {
    static final int MTU = 256;

    QueuePair qa;
    QueuePair qb;

    @Override
    long pattern() {
        return 1;
    }

    void connect() {
        QueuePair[] p = Node.pair(QpType.RC, a, b, 64, 2);
        qa = p[0];
        qb = p[1];
    }

    SendWorkRequest send(long id, int len) {
        return new SendWorkRequest(1).wrId(id).opcode(WrOpcode.SEND).sendFlags(SendFlag.SIGNALED.bit())
                .sge(srcA, 0, len);
    }

    static int bthOpcode(byte[] packet) {
        return packet[LrhDescriptor.LENGTH] & 0xFF; // local (no GRH) packets in these tests
    }

    @Test
    void shouldFailWithRetryExceededThenFlushWhenThePeerIsUnreachable() {
        a.retryCnt = 3;
        connect();
        for (int i = 0; i < 4; i++) {
            b.postRecv(qb, i, dstB, i * 1024, 1024);
        }
        fabric.partitioned(true);
        for (int i = 0; i < 3; i++) {
            qa.postSend(send(i, 600));
        }
        fabric.settle();

        List<WorkCompletion> wcs = Node.poll(a.scq);
        assertThat(wcs).extracting(WorkCompletion::status)
                .containsExactly(WcStatus.RETRY_EXC_ERR, WcStatus.WR_FLUSH_ERR, WcStatus.WR_FLUSH_ERR);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(0L, 1L, 2L);
        assertThat(qa.state()).isEqualTo(QpState.ERR);
        assertThat(a.counter(PortCounter.RC_TIMEOUTS)).isEqualTo(4); // the first try and three retries
        assertThat(Node.poll(b.rcq)).isEmpty();

        qa.postSend(send(9, 10)); // posting in ERR completes at once with a flush
        fabric.settle();
        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.WR_FLUSH_ERR);
    }

    @Test
    void shouldRecoverWhenTheLinkComesBackBeforeRetriesRunOut() {
        connect();
        b.postRecv(qb, 1, dstB, 0, 4096);
        fabric.partitioned(true);
        qa.postSend(send(1, 3 * MTU + 1));
        fabric.runUntil(() -> a.counter(PortCounter.RC_TIMEOUTS) >= 3, 60_000_000_000L);
        fabric.partitioned(false);
        fabric.settle();

        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(Node.poll(b.rcq)).singleElement().extracting(WorkCompletion::byteLen).isEqualTo(3 * MTU + 1);
        assertThat(qa.state()).isEqualTo(QpState.RTS);
    }

    @Test
    void shouldRetryAfterRnrNakUntilAReceiveIsPosted() {
        connect(); // rnr_retry 7: forever
        qa.postSend(send(1, 2 * MTU));
        assertThat(fabric.runUntil(() -> a.counter(PortCounter.RNR_NAKS) >= 5, 10_000_000_000L)).isTrue();
        assertThat(Node.poll(a.scq)).isEmpty();

        b.postRecv(qb, 7, dstB, 0, 4096);
        fabric.settle();
        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(Node.poll(b.rcq)).singleElement().satisfies(wc -> {
            assertThat(wc.wrId()).isEqualTo(7);
            assertThat(wc.byteLen()).isEqualTo(2 * MTU);
        });
        assertThat(RcOperationsTest.bytes(dstB, 0, 2 * MTU)).isEqualTo(RcOperationsTest.bytes(srcA, 0, 2 * MTU));
    }

    @Test
    void shouldFailWithRnrRetryExceededWhenRnrRetriesRunOut() {
        a.rnrRetry = 2;
        connect();
        qa.postSend(send(1, 10));
        qa.postSend(send(2, 10));
        fabric.settle();

        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status)
                .containsExactly(WcStatus.RNR_RETRY_EXC_ERR, WcStatus.WR_FLUSH_ERR);
        assertThat(a.counter(PortCounter.RNR_NAKS)).isEqualTo(3);
        assertThat(qa.state()).isEqualTo(QpState.ERR);
        assertThat(qb.state()).isEqualTo(QpState.RTS); // receiver not ready is no error at the responder
    }

    @Test
    void shouldReportRemoteAccessErrorAndFailBothQpsWhenTheRkeyIsBad() {
        connect();
        b.postRecv(qb, 1, dstB, 0, 64);
        qa.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlag.SIGNALED.bit())
                .sge(srcA, 0, 100).remoteAddr(dstB.addr()).rkey(dstB.rkey() ^ 0x100));
        qa.postSend(send(2, 10));
        fabric.settle();

        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status)
                .containsExactly(WcStatus.REM_ACCESS_ERR, WcStatus.WR_FLUSH_ERR);
        assertThat(qa.state()).isEqualTo(QpState.ERR);
        // IBTA/hfi1: the responder NAKs and moves to ERR (as rdmavt's loopback does, spec 8.6)
        assertThat(qb.state()).isEqualTo(QpState.ERR);
        assertThat(Node.poll(b.rcq)).extracting(WorkCompletion::status).containsExactly(WcStatus.WR_FLUSH_ERR);
    }

    @Test
    void shouldReportRemoteAccessErrorWhenTheReadIsOutOfBounds() {
        connect();
        MemoryRegion local = a.reg(8192);
        qa.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlag.SIGNALED.bit())
                .sge(local, 0, 600).remoteAddr(dstB.addr() + dstB.length() - 500).rkey(dstB.rkey()));
        fabric.settle();

        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.REM_ACCESS_ERR);
        assertThat(qb.state()).isEqualTo(QpState.ERR);
    }

    @Test
    void shouldReportRemoteAccessErrorWhenTheRegionLacksRemoteWrite() {
        connect();
        MemoryRegion readOnly = b.reg(4096, AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ));
        qa.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlag.SIGNALED.bit())
                .sge(srcA, 0, 10).remoteAddr(readOnly.addr()).rkey(readOnly.rkey()));
        fabric.settle();

        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.REM_ACCESS_ERR);
        assertThat(readOnly.buffer().get(0)).isZero();
    }

    @Test
    void shouldReportInvalidRequestWhenTheResponderQpLacksRemoteAtomic() {
        b.accessFlags = AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE);
        connect();
        MemoryRegion result = a.reg(64);
        qa.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                .sendFlags(SendFlag.SIGNALED.bit()).sge(result, 0, 8).remoteAddr(dstB.addr()).rkey(dstB.rkey())
                .compareAdd(1));
        fabric.settle();

        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.REM_INV_REQ_ERR);
        assertThat(qb.state()).isEqualTo(QpState.ERR);
        assertThat(dstB.buffer().getLong(0)).isZero();
    }

    @Test
    void shouldReportInvalidRequestAndFailTheReceiveWhenTheSendIsTooLong() {
        connect();
        b.postRecv(qb, 5, dstB, 0, 300);
        qa.postSend(send(1, 3 * MTU));
        fabric.settle();

        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.REM_INV_REQ_ERR);
        assertThat(Node.poll(b.rcq)).singleElement().satisfies(wc -> {
            assertThat(wc.wrId()).isEqualTo(5);
            assertThat(wc.status()).isEqualTo(WcStatus.LOC_QP_OP_ERR);
        });
        assertThat(qb.state()).isEqualTo(QpState.ERR);
    }

    @Test
    void shouldNakInvalidRequestWhenTheRequesterExceedsTheResponderResources() {
        a.maxRdAtomic = 4;
        b.maxDestRdAtomic = 1;
        a.retryCnt = 1;
        connect();
        b.driver.logSent = true;
        MemoryRegion local = a.reg(8192);
        for (int i = 0; i < 2; i++) {
            qa.postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.RDMA_READ)
                    .sendFlags(SendFlag.SIGNALED.bit()).sge(local, i * 2048, 3 * MTU)
                    .remoteAddr(dstB.addr()).rkey(dstB.rkey()));
        }
        fabric.runEngines(); // both READ requests leave before the responder answers either
        assertThat(fabric.inFlight()).isEqualTo(2);
        fabric.deliverAll();
        assertThat(qb.state()).isEqualTo(QpState.ERR);
        fabric.settle();

        byte[] nak = b.driver.sentLog.stream().filter(p -> bthOpcode(p) == Opcode.RC_ACKNOWLEDGE).findFirst()
                .orElseThrow();
        int aeth = AethDescriptor.value(ByteBuffer.wrap(nak), LrhDescriptor.LENGTH + BthDescriptor.LENGTH);
        assertThat(aeth >>> 24).isEqualTo(0x61); // NAK: invalid request
        assertThat(qa.state()).isEqualTo(QpState.ERR);
        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status).doesNotContain(WcStatus.SUCCESS);
    }

    @Test
    void shouldHoldFencedWqeUntilEarlierReadsCompleteWhenFenceIsSet() {
        connect();
        b.postRecv(qb, 1, dstB, 0, 1024);
        MemoryRegion local = a.reg(8192);
        qa.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlag.SIGNALED.bit())
                .sge(local, 0, 100).remoteAddr(dstB.addr() + 2048).rkey(dstB.rkey()));
        qa.postSend(send(2, 10).sendFlags(SendFlag.mask(SendFlag.SIGNALED, SendFlag.FENCE)));
        fabric.runEngines();
        assertThat(fabric.inFlight()).isEqualTo(1); // the SEND waits for the READ
        fabric.settle();
        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status)
                .containsExactly(WcStatus.SUCCESS, WcStatus.SUCCESS);
        assertThat(Node.poll(b.rcq)).hasSize(1);
    }

    @Test
    void shouldLimitOutstandingReadsWhenMaxRdAtomicIsReached() {
        a.maxRdAtomic = 1;
        connect();
        MemoryRegion local = a.reg(8192);
        for (int i = 0; i < 3; i++) {
            qa.postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.RDMA_READ)
                    .sendFlags(SendFlag.SIGNALED.bit()).sge(local, i * 1024, 1000)
                    .remoteAddr(dstB.addr()).rkey(dstB.rkey()));
        }
        fabric.runEngines();
        assertThat(fabric.inFlight()).isEqualTo(1);
        fabric.settle();
        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status).containsOnly(WcStatus.SUCCESS).hasSize(3);
    }

    @Test
    void shouldReplayTheSavedAtomicResultWhenItsAckIsLost() {
        connect();
        MemoryRegion result = a.reg(64);
        dstB.buffer().putLong(64, 41);
        AtomicInteger acks = new AtomicInteger();
        fabric.dropIf(p -> bthOpcode(p) == Opcode.RC_ATOMIC_ACKNOWLEDGE && acks.getAndIncrement() == 0);
        qa.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                .sendFlags(SendFlag.SIGNALED.bit()).sge(result, 0, 8).remoteAddr(dstB.addr() + 64)
                .rkey(dstB.rkey()).compareAdd(1));
        fabric.settle();

        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(result.buffer().getLong(0)).isEqualTo(41);
        assertThat(dstB.buffer().getLong(64)).isEqualTo(42); // executed once
        assertThat(b.counter(PortCounter.RC_DUPREQ)).isEqualTo(1);
        assertThat(a.counter(PortCounter.RC_TIMEOUTS)).isEqualTo(1);
    }

    @Test
    void shouldReExecuteTheReadFromTheAckQueueWhenItsLastResponseIsLost() {
        connect();
        RcOperationsTest.fill(dstB, 77);
        MemoryRegion local = a.reg(8192);
        AtomicInteger lasts = new AtomicInteger();
        fabric.dropIf(p -> bthOpcode(p) == Opcode.RC_RDMA_READ_RESPONSE_LAST && lasts.getAndIncrement() == 0);
        qa.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlag.SIGNALED.bit())
                .sge(local, 5, 4 * MTU + 7).remoteAddr(dstB.addr() + 11).rkey(dstB.rkey()));
        fabric.settle();

        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(RcOperationsTest.bytes(local, 5, 4 * MTU + 7))
                .isEqualTo(RcOperationsTest.bytes(dstB, 11, 4 * MTU + 7));
        assertThat(b.counter(PortCounter.RC_DUPREQ)).isEqualTo(1);
    }

    @Test
    void shouldWaitForCreditsAndProbeWithRnrWhenTheResponderHasFewReceives() {
        connect();
        b.postRecv(qb, 100, dstB, 0, 1024);
        b.postRecv(qb, 101, dstB, 1024, 1024);
        for (int i = 0; i < 6; i++) {
            qa.postSend(send(i, 100 + i));
        }
        assertThat(fabric.runUntil(() -> a.counter(PortCounter.RNR_NAKS) >= 1, 10_000_000_000L)).isTrue();
        assertThat(Node.poll(b.rcq)).hasSize(2);
        for (int i = 2; i < 6; i++) {
            b.postRecv(qb, 100 + i, dstB, i * 1024, 1024);
        }
        fabric.settle();

        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status).containsOnly(WcStatus.SUCCESS).hasSize(6);
        assertThat(Node.poll(b.rcq)).extracting(WorkCompletion::wrId).containsExactly(102L, 103L, 104L, 105L);
        assertThat(a.counter(PortCounter.RC_CRWAITS)).isPositive();
    }

    @Test
    void shouldCompleteUnsignaledWqesSilentlyWhenSignalingIsRequested() {
        a.sigType = SigType.SIGNAL_REQ_WR;
        connect();
        b.postRecv(qb, 1, dstB, 0, 1024);
        b.postRecv(qb, 2, dstB, 1024, 1024);
        qa.postSend(send(1, 10).sendFlags(0));
        qa.postSend(send(2, 10));
        fabric.settle();
        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::wrId).containsExactly(2L);
        assertThat(Node.poll(b.rcq)).extracting(WorkCompletion::opcode).containsOnly(WcOpcode.RECV);
    }
}
