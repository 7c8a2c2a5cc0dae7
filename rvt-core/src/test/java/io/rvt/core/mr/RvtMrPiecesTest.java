package io.rvt.core.mr;

import static io.rvt.core.TestUtil.assertErrno;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.AccessFlag;
import io.rvt.api.DeviceCounter;
import io.rvt.api.Errno;
import io.rvt.api.MemoryRegion;
import io.rvt.api.ScatterGatherEntry;
import io.rvt.api.spi.Sge;
import io.rvt.api.spi.engine.SgeState;
import io.rvt.core.RvtDevice;
import io.rvt.core.TestDriver;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Regions in pieces ({@code regMrPieces}): the checks of registration with their errno and message, state unchanged;
 * key checks and the SGE cursor with 64-bit offsets (a region of 2 GiB + 1 MiB whose pieces are views of one 1 MiB
 * buffer, so no more memory is needed); atomics on either side of a piece boundary.
 */
@Timeout(30)
class RvtMrPiecesTest {
    private static final int LW = AccessFlag.LOCAL_WRITE.bit();
    private static final int ALL = AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);
    private static final long TWO_GIB = 1L << 31;

    private RvtDevice dev;
    private RvtPd pd;

    @BeforeEach
    void setUp() {
        dev = new TestDriver().register();
        pd = RvtPd.alloc(dev, false);
    }

    @AfterEach
    void tearDown() {
        dev.unregister();
    }

    private static ByteBuffer[] pieces(int... lengths) {
        ByteBuffer[] out = new ByteBuffer[lengths.length];
        for (int i = 0; i < lengths.length; i++) {
            out[i] = ByteBuffer.allocateDirect(lengths[i]);
        }
        return out;
    }

    /** 2049 pieces of 1 MiB, all views of {@code backing}. */
    private MemoryRegion longRegion(ByteBuffer backing) {
        ByteBuffer[] p = new ByteBuffer[2049];
        for (int i = 0; i < p.length; i++) {
            p[i] = backing.duplicate().clear();
        }
        return pd.regMrPieces(p, ALL);
    }

    @Test
    void shouldRefuseBadPiecesWithEinvalNamingThePieceAndChangeNothing() {
        assertErrno(() -> pd.regMrPieces(null, LW), Errno.EINVAL, "regMr: no pieces (null)");
        assertErrno(() -> pd.regMrPieces(new ByteBuffer[0], LW), Errno.EINVAL, "no pieces (an empty array)");
        assertErrno(() -> pd.regMrPieces(new ByteBuffer[] {ByteBuffer.allocateDirect(4096), null}, LW),
                Errno.EINVAL, "piece 1 of 2 is null");
        assertErrno(() -> pd.regMrPieces(new ByteBuffer[] {ByteBuffer.allocate(4096), ByteBuffer.allocate(8)}, LW),
                Errno.EINVAL, "piece 0 is a heap buffer");
        assertErrno(() -> pd.regMrPieces(pieces(3000, 3000), LW), Errno.EINVAL,
                "piece 0 has 3000 bytes; the pieces' length must be a power of two of at least 4096");
        assertErrno(() -> pd.regMrPieces(pieces(2048, 2048), LW), Errno.EINVAL, "piece 0 has 2048 bytes");
        assertErrno(() -> pd.regMrPieces(pieces(4096, 8192, 4096), LW), Errno.EINVAL,
                "piece 1 has 8192 bytes; every piece but the last must have 4096");
        assertErrno(() -> pd.regMrPieces(pieces(4096, 8192), LW), Errno.EINVAL,
                "piece 1 has 8192 bytes; the last must have 1 to 4096");
        ByteBuffer[] ro = pieces(4096, 100);
        ro[1] = ro[1].asReadOnlyBuffer();
        assertErrno(() -> pd.regMrPieces(ro, LW), Errno.EINVAL, "piece 1 is read-only but access LOCAL_WRITE");
        assertErrno(() -> pd.regMrPieces(pieces(4096, 100), AccessFlag.REMOTE_WRITE.bit()), Errno.EINVAL,
                "LOCAL_WRITE");
        assertErrno(() -> pd.regMrPieces(pieces(4096, 100), 0x400), Errno.EINVAL, "unknown bits 0x400");
        assertThat(dev.deviceCounter(DeviceCounter.MRS_ALLOCATED)).isZero();
        assertThat(pd.useCount()).isZero();
        assertThat(dev.lkeyTable().count()).isZero();

        MemoryRegion r = pd.regMrPieces(ro, AccessFlag.REMOTE_READ.bit());
        assertThat(r.length()).isEqualTo(4196);
        assertErrno(r::buffer, Errno.EINVAL, "is in 2 pieces; use buffers()");
        assertThat(r.buffers()).hasSize(2);
        assertThat(r.buffers()[1].capacity()).isEqualTo(100);
        r.deregMr();
        assertThat(dev.lkeyTable().count()).isZero();
    }

    @Test
    void shouldRegisterOnePieceAsOneBuffer() {
        ByteBuffer b = ByteBuffer.allocate(100);
        MemoryRegion r = pd.regMrPieces(new ByteBuffer[] {b}, LW);
        assertThat(r.length()).isEqualTo(100);
        assertThat(((RvtMr) r).pieceShift()).isZero();
        assertThat(r.buffer().capacity()).isEqualTo(100);
    }

    @Test
    void shouldCheckKeysWithSixtyFourBitOffsetsAndCrossPiecesWithTheCursor() {
        ByteBuffer backing = ByteBuffer.allocateDirect(1 << 20);
        MemoryRegion r = longRegion(backing);
        assertThat(r.length()).isEqualTo(TWO_GIB + (1 << 20));
        Sge s = new Sge();
        // past the end by one byte: refused; up to the end: accepted
        assertThat(dev.lkeyTable().rkeyOk(pd, s, 2, r.addr() + r.length() - 1, r.rkey(), ALL)).isFalse();
        assertThat(dev.lkeyTable().rkeyOk(pd, s, 1, r.addr() + r.length() - 1, r.rkey(), ALL)).isTrue();
        assertThat(s.memory()).isNotNull();
        assertThat(s.offset()).isEqualTo((1 << 20) - 1);
        s.release();

        // a local entry across the 2 GiB offset: the cursor steps from piece 2047 to piece 2048
        int refs = ((RvtMr) r).refCount();
        assertThat(dev.lkeyTable().lkeyOk(pd, s, null,
                new ScatterGatherEntry().set(r.addr() + TWO_GIB - 10, 30, r.lkey()), LW)).isEqualTo(1);
        assertThat(s.length()).as("bytes left in piece 2047").isEqualTo(10);
        SgeState st = new SgeState();
        st.init(new Sge[] {s}, 0, 1, 30);
        ByteBuffer src = ByteBuffer.allocate(30);
        for (int i = 0; i < 30; i++) {
            src.put(i, (byte) (i + 1));
        }
        st.copyIn(src, 0, 30, true, false);
        for (int i = 0; i < 10; i++) {
            assertThat(backing.get((1 << 20) - 10 + i)).isEqualTo((byte) (i + 1));
        }
        for (int i = 0; i < 20; i++) {
            assertThat(backing.get(i)).isEqualTo((byte) (i + 11));
        }
        assertThat(((RvtMr) r).refCount()).as("the entry's reference dropped when used up").isEqualTo(refs);

        // and back out the same way
        assertThat(dev.lkeyTable().lkeyOk(pd, s, null,
                new ScatterGatherEntry().set(r.addr() + TWO_GIB - 10, 30, r.lkey()), 0)).isEqualTo(1);
        st.init(new Sge[] {s}, 0, 1, 30);
        ByteBuffer out = ByteBuffer.allocate(30);
        st.copyOut(out, 0, 30, true);
        assertThat(out).isEqualTo(src.clear());
    }

    @Test
    void shouldReadAndWriteEightBytesAcrossAPieceBoundaryAtTheCursor() {
        ByteBuffer[] p = pieces(4096, 4096);
        MemoryRegion r = pd.regMrPieces(p, LW);
        Sge s = new Sge();
        assertThat(dev.lkeyTable().lkeyOkUnreferenced(pd, s,
                new ScatterGatherEntry().set(r.addr() + 4092, 8, r.lkey()), LW)).isEqualTo(1);
        s.putLong(0x1122334455667788L);
        assertThat(s.getLong()).isEqualTo(0x1122334455667788L);
        ByteBuffer whole = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, 0x1122334455667788L);
        for (int i = 0; i < 4; i++) {
            assertThat(p[0].get(4092 + i)).isEqualTo(whole.get(i));
            assertThat(p[1].get(i)).isEqualTo(whole.get(4 + i));
        }
    }

    @Test
    void shouldRunAtomicsOnEitherSideOfAPieceBoundaryAndRefuseOneOutside() {
        ByteBuffer backing = ByteBuffer.allocateDirect(1 << 20).order(ByteOrder.nativeOrder());
        RvtMr r = (RvtMr) longRegion(backing);
        backing.putLong((1 << 20) - 8, 5);
        backing.putLong(0, 9);
        assertThat(r.atomicFetchAdd(r.addr() + TWO_GIB - 8, 2)).isEqualTo(5);
        assertThat(r.atomicCompareSwap(r.addr() + TWO_GIB, 9, 1)).isEqualTo(9);
        r.atomicWrite(r.addr() + TWO_GIB + 8, 77);
        assertThat(backing.getLong((1 << 20) - 8)).isEqualTo(7);
        assertThat(backing.getLong(0)).isEqualTo(1);
        assertThat(backing.getLong(8)).isEqualTo(77);
        assertThatThrownBy(() -> r.atomicFetchAdd(r.addr() + r.length(), 1))
                .isInstanceOf(IndexOutOfBoundsException.class).hasMessageContaining("is outside region");
    }
}
