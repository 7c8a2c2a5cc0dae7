package io.rvt.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Locale;

/**
 * {@link SimBenchmark}'s methods timed by the calling thread's CPU clock instead of the wall clock: with
 * {@code threading=invoker} (or {@code progress} while the application polls) the benchmark thread does all the work,
 * so its CPU time per operation is the cost of the work, and it stays readable on a machine whose other builds take
 * the cores (there a 1 s JMH iteration of the same code varied 2-20x). Not a replacement for JMH: no forks, no
 * blackhole; each figure is the least of seven windows, the one least disturbed.
 *
 * <pre>{@code java -cp bench/target/benchmarks.jar io.rvt.bench.CpuPerOp invoker 3 byteBufferCopy,rdmaWriteBw,rdmaWrite}</pre>
 */
public final class CpuPerOp {
    private static final int WINDOWS = 7;

    private CpuPerOp() {
    }

    /**
     * @param args the {@code threading} parameter, the rounds, optionally the methods (comma-separated; default
     *             {@code byteBufferCopy,rdmaWriteBw,rdmaWrite})
     * @throws ReflectiveOperationException if a method does not exist
     */
    public static void main(String[] args) throws ReflectiveOperationException {
        if (args.length < 2) {
            System.err.println("usage: CpuPerOp THREADING ROUNDS [METHOD,...]");
            System.exit(2);
        }
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        SimBenchmark b = new SimBenchmark();
        b.idle = "backoff";
        b.threading = args[0];
        b.size = 65536;
        String[] names = (args.length > 2 ? args[2] : "byteBufferCopy,rdmaWriteBw,rdmaWrite").split(",");
        int rounds = Integer.parseInt(args[1]);
        b.setUp();
        try {
            for (int r = 0; r < rounds; r++) {
                StringBuilder line = new StringBuilder("round ").append(r).append(", CPU ns/op:");
                for (String name : names) {
                    line.append(' ').append(name).append('=').append(best(mx, b, name));
                }
                System.out.println(line);
            }
        } finally {
            b.tearDown();
        }
        System.exit(0); // the fabric's backstop thread
    }

    private static long best(ThreadMXBean mx, SimBenchmark b, String name) throws ReflectiveOperationException {
        Method m = SimBenchmark.class.getMethod(name);
        int perCall = opsPerCall(name);
        int calls = "byteBufferCopy".equals(name) ? 20_000 : 2_000;
        long best = Long.MAX_VALUE;
        for (int w = 0; w < WINDOWS; w++) {
            long start = mx.getCurrentThreadCpuTime();
            for (int i = 0; i < calls; i++) {
                try {
                    m.invoke(b);
                } catch (InvocationTargetException e) {
                    throw new IllegalStateException(name + " failed", e.getCause());
                }
            }
            best = Math.min(best, (mx.getCurrentThreadCpuTime() - start) / ((long) calls * perCall));
        }
        return best;
    }

    private static int opsPerCall(String name) {
        switch (name.toLowerCase(Locale.ROOT)) {
            case "rdmawritebw":
                return SimBenchmark.WRITE_WINDOW;
            case "sendstream":
                return SimBenchmark.STREAM_BATCH;
            case "sendrate":
                return SimBenchmark.WINDOW;
            default:
                return 1;
        }
    }
}
