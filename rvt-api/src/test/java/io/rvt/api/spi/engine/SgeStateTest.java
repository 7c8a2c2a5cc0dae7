package io.rvt.api.spi.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.rvt.api.spi.HeapMr;
import io.rvt.api.spi.Sge;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SgeStateTest {

    /** A scatter/gather list with one region per entry, so that references can be counted per entry. */
    private static final class Layout {
        final HeapMr[] mrs;
        final int[] pre;
        final int[] lens;
        final Sge[] list;
        final int total;

        Layout(int lkeyBase, int[] pre, int[] lens, int[] post, int spareSlots) {
            this.pre = pre;
            this.lens = lens;
            this.mrs = new HeapMr[lens.length];
            this.list = new Sge[lens.length + spareSlots];
            int t = 0;
            for (int i = 0; i < lens.length; i++) {
                mrs[i] = new HeapMr(lkeyBase + i, 0x10_0000L * (i + 1) + 0x100, pre[i] + lens[i] + post[i]);
                list[i] = mrs[i].sge(pre[i], lens[i]);
                t += lens[i];
            }
            for (int i = lens.length; i < list.length; i++) {
                list[i] = new Sge();
            }
            this.total = t;
        }

        static Layout of(int lkeyBase, int... lens) {
            int[] zeros = new int[lens.length];
            return new Layout(lkeyBase, zeros, lens, zeros, 0);
        }

        static Layout random(SplittableRandom rnd, int lkeyBase) {
            int k = rnd.nextInt(1, 6);
            int[] pre = new int[k];
            int[] lens = new int[k];
            int[] post = new int[k];
            for (int i = 0; i < k; i++) {
                pre[i] = rnd.nextInt(0, 8);
                lens[i] = rnd.nextInt(1, 21);
                post[i] = rnd.nextInt(0, 8);
            }
            return new Layout(lkeyBase, pre, lens, post, rnd.nextInt(0, 3));
        }

        SgeState state() {
            SgeState ss = new SgeState();
            ss.init(list, 0, lens.length, total);
            return ss;
        }

        void fillRandom(SplittableRandom rnd) {
            for (HeapMr mr : mrs) {
                for (int i = 0; i < mr.length(); i++) {
                    mr.memory().put(i, (byte) rnd.nextInt(256));
                }
            }
        }

        byte[][] snapshot() {
            byte[][] s = new byte[mrs.length][];
            for (int i = 0; i < mrs.length; i++) {
                s[i] = mrs[i].bytes();
            }
            return s;
        }

        /** Entry index holding byte {@code p} of the list, or -1 if past the end. */
        int entryAt(int p) {
            for (int e = 0; e < lens.length; e++) {
                if (p < lens[e]) {
                    return e;
                }
                p -= lens[e];
            }
            return -1;
        }

        int offsetInEntry(int p) {
            for (int e = 0; e < lens.length; e++) {
                if (p < lens[e]) {
                    return p;
                }
                p -= lens[e];
            }
            return -1;
        }

        /** Writes src[srcIndex + p] for p in [from, to) into the expected memory images. */
        void scatterExpected(byte[][] expected, byte[] src, int srcIndex, int from, int to) {
            for (int p = from; p < to; p++) {
                int e = entryAt(p);
                expected[e][pre[e] + offsetInEntry(p)] = src[srcIndex + p - from];
            }
        }

        /** Bytes [from, to) of the list, in order. */
        byte[] gather(int from, int to) {
            byte[] out = new byte[to - from];
            for (int p = from; p < to; p++) {
                int e = entryAt(p);
                out[p - from] = mrs[e].memory().get(pre[e] + offsetInEntry(p));
            }
            return out;
        }

        /** Entries completely consumed once {@code consumed} bytes were walked. */
        int entriesUsedUp(int consumed) {
            int n = 0;
            int sum = 0;
            for (int len : lens) {
                sum += len;
                if (sum <= consumed) {
                    n++;
                }
            }
            return n;
        }

        int releases() {
            int r = 0;
            for (HeapMr mr : mrs) {
                r += mr.releases;
            }
            return r;
        }

        int retains() {
            int r = 0;
            for (HeapMr mr : mrs) {
                r += mr.retains;
            }
            return r;
        }
    }

    /** Asserts the cursor of {@code ss} sits {@code consumed} bytes into {@code l}. */
    private static void assertPosition(String what, Layout l, SgeState ss, int consumed) {
        int used = l.entriesUsedUp(consumed);
        assertThat(ss.numSge()).as("%s: numSge", what).isEqualTo(l.lens.length - used);
        if (used < l.lens.length) {
            int e = used;
            int into = consumed;
            for (int i = 0; i < e; i++) {
                into -= l.lens[i];
            }
            assertThat(ss.sge().mr()).as("%s: current region", what).isSameAs(l.mrs[e]);
            assertThat(ss.sge().vaddr()).as("%s: vaddr", what).isEqualTo(l.mrs[e].addr() + l.pre[e] + into);
            assertThat(ss.sge().sgeLength()).as("%s: sgeLength", what).isEqualTo(l.lens[e] - into);
            assertThat(ss.sge().length()).as("%s: segment length", what)
                    .isEqualTo(l.mrs[e].length() - l.pre[e] - into);
        }
    }

    private static byte[] randomBytes(SplittableRandom rnd, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) rnd.nextInt(256);
        }
        return b;
    }

    // ------------------------------------------------------------------ init, updateSge, skipSge

    @Test
    void shouldReleaseNothingWhenBorrowedAndRetainWhatIsLeftWhenPinned() {
        Layout l = Layout.of(10, 4, 5, 6);
        SgeState ss = l.state();
        ss.borrow();
        assertThat(ss.isBorrowed()).isTrue();
        ss.copyIn(ByteBuffer.allocate(16), 0, 4, true, false); // uses up the first entry
        assertThat(l.mrs[0].releases).as("a borrowed entry holds no reference to drop").isZero();
        ss.pin(); // the second (current) and third entries take theirs
        assertThat(ss.isBorrowed()).isFalse();
        assertThat(new int[] {l.mrs[0].retains, l.mrs[1].retains, l.mrs[2].retains}).containsExactly(0, 1, 1);
        ss.pin(); // no second reference
        assertThat(l.mrs[1].retains).isEqualTo(1);
        ss.putSs();
        assertThat(new int[] {l.mrs[0].releases, l.mrs[1].releases, l.mrs[2].releases}).containsExactly(0, 1, 1);

        Layout other = Layout.of(20, 3, 3);
        SgeState put = other.state();
        put.borrow();
        put.putSs();
        assertThat(other.releases()).as("putting a borrowed state drops nothing").isZero();
        put.init(l.list, 0, 1, 4);
        assertThat(put.isBorrowed()).as("init starts a referenced state").isFalse();
    }

    @Test
    void shouldCopyFirstEntryWhenInitialised() {
        Layout l = Layout.of(10, 4, 5, 6);
        SgeState ss = new SgeState();
        ss.init(l.list, 0, 3, 15);
        assertThat(ss.numSge()).isEqualTo(3);
        assertThat(ss.totalLen()).isEqualTo(15);
        assertThat(ss.sge()).isNotSameAs(l.list[0]);
        assertThat(ss.sge().mr()).isSameAs(l.mrs[0]);
        assertThat(ss.sge().sgeLength()).isEqualTo(4);
        ss.updateSge(4, false);
        assertThat(l.list[0].sgeLength()).as("list entries are not modified").isEqualTo(4);

        ss.init(l.list, 1, 2, 11);
        assertThat(ss.numSge()).isEqualTo(2);
        assertThat(ss.sge().mr()).isSameAs(l.mrs[1]);
        ss.updateSge(5, false);
        assertThat(ss.sge().mr()).isSameAs(l.mrs[2]);
        assertThat(l.retains() + l.releases()).isZero();
    }

    @Test
    void shouldBeEmptyWhenInitialisedWithNoEntries() {
        Layout l = Layout.of(10, 4);
        SgeState ss = l.state();
        ss.init(l.list, 0, 0, 0);
        assertThat(ss.numSge()).isZero();
        assertThat(ss.sge().mr()).isNull();
        assertThat(ss.hasLkey(10)).isFalse();
        ss.copyIn(ByteBuffer.allocate(0), 0, 0, true, false);
        ss.skipSge(5, true);
        assertThat(l.releases()).isZero();
        assertThatThrownBy(() -> ss.copyIn(ByteBuffer.allocate(4), 0, 1, true, false))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("1");
    }

    @Test
    void shouldAdvanceWithinEntryWhenUpdateDoesNotUseItUp() {
        Layout l = Layout.of(10, 8, 8);
        SgeState ss = l.state();
        ss.updateSge(3, true);
        assertPosition("after 3", l, ss, 3);
        assertThat(l.releases()).isZero();
    }

    @Test
    void shouldDropOneReferenceAndLoadNextWhenUpdateUsesUpEntryWithRelease() {
        Layout l = Layout.of(10, 8, 8);
        SgeState ss = l.state();
        ss.updateSge(8, true);
        assertThat(l.mrs[0].releases).isEqualTo(1);
        assertThat(l.mrs[1].releases).isZero();
        assertPosition("after 8", l, ss, 8);
        ss.updateSge(8, true);
        assertThat(ss.numSge()).isZero();
        assertThat(l.mrs[1].releases).isEqualTo(1);
        assertThat(l.mrs[0].releases).isEqualTo(1);
    }

    @Test
    void shouldKeepReferenceWhenUpdateUsesUpEntryWithoutRelease() {
        Layout l = Layout.of(10, 8, 8);
        SgeState ss = l.state();
        ss.updateSge(8, false);
        ss.updateSge(8, false);
        assertThat(ss.numSge()).isZero();
        assertThat(l.releases()).isZero();
    }

    @Test
    void shouldReleaseExactlyUsedUpEntriesWhenRandomSkipsAreMade() {
        long seed = 0x55_0001L;
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int round = 0; round < 2000; round++) {
            Layout l = Layout.random(rnd, 100);
            boolean release = rnd.nextBoolean();
            SgeState ss = l.state();
            int done = 0;
            while (done < l.total) {
                int n = rnd.nextInt(0, l.total - done + 1);
                ss.skipSge(n, release);
                done += n;
                String what = "seed " + seed + ", round " + round + ", skipped " + done + " of " + l.total;
                assertPosition(what, l, ss, done);
                assertThat(l.releases()).as(what).isEqualTo(release ? l.entriesUsedUp(done) : 0);
                for (int e = 0; e < l.mrs.length; e++) {
                    assertThat(l.mrs[e].releases).as("%s, entry %d", what, e).isLessThanOrEqualTo(1);
                }
            }
            assertThat(l.retains()).isZero();
        }
    }

    // ------------------------------------------------------------------ putSs, restart, hasLkey

    @Test
    void shouldDropCurrentAndRemainingReferencesWhenPutSsIsCalled() {
        long seed = 0x55_0002L;
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int round = 0; round < 1000; round++) {
            Layout l = Layout.random(rnd, 200);
            SgeState ss = l.state();
            int consumed = rnd.nextInt(0, l.total + 1);
            ss.skipSge(consumed, true);
            ss.putSs();
            String what = "seed " + seed + ", round " + round + ", consumed " + consumed + " of " + l.total;
            for (int e = 0; e < l.mrs.length; e++) {
                assertThat(l.mrs[e].releases).as("%s: entry %d released exactly once", what, e).isEqualTo(1);
            }
            assertThat(ss.numSge()).as(what).isZero();
            assertThat(ss.sge().mr()).as(what).isNull();
            ss.putSs();
            assertThat(l.releases()).as("%s: second putSs drops nothing", what).isEqualTo(l.mrs.length);
        }
    }

    @Test
    void shouldDropOnlyNotYetUsedUpEntriesWhenPutSsFollowsNonReleasingWalk() {
        Layout l = Layout.of(10, 4, 4, 4);
        SgeState ss = l.state();
        ss.skipSge(6, false);
        ss.putSs();
        assertThat(l.mrs[0].releases).isZero();
        assertThat(l.mrs[1].releases).isEqualTo(1);
        assertThat(l.mrs[2].releases).isEqualTo(1);
    }

    private static SendWqe wqe(Layout l) {
        SendWqe wqe = mock(SendWqe.class);
        when(wqe.sgList()).thenReturn(l.list);
        when(wqe.numSge()).thenReturn(l.lens.length);
        when(wqe.length()).thenReturn(l.total);
        return wqe;
    }

    @Test
    void shouldRewindToOffsetWithoutDroppingReferencesWhenRestarted() {
        long seed = 0x55_0003L;
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int round = 0; round < 1000; round++) {
            Layout l = Layout.random(rnd, 300);
            SendWqe wqe = wqe(l);
            SgeState ss = l.state();
            ss.skipSge(rnd.nextInt(0, l.total + 1), false); // somewhere else first
            int len = rnd.nextInt(0, l.total + 1);
            int left = ss.restart(wqe, len);
            String what = "seed " + seed + ", round " + round + ", restart at " + len + " of " + l.total;
            assertThat(left).as(what).isEqualTo(l.total - len);
            assertThat(ss.totalLen()).as(what).isEqualTo(l.total);
            assertPosition(what, l, ss, len);
            assertThat(l.releases()).as(what).isZero();
            assertThat(l.retains()).as(what).isZero();
        }
    }

    @Test
    void shouldSeeCurrentAndRemainingKeysOnlyWhenHasLkeyIsAsked() {
        Layout l = Layout.of(10, 4, 4, 4);
        SgeState ss = l.state();
        assertThat(ss.hasLkey(10)).isTrue();
        assertThat(ss.hasLkey(11)).isTrue();
        assertThat(ss.hasLkey(12)).isTrue();
        assertThat(ss.hasLkey(13)).isFalse();
        ss.skipSge(4, false);
        assertThat(ss.hasLkey(10)).as("used-up entry").isFalse();
        assertThat(ss.hasLkey(11)).isTrue();
        assertThat(ss.hasLkey(12)).isTrue();
        ss.skipSge(6, false);
        assertThat(ss.hasLkey(11)).isFalse();
        assertThat(ss.hasLkey(12)).isTrue();
        ss.skipSge(2, false);
        assertThat(ss.hasLkey(12)).as("everything used up").isFalse();
    }

    @Test
    void shouldNotSeeEntriesBeyondCountWhenHasLkeyIsAsked() {
        Layout l = Layout.of(10, 4, 4, 4);
        SgeState ss = new SgeState();
        ss.init(l.list, 0, 2, 8);
        assertThat(ss.hasLkey(11)).isTrue();
        assertThat(ss.hasLkey(12)).isFalse();
    }

    @Test
    void shouldHoldOneEntryWhenInitialisedSingle() {
        HeapMr mr = new HeapMr(77, 0x4000, 64);
        SgeState ss = new SgeState();
        ss.initSingle(mr.sge(8, 16), 16);
        assertThat(ss.numSge()).isEqualTo(1);
        assertThat(ss.totalLen()).isEqualTo(16);
        assertThat(ss.hasLkey(77)).isTrue();
        assertThat(ss.hasLkey(78)).isFalse();
        ByteBuffer src = ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
        ss.copyIn(src, 0, 16, true, false);
        assertThat(ss.numSge()).isZero();
        assertThat(mr.releases).isEqualTo(1);
        assertThat(mr.memory().get(8)).isEqualTo((byte) 1);
        assertThat(mr.memory().get(23)).isEqualTo((byte) 16);
        assertThat(mr.memory().get(24)).isZero();
    }

    @Test
    void shouldEmptyWithoutDroppingReferencesWhenCleared() {
        Layout l = Layout.of(10, 4, 4);
        SgeState ss = l.state();
        ss.clear();
        assertThat(ss.numSge()).isZero();
        assertThat(ss.sge().mr()).isNull();
        ss.putSs();
        assertThat(l.releases()).isZero();
    }

    // ------------------------------------------------------------------ copyIn, copyOut, copyFrom

    @Test
    void shouldScatterBytesInOrderWhenRandomCopiesAreMade() {
        long seed = 0x55_0004L;
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int round = 0; round < 3000; round++) {
            Layout l = Layout.random(rnd, 400);
            l.fillRandom(rnd);
            byte[][] expected = l.snapshot();
            boolean release = rnd.nextBoolean();
            SgeState ss = l.state();
            int done = 0;
            int calls = rnd.nextInt(1, 4);
            for (int c = 0; c < calls && done <= l.total; c++) {
                int len = c == calls - 1 ? l.total - done : rnd.nextInt(0, l.total - done + 1);
                boolean copyLast = rnd.nextBoolean();
                int srcIndex = rnd.nextInt(0, 5);
                byte[] data = randomBytes(rnd, srcIndex + len + 3);
                ss.copyIn(ByteBuffer.wrap(data), srcIndex, len, release, copyLast);
                byte[] src = new byte[len];
                System.arraycopy(data, srcIndex, src, 0, len);
                l.scatterExpected(expected, src, 0, done, done + len);
                done += len;
                String what = "seed " + seed + ", round " + round + ", copy " + c + " (len " + len + ", copyLast "
                        + copyLast + "), " + done + " of " + l.total;
                for (int e = 0; e < l.mrs.length; e++) {
                    assertThat(l.mrs[e].bytes()).as("%s: region %d", what, e).containsExactly(expected[e]);
                }
                assertPosition(what, l, ss, done);
                assertThat(l.releases()).as(what).isEqualTo(release ? l.entriesUsedUp(done) : 0);
            }
        }
    }

    @Test
    void shouldPlaceDataWhenCopyLastCoversShortEqualAndLongLengthsAcrossEntries() {
        int[][] layouts = {{3, 4, 6}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {20, 2}, {2, 20}, {8}, {9, 9}};
        for (int[] lens : layouts) {
            int total = 0;
            for (int n : lens) {
                total += n;
            }
            for (int len = 0; len <= total; len++) {
                Layout l = Layout.of(500, lens);
                byte[] data = new byte[len];
                for (int i = 0; i < len; i++) {
                    data[i] = (byte) (0x40 + i);
                }
                SgeState ss = l.state();
                ss.copyIn(ByteBuffer.wrap(data), 0, len, true, true);
                String what = "layout " + java.util.Arrays.toString(lens) + ", length " + len;
                assertThat(l.gather(0, len)).as(what).containsExactly(data);
                assertThat(l.gather(len, total)).as("%s: rest untouched", what)
                        .containsExactly(new byte[total - len]);
                assertPosition(what, l, ss, len);
                assertThat(l.releases()).as(what).isEqualTo(l.entriesUsedUp(len));
            }
        }
    }

    @Test
    void shouldThrowWhenCopyInOverrunsScatterList() {
        Layout l = Layout.of(10, 4, 4);
        SgeState ss = l.state();
        assertThatThrownBy(() -> ss.copyIn(ByteBuffer.allocate(9), 0, 9, false, false))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("overruns");
        SgeState ss2 = Layout.of(20, 4, 4).state();
        assertThatThrownBy(() -> ss2.copyIn(ByteBuffer.allocate(20), 0, 20, false, true))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("overruns");
    }

    @Test
    void shouldGatherBytesInOrderWhenRandomCopyOutsAreMade() {
        long seed = 0x55_0005L;
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int round = 0; round < 3000; round++) {
            Layout l = Layout.random(rnd, 600);
            l.fillRandom(rnd);
            byte[][] before = l.snapshot();
            boolean release = rnd.nextBoolean();
            SgeState ss = l.state();
            int done = 0;
            while (done < l.total) {
                int len = rnd.nextInt(1, l.total - done + 1);
                int dstIndex = rnd.nextInt(0, 4);
                ByteBuffer dst = ByteBuffer.allocate(dstIndex + len + 2);
                dst.position(1);
                ss.copyOut(dst, dstIndex, len, release);
                String what = "seed " + seed + ", round " + round + ", gathered " + (done + len) + " of " + l.total;
                byte[] got = new byte[len];
                System.arraycopy(dst.array(), dstIndex, got, 0, len);
                assertThat(got).as(what).containsExactly(l.gather(done, done + len));
                assertThat(dst.array()[dstIndex + len]).as("%s: nothing past the end", what).isZero();
                assertThat(dst.position()).as("%s: absolute put", what).isEqualTo(1);
                done += len;
                assertPosition(what, l, ss, done);
                assertThat(l.releases()).as(what).isEqualTo(release ? l.entriesUsedUp(done) : 0);
            }
            for (int e = 0; e < l.mrs.length; e++) {
                assertThat(l.mrs[e].bytes()).as("seed %d, round %d: source unchanged", seed, round)
                        .containsExactly(before[e]);
            }
        }
    }

    @Test
    void shouldThrowWhenCopyOutOverrunsGatherList() {
        SgeState ss = Layout.of(10, 3).state();
        assertThatThrownBy(() -> ss.copyOut(ByteBuffer.allocate(8), 0, 4, false))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("overruns");
    }

    @Test
    void shouldMoveBytesBetweenStatesWhenRandomLoopbackCopiesAreMade() {
        long seed = 0x55_0006L;
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int round = 0; round < 3000; round++) {
            Layout src = Layout.random(rnd, 700);
            Layout dst = Layout.random(rnd, 800);
            src.fillRandom(rnd);
            int max = Math.min(src.total, dst.total);
            int len = rnd.nextInt(0, max + 1);
            boolean releaseDst = rnd.nextBoolean();
            boolean releaseSrc = rnd.nextBoolean();
            boolean copyLast = rnd.nextBoolean();
            byte[][] expected = dst.snapshot();
            byte[] moved = src.gather(0, len);
            dst.scatterExpected(expected, moved, 0, 0, len);
            SgeState s = src.state();
            SgeState d = dst.state();

            d.copyFrom(s, len, releaseDst, releaseSrc, copyLast);

            String what = "seed " + seed + ", round " + round + ", len " + len + ", copyLast " + copyLast;
            for (int e = 0; e < dst.mrs.length; e++) {
                assertThat(dst.mrs[e].bytes()).as("%s: destination region %d", what, e).containsExactly(expected[e]);
            }
            assertPosition(what + " (source)", src, s, len);
            assertPosition(what + " (destination)", dst, d, len);
            assertThat(src.releases()).as("%s: source releases", what)
                    .isEqualTo(releaseSrc ? src.entriesUsedUp(len) : 0);
            assertThat(dst.releases()).as("%s: destination releases", what)
                    .isEqualTo(releaseDst ? dst.entriesUsedUp(len) : 0);
        }
    }
}
