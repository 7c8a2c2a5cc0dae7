package io.rvt.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.AccessFlag;
import io.rvt.api.MemoryRegion;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** RC error paths: remote access errors, receiver not ready, retries exhausted, flush after error. */
public abstract class ErrorConformanceTest extends ConformanceTest {
    private static final int BUF = 1 << 14;

    private void assertErrorThenFlush(Endpoint e, WcStatus first) {
        e.qp.postSend(new SendWorkRequest(1).wrId(99).opcode(WrOpcode.SEND).sge(e.mr, 0, 8));
        List<WorkCompletion> wcs = verbs.await(e.sendCq, 2);
        assertThat(wcs.get(0).status()).as("first completion %s", wcs.get(0)).isEqualTo(first);
        assertThat(wcs.get(1).status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(wcs.get(1).wrId()).isEqualTo(99);
        assertThat(e.qp.state()).isEqualTo(QpState.ERR);
    }

    /** A bad rkey gives REM_ACCESS_ERR, and the QP flushes what follows. */
    @Test
    void shouldReportRemoteAccessErrorWhenRkeyIsBad() {
        Endpoint[] p = verbs.connected(dev[0], dev[1], QpType.RC, BUF, 7, 1);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.RDMA_WRITE).sge(p[0].mr, 0, 64)
                .remoteAddr(p[1].mr.addr()).rkey(p[1].mr.rkey() ^ 0x100));
        assertErrorThenFlush(p[0], WcStatus.REM_ACCESS_ERR);
    }

    /** An access past the end of the region gives REM_ACCESS_ERR. */
    @Test
    void shouldReportRemoteAccessErrorWhenOutOfBounds() {
        Endpoint[] p = verbs.connected(dev[0], dev[1], QpType.RC, BUF, 7, 1);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.RDMA_READ).sge(p[0].mr, 0, 64)
                .remoteAddr(p[1].mr.addr() + BUF - 32).rkey(p[1].mr.rkey()));
        assertErrorThenFlush(p[0], WcStatus.REM_ACCESS_ERR);
    }

    /** A region without REMOTE_WRITE refuses writes with REM_ACCESS_ERR. */
    @Test
    void shouldReportRemoteAccessErrorWhenPermissionIsMissing() {
        Endpoint[] p = verbs.connected(dev[0], dev[1], QpType.RC, BUF, 7, 1);
        MemoryRegion ro = p[1].pd.regMr(ByteBuffer.allocateDirect(256),
                AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ));
        p[0].qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.RDMA_WRITE).sge(p[0].mr, 0, 64)
                .remoteAddr(ro.addr()).rkey(ro.rkey()));
        assertErrorThenFlush(p[0], WcStatus.REM_ACCESS_ERR);
    }

    /** Receiver not ready with unlimited RNR retries: the send completes once a receive is posted. */
    @Test
    void shouldRecoverWhenReceiveIsPostedLate() {
        Endpoint[] p = verbs.connected(dev[0], dev[1], QpType.RC, BUF, 7, 1);
        Verbs.fill(p[0].buffer, 0, 100, seed);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.SEND).sge(p[0].mr, 0, 100));
        verbs.assertQuiet(p[0].sendCq, 20);
        p[1].qp.postRecv(new RecvWorkRequest(1).wrId(2).sge(p[1].mr, 0, BUF));
        Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 1);
        Verbs.assertSuccess(verbs.await(p[1].recvCq, 1).get(0), 2);
        Verbs.assertPattern(p[1].buffer, 0, 100, seed);
    }

    /** Receiver not ready with no RNR retries: RNR_RETRY_EXC_ERR, then flush. */
    @Test
    void shouldFailWithRnrRetryExceededWhenRetriesRunOut() {
        Endpoint[] p = verbs.connected(dev[0], dev[1], QpType.RC, BUF, 0, 1);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.SEND).sge(p[0].mr, 0, 8));
        assertErrorThenFlush(p[0], WcStatus.RNR_RETRY_EXC_ERR);
    }

    /** A partition until retries run out: RETRY_EXC_ERR, then flush. */
    @Test
    @Tag("FAULT_INJECTION")
    void shouldFailWithRetryExceededWhenPartitioned() {
        require(Feature.FAULT_INJECTION);
        Endpoint[] p = verbs.connected(dev[0], dev[1], QpType.RC, BUF, 7, 1);
        fixture.partition(true);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.RDMA_WRITE).sge(p[0].mr, 0, 8)
                .remoteAddr(p[1].mr.addr()).rkey(p[1].mr.rkey()));
        assertErrorThenFlush(p[0], WcStatus.RETRY_EXC_ERR);
    }
}
