package io.rvt.bench;

import io.rvt.transport.header.BthDescriptor;
import io.rvt.transport.header.Icrc;
import io.rvt.transport.header.Opcode;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The receive side's IPv4 ICRC check, per packet, in a direct buffer as driver-jni's receive slots are: the check
 * under ID 0 as before ({@code checkId0}, {@link Icrc#checkRoceV4}) against {@link Icrc#recoverRoceV4Id} on the same
 * packet (ID 0, rvt's own: {@code recoverId0}, which must cost the same), on a packet whose ICRC is over a non-zero
 * ID (Linux's: {@code recoverNonZeroId}, the solver's extra) and on a corrupted one ({@code recoverCorrupted}).
 *
 * <p>{@link #main} times the four by the thread's CPU clock instead, interleaved window by window (the least of 50),
 * which stays readable on a machine whose other work takes the cores:
 * {@code java -cp bench/target/benchmarks.jar io.rvt.bench.IcrcBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class IcrcBenchmark {
    private static final int SRC = 0xC000_0202;
    private static final int DST = 0xC000_0201;
    private static final int SPORT = 0xC123;
    private static final int DPORT = 4791;

    /** UDP payload bytes after the BTH, before the ICRC. */
    @Param({"64", "4096"})
    public int payload;

    private final Icrc icrc = new Icrc();
    private ByteBuffer id0;
    private ByteBuffer idNonZero;
    private ByteBuffer corrupted;
    private int length;

    /** Three packets of {@code payload} bytes: ICRC over ID 0, over ID 0x5A3C, and the latter with a bit flipped. */
    @Setup
    public void setUp() {
        length = BthDescriptor.LENGTH + payload + Icrc.LENGTH;
        id0 = packet(0);
        idNonZero = packet(0x5A3C);
        corrupted = packet(0x5A3C);
        corrupted.put(BthDescriptor.LENGTH + payload / 2, (byte) (corrupted.get(BthDescriptor.LENGTH + payload / 2)
                ^ 0x10));
        if (icrc.recoverRoceV4Id(SRC, DST, true, SPORT, DPORT, idNonZero, 0, length) != 0x5A3C
                || icrc.recoverRoceV4Id(SRC, DST, true, SPORT, DPORT, id0, 0, length) != 0
                || icrc.recoverRoceV4Id(SRC, DST, true, SPORT, DPORT, corrupted, 0, length) != -1) {
            throw new IllegalStateException("the packets do not check as they should");
        }
    }

    private ByteBuffer packet(int id) {
        ByteBuffer b = ByteBuffer.allocateDirect(length);
        BthDescriptor.write(b, 0, Opcode.RC_SEND_MIDDLE, false, false, 0, 0xFFFF, 0x11, false, 7);
        SplittableRandom r = new SplittableRandom(payload);
        for (int i = BthDescriptor.LENGTH; i < length - Icrc.LENGTH; i++) {
            b.put(i, (byte) r.nextInt());
        }
        icrc.writeRoceV4(SRC, DST, id, true, SPORT, DPORT, b, 0, length);
        return b;
    }

    /** @return whether the ID-0 packet checks, the old way */
    @Benchmark
    public boolean checkId0() {
        return icrc.checkRoceV4(SRC, DST, 0, true, SPORT, DPORT, id0, 0, length);
    }

    /** @return the ID-0 packet's ID (0): the new check on rvt's own packets */
    @Benchmark
    public int recoverId0() {
        return icrc.recoverRoceV4Id(SRC, DST, true, SPORT, DPORT, id0, 0, length);
    }

    /** @return the non-zero ID, solved for */
    @Benchmark
    public int recoverNonZeroId() {
        return icrc.recoverRoceV4Id(SRC, DST, true, SPORT, DPORT, idNonZero, 0, length);
    }

    /** @return -1: the corrupted packet solves for no ID */
    @Benchmark
    public int recoverCorrupted() {
        return icrc.recoverRoceV4Id(SRC, DST, true, SPORT, DPORT, corrupted, 0, length);
    }

    /**
     * CPU ns per check of the four benchmarks, interleaved: 60 rounds of one window each, the first 10 warm-up, the
     * least window of the rest reported.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        String[] names = {"checkId0", "recoverId0", "recoverNonZeroId", "recoverCorrupted"};
        long sink = 0;
        for (int payload : new int[] {64, 4096}) {
            IcrcBenchmark b = new IcrcBenchmark();
            b.payload = payload;
            b.setUp();
            int ops = payload == 64 ? 200_000 : 40_000;
            long[] least = {Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE};
            for (int round = 0; round < 60; round++) {
                for (int m = 0; m < names.length; m++) {
                    long t0 = mx.getCurrentThreadCpuTime();
                    for (int i = 0; i < ops; i++) {
                        sink += m == 0 ? (b.checkId0() ? 1 : 0) : m == 1 ? b.recoverId0()
                                : m == 2 ? b.recoverNonZeroId() : b.recoverCorrupted();
                    }
                    long t = mx.getCurrentThreadCpuTime() - t0;
                    if (round >= 10) {
                        least[m] = Math.min(least[m], t);
                    }
                }
            }
            StringBuilder line = new StringBuilder("payload ").append(payload).append(", CPU ns/op:");
            for (int m = 0; m < names.length; m++) {
                line.append(String.format(Locale.ROOT, " %s=%.1f", names[m], least[m] / (double) ops));
            }
            System.out.println(line);
        }
        System.out.println("(sink " + sink + ")");
    }
}
