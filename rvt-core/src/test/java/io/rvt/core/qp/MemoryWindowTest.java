package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.AccessFlag;
import io.rvt.api.DeviceAttributes;
import io.rvt.api.Errno;
import io.rvt.api.MemoryWindow;
import io.rvt.api.MwBind;
import io.rvt.api.MwType;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.ScatterGatherEntry;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.SigType;
import io.rvt.api.VerbsException;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.core.LoopbackTestDriver;
import io.rvt.core.mr.RvtMr;
import io.rvt.core.mr.RvtPd;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Memory windows in rvt-core (issue 31; beyond rdmavt, as rxe's {@code rxe_mw.c}): type 1 through {@code bindMw},
 * type 2 through BIND_MW, invalidation, the bind checks with their errno and nothing changed on a refusal, and remote
 * access through a window's rkey on the loopback engine (REM_ACCESS_ERR where the window does not grant it).
 */
class MemoryWindowTest {
    private static final int REGION = 4096;
    private static final int BIND_REGION = AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND);
    private static final int RW = AccessFlag.mask(AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE);

    private final LoopbackTestDriver driver = new LoopbackTestDriver();
    private final QpEnv env = new QpEnv(driver);

    /** A connected RC pair with CQs of their own: [0] the requester, [1] the window's side. */
    private RvtQp[] pair() {
        RvtQp a = env.createOwnCqs(QpType.RC, 16, 16, 1, SigType.SIGNAL_ALL_WR);
        RvtQp b = env.createOwnCqs(QpType.RC, 16, 16, 1, SigType.SIGNAL_ALL_WR);
        env.connect(a, b);
        return new RvtQp[] {a, b};
    }

    private RvtMr bindRegion() {
        return (RvtMr) env.pd.regMr(ByteBuffer.allocateDirect(REGION), BIND_REGION);
    }

    private static SendWorkRequest bindWr(MemoryWindow mw, int key, RvtMr mr, long addr, long len, int access) {
        SendWorkRequest w = new SendWorkRequest(0).opcode(WrOpcode.BIND_MW).wrId(77).mw(mw).key(key)
                .sendFlags(SendFlag.SIGNALED.bit());
        w.bindInfo().mr(mr).addr(addr).length(len).mwAccessFlags(access);
        return w;
    }

    private static int nextKey(int rkey, int part) {
        return (rkey & 0xFFFF_FF00) | part;
    }

    private WorkCompletion one(RvtQp qp) {
        driver.drain();
        List<WorkCompletion> wcs = QpEnv.poll((io.rvt.core.cq.RvtCq) qp.sendCompletionQueue());
        assertThat(wcs).hasSize(1);
        return wcs.get(0);
    }

    /** Writes 16 bytes of 0x5A from a's local region to (addr, rkey); returns a's completion. */
    private WorkCompletion write(RvtQp a, long addr, int rkey) {
        RvtMr src = env.reg(64);
        src.buffer().put(0, new byte[16]);
        for (int i = 0; i < 16; i++) {
            src.buffer().put(i, (byte) 0x5A);
        }
        a.postSend(new SendWorkRequest(1).opcode(WrOpcode.RDMA_WRITE).wrId(5).sge(src, 0, 16).remoteAddr(addr)
                .rkey(rkey));
        return one(a);
    }

    private static void assertRefused(Runnable post, Errno errno, String message) {
        assertThatThrownBy(post::run).isInstanceOfSatisfying(VerbsException.class, e -> {
            assertThat(e.errno()).isEqualTo(errno);
            assertThat(e.getMessage()).contains(message);
        });
    }

    @Test
    void shouldReportWindowsInTheDeviceCapabilities() {
        long caps = env.dev.queryDevice().deviceCapFlags();
        assertThat(caps & DeviceAttributes.DEVICE_MEM_WINDOW).isNotZero();
        assertThat(caps & DeviceAttributes.DEVICE_MEM_WINDOW_TYPE_2B).isNotZero();
    }

    @Test
    void shouldWriteThroughATypeTwoWindowAndCompleteTheBindWithBindMw() {
        RvtQp[] p = pair();
        RvtMr mr = bindRegion();
        MemoryWindow mw = env.pd.allocMw(MwType.TYPE_2);
        assertThat(mw.isBound()).isFalse();
        int key = nextKey(mw.rkey(), 0x42);
        p[1].postSend(bindWr(mw, key, mr, mr.addr() + 1024, 512, RW));
        WorkCompletion bound = one(p[1]);
        assertThat(bound.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(bound.opcode()).isEqualTo(WcOpcode.BIND_MW);
        assertThat(mw.rkey()).isEqualTo(key);
        assertThat(mw.isBound()).isTrue();

        assertThat(write(p[0], mr.addr() + 1024 + 100, key).status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(mr.buffer().get(1024 + 100)).isEqualTo((byte) 0x5A);
        assertThat(mr.buffer().get(1024 + 99)).isZero();
    }

    @Test
    void shouldCountAZeroBasedTypeTwoWindowFromItsStart() {
        RvtQp[] p = pair();
        RvtMr mr = bindRegion();
        MemoryWindow mw = env.pd.allocMw(MwType.TYPE_2);
        int key = nextKey(mw.rkey(), 1);
        p[1].postSend(bindWr(mw, key, mr, mr.addr() + 2048, 256, RW | AccessFlag.ZERO_BASED.bit()));
        one(p[1]);
        assertThat(write(p[0], 8, key).status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(mr.buffer().get(2048 + 8)).isEqualTo((byte) 0x5A);
        RvtQp[] q = pair();
        assertThat(write(q[0], 250, key).status()).as("a zero-based window from another QP").isEqualTo(
                WcStatus.REM_ACCESS_ERR);
    }

    @Test
    void shouldAddAtAZeroBasedWindowsOffsetNotAtTheRegionsAddress() {
        RvtQp[] p = pair();
        RvtMr mr = bindRegion();
        MemoryWindow mw = env.pd.allocMw(MwType.TYPE_2);
        int key = nextKey(mw.rkey(), 2);
        p[1].postSend(bindWr(mw, key, mr, mr.addr() + 512, 64,
                AccessFlag.mask(AccessFlag.REMOTE_ATOMIC, AccessFlag.ZERO_BASED)));
        one(p[1]);
        java.nio.ByteBuffer mem = mr.buffer().order(java.nio.ByteOrder.nativeOrder());
        mem.putLong(512 + 8, 70);
        RvtMr local = env.reg(64);
        p[0].postSend(new SendWorkRequest(1).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).wrId(6).sge(local, 0, 8)
                .remoteAddr(8).rkey(key).compareAdd(5));
        assertThat(one(p[0]).status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(local.buffer().order(java.nio.ByteOrder.nativeOrder()).getLong(0)).isEqualTo(70);
        assertThat(mem.getLong(512 + 8)).as("the window's byte 8").isEqualTo(75);
        assertThat(mem.getLong(8)).as("not the region's byte 8").isZero();
    }

    @Test
    void shouldRefuseBindingBeyondTheRegionAndChangeNothing() {
        RvtQp[] p = pair();
        RvtMr mr = bindRegion();
        MemoryWindow mw = env.pd.allocMw(MwType.TYPE_2);
        int before = mw.rkey();
        assertRefused(() -> p[1].postSend(bindWr(mw, nextKey(before, 9), mr, mr.addr() + REGION - 100, 200, RW)),
                Errno.EINVAL, "is not inside the region");
        assertRefused(() -> p[1].postSend(bindWr(mw, nextKey(before, 9), mr, mr.addr() - 8, 16, RW)),
                Errno.EINVAL, "is not inside the region");
        assertThat(mw.rkey()).isEqualTo(before);
        assertThat(mw.isBound()).isFalse();
        assertThat(mr.boundWindows()).isZero();
        assertThat(p[1].sendQueue().head()).as("nothing queued").isZero();
        assertThat(p[1].state()).isEqualTo(QpState.RTS);
    }

    @Test
    void shouldRefuseARegionWithoutMwBindAccess() {
        RvtQp[] p = pair();
        RvtMr mr = env.reg(REGION); // every remote right, but not MW_BIND
        MemoryWindow mw = env.pd.allocMw(MwType.TYPE_2);
        assertRefused(() -> p[1].postSend(bindWr(mw, nextKey(mw.rkey(), 3), mr, mr.addr(), 64, RW)), Errno.EINVAL,
                "was not registered with MW_BIND");
        MemoryWindow t1 = env.pd.allocMw(MwType.TYPE_1);
        MwBind b = new MwBind().wrId(1);
        b.bindInfo().mr(mr).addr(mr.addr()).length(64).mwAccessFlags(RW);
        int before = t1.rkey();
        assertRefused(() -> p[1].bindMw(t1, b), Errno.EINVAL, "was not registered with MW_BIND");
        assertThat(t1.rkey()).as("no new key on a refusal").isEqualTo(before);
    }

    @Test
    void shouldRefuseTheOtherBadBindsWithTheirErrno() {
        RvtQp[] p = pair();
        RvtMr mr = bindRegion();
        MemoryWindow t2 = env.pd.allocMw(MwType.TYPE_2);
        MemoryWindow t1 = env.pd.allocMw(MwType.TYPE_1);
        int k = nextKey(t2.rkey(), 7);
        assertRefused(() -> p[1].postSend(bindWr(t1, t1.rkey() + 1, mr, mr.addr(), 64, RW)), Errno.EINVAL,
                "binds type 2 windows");
        assertRefused(() -> p[1].bindMw(t2, new MwBind()), Errno.EINVAL, "binds type 1 windows");
        assertRefused(() -> p[1].postSend(bindWr(t2, k, mr, mr.addr(), 64, RW | AccessFlag.LOCAL_WRITE.bit())),
                Errno.EOPNOTSUPP, "bits a window cannot have");
        assertRefused(() -> p[1].postSend(bindWr(t2, k ^ 0x100, mr, mr.addr(), 64, RW)), Errno.EINVAL,
                "index bits");
        assertRefused(() -> p[1].postSend(bindWr(t2, k, mr, mr.addr(), 0, RW)), Errno.EINVAL,
                "non-zero length");
        MwBind zb = new MwBind();
        zb.bindInfo().mr(mr).addr(mr.addr()).length(64).mwAccessFlags(RW | AccessFlag.ZERO_BASED.bit());
        assertRefused(() -> p[1].bindMw(t1, zb), Errno.EINVAL, "cannot be zero-based");
        RvtMr readOnly = (RvtMr) env.pd.regMr(ByteBuffer.allocate(256), AccessFlag.MW_BIND.bit());
        assertRefused(() -> p[1].postSend(bindWr(t2, k, readOnly, readOnly.addr(), 64, RW)), Errno.EINVAL,
                "without LOCAL_WRITE");
        RvtPd other = (RvtPd) env.dev.allocPd();
        RvtMr foreign = (RvtMr) other.regMr(ByteBuffer.allocate(256), BIND_REGION);
        MwBind fb = new MwBind();
        fb.bindInfo().mr(foreign).addr(foreign.addr()).length(64).mwAccessFlags(RW);
        assertRefused(() -> p[1].bindMw(t1, fb), Errno.EPERM, "another PD");
        MemoryWindow otherPdWindow = other.allocMw(MwType.TYPE_2);
        assertRefused(() -> p[1].postSend(bindWr(otherPdWindow, nextKey(otherPdWindow.rkey(), 1), foreign,
                foreign.addr(), 64, RW)), Errno.EINVAL, "the QP's PD is not the window's");

        p[1].postSend(bindWr(t2, k, mr, mr.addr(), 64, RW));
        one(p[1]);
        assertRefused(() -> p[1].postSend(bindWr(t2, nextKey(k, 8), mr, mr.addr(), 64, RW)), Errno.EINVAL,
                "must be invalidated before it is bound again");
        assertThat(t2.rkey()).isEqualTo(k);
        assertRefused(() -> env.pd.allocMw(null), Errno.EINVAL, "type is null");
        assertThat(mr.boundWindows()).isEqualTo(1);
    }

    @Test
    void shouldBindATypeOneWindowWithANewKeyEachTimeAndUnbindWithLengthZero() {
        RvtQp[] p = pair();
        RvtMr mr = bindRegion();
        MemoryWindow mw = env.pd.allocMw(MwType.TYPE_1);
        int k0 = mw.rkey();
        MwBind b = new MwBind().wrId(31).sendFlags(SendFlag.SIGNALED.bit());
        b.bindInfo().mr(mr).addr(mr.addr()).length(128).mwAccessFlags(RW);
        int k1 = p[1].bindMw(mw, b);
        assertThat(k1).isEqualTo(nextKey(k0, (k0 + 1) & 0xFF)).isEqualTo(mw.rkey());
        WorkCompletion wc = one(p[1]);
        assertThat(wc.opcode()).isEqualTo(WcOpcode.BIND_MW);
        assertThat(wc.wrId()).isEqualTo(31);
        assertThat(write(p[0], mr.addr() + 64, k1).status()).isEqualTo(WcStatus.SUCCESS);

        int k2 = p[1].bindMw(mw, b.sendFlags(0));
        assertThat(k2).isNotEqualTo(k1);
        RvtQp[] q = pair();
        assertThat(write(q[0], mr.addr() + 64, k1).status()).as("the previous key").isEqualTo(
                WcStatus.REM_ACCESS_ERR);
        RvtQp[] r = pair();
        assertThat(write(r[0], mr.addr(), k2).status()).as("a type 1 window serves any QP of its PD").isEqualTo(
                WcStatus.SUCCESS);

        b.bindInfo().mr(null).addr(0).length(0);
        int k3 = r[1].bindMw(mw, b);
        assertThat(mw.isBound()).isFalse();
        assertThat(mr.boundWindows()).isZero();
        assertThat(write(r[0], mr.addr(), k3).status()).as("an unbound window").isEqualTo(WcStatus.REM_ACCESS_ERR);
    }

    @Test
    void shouldRefuseAccessTheWindowDoesNotGrantOrOutsideItsRange() {
        RvtQp[] p = pair();
        RvtMr mr = bindRegion();
        MemoryWindow mw = env.pd.allocMw(MwType.TYPE_2);
        int key = nextKey(mw.rkey(), 0x11);
        p[1].postSend(bindWr(mw, key, mr, mr.addr() + 512, 512, AccessFlag.REMOTE_READ.bit()));
        one(p[1]);
        assertThat(write(p[0], mr.addr() + 512, key).status()).as("read-only window").isEqualTo(
                WcStatus.REM_ACCESS_ERR);
        assertThat(mr.buffer().get(512)).isZero();

        RvtQp[] q = pair();
        MemoryWindow w2 = env.pd.allocMw(MwType.TYPE_2);
        int k2 = nextKey(w2.rkey(), 0x12);
        q[1].postSend(bindWr(w2, k2, mr, mr.addr() + 512, 512, RW));
        one(q[1]);
        assertThat(write(q[0], mr.addr() + 1020, k2).status()).as("runs past the window, inside the region")
                .isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThat(mr.buffer().get(1023)).isZero();
    }

    @Test
    void shouldRefuseATypeTwoWindowOnAnotherQpOfTheSamePd() {
        RvtQp[] p = pair();
        RvtQp[] q = pair();
        RvtMr mr = bindRegion();
        MemoryWindow mw = env.pd.allocMw(MwType.TYPE_2);
        int key = nextKey(mw.rkey(), 0x21);
        p[1].postSend(bindWr(mw, key, mr, mr.addr(), 256, RW));
        one(p[1]);
        assertThat(write(q[0], mr.addr(), key).status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThat(q[1].state()).isEqualTo(QpState.ERR);
        assertThat(write(p[0], mr.addr(), key).status()).as("through the QP that bound it").isEqualTo(
                WcStatus.SUCCESS);
    }

    @Test
    void shouldRevokeAnInvalidatedWindowAndAcceptItsRkeyAgainOnlyAfterARebind() {
        RvtQp[] p = pair();
        RvtMr mr = bindRegion();
        MemoryWindow mw = env.pd.allocMw(MwType.TYPE_2);
        int key = nextKey(mw.rkey(), 0x31);
        p[1].postSend(bindWr(mw, key, mr, mr.addr(), 256, RW));
        one(p[1]);
        p[1].postSend(new SendWorkRequest(0).opcode(WrOpcode.LOCAL_INV).invalidateRkey(key).wrId(8)
                .sendFlags(SendFlag.SIGNALED.bit()));
        WorkCompletion inv = one(p[1]);
        assertThat(inv.opcode()).isEqualTo(WcOpcode.LOCAL_INV);
        assertThat(inv.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(mw.isBound()).isFalse();
        assertThat(mr.boundWindows()).isZero();
        assertThat(write(p[0], mr.addr(), key).status()).as("revoked").isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertRefused(() -> p[1].postSend(new SendWorkRequest(0).opcode(WrOpcode.LOCAL_INV).invalidateRkey(key)),
                Errno.EINVAL, "LOCAL_INV of rkey");

        RvtQp[] q = pair();
        int key2 = nextKey(key, 0x32);
        q[1].postSend(bindWr(mw, key2, mr, mr.addr(), 256, RW));
        one(q[1]);
        assertThat(write(q[0], mr.addr(), key2).status()).isEqualTo(WcStatus.SUCCESS);
        RvtQp[] r = pair();
        assertThat(write(r[0], mr.addr(), key).status()).as("the old key part").isEqualTo(WcStatus.REM_ACCESS_ERR);
        q[1].postSend(new SendWorkRequest(0).opcode(WrOpcode.LOCAL_INV).invalidateRkey(key2).wrId(9)
                .sendFlags(SendFlag.SIGNALED.bit()));
        one(q[1]);
        q[1].postSend(bindWr(mw, key2, mr, mr.addr(), 256, RW));
        one(q[1]);
        assertThat(write(q[0], mr.addr(), key2).status()).as("the same key after an invalidation")
                .isEqualTo(WcStatus.SUCCESS);
    }

    @Test
    void shouldNotInvalidateATypeOneWindow() {
        RvtQp[] p = pair();
        RvtMr mr = bindRegion();
        MemoryWindow mw = env.pd.allocMw(MwType.TYPE_1);
        MwBind b = new MwBind();
        b.bindInfo().mr(mr).addr(mr.addr()).length(64).mwAccessFlags(RW);
        int key = p[1].bindMw(mw, b);
        assertRefused(() -> p[1].postSend(new SendWorkRequest(0).opcode(WrOpcode.LOCAL_INV).invalidateRkey(key)),
                Errno.EINVAL, "LOCAL_INV of rkey");
        assertThat(mw.isBound()).isTrue();
    }

    @Test
    void shouldUnbindOnDeallocAndKeepTheRegionFromDeregistrationWhileBound() {
        RvtQp[] p = pair();
        RvtMr mr = bindRegion();
        MemoryWindow mw = env.pd.allocMw(MwType.TYPE_2);
        int key = nextKey(mw.rkey(), 0x41);
        p[1].postSend(bindWr(mw, key, mr, mr.addr(), 256, RW));
        one(p[1]);
        assertRefused(mr::deregMr, Errno.EINVAL, "1 memory window bound");
        assertThat(mr.isPublished()).as("a refused dereg changes nothing").isTrue();
        assertThat(write(p[0], mr.addr(), key).status()).isEqualTo(WcStatus.SUCCESS);
        assertRefused(env.pd::deallocPd, Errno.EBUSY, "windows");

        mw.deallocMw();
        assertRefused(mw::deallocMw, Errno.EINVAL, "already deallocated");
        RvtQp[] q = pair();
        assertThat(write(q[0], mr.addr(), key).status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
        mr.deregMr();
        assertRefused(() -> p[1].postSend(bindWr(mw, key, bindRegion(), 0, 0, RW)), Errno.EINVAL,
                "was deallocated");
    }

    @Test
    void shouldNotServeAWindowAsALocalKey() {
        RvtQp[] p = pair();
        RvtMr mr = bindRegion();
        MemoryWindow mw = env.pd.allocMw(MwType.TYPE_2);
        int key = nextKey(mw.rkey(), 0x51);
        p[1].postSend(bindWr(mw, key, mr, mr.addr(), 256, RW));
        one(p[1]);
        SendWorkRequest send = new SendWorkRequest(1).opcode(WrOpcode.SEND);
        ScatterGatherEntry sge = send.sge(0);
        sge.addr(mr.addr()).length(16).lkey(key);
        send.numSge(1);
        assertRefused(() -> p[0].postSend(send), Errno.EINVAL, "failed the lkey check");
    }
}
