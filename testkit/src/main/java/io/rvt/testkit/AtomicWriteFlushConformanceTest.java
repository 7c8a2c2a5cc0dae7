package io.rvt.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.AccessFlag;
import io.rvt.api.DeviceAttributes;
import io.rvt.api.Errno;
import io.rvt.api.MemoryRegion;
import io.rvt.api.MemoryWindow;
import io.rvt.api.MwType;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WorkRequestException;
import io.rvt.api.WrOpcode;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * IBTA 1.5's ATOMIC_WRITE and FLUSH between two devices (issue 31; beyond rdmavt, as Linux's rxe has them since 6.2):
 * the capability bits, the 8 bytes placed as sent, FLUSH of a range and of a whole region answered in order, and the
 * refusals on both sides: a key without the right, a QP without the FLUSH placement type, persistence (no region has
 * it), bad input at post.
 */
public abstract class AtomicWriteFlushConformanceTest extends ConformanceTest {
    private static final int BUF = 1 << 14;
    private static final int FLUSHABLE = Endpoint.ALL_ACCESS | AccessFlag.FLUSH_GLOBAL.bit();

    private Endpoint[] pair() {
        return verbs.connected(dev[0], dev[1], QpType.RC, BUF, 7, 1);
    }

    /** Gives e's QP the FLUSH placement types (RTS to RTS with ACCESS_FLAGS). */
    private static void allowFlush(Endpoint e, int flushAccess) {
        e.qp.modifyQp(new QpAttr().qpState(QpState.RTS).qpAccessFlags(Endpoint.ALL_ACCESS | flushAccess),
                QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.ACCESS_FLAGS));
    }

    private static SendWorkRequest flush(long addr, int rkey, int length) {
        return new SendWorkRequest(0).wrId(20).opcode(WrOpcode.FLUSH).remoteAddr(addr).rkey(rkey)
                .flushLength(length).sendFlags(SendFlag.SIGNALED.bit());
    }

    /** The responder failed the request: its QP is in ERR and a receive posted before is flushed. */
    private void assertResponderFailed(Endpoint e) {
        WorkCompletion r = verbs.await(e.recvCq, 1).get(0);
        assertThat(r.status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
        assertThat(e.qp.state()).isEqualTo(QpState.ERR);
    }

    /** IB_DEVICE_ATOMIC_WRITE and IB_DEVICE_FLUSH_GLOBAL, not FLUSH_PERSISTENT. */
    @Test
    void shouldReportAtomicWriteAndGlobalFlushInTheDeviceCapabilities() {
        long caps = dev[1].queryDevice().deviceCapFlags();
        assertThat(caps & DeviceAttributes.DEVICE_ATOMIC_WRITE).isNotZero();
        assertThat(caps & DeviceAttributes.DEVICE_FLUSH_GLOBAL).isNotZero();
        assertThat(caps & DeviceAttributes.DEVICE_FLUSH_PERSISTENT).isZero();
    }

    /** ATOMIC_WRITE places its 8 bytes as they were in the local buffer, on a region and through a window. */
    @Test
    void shouldPlaceTheEightBytesOfAnAtomicWrite() {
        Endpoint[] p = pair();
        byte[] value = {1, 2, 3, 4, (byte) 0xF5, (byte) 0xE6, (byte) 0xD7, (byte) 0xC8};
        p[0].buffer.put(64, value, 0, 8);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.ATOMIC_WRITE).sge(p[0].mr, 64, 8)
                .remoteAddr(p[1].mr.addr() + 4096).rkey(p[1].mr.rkey()));
        WorkCompletion s = verbs.await(p[0].sendCq, 1).get(0);
        Verbs.assertSuccess(s, 1);
        assertThat(s.opcode()).isEqualTo(WcOpcode.ATOMIC_WRITE);
        byte[] got = new byte[10];
        p[1].buffer.get(4095, got, 0, 10);
        assertThat(got).containsExactly(0, 1, 2, 3, 4, (byte) 0xF5, (byte) 0xE6, (byte) 0xD7, (byte) 0xC8, 0);

        MemoryRegion bindable = p[1].pd.regMr(ByteBuffer.allocateDirect(4096),
                AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND));
        MemoryWindow mw = p[1].pd.allocMw(MwType.TYPE_2);
        int key = (mw.rkey() & 0xFFFF_FF00) | 0x2A;
        SendWorkRequest bind = new SendWorkRequest(0).opcode(WrOpcode.BIND_MW).wrId(9).mw(mw).key(key)
                .sendFlags(SendFlag.SIGNALED.bit());
        bind.bindInfo().mr(bindable).addr(bindable.addr() + 1024).length(64)
                .mwAccessFlags(AccessFlag.mask(AccessFlag.REMOTE_WRITE, AccessFlag.ZERO_BASED));
        p[1].qp.postSend(bind);
        Verbs.assertSuccess(verbs.await(p[1].sendCq, 1).get(0), 9);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.ATOMIC_WRITE).sge(p[0].mr, 64, 8)
                .remoteAddr(16).rkey(key));
        Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 2);
        byte[] w = new byte[8];
        bindable.buffer().get(1024 + 16, w, 0, 8);
        assertThat(w).as("zero-based window offset 16").containsExactly(value);
    }

    /** ATOMIC_WRITE through a key without REMOTE_WRITE: REM_ACCESS_ERR, the responder in ERR, nothing written. */
    @Test
    void shouldFailAnAtomicWriteWithoutRemoteWriteOnBothSides() {
        Endpoint[] p = pair();
        MemoryRegion ro = p[1].pd.regMr(ByteBuffer.allocateDirect(256),
                AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ));
        p[1].qp.postRecv(new RecvWorkRequest(1).wrId(40).sge(p[1].mr, 0, 64));
        p[0].buffer.putLong(0, -1L);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.ATOMIC_WRITE).sge(p[0].mr, 0, 8)
                .remoteAddr(ro.addr()).rkey(ro.rkey()));
        assertThat(verbs.await(p[0].sendCq, 1).get(0).status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertResponderFailed(p[1]);
        assertThat(ro.buffer().getLong(0)).isZero();
    }

    /** Post refuses an ATOMIC_WRITE without exactly one 8-byte SGE or to a misaligned address, queueing nothing. */
    @Test
    void shouldRefuseABadAtomicWriteAtPost() {
        Endpoint[] p = pair();
        assertThatThrownBy(() -> p[0].qp.postSend(new SendWorkRequest(1).opcode(WrOpcode.ATOMIC_WRITE)
                .sge(p[0].mr, 0, 16).remoteAddr(p[1].mr.addr()).rkey(p[1].mr.rkey())))
                .isInstanceOfSatisfying(WorkRequestException.class, e -> {
                    assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                    assertThat(e.getMessage()).contains("exactly one 8-byte SGE");
                });
        assertThatThrownBy(() -> p[0].qp.postSend(new SendWorkRequest(1).opcode(WrOpcode.ATOMIC_WRITE)
                .sge(p[0].mr, 0, 8).remoteAddr(p[1].mr.addr() + 4).rkey(p[1].mr.rkey())))
                .isInstanceOfSatisfying(WorkRequestException.class, e -> {
                    assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                    assertThat(e.getMessage()).contains("8-byte aligned");
                });
        verbs.assertQuiet(p[0].sendCq, 10);
        assertThat(p[0].qp.state()).isEqualTo(QpState.RTS);
    }

    /** FLUSH of a range and of the whole region completes in order after the WRITE it follows. */
    @Test
    void shouldFlushARangeAndAWholeRegion() {
        Endpoint[] p = pair();
        allowFlush(p[1], AccessFlag.FLUSH_GLOBAL.bit());
        MemoryRegion target = p[1].pd.regMr(ByteBuffer.allocateDirect(8192), FLUSHABLE);
        Verbs.fill(p[0].buffer, 0, 3000, seed);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(10).opcode(WrOpcode.RDMA_WRITE).sge(p[0].mr, 0, 3000)
                .remoteAddr(target.addr() + 100).rkey(target.rkey()));
        p[0].qp.postSend(flush(target.addr() + 100, target.rkey(), 3000));
        p[0].qp.postSend(flush(0, target.rkey(), 0).wrId(21).flushLevel(SendWorkRequest.FLUSH_MR)
                .remoteAddr(target.addr()));
        java.util.List<WorkCompletion> wcs = verbs.await(p[0].sendCq, 3);
        Verbs.assertSuccess(wcs.get(0), 10);
        Verbs.assertSuccess(wcs.get(1), 20);
        assertThat(wcs.get(1).opcode()).isEqualTo(WcOpcode.FLUSH);
        Verbs.assertSuccess(wcs.get(2), 21);
        assertThat(wcs.get(2).opcode()).isEqualTo(WcOpcode.FLUSH);
        Verbs.assertPattern(target.buffer(), 100, 3000, seed);
    }

    /** A FLUSH to a QP that does not allow its placement type is an invalid request (rxe: unsupported opcode). */
    @Test
    void shouldRefuseAFlushTheQpDoesNotAllow() {
        Endpoint[] p = pair();
        MemoryRegion target = p[1].pd.regMr(ByteBuffer.allocateDirect(4096), FLUSHABLE);
        p[1].qp.postRecv(new RecvWorkRequest(1).wrId(41).sge(p[1].mr, 0, 64));
        p[0].qp.postSend(flush(target.addr(), target.rkey(), 64));
        assertThat(verbs.await(p[0].sendCq, 1).get(0).status()).isEqualTo(WcStatus.REM_INV_REQ_ERR);
        assertResponderFailed(p[1]);
    }

    /** A FLUSH through a key without FLUSH_GLOBAL, or to persistence, is a remote access error. */
    @Test
    void shouldFailAFlushTheKeyDoesNotGrant() {
        Endpoint[] p = pair();
        allowFlush(p[1], AccessFlag.FLUSH_GLOBAL.bit());
        p[1].qp.postRecv(new RecvWorkRequest(1).wrId(42).sge(p[1].mr, 0, 64));
        p[0].qp.postSend(flush(p[1].mr.addr(), p[1].mr.rkey(), 64)); // ALL_ACCESS has no FLUSH_GLOBAL
        assertThat(verbs.await(p[0].sendCq, 1).get(0).status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertResponderFailed(p[1]);

        Endpoint[] q = pair();
        allowFlush(q[1], AccessFlag.mask(AccessFlag.FLUSH_GLOBAL, AccessFlag.FLUSH_PERSISTENT));
        MemoryRegion target = q[1].pd.regMr(ByteBuffer.allocateDirect(4096), FLUSHABLE);
        q[0].qp.postSend(flush(target.addr(), target.rkey(), 64).flushType(SendWorkRequest.FLUSH_PERSISTENT));
        assertThat(verbs.await(q[0].sendCq, 1).get(0).status()).as("no region is persistent")
                .isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThatThrownBy(() -> q[1].pd.regMr(ByteBuffer.allocateDirect(64),
                AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.FLUSH_PERSISTENT)))
                .isInstanceOfSatisfying(io.rvt.api.VerbsException.class,
                        e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
    }

    /**
     * Under 10 % loss both ways each ATOMIC_WRITE is done once: a retried one (its zero-length response lost) is
     * answered from the responder's resources, not written again over the FETCH_AND_ADD that followed it, and FLUSH
     * retries likewise; every WQE completes in order.
     */
    @Test
    @Tag("FAULT_INJECTION")
    void shouldExecuteEachAtomicWriteOnceUnderLoss() {
        require(Feature.ATOMICS);
        require(Feature.FAULT_INJECTION);
        Endpoint[] p = pair();
        allowFlush(p[1], AccessFlag.FLUSH_GLOBAL.bit());
        MemoryRegion target = p[1].pd.regMr(ByteBuffer.allocateDirect(64), FLUSHABLE);
        ByteBuffer local = p[0].buffer.duplicate().order(java.nio.ByteOrder.nativeOrder());
        ByteBuffer remote = target.buffer().order(java.nio.ByteOrder.nativeOrder());
        fixture.faults(new Faults(0.10, 0, 0, 0));
        for (int i = 1; i <= 40; i++) {
            long value = 1000L * i;
            local.putLong(0, value);
            p[0].qp.postSend(new SendWorkRequest(1).wrId(3L * i).opcode(WrOpcode.ATOMIC_WRITE).sge(p[0].mr, 0, 8)
                    .remoteAddr(target.addr() + 8).rkey(target.rkey()));
            p[0].qp.postSend(new SendWorkRequest(1).wrId(3L * i + 1).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                    .sge(p[0].mr, 8, 8).remoteAddr(target.addr() + 8).rkey(target.rkey()).compareAdd(1));
            p[0].qp.postSend(flush(target.addr(), target.rkey(), 64).wrId(3L * i + 2));
            java.util.List<WorkCompletion> wcs = verbs.await(p[0].sendCq, 3);
            for (int k = 0; k < 3; k++) {
                Verbs.assertSuccess(wcs.get(k), 3L * i + k);
            }
            assertThat(local.getLong(8)).as("round %d: FETCH_AND_ADD saw the ATOMIC_WRITE's value", i)
                    .isEqualTo(value);
            assertThat(remote.getLong(8)).as("round %d: no ATOMIC_WRITE written again after the add", i)
                    .isEqualTo(value + 1);
        }
        fixture.faults(Faults.NONE);
        assertThat(dev[1].portCounter(1, io.rvt.api.PortCounter.RC_DUPREQ))
                .as("duplicates reached the responder: %s", Verbs.nonZeroCounters(dev[1])).isPositive();
    }
}
