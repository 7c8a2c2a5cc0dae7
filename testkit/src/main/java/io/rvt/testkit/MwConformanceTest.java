package io.rvt.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.AccessFlag;
import io.rvt.api.DeviceAttributes;
import io.rvt.api.Errno;
import io.rvt.api.MemoryRegion;
import io.rvt.api.MemoryWindow;
import io.rvt.api.MwBind;
import io.rvt.api.MwType;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.VerbsException;
import io.rvt.api.WcFlag;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Memory windows across two devices (issue 31; beyond rdmavt, as Linux's rxe): a window bound on one side, used by
 * the other with RDMA WRITE, READ and atomics through rvt-transport; a type 1 window; remote invalidation with
 * SEND_WITH_INV; a window that does not grant an access, or an access past the window inside its region, failing
 * on both sides (the requester's REM_ACCESS_ERR, the responder's QP in ERR with its receives flushed); bad binds and
 * a revoked window refused at post with their errno.
 */
public abstract class MwConformanceTest extends ConformanceTest {
    private static final int BUF = 1 << 14;
    private static final int WINDOW_REGION = 1 << 14;
    private static final int RW = AccessFlag.mask(AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE);

    private Endpoint[] pair() {
        return verbs.connected(dev[0], dev[1], QpType.RC, BUF, 7, 1);
    }

    /** A region of p[1]'s PD that windows can be bound to (LOCAL_WRITE, MW_BIND, no remote rights of its own). */
    private static MemoryRegion bindable(Endpoint e) {
        return e.pd.regMr(ByteBuffer.allocateDirect(WINDOW_REGION),
                AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND));
    }

    /** Binds a type 2 window through e's QP and waits for the bind's completion; returns the new rkey. */
    private int bindType2(Endpoint e, MemoryWindow mw, int keyPart, MemoryRegion mr, long addr, long len,
            int access) {
        int key = (mw.rkey() & 0xFFFF_FF00) | keyPart;
        SendWorkRequest w = new SendWorkRequest(0).opcode(WrOpcode.BIND_MW).wrId(500 + keyPart).mw(mw).key(key)
                .sendFlags(SendFlag.SIGNALED.bit());
        w.bindInfo().mr(mr).addr(addr).length(len).mwAccessFlags(access);
        e.qp.postSend(w);
        WorkCompletion wc = verbs.await(e.sendCq, 1).get(0);
        Verbs.assertSuccess(wc, 500 + keyPart);
        assertThat(wc.opcode()).isEqualTo(WcOpcode.BIND_MW);
        assertThat(mw.rkey()).isEqualTo(key);
        return key;
    }

    /** The device says it has windows (IB_DEVICE_MEM_WINDOW, IB_DEVICE_MEM_WINDOW_TYPE_2B). */
    @Test
    void shouldReportMemoryWindowsInTheDeviceCapabilities() {
        long caps = dev[1].queryDevice().deviceCapFlags();
        assertThat(caps & DeviceAttributes.DEVICE_MEM_WINDOW).isNotZero();
        assertThat(caps & DeviceAttributes.DEVICE_MEM_WINDOW_TYPE_2B).isNotZero();
    }

    /** WRITE, READ and an atomic through a type 2 window's rkey land in the window's part of the region. */
    @Test
    void shouldWriteReadAndAtomicThroughATypeTwoWindow() {
        Endpoint[] p = pair();
        MemoryRegion mr = bindable(p[1]);
        MemoryWindow mw = p[1].pd.allocMw(MwType.TYPE_2);
        long base = mr.addr() + 4096;
        int rkey = bindType2(p[1], mw, 0x33, mr, base, 8192, RW | AccessFlag.REMOTE_ATOMIC.bit());
        int len = 3000;
        Verbs.fill(p[0].buffer, 0, len, seed);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.RDMA_WRITE).sge(p[0].mr, 0, len)
                .remoteAddr(base + 100).rkey(rkey));
        Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 1);
        Verbs.assertPattern(mr.buffer(), 4096 + 100, len, seed);

        p[0].qp.postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.RDMA_READ).sge(p[0].mr, 4096, len)
                .remoteAddr(base + 100).rkey(rkey));
        WorkCompletion r = verbs.await(p[0].sendCq, 1).get(0);
        Verbs.assertSuccess(r, 2);
        assertThat(r.opcode()).isEqualTo(WcOpcode.RDMA_READ);
        Verbs.assertPattern(p[0].buffer, 4096, len, seed);

        if (fixture.supports(Feature.ATOMICS)) {
            ByteBuffer target = mr.buffer().order(ByteOrder.nativeOrder());
            target.putLong(4096 + 8000, 41);
            p[0].qp.postSend(new SendWorkRequest(1).wrId(3).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                    .sge(p[0].mr, 8192, 8).remoteAddr(base + 8000).rkey(rkey).compareAdd(1));
            Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 3);
            assertThat(p[0].buffer.duplicate().order(ByteOrder.nativeOrder()).getLong(8192)).isEqualTo(41);
            assertThat(target.getLong(4096 + 8000)).isEqualTo(42);
        }
    }

    /** A zero-based type 2 window takes offsets from its start, for READ and for atomics. */
    @Test
    void shouldReadAZeroBasedWindowByOffset() {
        Endpoint[] p = pair();
        MemoryRegion mr = bindable(p[1]);
        MemoryWindow mw = p[1].pd.allocMw(MwType.TYPE_2);
        int rkey = bindType2(p[1], mw, 0x05, mr, mr.addr() + 2048, 1024,
                AccessFlag.mask(AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC, AccessFlag.ZERO_BASED));
        Verbs.fill(mr.buffer(), 2048 + 16, 200, seed);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.RDMA_READ).sge(p[0].mr, 0, 200)
                .remoteAddr(16).rkey(rkey));
        Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 1);
        Verbs.assertPattern(p[0].buffer, 0, 200, seed);
        if (fixture.supports(Feature.ATOMICS)) {
            ByteBuffer target = mr.buffer().order(ByteOrder.nativeOrder());
            target.putLong(2048 + 512, 70);
            p[0].qp.postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                    .sge(p[0].mr, 1024, 8).remoteAddr(512).rkey(rkey).compareAdd(5));
            Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 2);
            assertThat(target.getLong(2048 + 512)).as("the window's offset 512").isEqualTo(75);
            assertThat(target.getLong(512)).as("not the region's").isZero();
        }
    }

    /** A type 1 window bound with bindMw serves the peer; its previous key stops working at the next bind. */
    @Test
    void shouldServeATypeOneWindowUntilItIsBoundAgain() {
        Endpoint[] p = pair();
        MemoryRegion mr = bindable(p[1]);
        MemoryWindow mw = p[1].pd.allocMw(MwType.TYPE_1);
        MwBind b = new MwBind().wrId(61).sendFlags(SendFlag.SIGNALED.bit());
        b.bindInfo().mr(mr).addr(mr.addr()).length(4096).mwAccessFlags(RW);
        int first = p[1].qp.bindMw(mw, b);
        WorkCompletion bound = verbs.await(p[1].sendCq, 1).get(0);
        Verbs.assertSuccess(bound, 61);
        assertThat(bound.opcode()).isEqualTo(WcOpcode.BIND_MW);
        Verbs.fill(p[0].buffer, 0, 512, seed);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.RDMA_WRITE).sge(p[0].mr, 0, 512)
                .remoteAddr(mr.addr() + 8).rkey(first));
        Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 1);
        Verbs.assertPattern(mr.buffer(), 8, 512, seed);

        int second = p[1].qp.bindMw(mw, b.sendFlags(0));
        assertThat(second).isNotEqualTo(first);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.RDMA_READ).sge(p[0].mr, 1024, 512)
                .remoteAddr(mr.addr() + 8).rkey(second));
        Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 2);
        Verbs.assertPattern(p[0].buffer, 1024, 512, seed);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(3).opcode(WrOpcode.RDMA_WRITE).sge(p[0].mr, 0, 16)
                .remoteAddr(mr.addr()).rkey(first));
        assertThat(verbs.await(p[0].sendCq, 1).get(0).status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
    }

    /** SEND_WITH_INV of a type 2 window's rkey frees the window at the responder; a later WRITE with it fails. */
    @Test
    void shouldInvalidateATypeTwoWindowRemotelyWithSendWithInvalidate() {
        Endpoint[] p = pair();
        MemoryRegion mr = bindable(p[1]);
        MemoryWindow mw = p[1].pd.allocMw(MwType.TYPE_2);
        int rkey = bindType2(p[1], mw, 0x71, mr, mr.addr(), 4096, RW);
        p[1].qp.postRecv(new RecvWorkRequest(1).wrId(51).sge(p[1].mr, 0, 64));
        p[0].qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(rkey)
                .sge(p[0].mr, 0, 8));
        Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 1);
        WorkCompletion r = verbs.await(p[1].recvCq, 1).get(0);
        Verbs.assertSuccess(r, 51);
        assertThat(r.wcFlags() & WcFlag.WITH_INVALIDATE.bit()).isNotZero();
        assertThat(r.invalidateRkey()).isEqualTo(rkey);
        assertThat(mw.isBound()).isFalse();

        p[0].qp.postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.RDMA_WRITE).sge(p[0].mr, 0, 16)
                .remoteAddr(mr.addr()).rkey(rkey));
        assertThat(verbs.await(p[0].sendCq, 1).get(0).status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
        mr.deregMr(); // no window is bound to it any more
    }

    /**
     * A WRITE through a read-only window: REM_ACCESS_ERR at the requester; the responder's QP goes to ERR and its
     * posted receive is flushed; the window's bytes are untouched.
     */
    @Test
    void shouldFailAnAccessTheWindowDoesNotGrantOnBothSides() {
        Endpoint[] p = pair();
        MemoryRegion mr = bindable(p[1]);
        MemoryWindow mw = p[1].pd.allocMw(MwType.TYPE_2);
        int rkey = bindType2(p[1], mw, 0x0F, mr, mr.addr(), 4096, AccessFlag.REMOTE_READ.bit());
        p[1].qp.postRecv(new RecvWorkRequest(1).wrId(52).sge(p[1].mr, 0, 64));
        Verbs.fill(p[0].buffer, 0, 64, seed);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.RDMA_WRITE).sge(p[0].mr, 0, 64)
                .remoteAddr(mr.addr()).rkey(rkey));
        WorkCompletion s = verbs.await(p[0].sendCq, 1).get(0);
        assertThat(s.status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
        WorkCompletion r = verbs.await(p[1].recvCq, 1).get(0);
        assertThat(r.wrId()).isEqualTo(52);
        assertThat(r.status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(p[1].qp.state()).isEqualTo(QpState.ERR);
        for (int i = 0; i < 64; i++) {
            assertThat(mr.buffer().get(i)).as("byte %d", i).isZero();
        }
    }

    /** A type 2 window answers only the QP it was bound through: another connection's WRITE gets REM_ACCESS_ERR. */
    @Test
    void shouldRefuseATypeTwoWindowToAnotherConnection() {
        Endpoint[] p = pair();
        MemoryRegion mr = bindable(p[1]);
        MemoryWindow mw = p[1].pd.allocMw(MwType.TYPE_2);
        int rkey = bindType2(p[1], mw, 0x44, mr, mr.addr(), 4096, RW);
        Endpoint[] q = pair();
        // q[1] has a PD of its own: reuse is by rkey only, which names p[1]'s window.
        q[0].qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.RDMA_WRITE).sge(q[0].mr, 0, 16)
                .remoteAddr(mr.addr()).rkey(rkey));
        assertThat(verbs.await(q[0].sendCq, 1).get(0).status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.RDMA_WRITE).sge(p[0].mr, 0, 16)
                .remoteAddr(mr.addr()).rkey(rkey));
        Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 2);
    }

    /**
     * An access past the window but inside its region fails on both sides: IBTA checks the window's bounds, not the
     * region's (Linux's rxe serves it, and rvt does not follow: docs/interop.md). A type 1 window over bytes
     * 1024-2047 serves a WRITE inside it; a WRITE straddling its end gets REM_ACCESS_ERR, the responder's QP goes to
     * ERR with its posted receive flushed and no byte of the region changes; on a second pair a READ wholly past a
     * type 2 window gets REM_ACCESS_ERR too.
     */
    @Test
    void shouldFailAnAccessPastTheWindowInsideItsRegionOnBothSides() {
        Endpoint[] p = pair();
        MemoryRegion mr = bindable(p[1]);
        MemoryWindow mw = p[1].pd.allocMw(MwType.TYPE_1);
        MwBind b = new MwBind().wrId(71).sendFlags(SendFlag.SIGNALED.bit());
        b.bindInfo().mr(mr).addr(mr.addr() + 1024).length(1024).mwAccessFlags(RW);
        int rkey = p[1].qp.bindMw(mw, b);
        Verbs.assertSuccess(verbs.await(p[1].sendCq, 1).get(0), 71);
        Verbs.fill(p[0].buffer, 0, 64, seed);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.RDMA_WRITE).sge(p[0].mr, 0, 64)
                .remoteAddr(mr.addr() + 1024).rkey(rkey));
        Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 1);
        Verbs.assertPattern(mr.buffer(), 1024, 64, seed);

        p[1].qp.postRecv(new RecvWorkRequest(1).wrId(53).sge(p[1].mr, 0, 64));
        p[0].qp.postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.RDMA_WRITE).sge(p[0].mr, 0, 16)
                .remoteAddr(mr.addr() + 2048 - 8).rkey(rkey));
        assertThat(verbs.await(p[0].sendCq, 1).get(0).status()).as("a WRITE straddling the window's end")
                .isEqualTo(WcStatus.REM_ACCESS_ERR);
        WorkCompletion r = verbs.await(p[1].recvCq, 1).get(0);
        assertThat(r.wrId()).isEqualTo(53);
        assertThat(r.status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(p[1].qp.state()).isEqualTo(QpState.ERR);
        for (int i = 2048 - 8; i < 2048 + 8; i++) {
            assertThat(mr.buffer().get(i)).as("byte %d", i).isZero();
        }

        Endpoint[] q = pair();
        MemoryRegion mr2 = bindable(q[1]);
        Verbs.fill(mr2.buffer(), 8192, 64, seed);
        int rkey2 = bindType2(q[1], q[1].pd.allocMw(MwType.TYPE_2), 0x19, mr2, mr2.addr(), 4096, RW);
        q[0].qp.postSend(new SendWorkRequest(1).wrId(3).opcode(WrOpcode.RDMA_READ).sge(q[0].mr, 0, 64)
                .remoteAddr(mr2.addr() + 8192).rkey(rkey2));
        assertThat(verbs.await(q[0].sendCq, 1).get(0).status()).as("a READ past the window")
                .isEqualTo(WcStatus.REM_ACCESS_ERR);
    }

    /**
     * Bad input refused at post with the errno of rxe's checks and libibverbs', nothing changed: binding a window
     * beyond its region (EINVAL, rxe's {@code rxe_check_bind_mw}, IBTA C10-75), binding with a region of another PD
     * (EPERM, libibverbs' {@code ibv_bind_mw}), invalidating a window already revoked (EINVAL,
     * {@code rxe_invalidate_mw}) and binding a deallocated one (EINVAL); the revoked rkey is a remote access error.
     */
    @Test
    void shouldRefuseBadBindsAndARevokedWindowWithTheirErrno() {
        Endpoint[] p = pair();
        MemoryRegion mr = bindable(p[1]);
        MemoryWindow mw = p[1].pd.allocMw(MwType.TYPE_2);
        int before = mw.rkey();
        SendWorkRequest beyond = new SendWorkRequest(0).opcode(WrOpcode.BIND_MW).mw(mw)
                .key((before & 0xFFFF_FF00) | 0x21);
        beyond.bindInfo().mr(mr).addr(mr.addr() + WINDOW_REGION - 64).length(128).mwAccessFlags(RW);
        assertErrno(() -> p[1].qp.postSend(beyond), Errno.EINVAL, "is not inside the region");
        assertThat(mw.rkey()).isEqualTo(before);
        assertThat(mw.isBound()).isFalse();
        ProtectionDomain otherPd = dev[1].allocPd();
        MemoryRegion foreign = otherPd.regMr(ByteBuffer.allocateDirect(4096),
                AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND));
        MemoryWindow t1 = p[1].pd.allocMw(MwType.TYPE_1);
        MwBind other = new MwBind();
        other.bindInfo().mr(foreign).addr(foreign.addr()).length(64).mwAccessFlags(RW);
        assertErrno(() -> p[1].qp.bindMw(t1, other), Errno.EPERM, "another PD");
        assertThat(t1.isBound()).isFalse();

        int rkey = bindType2(p[1], mw, 0x22, mr, mr.addr(), 4096, RW);
        p[1].qp.postSend(new SendWorkRequest(0).opcode(WrOpcode.LOCAL_INV).invalidateRkey(rkey).wrId(72)
                .sendFlags(SendFlag.SIGNALED.bit()));
        Verbs.assertSuccess(verbs.await(p[1].sendCq, 1).get(0), 72);
        assertErrno(() -> p[1].qp.postSend(new SendWorkRequest(0).opcode(WrOpcode.LOCAL_INV).invalidateRkey(rkey)),
                Errno.EINVAL, "LOCAL_INV");
        MemoryWindow gone = p[1].pd.allocMw(MwType.TYPE_2);
        gone.deallocMw();
        SendWorkRequest again = new SendWorkRequest(0).opcode(WrOpcode.BIND_MW).mw(gone).key(gone.rkey() + 1);
        again.bindInfo().mr(mr).addr(mr.addr()).length(64).mwAccessFlags(RW);
        assertErrno(() -> p[1].qp.postSend(again), Errno.EINVAL, "deallocated");
        assertThat(p[1].qp.state()).as("each refusal left the QP as it was").isEqualTo(QpState.RTS);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(4).opcode(WrOpcode.RDMA_WRITE).sge(p[0].mr, 0, 16)
                .remoteAddr(mr.addr()).rkey(rkey));
        assertThat(verbs.await(p[0].sendCq, 1).get(0).status()).as("the revoked rkey")
                .isEqualTo(WcStatus.REM_ACCESS_ERR);
        foreign.deregMr();
        otherPd.deallocPd();
    }

    private static void assertErrno(Executable verb, Errno errno, String message) {
        assertThatThrownBy(verb::execute).isInstanceOfSatisfying(VerbsException.class, e -> {
            assertThat(e.errno()).isEqualTo(errno);
            assertThat(e.getMessage()).contains(message);
        });
    }
}
