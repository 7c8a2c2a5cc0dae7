package io.rvt.core.mr;

import static io.rvt.core.TestUtil.assertErrno;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.AccessFlag;
import io.rvt.api.DeviceCounter;
import io.rvt.api.Errno;
import io.rvt.api.MemoryRegion;
import io.rvt.api.ScatterGatherEntry;
import io.rvt.api.spi.MrMapping;
import io.rvt.api.spi.Sge;
import io.rvt.core.RvtDevice;
import io.rvt.core.TestDriver;
import io.rvt.core.TestUtil;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class RvtMrTest {
    private static final int LW = AccessFlag.LOCAL_WRITE.bit();
    private static final int RW = AccessFlag.REMOTE_WRITE.bit();
    private static final int RR = AccessFlag.REMOTE_READ.bit();
    private static final int RA = AccessFlag.REMOTE_ATOMIC.bit();

    private RvtDevice dev;
    private RvtPd pd;
    private long savedTimeout;

    @BeforeEach
    void setUp() {
        dev = new TestDriver().register();
        pd = RvtPd.alloc(dev, false);
        savedTimeout = RvtMr.deregTimeoutNanos;
    }

    @AfterEach
    void tearDown() {
        RvtMr.deregTimeoutNanos = savedTimeout;
        dev.unregister();
    }

    private void assertNothingRegistered() {
        assertThat(dev.deviceCounter(DeviceCounter.MRS_ALLOCATED)).isZero();
        assertThat(pd.useCount()).isZero();
        assertThat(dev.lkeyTable().count()).isZero();
    }

    // ------------------------------------------------------------------ regMr validation

    @Test
    void shouldRejectBadRegistrationsAndChangeNothingWhenInputIsInvalid() {
        ByteBuffer buf = ByteBuffer.allocate(64);
        assertErrno(() -> pd.regMr(buf.position(64), 0), Errno.EINVAL, "regMr: buffer range is empty");
        buf.clear();
        assertErrno(() -> pd.regMr(buf, 0x400), Errno.EINVAL, "unknown bits 0x400");
        assertErrno(() -> pd.regMr(buf, RW), Errno.EINVAL, "LOCAL_WRITE");
        assertErrno(() -> pd.regMr(buf, RA | RR), Errno.EINVAL, "LOCAL_WRITE");
        assertErrno(() -> pd.regMr(buf.asReadOnlyBuffer(), LW), Errno.EINVAL, "read-only");
        assertErrno(() -> pd.regMr(null, 0), Errno.EINVAL, "null");
        assertErrno(() -> pd.allocMr(0), Errno.EINVAL, "maxNumSg 0");
        assertNothingRegistered();
        MemoryRegion ro = pd.regMr(buf.asReadOnlyBuffer(), RR);
        assertThat(ro.access()).isEqualTo(RR);
    }

    @Test
    void shouldCountTheRegionAndItsPdUseWhenRegistering() {
        RvtMr mr = (RvtMr) pd.regMr(ByteBuffer.allocate(8), LW | RW | RR | RA);
        assertThat(mr.pd()).isSameAs(pd);
        assertThat(mr.access()).isEqualTo(LW | RW | RR | RA);
        assertThat(mr.refCount()).as("user + table").isEqualTo(2);
        assertThat(mr.isPublished()).isTrue();
        assertThat(dev.deviceCounter(DeviceCounter.MRS_ALLOCATED)).isEqualTo(1);
        assertThat(pd.useCount()).isEqualTo(1);
        mr.deregMr();
        assertNothingRegistered();
        assertThat(mr.refCount()).isZero();
        assertErrno(mr::deregMr, Errno.EINVAL, "already deregistered");
    }

    // ------------------------------------------------------------------ addresses and buffers

    @Test
    void shouldGiveEachRegionADistinctPageAlignedAddressRangeWhenNotZeroBased() {
        RvtMr a = (RvtMr) pd.regMr(ByteBuffer.allocate(10), 0);
        RvtMr b = (RvtMr) pd.regMr(ByteBuffer.allocate(5000), 0);
        RvtMr c = (RvtMr) pd.regMr(ByteBuffer.allocate(1), 0);
        RvtMr z = (RvtMr) pd.regMr(ByteBuffer.allocate(100), AccessFlag.ZERO_BASED.bit());
        assertThat(a.addr()).isGreaterThanOrEqualTo(RvtLkeyTable.FIRST_VADDR);
        for (RvtMr mr : new RvtMr[] {a, b, c}) {
            assertThat(mr.addr() % RvtLkeyTable.PAGE_SIZE).isZero();
            assertThat(mr.userBase()).isEqualTo(mr.addr());
        }
        assertThat(b.addr()).isGreaterThanOrEqualTo(a.addr() + a.length());
        assertThat(c.addr()).isGreaterThanOrEqualTo(b.addr() + b.length());
        assertThat(z.addr()).isZero();
        assertThat(z.length()).isEqualTo(100);
        Sge s = new Sge();
        assertThat(dev.lkeyTable().lkeyOk(pd, s, null, new ScatterGatherEntry().set(0, 100, z.lkey()), 0))
                .isEqualTo(1);
        s.release();
    }

    @Test
    void shouldShareOneNativeOrderBufferFromPositionToLimitWhenAskedForMemory() {
        ByteBuffer buf = ByteBuffer.allocateDirect(64);
        buf.position(8).limit(40);
        RvtMr mr = (RvtMr) pd.regMr(buf, LW);
        buf.clear();
        assertThat(mr.length()).isEqualTo(32);
        assertThat(mr.memory()).isSameAs(mr.memory());
        assertThat(mr.memory().order()).isEqualTo(ByteOrder.nativeOrder());
        assertThat(mr.memory().capacity()).isEqualTo(32);
        ByteBuffer v1 = mr.buffer();
        ByteBuffer v2 = mr.buffer();
        assertThat(v1).isNotSameAs(v2).isNotSameAs(mr.memory());
        v1.position(5);
        assertThat(v2.position()).isZero();
        mr.memory().put(0, (byte) 42);
        assertThat(buf.get(8)).isEqualTo((byte) 42);
        assertThat(v2.get(0)).isEqualTo((byte) 42);
    }

    // ------------------------------------------------------------------ fast registration regions

    @Test
    void shouldAllocateAnEmptyFastRegRegionAndMapItWhenPagesSuffice() {
        RvtMr mr = (RvtMr) pd.allocMr(2);
        assertThat(mr.isFastReg()).isTrue();
        assertThat(mr.access()).isZero();
        assertThat(mr.length()).isZero();
        assertThat(mr.lkey()).isNotZero();
        Sge s = new Sge();
        assertThat(dev.lkeyTable().lkeyOk(pd, s, null, new ScatterGatherEntry().set(0, 1, mr.lkey()), 0))
                .as("no memory yet").isNegative();

        assertErrno(() -> mr.mapBuffer(ByteBuffer.allocate(8193), 0), Errno.ENOMEM, "3 pages", "allocated for 2");
        assertErrno(() -> mr.mapBuffer(ByteBuffer.allocate(4098), 0xFFF), Errno.ENOMEM, "3 pages");
        assertErrno(() -> mr.mapBuffer(ByteBuffer.allocate(0), 0), Errno.EINVAL, "empty");
        assertThat(mr.length()).as("unchanged by failures").isZero();
        mr.mapBuffer(ByteBuffer.allocate(8192), 0x2000);
        assertThat(mr.addr()).isEqualTo(0x2000);
        assertThat(mr.length()).isEqualTo(8192);

        RvtMr user = (RvtMr) pd.regMr(ByteBuffer.allocate(8), 0);
        assertErrno(() -> user.mapBuffer(ByteBuffer.allocate(8), 0), Errno.EINVAL, "not a fast-registration");
    }

    @Test
    void shouldHoldOneMappingUntilMapBufferReplacesItAndSetEntriesFromIt() {
        RvtMr mr = (RvtMr) pd.allocMr(4);
        ByteBuffer first = ByteBuffer.allocate(8192);
        mr.mapBuffer(first, 0x2000);
        MrMapping m = mr.mapping();
        assertThat(mr.mapping()).as("the instance the region holds").isSameAs(m);
        assertThat(m.memory()).isSameAs(mr.memory());
        assertThat(m.addr()).isEqualTo(0x2000);
        assertThat(m.length()).isEqualTo(8192);
        assertThat(m.pieceShift()).isZero();
        Sge s = new Sge().set(mr, 0x2010, 8192 - 0x10, 16);
        assertThat(s.memory()).isSameAs(m.memory());
        assertThat(s.offset()).isEqualTo(0x10);

        mr.mapBuffer(ByteBuffer.allocate(4096), 0x9000);
        MrMapping next = mr.mapping();
        assertThat(next).isNotSameAs(m);
        assertThat(next.addr()).isEqualTo(0x9000);
        assertThat(next.length()).isEqualTo(4096);
        assertThat(m.addr()).as("the old mapping unchanged").isEqualTo(0x2000);
        s.set(mr, 0x9004, 4092, 8);
        assertThat(s.memory()).isSameAs(next.memory()).isNotSameAs(m.memory());
        assertThat(s.offset()).isEqualTo(4);
    }

    // ------------------------------------------------------------------ deregistration

    @Test
    void shouldWaitForEveryReferenceWhenDeregistering() throws Exception {
        RvtMr mr = (RvtMr) pd.regMr(ByteBuffer.allocate(64), 0);
        Sge held = new Sge();
        assertThat(dev.lkeyTable().lkeyOk(pd, held, null, new ScatterGatherEntry().set(mr.addr(), 8, mr.lkey()), 0))
                .isEqualTo(1);
        CompletableFuture<Void> dereg = new CompletableFuture<>();
        Thread deregThread = new Thread(() -> {
            try {
                mr.deregMr();
                dereg.complete(null);
            } catch (Throwable t) {
                dereg.completeExceptionally(t);
            }
        }, "dereg");
        deregThread.start();
        TestUtil.awaitBlocked(deregThread);
        assertThat(dereg).isNotDone();
        assertThat(mr.isPublished()).as("unpublished before the wait").isFalse();
        assertThat(dev.deviceCounter(DeviceCounter.MRS_ALLOCATED)).isEqualTo(1);

        held.release();
        dereg.get(10, TimeUnit.SECONDS);
        assertNothingRegistered();
    }

    @Test
    void shouldFailWithEbusyAndKeepTheRegionWhenReferencesOutliveTheTimeout() {
        RvtMr.deregTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(20);
        RvtMr mr = (RvtMr) pd.regMr(ByteBuffer.allocate(64), RR);
        int lkey = mr.lkey();
        Sge held = new Sge();
        assertThat(dev.lkeyTable().rkeyOk(pd, held, 8, mr.addr(), lkey, RR)).isTrue();

        assertErrno(mr::deregMr, Errno.EBUSY, "lkey 0x" + Integer.toHexString(lkey), "1 reference");
        assertThat(mr.isPublished()).isFalse();
        assertThat(mr.refCount()).as("held + re-taken").isEqualTo(2);
        assertThat(dev.deviceCounter(DeviceCounter.MRS_ALLOCATED)).isEqualTo(1);
        assertThat(pd.useCount()).isEqualTo(1);
        assertThat(dev.lkeyTable().count()).as("slot freed").isZero();
        Sge other = new Sge();
        assertThat(dev.lkeyTable().rkeyOk(pd, other, 8, mr.addr(), lkey, RR)).as("unusable").isFalse();
        assertErrno(pd::deallocPd, Errno.EBUSY);

        held.release();
        mr.deregMr();
        assertNothingRegistered();
        pd.deallocPd();
    }

    // ------------------------------------------------------------------ atomics

    @Test
    void shouldSumExactlyWhenTwoThreadsFetchAddOnHeapMemory() throws Exception {
        assertConcurrentFetchAddsSum(ByteBuffer.allocate(64), 16);
    }

    @Test
    void shouldSumExactlyWhenTwoThreadsFetchAddOnDirectMemory() throws Exception {
        assertConcurrentFetchAddsSum(ByteBuffer.allocateDirect(64), 16);
    }

    @Test
    void shouldSumExactlyWhenTwoThreadsFetchAddOnMisalignedDirectMemory() throws Exception {
        ByteBuffer direct = ByteBuffer.allocateDirect(64);
        int shift = direct.alignmentOffset(0, 8) == 0 ? 4 : 8 - direct.alignmentOffset(0, 8) + 4;
        assertConcurrentFetchAddsSum(direct.position(shift), 8);
    }

    private void assertConcurrentFetchAddsSum(ByteBuffer buffer, int offset) throws Exception {
        RvtMr a = (RvtMr) pd.regMr(buffer, LW | RA);
        // A second region over the same bytes must use the same mechanism.
        RvtMr b = (RvtMr) pd.regMr(buffer, LW | RA);
        int perThread = 1000;
        CyclicBarrier start = new CyclicBarrier(2);
        Runnable adder = () -> {
            try {
                start.await(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            for (int i = 0; i < perThread; i++) {
                (i % 2 == 0 ? a : b).atomicFetchAdd((i % 2 == 0 ? a : b).addr() + offset, 3);
            }
        };
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            Future<?> t1 = threads.submit(adder);
            Future<?> t2 = threads.submit(adder);
            t1.get(20, TimeUnit.SECONDS);
            t2.get(20, TimeUnit.SECONDS);
        } finally {
            threads.shutdownNow();
        }
        assertThat(a.memory().getLong(offset)).isEqualTo(3L * 2 * perThread);
        assertThat(a.atomicCompareSwap(a.addr() + offset, 1, 7)).as("no swap").isEqualTo(6000);
        assertThat(b.atomicCompareSwap(b.addr() + offset, 6000, 7)).isEqualTo(6000);
        assertThat(a.memory().getLong(offset)).isEqualTo(7);
        assertThat(a.atomicFetchAdd(a.addr() + offset, -7)).isEqualTo(7);
        assertThat(b.memory().getLong(offset)).isZero();
        assertThatThrownBy(() -> a.atomicFetchAdd(a.addr() + a.length() - 7, 1))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> a.atomicFetchAdd(a.addr() - 1, 1)).isInstanceOf(IndexOutOfBoundsException.class);
    }
}
