package io.rvt.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.MemoryRegion;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcOpcode;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * Regions in pieces ({@code ProtectionDomain.regMrPieces}, an rvt extension for regions beyond one
 * {@link ByteBuffer}'s 2 GiB) across two devices: RDMA WRITE, READ and atomics that land across the 2 GiB offset of a
 * region longer than 2 GiB, which is also a boundary between its pieces, and SEND/receive with scatter entries that
 * cross pieces on both sides. The long region's 2049 pieces of 1 MiB are views of one 1 MiB buffer, so it takes no
 * more memory than that: its piece 2047 and piece 2048 are the same bytes, the data placed at the end of one and the
 * start of the other.
 */
public abstract class MrPiecesConformanceTest extends ConformanceTest {
    private static final int BUF = 1 << 14;
    private static final int MIB_SHIFT = 20;
    private static final long TWO_GIB = 1L << 31;

    private Endpoint[] pair() {
        return verbs.connected(dev[0], dev[1], QpType.RC, BUF, 7, 1);
    }

    /** A region of 2 GiB + 1 MiB in 1 MiB pieces, every piece a view of one direct buffer. */
    private static MemoryRegion longRegion(Endpoint e, ByteBuffer backing) {
        ByteBuffer[] pieces = new ByteBuffer[(int) (TWO_GIB >> MIB_SHIFT) + 1];
        for (int i = 0; i < pieces.length; i++) {
            pieces[i] = backing.duplicate().clear();
        }
        return e.pd.regMrPieces(pieces, Endpoint.ALL_ACCESS);
    }

    /** A region of 4 KiB pieces, each its own buffer, the last {@code last} bytes long. */
    private static MemoryRegion smallPieces(Endpoint e, int count, int last) {
        ByteBuffer[] pieces = new ByteBuffer[count];
        for (int i = 0; i < count; i++) {
            pieces[i] = ByteBuffer.allocateDirect(i == count - 1 ? last : 4096);
        }
        return e.pd.regMrPieces(pieces, Endpoint.ALL_ACCESS);
    }

    /** The {@code len} bytes at region offset {@code off}, gathered from the region's pieces. */
    private static ByteBuffer gather(MemoryRegion mr, int shift, long off, int len) {
        ByteBuffer[] views = mr.buffers();
        ByteBuffer out = ByteBuffer.allocate(len);
        for (int i = 0; i < len; i++) {
            long at = off + i;
            out.put(i, views[(int) (at >>> shift)].get((int) (at & ((1L << shift) - 1))));
        }
        return out;
    }

    /** Writes the pattern of {@code seed} at region offset {@code off}, across the region's pieces. */
    private static void scatter(MemoryRegion mr, int shift, long off, int len, long seed) {
        ByteBuffer src = ByteBuffer.allocate(len);
        Verbs.fill(src, 0, len, seed);
        ByteBuffer[] views = mr.buffers();
        for (int i = 0; i < len; i++) {
            long at = off + i;
            views[(int) (at >>> shift)].put((int) (at & ((1L << shift) - 1)), src.get(i));
        }
    }

    /** WRITE 3000 bytes across the 2 GiB offset, then READ them back from there. */
    @Test
    void shouldWriteAndReadAcrossTheTwoGibOffsetOfARegionInPieces() {
        Endpoint[] p = pair();
        MemoryRegion big = longRegion(p[1], ByteBuffer.allocateDirect(1 << MIB_SHIFT));
        assertThat(big.length()).isEqualTo(TWO_GIB + (1L << MIB_SHIFT));
        int len = 3000;
        long at = TWO_GIB - 1000;
        Verbs.fill(p[0].buffer, 0, len, seed);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.RDMA_WRITE).sge(p[0].mr, 0, len)
                .remoteAddr(big.addr() + at).rkey(big.rkey()));
        Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 1);
        Verbs.assertPattern(gather(big, MIB_SHIFT, at, len), 0, len, seed);

        scatter(big, MIB_SHIFT, at, len, seed + 1);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.RDMA_READ).sge(p[0].mr, 4096, len)
                .remoteAddr(big.addr() + at).rkey(big.rkey()));
        WorkCompletion r = verbs.await(p[0].sendCq, 1).get(0);
        Verbs.assertSuccess(r, 2);
        assertThat(r.opcode()).isEqualTo(WcOpcode.RDMA_READ);
        Verbs.assertPattern(p[0].buffer, 4096, len, seed + 1);
    }

    /**
     * FETCH_AND_ADD on the last 8 bytes before the 2 GiB offset and COMPARE_AND_SWAP on the first 8 after it; the
     * old values land in a local region of 4 KiB pieces, on either side of its piece boundary.
     */
    @Test
    void shouldRunAtomicsOnEitherSideOfTheTwoGibOffsetIntoLocalPieces() {
        if (!fixture.supports(Feature.ATOMICS)) {
            return; // as the other suites: a driver without atomics has nothing to show here
        }
        Endpoint[] p = pair();
        ByteBuffer backing = ByteBuffer.allocateDirect(1 << MIB_SHIFT).order(ByteOrder.nativeOrder());
        MemoryRegion big = longRegion(p[1], backing);
        MemoryRegion local = smallPieces(p[0], 2, 4096);
        backing.putLong((1 << MIB_SHIFT) - 8, 41); // region offset 2 GiB - 8 (piece 2047's end)
        backing.putLong(0, 7); // region offset 2 GiB (piece 2048's start)

        p[0].qp.postSend(new SendWorkRequest(1).wrId(3).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                .sge(local, 4096 - 8, 8).remoteAddr(big.addr() + TWO_GIB - 8).rkey(big.rkey()).compareAdd(1));
        Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 3);
        assertThat(backing.getLong((1 << MIB_SHIFT) - 8)).isEqualTo(42);
        assertThat(local.buffers()[0].getLong(4096 - 8)).as("the old value, at the end of local piece 0")
                .isEqualTo(41);

        p[0].qp.postSend(new SendWorkRequest(1).wrId(4).opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                .sge(local, 4096, 8).remoteAddr(big.addr() + TWO_GIB).rkey(big.rkey()).compareAdd(7).swap(99));
        Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 4);
        assertThat(backing.getLong(0)).isEqualTo(99);
        assertThat(local.buffers()[1].getLong(0)).as("the old value, at the start of local piece 1").isEqualTo(7);
        assertThat(backing.getLong((1 << MIB_SHIFT) - 8)).as("the other side untouched").isEqualTo(42);
    }

    /** A SEND gathered across three pieces lands in a receive scattered across three pieces of the peer's region. */
    @Test
    void shouldSendFromPiecesIntoPiecesAcrossTheirBoundaries() {
        Endpoint[] p = pair();
        MemoryRegion src = smallPieces(p[0], 4, 1000);
        MemoryRegion dst = smallPieces(p[1], 5, 4096);
        assertThat(src.length()).isEqualTo(3 * 4096 + 1000);
        int len = 10_000;
        scatter(src, 12, 100, len, seed);
        p[1].qp.postRecv(new RecvWorkRequest(1).wrId(9).sge(dst, 3000, len));
        p[0].qp.postSend(new SendWorkRequest(1).wrId(5).opcode(WrOpcode.SEND).sge(src, 100, len));
        Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 5);
        WorkCompletion rc = verbs.await(p[1].recvCq, 1).get(0);
        Verbs.assertSuccess(rc, 9);
        assertThat(rc.byteLen()).isEqualTo(len);
        Verbs.assertPattern(gather(dst, 12, 3000, len), 0, len, seed);
    }
}
