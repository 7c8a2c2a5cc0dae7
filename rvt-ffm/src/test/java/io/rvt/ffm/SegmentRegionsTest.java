package io.rvt.ffm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.AccessFlag;
import io.rvt.api.Device;
import io.rvt.api.Errno;
import io.rvt.api.MemoryRegion;
import io.rvt.api.QpType;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.VerbsException;
import io.rvt.api.WrOpcode;
import io.rvt.core.RvtDevice;
import io.rvt.driver.sim.SimDriver;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.testkit.ConformanceTest;
import io.rvt.testkit.DriverFixture;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Feature;
import io.rvt.testkit.Variant;
import io.rvt.testkit.Verbs;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SegmentRegions} on deterministic driver-sim devices: a mapped sparse file of 2 GiB + 1 MiB (only the pages
 * touched take memory or disk) registered as one region of three pieces, with RDMA WRITE, READ and atomics landing
 * across its 1 GiB and 2 GiB offsets (its piece boundaries); and bad input refused with its errno and a message
 * naming it, nothing registered.
 */
class SegmentRegionsTest extends ConformanceTest {
    private static final long GIB = 1L << 30;
    private static final ValueLayout.OfLong NATIVE_LONG = ValueLayout.JAVA_LONG_UNALIGNED
            .withOrder(ByteOrder.nativeOrder());

    @TempDir
    Path tmp;

    static List<Variant> variants() {
        return List.of(new Variant("driver-sim deterministic", SimFixture::new));
    }

    /** Two simulated HCAs on a deterministic fabric, run by the test's thread. */
    private static final class SimFixture implements DriverFixture {
        private final long seed;
        private final Fabric fabric;
        private final List<RvtDevice> devices = new ArrayList<>();

        SimFixture(long seed) {
            this.seed = seed;
            this.fabric = Fabric.builder("ffm-" + seed).deterministic(seed).build();
        }

        @Override
        public Device[] open(int count) {
            Device[] out = new Device[count];
            for (int i = 0; i < count; i++) {
                RvtDevice d = RvtDevice.register(SimDriver.builder(fabric).name("ffm%d").build());
                devices.add(d);
                out[i] = d;
            }
            return out;
        }

        @Override
        public boolean progress() {
            return fabric.step();
        }

        @Override
        public boolean supports(Feature feature) {
            return true;
        }

        @Override
        public long seed() {
            return seed;
        }

        @Override
        public void close() {
            devices.forEach(RvtDevice::unregister);
            fabric.close();
        }
    }

    private Endpoint[] pair() {
        return verbs.connected(dev[0], dev[1], QpType.RC, 1 << 14, 7, 1);
    }

    /** A sparse file of {@code size} bytes mapped read-write into a shared arena's segment. */
    private MemorySegment mapSparse(Arena arena, long size) throws IOException {
        Path f = tmp.resolve("sparse.bin");
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.setLength(size);
            return raf.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
        }
    }

    private void write(Endpoint from, MemoryRegion to, long offset, int len, long wrId) {
        from.qp.postSend(new SendWorkRequest(1).wrId(wrId).opcode(WrOpcode.RDMA_WRITE).sge(from.mr, 0, len)
                .remoteAddr(to.addr() + offset).rkey(to.rkey()));
        Verbs.assertSuccess(verbs.await(from.sendCq, 1).get(0), wrId);
    }

    private static void assertPatternAt(MemorySegment seg, long offset, int len, long seed) {
        ByteBuffer copy = ByteBuffer.allocate(len);
        MemorySegment.copy(seg, offset, MemorySegment.ofBuffer(copy), 0, len);
        Verbs.assertPattern(copy, 0, len, seed);
    }

    @Test
    void shouldWriteReadAndRunAtomicsAcrossTheOneAndTwoGibOffsetsOfAMappedSparseFile() throws IOException {
        Endpoint[] p = pair();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment seg = mapSparse(arena, 2 * GIB + (1 << 20));
            MemoryRegion mr = SegmentRegions.regMr(p[1].pd, seg, Endpoint.ALL_ACCESS);
            assertThat(mr.length()).isEqualTo(seg.byteSize());
            assertThat(mr.buffers()).hasSize(3);

            Verbs.fill(p[0].buffer, 0, 3000, seed);
            write(p[0], mr, GIB - 500, 3000, 1);
            assertPatternAt(seg, GIB - 500, 3000, seed);
            write(p[0], mr, 2 * GIB - 1000, 3000, 2);
            assertPatternAt(seg, 2 * GIB - 1000, 3000, seed);

            Verbs.fill(p[0].buffer, 0, 5000, seed + 1);
            MemorySegment.copy(MemorySegment.ofBuffer(p[0].buffer), 0, seg, 2 * GIB - 2500, 5000);
            p[0].qp.postSend(new SendWorkRequest(1).wrId(3).opcode(WrOpcode.RDMA_READ).sge(p[0].mr, 8192, 5000)
                    .remoteAddr(mr.addr() + 2 * GIB - 2500).rkey(mr.rkey()));
            Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 3);
            Verbs.assertPattern(p[0].buffer, 8192, 5000, seed + 1);

            seg.set(NATIVE_LONG, 2 * GIB - 8, 100);
            seg.set(NATIVE_LONG, 2 * GIB, 200);
            p[0].qp.postSend(new SendWorkRequest(1).wrId(4).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                    .sge(p[0].mr, 0, 8).remoteAddr(mr.addr() + 2 * GIB - 8).rkey(mr.rkey()).compareAdd(5));
            Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 4);
            p[0].qp.postSend(new SendWorkRequest(1).wrId(5).opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                    .sge(p[0].mr, 8, 8).remoteAddr(mr.addr() + 2 * GIB).rkey(mr.rkey()).compareAdd(200).swap(7));
            Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 5);
            ByteBuffer old = p[0].buffer.duplicate().order(ByteOrder.nativeOrder());
            assertThat(old.getLong(0)).isEqualTo(100);
            assertThat(old.getLong(8)).isEqualTo(200);
            assertThat(seg.get(NATIVE_LONG, 2 * GIB - 8)).isEqualTo(105);
            assertThat(seg.get(NATIVE_LONG, 2 * GIB)).isEqualTo(7);

            int before = ((RvtDevice) dev[1]).lkeyTable().count();
            mr.deregMr();
            assertThat(((RvtDevice) dev[1]).lkeyTable().count()).isEqualTo(before - 1);
        }
    }

    private static void assertErrno(ThrowingCallable call, Errno errno, String... fragments) {
        assertThatThrownBy(call).isInstanceOf(VerbsException.class)
                .satisfies(e -> assertThat(((VerbsException) e).errno()).isEqualTo(errno))
                .satisfies(e -> {
                    for (String f : fragments) {
                        assertThat(e.getMessage()).contains(f);
                    }
                });
    }

    @Test
    void shouldRefuseBadSegmentsWithTheErrnoAndChangeNothing() throws IOException {
        var pd = dev[0].allocPd();
        int lw = AccessFlag.LOCAL_WRITE.bit();
        int count = ((RvtDevice) dev[0]).lkeyTable().count();
        assertErrno(() -> SegmentRegions.regMr(pd, MemorySegment.ofArray(new byte[64]), lw), Errno.EINVAL,
                "is a heap segment");
        assertErrno(() -> SegmentRegions.regMr(pd, null, lw), Errno.EINVAL, "segment is null");
        Arena closed = Arena.ofShared();
        MemorySegment gone = closed.allocate(4096);
        closed.close();
        assertErrno(() -> SegmentRegions.regMr(pd, gone, lw), Errno.EFAULT, "(4096 bytes) is closed");
        try (Arena confined = Arena.ofConfined(); Arena shared = Arena.ofShared()) {
            assertErrno(() -> SegmentRegions.regMr(pd, confined.allocate(4096), lw), Errno.EINVAL,
                    "is confined to one thread");
            MemorySegment seg = shared.allocate(8192);
            assertErrno(() -> SegmentRegions.regMr(pd, seg, 4096, 4097, lw), Errno.EFAULT,
                    "range [4096, +4097) is not inside the 8192-byte segment");
            assertErrno(() -> SegmentRegions.regMr(pd, seg, -1, 10, lw), Errno.EFAULT, "range [-1, +10)");
            assertErrno(() -> SegmentRegions.regMr(pd, seg, 0, 0, lw), Errno.EINVAL, "length 0 is below 1");
            assertErrno(() -> SegmentRegions.regMr(pd, seg.asReadOnly(), lw), Errno.EINVAL,
                    "is read-only but access LOCAL_WRITE allows writing");
            assertErrno(() -> SegmentRegions.regMr(pd, seg, AccessFlag.REMOTE_WRITE.bit()), Errno.EINVAL,
                    "without LOCAL_WRITE");
            assertThat(((RvtDevice) dev[0]).lkeyTable().count()).isEqualTo(count);

            MemoryRegion ro = SegmentRegions.regMr(pd, seg.asReadOnly(), 100, 4000,
                    AccessFlag.REMOTE_READ.bit());
            assertThat(ro.length()).isEqualTo(4000);
            assertThat(ro.buffer().capacity()).as("one piece: a region of one buffer").isEqualTo(4000);
            ro.deregMr();
        }
        pd.deallocPd();
    }
}
