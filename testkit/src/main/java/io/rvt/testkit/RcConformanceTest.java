package io.rvt.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.AccessFlag;
import io.rvt.api.MemoryRegion;
import io.rvt.api.PortAttr;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcFlag;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Reliable connected service between two devices: every opcode, sizes from 0 to many MTUs, ordering. */
public abstract class RcConformanceTest extends ConformanceTest {
    private static final int BUF = 1 << 18;

    private int mtu() {
        return dev[0].queryPort(1, new PortAttr()).activeMtu().bytes();
    }

    private int[] sizes() {
        int m = mtu();
        return new int[] {0, 1, 63, m - 1, m, m + 1, 3 * m, 5 * m + 3};
    }

    private Endpoint[] pair() {
        return verbs.connected(dev[0], dev[1], QpType.RC, BUF, 7, 1);
    }

    /** Every size arrives byte-exact; both sides complete. */
    @Test
    void shouldDeliverSendsOfEverySizeWhenReceivesArePosted() {
        Endpoint[] p = pair();
        long id = 1;
        for (int len : sizes()) {
            Verbs.fill(p[0].buffer, 0, len, seed + len);
            p[1].qp.postRecv(new RecvWorkRequest(1).wrId(id).sge(p[1].mr, 0, BUF));
            p[0].qp.postSend(new SendWorkRequest(1).wrId(id).opcode(WrOpcode.SEND).sge(p[0].mr, 0, len));
            Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), id);
            WorkCompletion r = verbs.await(p[1].recvCq, 1).get(0);
            Verbs.assertSuccess(r, id);
            assertThat(r.opcode()).isEqualTo(WcOpcode.RECV);
            assertThat(r.byteLen()).as("byteLen of a %d-byte send", len).isEqualTo(len);
            assertThat(r.qpNum()).isEqualTo(p[1].qp.qpNum());
            Verbs.assertPattern(p[1].buffer, 0, len, seed + len);
            id++;
        }
    }

    /** SEND_WITH_IMM carries its immediate data and flag; a plain SEND has neither. */
    @Test
    void shouldCarryImmediateDataWhenSendWithImm() {
        Endpoint[] p = pair();
        p[1].qp.postRecv(new RecvWorkRequest(1).wrId(7).sge(p[1].mr, 0, BUF));
        p[0].qp.postSend(new SendWorkRequest(1).wrId(7).opcode(WrOpcode.SEND_WITH_IMM).immData(0xCAFEBABE)
                .sge(p[0].mr, 0, 100));
        verbs.await(p[0].sendCq, 1);
        WorkCompletion r = verbs.await(p[1].recvCq, 1).get(0);
        assertThat(r.wcFlags() & WcFlag.WITH_IMM.bit()).isNotZero();
        assertThat(r.immData()).isEqualTo(0xCAFEBABE);
        assertThat(r.byteLen()).isEqualTo(100);
    }

    /** RDMA WRITE places bytes without a receive completion. */
    @Test
    void shouldWriteRemoteMemoryWhenRdmaWrite() {
        Endpoint[] p = pair();
        long id = 1;
        for (int len : sizes()) {
            Verbs.fill(p[0].buffer, 0, len, seed ^ len);
            p[0].qp.postSend(new SendWorkRequest(1).wrId(id).opcode(WrOpcode.RDMA_WRITE).sge(p[0].mr, 0, len)
                    .remoteAddr(p[1].mr.addr() + 16).rkey(p[1].mr.rkey()));
            Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), id++);
            Verbs.assertPattern(p[1].buffer, 16, len, seed ^ len);
        }
        verbs.assertQuiet(p[1].recvCq, 10);
    }

    /** RDMA WRITE with immediate consumes a receive, reports RECV_RDMA_WITH_IMM and the length. */
    @Test
    void shouldConsumeReceiveWhenRdmaWriteWithImm() {
        Endpoint[] p = pair();
        int len = 3 * mtu() + 5;
        Verbs.fill(p[0].buffer, 0, len, seed);
        p[1].qp.postRecv(new RecvWorkRequest(1).wrId(9).sge(p[1].mr, 0, 8));
        p[0].qp.postSend(new SendWorkRequest(1).wrId(9).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(42)
                .sge(p[0].mr, 0, len).remoteAddr(p[1].mr.addr() + 1024).rkey(p[1].mr.rkey()));
        verbs.await(p[0].sendCq, 1);
        WorkCompletion r = verbs.await(p[1].recvCq, 1).get(0);
        assertThat(r.opcode()).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
        assertThat(r.immData()).isEqualTo(42);
        assertThat(r.byteLen()).isEqualTo(len);
        Verbs.assertPattern(p[1].buffer, 1024, len, seed);
    }

    /** RDMA READ brings remote bytes into the local buffer. */
    @Test
    void shouldReadRemoteMemoryWhenRdmaRead() {
        Endpoint[] p = pair();
        long id = 1;
        for (int len : sizes()) {
            Verbs.fill(p[1].buffer, 4096, len, seed - len);
            p[0].qp.postSend(new SendWorkRequest(1).wrId(id).opcode(WrOpcode.RDMA_READ).sge(p[0].mr, 128, len)
                    .remoteAddr(p[1].mr.addr() + 4096).rkey(p[1].mr.rkey()));
            WorkCompletion s = verbs.await(p[0].sendCq, 1).get(0);
            Verbs.assertSuccess(s, id++);
            assertThat(s.opcode()).isEqualTo(WcOpcode.RDMA_READ);
            Verbs.assertPattern(p[0].buffer, 128, len, seed - len);
        }
    }

    /** Fetch-and-add and compare-and-swap return the original value and change the target. */
    @Test
    void shouldReturnOriginalValueWhenAtomics() {
        require(Feature.ATOMICS);
        Endpoint[] p = pair();
        ByteBuffer target = p[1].buffer.duplicate().order(ByteOrder.nativeOrder());
        ByteBuffer local = p[0].buffer.duplicate().order(ByteOrder.nativeOrder());
        target.putLong(64, 1000);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sge(p[0].mr, 0, 8)
                .remoteAddr(p[1].mr.addr() + 64).rkey(p[1].mr.rkey()).compareAdd(5));
        WorkCompletion s = verbs.await(p[0].sendCq, 1).get(0);
        Verbs.assertSuccess(s, 1);
        assertThat(s.opcode()).isEqualTo(WcOpcode.FETCH_ADD);
        assertThat(local.getLong(0)).isEqualTo(1000);
        assertThat(target.getLong(64)).isEqualTo(1005);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).sge(p[0].mr, 8, 8)
                .remoteAddr(p[1].mr.addr() + 64).rkey(p[1].mr.rkey()).compareAdd(1005).swap(77));
        Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 2);
        assertThat(local.getLong(8)).isEqualTo(1005);
        assertThat(target.getLong(64)).isEqualTo(77);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(3).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).sge(p[0].mr, 16, 8)
                .remoteAddr(p[1].mr.addr() + 64).rkey(p[1].mr.rkey()).compareAdd(1).swap(2));
        Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 3);
        assertThat(local.getLong(16)).as("failed compare returns the current value").isEqualTo(77);
        assertThat(target.getLong(64)).isEqualTo(77);
    }

    /** SEND_WITH_INV invalidates the responder's rkey; a later write with it fails. */
    @Test
    void shouldInvalidateRkeyWhenSendWithInvalidate() {
        Endpoint[] p = pair();
        MemoryRegion fr = p[1].pd.allocMr(4);
        fr.mapBuffer(ByteBuffer.allocateDirect(4096), 0x70000);
        int key = (fr.lkey() & 0xFFFFFF00) | 0x5A;
        int acc = AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE);
        p[1].qp.postSend(new SendWorkRequest(0).wrId(50).opcode(WrOpcode.REG_MR).mr(fr).key(key).access(acc)
                .sendFlags(SendFlag.SIGNALED.bit()));
        WorkCompletion reg = verbs.await(p[1].sendCq, 1).get(0);
        Verbs.assertSuccess(reg, 50);
        assertThat(reg.opcode()).isEqualTo(WcOpcode.REG_MR);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.RDMA_WRITE).sge(p[0].mr, 0, 16)
                .remoteAddr(0x70000).rkey(key));
        Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 1);
        p[1].qp.postRecv(new RecvWorkRequest(1).wrId(51).sge(p[1].mr, 0, 64));
        p[0].qp.postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(key)
                .sge(p[0].mr, 0, 8));
        Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 2);
        WorkCompletion r = verbs.await(p[1].recvCq, 1).get(0);
        assertThat(r.wcFlags() & WcFlag.WITH_INVALIDATE.bit()).isNotZero();
        assertThat(r.invalidateRkey()).isEqualTo(key);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(3).opcode(WrOpcode.RDMA_WRITE).sge(p[0].mr, 0, 16)
                .remoteAddr(0x70000).rkey(key));
        assertThat(verbs.await(p[0].sendCq, 1).get(0).status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
    }

    /** Many mixed operations complete in post order, and the data is exact. */
    @Test
    void shouldCompleteInPostOrderWhenOperationsAreMixed() {
        Endpoint[] p = pair();
        int n = 60;
        int slot = 2048;
        for (int i = 0; i < n; i++) {
            p[1].qp.postRecv(new RecvWorkRequest(1).wrId(1000 + i).sge(p[1].mr, 0, BUF / 2));
        }
        long sends = 0;
        for (int i = 0; i < n; i++) {
            int len = (int) ((seed + i * 7919L) & 1023);
            Verbs.fill(p[0].buffer, i * slot, len, seed + i);
            SendWorkRequest w = new SendWorkRequest(1).wrId(i).sge(p[0].mr, i * slot, len);
            if (i % 3 == 0) {
                w.opcode(WrOpcode.RDMA_WRITE).remoteAddr(p[1].mr.addr() + BUF / 2 + i * slot).rkey(p[1].mr.rkey());
            } else {
                w.opcode(WrOpcode.SEND);
                sends++;
            }
            p[0].qp.postSend(w);
        }
        List<WorkCompletion> done = verbs.await(p[0].sendCq, n);
        for (int i = 0; i < n; i++) {
            Verbs.assertSuccess(done.get(i), i);
        }
        List<WorkCompletion> recv = verbs.await(p[1].recvCq, (int) sends);
        for (int i = 0; i < sends; i++) {
            assertThat(recv.get(i).wrId()).isEqualTo(1000 + i);
        }
        for (int i = 0; i < n; i += 3) {
            int len = (int) ((seed + i * 7919L) & 1023);
            Verbs.assertPattern(p[1].buffer, BUF / 2 + i * slot, len, seed + i);
        }
    }
}
