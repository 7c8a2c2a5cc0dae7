package io.rvt.bench;

import io.rvt.api.AccessFlag;
import io.rvt.api.MemoryRegion;
import io.rvt.api.spi.DriverMr;
import io.rvt.api.spi.Sge;
import io.rvt.api.spi.engine.SgeState;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The SGE copy paths every driver's packets go through ({@link SgeState#copyOut}, a packet's payload gathered from a
 * send WQE; {@link SgeState#copyIn}, a payload placed into a receive WQE or an RDMA target), over a region of one
 * direct {@link ByteBuffer}: four entries of {@code size / 4} bytes each, set up by {@link Sge#set} as the key checks
 * do, walked in one call. Written for issue 31 item 3 (regions in pieces), to show that a region of one buffer runs
 * as fast as before; it compiles against the SPI of before that change too, so the same jar runs the old rvt-api
 * first on the class path (A/B).
 *
 * <p>{@link #main} times the same four cells by the calling thread's CPU clock instead (as {@link CpuPerOp} does for
 * {@link SimBenchmark}): on a busy machine a JMH iteration measures mostly the scheduler, while the CPU time of the
 * thread that does all the work, least of several windows, stays readable.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SgeCopyBenchmark {
    /** Bytes per call, over four entries. */
    @Param({"64", "4096"})
    public int size;

    private Fixture fx;
    private DriverMr mr;
    private final Sge[] list = {new Sge(), new Sge(), new Sge(), new Sge()};
    private final SgeState state = new SgeState();
    private ByteBuffer packet;

    /** A region of 64 KiB and a packet buffer. */
    @Setup(Level.Trial)
    public void setUp() {
        fx = new Fixture(BenchDriver.Mode.LOOPBACK);
        MemoryRegion r = fx.pd.regMr(ByteBuffer.allocateDirect(1 << 16), AccessFlag.LOCAL_WRITE.bit());
        mr = (DriverMr) r;
        packet = ByteBuffer.allocateDirect(1 << 16);
    }

    /** Removes the device. */
    @TearDown(Level.Trial)
    public void tearDown() {
        fx.close();
    }

    private void setEntries() {
        int each = size / 4;
        long base = mr.addr() + 128;
        for (int i = 0; i < 4; i++) {
            long at = base + (long) i * (each + 64);
            list[i].set(mr, at, (int) (mr.addr() + mr.length() - at), each);
        }
        state.init(list, 0, 4, size);
    }

    /** @return a byte of the packet, so nothing is dead code */
    @Benchmark
    public byte copyOut() {
        setEntries();
        state.copyOut(packet, 0, size, false);
        return packet.get(size - 1);
    }

    /** @return a byte of the region, so nothing is dead code */
    @Benchmark
    public byte copyIn() {
        setEntries();
        state.copyIn(packet, 0, size, false, false);
        return mr.memory().get(128);
    }

    /**
     * Prints, per round, the CPU nanoseconds per call of {@code copyOut} and {@code copyIn} at 64 B and 4 KiB, each
     * the least of seven windows.
     *
     * <pre>{@code java -cp [old jars:]bench/target/benchmarks.jar io.rvt.bench.SgeCopyBenchmark 5}</pre>
     *
     * @param args the number of rounds (the first one warms up the compiler)
     */
    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        SgeCopyBenchmark small = new SgeCopyBenchmark();
        small.size = 64;
        SgeCopyBenchmark large = new SgeCopyBenchmark();
        large.size = 4096;
        small.setUp();
        large.setUp();
        try {
            for (int r = 0; r < rounds; r++) {
                System.out.printf("round %d, CPU ns/call: copyOut64=%d copyOut4096=%d copyIn64=%d copyIn4096=%d%n", r,
                        least(mx, small, true, 200_000), least(mx, large, true, 20_000),
                        least(mx, small, false, 200_000), least(mx, large, false, 20_000));
            }
        } finally {
            small.tearDown();
            large.tearDown();
        }
        System.exit(0);
    }

    private static long least(ThreadMXBean mx, SgeCopyBenchmark b, boolean out, int calls) {
        long best = Long.MAX_VALUE;
        int sink = 0;
        for (int w = 0; w < 7; w++) {
            long start = mx.getCurrentThreadCpuTime();
            for (int i = 0; i < calls; i++) {
                sink += out ? b.copyOut() : b.copyIn();
            }
            best = Math.min(best, (mx.getCurrentThreadCpuTime() - start) / calls);
        }
        if (sink == 42) {
            System.out.print(""); // keeps the copies' results alive
        }
        return best;
    }
}
