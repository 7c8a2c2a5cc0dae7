package io.rvt.core.mr;

import static io.rvt.api.Errno.EACCES;
import static io.rvt.api.Errno.EINVAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.AccessFlag;
import io.rvt.api.DeviceCounter;
import io.rvt.api.Errno;
import io.rvt.api.ScatterGatherEntry;
import io.rvt.api.VerbsException;
import io.rvt.api.spi.Sge;
import io.rvt.api.spi.engine.SgeState;
import io.rvt.core.RvtDevice;
import io.rvt.core.TestDriver;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RvtLkeyTableTest {
    private static final int ALL_ACCESS = AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);

    private final List<RvtDevice> devices = new ArrayList<>();
    private int merges;

    @AfterEach
    void tearDown() {
        devices.forEach(RvtDevice::unregister);
    }

    private RvtDevice device(int lkeyBits) {
        RvtDevice dev = new TestDriver().params(TestDriver.defaultParams().lkeyTableSize(lkeyBits).build())
                .register();
        devices.add(dev);
        return dev;
    }

    private static ScatterGatherEntry sge(long addr, int length, int lkey) {
        return new ScatterGatherEntry().set(addr, length, lkey);
    }

    // ------------------------------------------------------------------ invariant 56: key layout

    @Test
    void shouldAllocateKeysWithSlotIndexFreshGenerationAndZeroConsumerKeyWhenRegionsComeAndGo() {
        long seed = 0x5EED_0056L;
        SplittableRandom rnd = new SplittableRandom(seed);
        RvtDevice dev = device(4);
        RvtLkeyTable table = dev.lkeyTable();
        RvtPd pd = RvtPd.alloc(dev, false);
        ByteBuffer buf = ByteBuffer.allocate(64);
        List<RvtMr> live = new ArrayList<>();
        Map<Integer, Integer> lastKeyOfSlot = new HashMap<>();
        for (int step = 0; step < 2000; step++) {
            if (live.size() < table.size() && (live.isEmpty() || rnd.nextInt(3) != 0)) {
                RvtMr mr = (RvtMr) pd.regMr(buf, 0);
                int key = mr.lkey();
                String ctx = "seed=" + seed + " step=" + step + " key=0x" + Integer.toHexString(key);
                assertThat(key).as(ctx).isNotZero();
                assertThat(key & 0xFF).as(ctx).isZero();
                assertThat(mr.rkey()).as(ctx).isEqualTo(key);
                assertThat(table.get(key)).as(ctx).isSameAs(mr);
                assertThat(table.slotOf(key)).as(ctx).isEqualTo(key >>> (32 - 4));
                Integer previous = lastKeyOfSlot.put(table.slotOf(key), key);
                if (previous != null) {
                    assertThat(table.generationOf(key)).as(ctx + " previous=0x" + Integer.toHexString(previous))
                            .isNotEqualTo(table.generationOf(previous));
                }
                live.add(mr);
            } else {
                live.remove(rnd.nextInt(live.size())).deregMr();
            }
        }
        assertThat(table.count()).as("seed=" + seed).isEqualTo(live.size());
    }

    @Test
    void shouldSkipKeyZeroWhenSlotZeroComesRoundWithGenerationZero() {
        // 12 bits of index leave 12 bits of generation: fill every slot but 0 and cycle a region through slot 0
        // until its generation wraps to 0.
        RvtDevice dev = device(12);
        RvtLkeyTable table = dev.lkeyTable();
        RvtPd pd = RvtPd.alloc(dev, false);
        ByteBuffer buf = ByteBuffer.allocate(8);
        RvtMr first = (RvtMr) pd.regMr(buf, 0);
        assertThat(table.slotOf(first.lkey())).isZero();
        List<RvtMr> fillers = new ArrayList<>();
        for (int i = 1; i < table.size(); i++) {
            fillers.add((RvtMr) pd.regMr(buf, 0));
        }
        first.deregMr();
        boolean sawWrap = false;
        int previousGen = -1;
        for (int i = 0; i < 5000 && !sawWrap; i++) {
            RvtMr mr = (RvtMr) pd.regMr(buf, 0);
            int key = mr.lkey();
            assertThat(table.slotOf(key)).isZero();
            assertThat(key).as("iteration %d", i).isNotZero();
            int gen = table.generationOf(key);
            if (gen < previousGen) {
                sawWrap = true;
                assertThat(gen).as("generation after the wrap (0 is skipped)").isEqualTo(1);
            }
            previousGen = gen;
            mr.deregMr();
        }
        assertThat(sawWrap).isTrue();
        fillers.forEach(RvtMr::deregMr);
    }

    @Test
    void shouldFailWithEnomemAndLeakNothingWhenTheTableIsFull() {
        RvtDevice dev = device(2);
        RvtPd pd = RvtPd.alloc(dev, false);
        ByteBuffer buf = ByteBuffer.allocate(16);
        List<RvtMr> mrs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            mrs.add((RvtMr) pd.regMr(buf, 0));
        }
        long next = dev.lkeyTable().nextVaddr(0);
        assertThatThrownBy(() -> pd.regMr(buf, 0)).isInstanceOf(VerbsException.class)
                .satisfies(e -> assertThat(((VerbsException) e).errno()).isEqualTo(Errno.ENOMEM))
                .hasMessageContaining("lkey table").hasMessageContaining("full");
        assertThatThrownBy(() -> pd.allocMr(1)).isInstanceOf(VerbsException.class)
                .satisfies(e -> assertThat(((VerbsException) e).errno()).isEqualTo(Errno.ENOMEM));
        assertThat(dev.deviceCounter(DeviceCounter.MRS_ALLOCATED)).isEqualTo(4);
        assertThat(pd.useCount()).isEqualTo(4);
        assertThat(dev.lkeyTable().count()).isEqualTo(4);
        assertThat(dev.lkeyTable().nextVaddr(0)).as("no address range consumed by the failures")
                .isEqualTo(next + RvtLkeyTable.PAGE_SIZE);
        mrs.remove(0).deregMr();
        RvtMr again = (RvtMr) pd.regMr(buf, 0);
        assertThat(again.isPublished()).isTrue();
    }

    // ------------------------------------------------------------------ invariants 59, 60, 61: lkey_ok

    @Test
    void shouldAcceptExactBoundsAndRejectOneByteMoreOrLessWhenCheckingLkeys() {
        RvtDevice dev = device(8);
        RvtPd pd = RvtPd.alloc(dev, false);
        RvtMr mr = (RvtMr) pd.regMr(ByteBuffer.allocate(100), AccessFlag.LOCAL_WRITE.bit());
        RvtLkeyTable t = dev.lkeyTable();
        long base = mr.addr();
        int key = mr.lkey();
        Sge isge = new Sge();

        assertThat(t.lkeyOk(pd, isge, null, sge(base, 100, key), 0)).isEqualTo(1);
        assertThat(isge.mr()).isSameAs(mr);
        assertThat(isge.vaddr()).isEqualTo(base);
        assertThat(isge.length()).isEqualTo(100);
        assertThat(isge.sgeLength()).isEqualTo(100);
        assertThat(mr.refCount()).isEqualTo(3);
        isge.release();

        assertThat(t.lkeyOk(pd, isge, null, sge(base + 40, 60, key), 0)).isEqualTo(1);
        assertThat(isge.length()).as("bytes to the end of the region").isEqualTo(60);
        assertThat(isge.offset()).isEqualTo(40);
        isge.release();

        assertThat(t.lkeyOk(pd, isge, null, sge(base + 41, 60, key), 0)).isEqualTo(-EINVAL.value());
        assertThat(t.lkeyOk(pd, isge, null, sge(base, 101, key), 0)).isEqualTo(-EINVAL.value());
        assertThat(t.lkeyOk(pd, isge, null, sge(base - 1, 1, key), 0)).isEqualTo(-EINVAL.value());
        assertThat(t.lkeyOk(pd, isge, null, sge(base + 100, 0, key), 0)).as("empty at the end").isEqualTo(1);
        isge.release();
        assertThat(t.lkeyOk(pd, isge, null, sge(-1L, 1, key), 0)).as("u64 address above the region")
                .isEqualTo(-EINVAL.value());
        assertThat(mr.refCount()).as("no reference leaked by failures").isEqualTo(2);
    }

    @Test
    void shouldRequireAllAccessBitsForLkeysAndAnyForRkeysWhenCheckingAccess() {
        long seed = 0x5EED_0059L;
        SplittableRandom rnd = new SplittableRandom(seed);
        RvtDevice dev = device(8);
        RvtPd pd = RvtPd.alloc(dev, false);
        RvtLkeyTable t = dev.lkeyTable();
        for (int i = 0; i < 200; i++) {
            int granted = rnd.nextInt(16);
            if ((granted & (AccessFlag.REMOTE_WRITE.bit() | AccessFlag.REMOTE_ATOMIC.bit())) != 0) {
                granted |= AccessFlag.LOCAL_WRITE.bit();
            }
            int acc = rnd.nextInt(16);
            RvtMr mr = (RvtMr) pd.regMr(ByteBuffer.allocate(32), granted);
            String ctx = "seed=" + seed + " granted=" + AccessFlag.describe(granted) + " acc=" + AccessFlag.describe(acc);
            Sge s = new Sge();
            int l = t.lkeyOk(pd, s, null, sge(mr.addr(), 8, mr.lkey()), acc);
            assertThat(l).as(ctx).isEqualTo((granted & acc) == acc ? 1 : -EINVAL.value());
            s.release();
            boolean r = t.rkeyOk(pd, s, 8, mr.addr(), mr.rkey(), acc);
            assertThat(r).as(ctx).isEqualTo((granted & acc) != 0);
            s.release();
            assertThat(mr.refCount()).as(ctx).isEqualTo(2);
            mr.deregMr();
        }
    }

    @Test
    void shouldRejectKeyZeroStaleKeysAndOtherPdsWhenCheckingKeys() {
        RvtDevice dev = device(8);
        RvtPd pd = RvtPd.alloc(dev, false);
        RvtPd kernelPd = RvtPd.alloc(dev, false);
        RvtPd userPd = RvtPd.alloc(dev, true);
        RvtLkeyTable t = dev.lkeyTable();
        RvtMr mr = (RvtMr) pd.regMr(ByteBuffer.allocate(16), ALL_ACCESS);
        Sge s = new Sge();

        assertThat(t.lkeyOk(userPd, s, null, sge(0, 8, 0), 0)).as("lkey 0, user PD").isEqualTo(-EINVAL.value());
        assertThat(t.lkeyOk(kernelPd, s, null, sge(0, 8, 0), 0)).as("lkey 0, kernel PD: no DMA region in rvt")
                .isEqualTo(-EINVAL.value());
        assertThat(t.rkeyOk(kernelPd, s, 8, 0, 0, ALL_ACCESS)).as("rkey 0").isFalse();
        assertThat(t.lkeyOk(kernelPd, s, null, sge(mr.addr(), 8, mr.lkey()), 0)).as("other PD")
                .isEqualTo(-EINVAL.value());
        assertThat(t.rkeyOk(kernelPd, s, 8, mr.addr(), mr.rkey(), ALL_ACCESS)).as("other PD").isFalse();
        assertThat(t.lkeyOk(pd, s, null, sge(mr.addr(), 8, mr.lkey() | 1), 0)).as("consumer key differs")
                .isEqualTo(-EINVAL.value());
        assertThat(t.lkeyOk(pd, s, null, sge(mr.addr(), 8, mr.lkey() + (1 << 24)), 0)).as("empty slot")
                .isEqualTo(-EINVAL.value());
        assertThat(t.rkeyOk(pd, s, 8, mr.addr() - 1, mr.rkey(), ALL_ACCESS)).as("below iova").isFalse();
        assertThat(t.rkeyOk(pd, s, 9, mr.addr() + 8, mr.rkey(), ALL_ACCESS)).as("one byte past the end").isFalse();
        assertThat(t.rkeyOk(pd, s, 8, mr.addr() + 8, mr.rkey(), ALL_ACCESS)).as("exactly to the end").isTrue();
        assertThat(s.length()).isEqualTo(8);
        s.release();
        assertThat(mr.refCount()).isEqualTo(2);

        int oldKey = mr.lkey();
        long oldAddr = mr.addr();
        mr.deregMr();
        assertThat(t.lkeyOk(pd, s, null, sge(oldAddr, 8, oldKey), 0)).as("deregistered").isEqualTo(-EINVAL.value());
        assertThat(t.rkeyOk(pd, s, 8, oldAddr, oldKey, ALL_ACCESS)).as("deregistered").isFalse();
    }

    // ------------------------------------------------------------------ invariants 57, 58: fast registration

    @Test
    void shouldChangeOnlyTheConsumerKeyWhenFastRegistering() {
        long seed = 0x5EED_0057L;
        SplittableRandom rnd = new SplittableRandom(seed);
        RvtDevice dev = device(8);
        RvtPd pd = RvtPd.alloc(dev, false);
        RvtLkeyTable t = dev.lkeyTable();
        RvtMr mr = (RvtMr) pd.allocMr(4);
        mr.mapBuffer(ByteBuffer.allocate(64), 0x1000);
        for (int i = 0; i < 500; i++) {
            int current = mr.lkey();
            int candidate = rnd.nextBoolean() ? (current & 0xFFFF_FF00) | rnd.nextInt(256) : rnd.nextInt();
            boolean allowed = (candidate & 0xFFFF_FF00) == (current & 0xFFFF_FF00);
            String ctx = "seed=" + seed + " key=0x" + Integer.toHexString(current) + " new=0x"
                    + Integer.toHexString(candidate);
            int r = t.fastRegMr(pd, mr, candidate, AccessFlag.REMOTE_READ.bit());
            assertThat(r).as(ctx).isEqualTo(allowed ? 0 : -EINVAL.value());
            assertThat(mr.lkey()).as(ctx).isEqualTo(allowed ? candidate : current);
            assertThat(mr.rkey()).as(ctx).isEqualTo(mr.lkey());
            assertThat(mr.isLkeyInvalid()).as(ctx).isFalse();
            assertThat(t.get(mr.lkey())).as(ctx + ": same slot").isSameAs(mr);
        }
    }

    @Test
    void shouldRefuseFastRegistrationWhenPdDiffersOrRegionIsNotFastReg() {
        RvtDevice dev = device(8);
        RvtPd pd = RvtPd.alloc(dev, false);
        RvtPd other = RvtPd.alloc(dev, false);
        RvtLkeyTable t = dev.lkeyTable();
        RvtMr fr = (RvtMr) pd.allocMr(1);
        RvtMr user = (RvtMr) pd.regMr(ByteBuffer.allocate(8), 0);
        assertThat(t.fastRegMr(other, fr, fr.lkey(), 0)).isEqualTo(-EACCES.value());
        assertThat(t.fastRegMr(pd, user, user.lkey(), 0)).isEqualTo(-EINVAL.value());
        fr.mapBuffer(ByteBuffer.allocate(8).asReadOnlyBuffer(), 0);
        assertThat(t.fastRegMr(pd, fr, fr.lkey(), AccessFlag.LOCAL_WRITE.bit())).as("write to read-only memory")
                .isEqualTo(-EINVAL.value());
        assertThat(t.fastRegMr(pd, fr, fr.lkey(), AccessFlag.REMOTE_READ.bit())).isZero();
    }

    @Test
    void shouldFailBothKeyChecksAfterInvalidateUntilTheNextFastRegistration() {
        RvtDevice dev = device(8);
        RvtPd pd = RvtPd.alloc(dev, false);
        RvtPd other = RvtPd.alloc(dev, false);
        RvtLkeyTable t = dev.lkeyTable();
        RvtMr mr = (RvtMr) pd.allocMr(2);
        ByteBuffer mem = ByteBuffer.allocate(100);
        mr.mapBuffer(mem, 0x7000);
        assertThat(mr.addr()).isEqualTo(0x7000);
        assertThat(mr.length()).isEqualTo(100);
        int access = AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE);
        int key1 = mr.lkey() | 0x11;
        assertThat(t.fastRegMr(pd, mr, key1, access)).isZero();
        assertThat(mr.access()).isEqualTo(access);
        Sge s = new Sge();
        assertThat(t.lkeyOk(pd, s, null, sge(0x7000, 100, key1), AccessFlag.LOCAL_WRITE.bit())).isEqualTo(1);
        s.release();
        assertThat(t.rkeyOk(pd, s, 100, 0x7000, key1, AccessFlag.REMOTE_WRITE.bit())).isTrue();
        s.release();

        assertThat(t.invalidateRkey(other, key1)).as("other PD").isEqualTo(-EINVAL.value());
        assertThat(t.invalidateRkey(pd, key1 ^ 1)).as("stale key").isEqualTo(-EINVAL.value());
        assertThat(t.invalidateRkey(pd, 0)).as("key 0").isEqualTo(-EINVAL.value());
        assertThat(t.invalidateRkey(pd, key1)).isZero();
        assertThat(mr.isLkeyInvalid()).isTrue();
        assertThat(t.lkeyOk(pd, s, null, sge(0x7000, 8, key1), 0)).isEqualTo(-EINVAL.value());
        assertThat(t.rkeyOk(pd, s, 8, 0x7000, key1, AccessFlag.REMOTE_WRITE.bit())).isFalse();
        assertThat(mr.refCount()).isEqualTo(2);

        int key2 = (key1 & 0xFFFF_FF00) | 0x22;
        assertThat(t.fastRegMr(pd, mr, key2, access)).isZero();
        assertThat(t.lkeyOk(pd, s, null, sge(0x7000, 8, key1), 0)).as("old key").isEqualTo(-EINVAL.value());
        assertThat(t.lkeyOk(pd, s, null, sge(0x7000, 8, key2), 0)).isEqualTo(1);
        s.release();
        assertThat(t.rkeyOk(pd, s, 8, 0x7000, key2, AccessFlag.REMOTE_WRITE.bit())).isTrue();
        s.release();
    }

    // ------------------------------------------------------------------ invariant 63: merging

    @Test
    void shouldMergeAnAdjacentEntryWithoutANewReferenceWhenItContinuesTheLastSge() {
        RvtDevice dev = device(8);
        RvtPd pd = RvtPd.alloc(dev, false);
        RvtLkeyTable t = dev.lkeyTable();
        RvtMr mr = (RvtMr) pd.regMr(ByteBuffer.allocate(64), 0);
        Sge last = new Sge();
        assertThat(t.lkeyOk(pd, last, null, sge(mr.addr(), 16, mr.lkey()), 0)).isEqualTo(1);
        // In rvt an SGE's segment runs to the region's end: only an entry starting there continues it.
        Sge next = new Sge();
        assertThat(t.lkeyOk(pd, next, last, sge(mr.addr() + 64, 0, mr.lkey()), 0)).isZero();
        assertThat(next.mr()).isNull();
        assertThat(mr.refCount()).isEqualTo(3);
        // A previous entry whose segment ends earlier (as an rdmavt page would) merges a following entry.
        Sge page = new Sge().set(mr, mr.addr(), 16, 16);
        assertThat(t.lkeyOk(pd, next, page, sge(mr.addr() + 16, 24, mr.lkey()), 0)).isZero();
        assertThat(page.sgeLength()).isEqualTo(40);
        assertThat(mr.refCount()).isEqualTo(3);
        // Not merged when the continuation overruns the region: the full check rejects it.
        Sge tail = new Sge().set(mr, mr.addr(), 60, 60);
        assertThat(t.lkeyOk(pd, next, tail, sge(mr.addr() + 60, 8, mr.lkey()), 0)).isEqualTo(-EINVAL.value());
        assertThat(tail.sgeLength()).isEqualTo(60);
        last.release();
        assertThat(mr.refCount()).isEqualTo(2);
    }

    @Test
    void shouldGatherTheSameBytesWhetherOrNotEntriesMerge() {
        long seed = 0x5EED_0063L;
        SplittableRandom rnd = new SplittableRandom(seed);
        RvtDevice dev = device(8);
        RvtPd pd = RvtPd.alloc(dev, false);
        RvtLkeyTable t = dev.lkeyTable();
        RvtMr[] mrs = new RvtMr[3];
        for (int i = 0; i < mrs.length; i++) {
            ByteBuffer b = ByteBuffer.allocate(64 + 32 * i);
            for (int j = 0; j < b.capacity(); j++) {
                b.put(j, (byte) rnd.nextInt());
            }
            mrs[i] = (RvtMr) pd.regMr(b, 0);
        }
        for (int round = 0; round < 300; round++) {
            int n = 1 + rnd.nextInt(6);
            ScatterGatherEntry[] list = new ScatterGatherEntry[n];
            ByteBuffer expected = ByteBuffer.allocate(1024);
            for (int i = 0; i < n; i++) {
                RvtMr mr = mrs[rnd.nextInt(mrs.length)];
                int len = rnd.nextInt(4) == 0 ? 0 : rnd.nextInt((int) mr.length() + 1);
                int off = len == 0 && rnd.nextBoolean() ? (int) mr.length() : rnd.nextInt((int) mr.length() - len + 1);
                list[i] = sge(mr.addr() + off, len, mr.lkey());
                expected.put(mr.memory().duplicate().position(off).limit(off + len));
            }
            expected.flip();
            String ctx = "seed=" + seed + " round=" + round;
            assertThat(gather(t, pd, list, true)).as(ctx).isEqualTo(expected);
            assertThat(gather(t, pd, list, false)).as(ctx).isEqualTo(expected);
            for (RvtMr mr : mrs) {
                assertThat(mr.refCount()).as(ctx).isEqualTo(2);
            }
        }
        assertThat(merges).as("seed=" + seed + ": some entries merged").isPositive();
    }

    /**
     * Validates {@code list} and gathers its bytes. Without merging, zero-length entries are skipped as post send
     * skips them; with merging every entry goes through {@code lkeyOk} with the previous SGE, and a zero-length one
     * that did not merge is dropped (it holds no bytes).
     */
    private ByteBuffer gather(RvtLkeyTable t, RvtPd pd, ScatterGatherEntry[] list, boolean merge) {
        Sge[] sges = new Sge[list.length];
        int num = 0;
        int total = 0;
        for (ScatterGatherEntry e : list) {
            total += e.length();
            if (!merge && e.length() == 0) {
                continue;
            }
            Sge s = new Sge();
            int r = t.lkeyOk(pd, s, merge && num > 0 ? sges[num - 1] : null, e, 0);
            assertThat(r).isBetween(0, 1);
            if (r == 0) {
                merges++;
            } else if (s.sgeLength() == 0) {
                s.release();
            } else {
                sges[num++] = s;
            }
        }
        SgeState ss = new SgeState();
        ss.init(sges, 0, num, total);
        ByteBuffer out = ByteBuffer.allocate(total);
        ss.copyOut(out, 0, total, true);
        ss.putSs();
        return out;
    }
}
