package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.AccessFlag;
import io.rvt.api.DeviceAttributes;
import io.rvt.api.Errno;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.SigType;
import io.rvt.api.VerbsException;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.core.LoopbackTestDriver;
import io.rvt.core.cq.RvtCq;
import io.rvt.core.mr.RvtMr;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * ATOMIC_WRITE and FLUSH on rvt-core's loopback (issue 31; IBTA 1.5 as rxe): the device's capability bits, the
 * value placed as its bytes came, the post-time checks, and FLUSH's QP and key checks with their statuses.
 */
class AtomicWriteFlushLoopbackTest {
    private final LoopbackTestDriver driver = new LoopbackTestDriver();
    private final QpEnv env = new QpEnv(driver);

    private RvtQp[] pair(int responderFlushAccess) {
        // The env's two CQs for every QP (the device allows 16 CQs): one completion is awaited at a time.
        RvtQp a = env.create(env.init(QpType.RC, 8, 8, 1).sigType(SigType.SIGNAL_ALL_WR));
        RvtQp b = env.create(env.init(QpType.RC, 8, 8, 1).sigType(SigType.SIGNAL_ALL_WR));
        env.connect(a, b);
        if (responderFlushAccess != 0) {
            b.modifyQp(new QpAttr().qpState(QpState.RTS).qpAccessFlags(QpEnv.ALL_ACCESS | responderFlushAccess),
                    QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.ACCESS_FLAGS));
        }
        return new RvtQp[] {a, b};
    }

    private WorkCompletion one(RvtQp qp) {
        driver.drain();
        List<WorkCompletion> wcs = QpEnv.poll((RvtCq) qp.sendCompletionQueue());
        assertThat(wcs).hasSize(1);
        return wcs.get(0);
    }

    @Test
    void shouldReportAtomicWriteAndGlobalFlushButNotPersistence() {
        long caps = env.dev.queryDevice().deviceCapFlags();
        assertThat(caps & DeviceAttributes.DEVICE_ATOMIC_WRITE).isNotZero();
        assertThat(caps & DeviceAttributes.DEVICE_FLUSH_GLOBAL).isNotZero();
        assertThat(caps & DeviceAttributes.DEVICE_FLUSH_PERSISTENT).isZero();
        assertThatThrownBy(() -> env.pd.regMr(ByteBuffer.allocate(64),
                AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.FLUSH_PERSISTENT)))
                .isInstanceOfSatisfying(VerbsException.class, e -> {
                    assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                    assertThat(e.getMessage()).contains("FLUSH_PERSISTENT");
                });
    }

    @Test
    void shouldPlaceTheValueOfAnAtomicWriteByteForByte() {
        RvtQp[] p = pair(0);
        RvtMr src = env.reg(64);
        RvtMr dst = (RvtMr) env.pd.regMr(ByteBuffer.allocateDirect(64), QpEnv.ALL_ACCESS);
        byte[] v = {9, 8, 7, 6, 5, 4, 3, (byte) 0x82};
        src.buffer().put(8, v, 0, 8);
        p[0].postSend(new SendWorkRequest(1).opcode(WrOpcode.ATOMIC_WRITE).wrId(3).sge(src, 8, 8)
                .remoteAddr(dst.addr() + 16).rkey(dst.rkey()));
        WorkCompletion wc = one(p[0]);
        assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.opcode()).isEqualTo(WcOpcode.ATOMIC_WRITE);
        byte[] got = new byte[8];
        dst.buffer().get(16, got, 0, 8);
        assertThat(got).containsExactly(v);
        assertThat(dst.buffer().get(15)).isZero();
        assertThat(dst.buffer().get(24)).isZero();
    }

    @Test
    void shouldRefuseBadAtomicWritesAndFlushesAtPost() {
        RvtQp[] p = pair(0);
        RvtMr src = env.reg(64);
        assertThatThrownBy(() -> p[0].postSend(new SendWorkRequest(1).opcode(WrOpcode.ATOMIC_WRITE).sge(src, 0, 4)
                .remoteAddr(8).rkey(src.rkey()))).isInstanceOfSatisfying(VerbsException.class,
                        e -> assertThat(e.getMessage()).contains("exactly one 8-byte SGE"));
        assertThatThrownBy(() -> p[0].postSend(new SendWorkRequest(1).opcode(WrOpcode.ATOMIC_WRITE).sge(src, 0, 8)
                .remoteAddr(src.addr() + 2).rkey(src.rkey()))).isInstanceOfSatisfying(VerbsException.class,
                        e -> assertThat(e.getMessage()).contains("8-byte aligned"));
        assertThatThrownBy(() -> p[0].postSend(new SendWorkRequest(1).opcode(WrOpcode.FLUSH).sge(src, 0, 8)
                .remoteAddr(src.addr()).rkey(src.rkey()))).isInstanceOfSatisfying(VerbsException.class,
                        e -> assertThat(e.getMessage()).contains("FLUSH carries no local data"));
        assertThatThrownBy(() -> new SendWorkRequest(0).flushType(4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("flushType 4");
        assertThatThrownBy(() -> new SendWorkRequest(0).flushLevel(2)).isInstanceOf(IllegalArgumentException.class);
        assertThat(p[0].sendQueue().head()).as("nothing queued").isZero();
        RvtQp ud = env.create(QpType.UD, 4, 4, 1);
        env.up(ud, 0);
        assertThatThrownBy(() -> ud.postSend(new SendWorkRequest(0).opcode(WrOpcode.FLUSH)))
                .isInstanceOfSatisfying(VerbsException.class,
                        e -> assertThat(e.getMessage()).contains("not allowed on a UD QP"));
    }

    @Test
    void shouldFlushWhatTheQpAndTheKeyAllowAndFailTheRest() {
        RvtMr flushable = (RvtMr) env.pd.regMr(ByteBuffer.allocate(4096),
                QpEnv.ALL_ACCESS | AccessFlag.FLUSH_GLOBAL.bit());
        RvtQp[] p = pair(AccessFlag.FLUSH_GLOBAL.bit());
        p[0].postSend(new SendWorkRequest(0).opcode(WrOpcode.FLUSH).wrId(1).remoteAddr(flushable.addr() + 64)
                .rkey(flushable.rkey()).flushLength(128));
        WorkCompletion ok = one(p[0]);
        assertThat(ok.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(ok.opcode()).isEqualTo(WcOpcode.FLUSH);
        p[0].postSend(new SendWorkRequest(0).opcode(WrOpcode.FLUSH).wrId(2).remoteAddr(flushable.addr())
                .rkey(flushable.rkey()).flushLevel(SendWorkRequest.FLUSH_MR));
        assertThat(one(p[0]).status()).isEqualTo(WcStatus.SUCCESS);
        p[0].postSend(new SendWorkRequest(0).opcode(WrOpcode.FLUSH).wrId(3).remoteAddr(flushable.addr() + 4000)
                .rkey(flushable.rkey()).flushLength(128));
        assertThat(one(p[0]).status()).as("range past the region").isEqualTo(WcStatus.REM_ACCESS_ERR);

        RvtQp[] q = pair(AccessFlag.FLUSH_GLOBAL.bit());
        RvtMr plain = env.reg(4096);
        q[0].postSend(new SendWorkRequest(0).opcode(WrOpcode.FLUSH).wrId(4).remoteAddr(plain.addr())
                .rkey(plain.rkey()).flushLength(64));
        assertThat(one(q[0]).status()).as("a key without FLUSH_GLOBAL").isEqualTo(WcStatus.REM_ACCESS_ERR);

        RvtQp[] r = pair(0);
        r[0].postSend(new SendWorkRequest(0).opcode(WrOpcode.FLUSH).wrId(5).remoteAddr(flushable.addr())
                .rkey(flushable.rkey()).flushLength(64));
        assertThat(one(r[0]).status()).as("a QP without FLUSH_GLOBAL").isEqualTo(WcStatus.REM_INV_REQ_ERR);

        RvtQp[] t = pair(AccessFlag.mask(AccessFlag.FLUSH_GLOBAL, AccessFlag.FLUSH_PERSISTENT));
        t[0].postSend(new SendWorkRequest(0).opcode(WrOpcode.FLUSH).wrId(6).remoteAddr(flushable.addr())
                .rkey(flushable.rkey()).flushLength(64).flushType(SendWorkRequest.FLUSH_PERSISTENT));
        assertThat(one(t[0]).status()).as("persistence: no region has it").isEqualTo(WcStatus.REM_ACCESS_ERR);
    }
}
