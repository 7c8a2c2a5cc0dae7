package io.rvt.bench;

import io.rvt.api.AccessFlag;
import io.rvt.api.CompletionQueue;
import io.rvt.api.MemoryRegion;
import io.rvt.api.PortCounter;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.cm.QpOptions;
import io.rvt.core.RvtDevice;
import io.rvt.driver.jni.JniDriver;
import io.rvt.driver.jni.Wire;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Two driver-jni HCAs on UDP loopback (127.0.0.1, two ephemeral ports, each the other's peer), one RC QP pair: SEND
 * 64 B message rate, 8 B ping-pong and RDMA WRITE 64 KiB bandwidth, over the native socket layer
 * ({@code sendmmsg}/{@code recvmmsg}) and over the JDK's {@code DatagramChannel} ({@code wire}), with the engines run
 * as {@code threading} says; the benchmark thread posts and polls both HCAs' CQs. Compare with
 * {@code bench/target/udploop} and iperf3: {@code bench/udp-compare.sh} runs them in one interleaved run.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class JniBenchmark {
    /** Messages per window of {@link #sendRate}. */
    static final int WINDOW = 64;

    /** The socket layer: NATIVE or JDK. */
    @Param({"NATIVE", "JDK"})
    public String wire;

    /**
     * "progress" (driver-jni's default, {@link ThreadingMode#PROGRESS}): the benchmark thread's empty polls run both
     * HCAs' port engines (the progress hook), each port's thread a backstop; "dedicated"
     * ({@link ThreadingMode#DEDICATED}, {@code rvt --threading dedicated}, before "network"): only the ports' threads
     * (waiting in {@code poll} when idle); "invoker": no thread, the benchmark thread calls both drivers'
     * {@code doWork()} when its CQs are empty; "shared": no thread of the drivers', one thread runs both drivers'
     * {@code doWork()} (spinning, yielding when idle) beside the benchmark thread, as driver-sim's shared mode does.
     */
    @Param({"progress", "dedicated", "invoker", "shared"})
    public String threading;

    /**
     * Receives {@link #sendRate} and {@link #sendRateList} keep posted on B beyond each window's own: by default one
     * window's worth, as perftest's {@code ib_send_bw} keeps its receive queue ({@code rx_depth}) filled ahead of the
     * sends, so the responder's RC credits (AETH) never run out. With 0 each window's receives are posted just before
     * its sends, after the last window used up every receive: the requester then knows of no credit, sends the
     * window's first SEND alone and the rest as the ACKs return credits in the AETH's coarse steps (five
     * {@code sendmmsg} and five ACKs per window of 64 where the C loop, which has no credits, makes two of each).
     */
    @Param({"64"})
    public int receivesAhead;

    /** The loopback address both HCAs bind: {@code 127.0.0.1} or {@code ::1} (IPv6, where {@link #gso} applies). */
    @Param({"127.0.0.1"})
    public String address;

    /** UDP GSO on IPv6 ({@code JniDriverBuilder.udpGso}; never used on IPv4). */
    @Param({"true"})
    public boolean gso;

    /** UDP GRO on receive ({@code JniDriverBuilder.udpGro}): coalesced datagrams split into packets. */
    @Param({"true"})
    public boolean gro;

    /** Bytes of the RDMA WRITE. */
    @Param({"65536"})
    public int size;

    private Thread network;
    private volatile boolean running;
    private JniDriver j0;
    private JniDriver j1;
    private boolean invoker;
    private RvtDevice d0;
    private RvtDevice d1;
    private CmPair pair;
    private QueuePair a;
    private QueuePair b;
    private CompletionQueue cqA;
    private CompletionQueue cqB;
    private SendWorkRequest send64;
    /** {@value #WINDOW} chained 64-byte SENDs, posted with one call (perftest's {@code -l}). */
    private SendWorkRequest send64List;
    private SendWorkRequest send8a;
    private SendWorkRequest send8b;
    private SendWorkRequest write;
    private RecvWorkRequest recvA;
    private RecvWorkRequest recvB;
    private final WorkCompletion wc = new WorkCompletion();
    /** Completions awaited and seen on each CQ since the trial began (see {@link #await}). */
    private long expectA;
    private long expectB;
    private long seenA;
    private long seenB;
    /** Operations (messages, round trips, WRITEs) done, and the process CPU time, over the measured iterations. */
    private long ops;
    private long measuredOps;
    private long measuredCpuNanos;
    private long iterationCpu0;
    private long iterationOps0;
    private long iterationPackets0;
    private long measuredPackets;
    private boolean measuring;
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /**
     * Two HCAs, a connected RC pair, regions and reusable work requests.
     *
     * @param params the benchmark being set up (the SEND rates post {@link #receivesAhead} receives ahead)
     */
    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) {
        Wire w = Wire.valueOf(wire);
        boolean shared = "shared".equals(threading);
        invoker = "invoker".equals(threading);
        ThreadingMode mode = switch (threading) {
            case "progress" -> ThreadingMode.PROGRESS;
            case "dedicated" -> ThreadingMode.DEDICATED;
            case "invoker", "shared" -> ThreadingMode.INVOKER;
            default -> throw new IllegalArgumentException("threading: progress, dedicated, invoker or shared, got "
                    + threading);
        };
        j0 = JniDriver.builder().name("j0").address(address).udpPort(0).wire(w).threading(mode).udpGso(gso)
                .udpGro(gro).build();
        j1 = JniDriver.builder().name("j1").address(address).udpPort(0).wire(w).threading(mode).udpGso(gso)
                .udpGro(gro).build();
        j0.addPeer(j1.gid(1), j1.localPort(1));
        j1.addPeer(j0.gid(1), j0.localPort(1));
        d0 = RvtDevice.register(j0);
        d1 = RvtDevice.register(j1);
        if (shared) {
            running = true;
            network = new Thread(() -> {
                while (running) {
                    if (j0.doWork() + j1.doWork() == 0) {
                        Thread.yield();
                    }
                }
            }, "bench-network");
            network.setDaemon(true);
            network.start();
        }
        ProtectionDomain pa = d0.allocPd();
        ProtectionDomain pb = d1.allocPd();
        cqA = d0.createCq(4096, 0, null, null);
        cqB = d1.createCq(4096, 0, null, null);
        pair = new CmPair(d0, qpOptions(pa, cqA), d1, qpOptions(pb, cqB), this::idle);
        a = pair.first();
        b = pair.second();
        int acc = AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE);
        MemoryRegion ma = pa.regMr(ByteBuffer.allocateDirect(size), acc);
        MemoryRegion mb = pb.regMr(ByteBuffer.allocateDirect(size), acc);
        send64 = new SendWorkRequest(1).opcode(WrOpcode.SEND).sge(ma, 0, 64);
        for (int i = 0; i < WINDOW; i++) {
            send64List = new SendWorkRequest(100 + i).opcode(WrOpcode.SEND).sge(ma, 0, 64).next(send64List);
        }
        send8a = new SendWorkRequest(2).opcode(WrOpcode.SEND).sge(ma, 0, 8);
        send8b = new SendWorkRequest(3).opcode(WrOpcode.SEND).sge(mb, 0, 8);
        recvA = new RecvWorkRequest(4).sge(ma, 0, 64);
        write = new SendWorkRequest(1).opcode(WrOpcode.RDMA_WRITE).sge(ma, 0, size).remoteAddr(mb.addr())
                .rkey(mb.rkey());
        recvB = new RecvWorkRequest(1).sge(mb, 0, 64);
        if (params.getBenchmark().contains(".sendRate")) {
            for (int i = 0; i < receivesAhead; i++) {
                b.postRecv(recvB);
            }
        }
    }

    private static QpOptions qpOptions(ProtectionDomain pd, CompletionQueue cq) {
        QpOptions o = new QpOptions().pd(pd).cq(cq).minRnrTimer(1).responderResources(4).initiatorDepth(4)
                .accessFlags(AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ));
        o.cap().maxSendWr(1024).maxRecvWr(1024).maxSendSge(1).maxRecvSge(1);
        return o;
    }

    /**
     * Starts an iteration's CPU count.
     *
     * @param it the iteration (only measured ones count)
     */
    @Setup(Level.Iteration)
    public void startIteration(IterationParams it) {
        measuring = it.getType() == IterationType.MEASUREMENT;
        iterationOps0 = ops;
        iterationPackets0 = packets();
        iterationCpu0 = OS.getProcessCpuTime();
    }

    /** @return the datagrams both HCAs have sent (their ports' TX_PACKETS: requests, ACKs, CM MADs) */
    private long packets() {
        return d0.portCounter(1, PortCounter.TX_PACKETS) + d1.portCounter(1, PortCounter.TX_PACKETS);
    }

    /** Adds a measured iteration's process CPU time (every thread: the benchmark's, the drivers', JIT, GC). */
    @TearDown(Level.Iteration)
    public void endIteration() {
        if (measuring) {
            measuredCpuNanos += OS.getProcessCpuTime() - iterationCpu0;
            measuredOps += ops - iterationOps0;
            measuredPackets += packets() - iterationPackets0;
        }
    }

    /**
     * Removes the devices (threads stopped, sockets closed), after printing the process CPU time and the datagrams
     * sent per operation of the measured iterations ({@code cpu_ns_per_op=}, {@code datagrams_per_op=}; a shared
     * machine inflates CPU time far less than the time per operation).
     */
    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        if (measuredOps > 0) {
            System.out.printf("JniBenchmark cpu_ns_per_op=%.0f datagrams_per_op=%.2f ops=%d (process CPU time and datagrams "
                    + "sent / operations, measured iterations)%n", (double) measuredCpuNanos / measuredOps,
                    (double) measuredPackets / measuredOps, measuredOps);
            // the whole trial's system calls (warm-up included), per operation
            long ops = this.ops;
            System.out.printf("JniBenchmark socket calls per op: j0 %s; j1 %s; j0 RC timeouts %d, resends %d, RNR NAKs"
                    + " %d%n", perOp(j0.statistics(1).socketCalls(), ops), perOp(j1.statistics(1).socketCalls(), ops),
                    d0.portCounter(1, PortCounter.RC_TIMEOUTS), d0.portCounter(1, PortCounter.RC_RESENDS),
                    d0.portCounter(1, PortCounter.RNR_NAKS) + d1.portCounter(1, PortCounter.RNR_NAKS));
        }
        if (pair != null) {
            pair.close();
        }
        running = false;
        if (network != null) {
            network.join();
        }
        d0.unregister();
        d1.unregister();
    }

    private static String perOp(io.rvt.driver.jni.SocketCalls c, long ops) {
        return String.format(java.util.Locale.ROOT, "%.3f sendmmsg (%.2f datagrams each), %.3f recvmmsg (%.3f empty),"
                + " %.3f ACKs, %.3f GSO segments, %.3f GRO segments", (double) c.sendCalls() / ops,
                c.datagramsPerSend(), (double) c.receiveCalls() / ops, (double) c.emptyReceives() / ops,
                (double) c.acksSent() / ops, (double) c.gsoSegments() / ops, (double) c.groSegments() / ops);
    }

    /** Both CQs empty: with threading=invoker run both drivers' engines, else spin. */
    private void idle() {
        if (!invoker || j0.doWork() + j1.doWork() == 0) {
            Thread.onSpinWait();
        }
    }

    /**
     * Waits until {@code na} more completions have come on A's CQ and {@code nb} more on B's, polling both all along:
     * an empty poll of each runs its HCA's engine (progress), so one thread keeps both ends moving. A completion that
     * comes before it is awaited (a send's, while the peer's receive is awaited) counts for the next wait.
     */
    private void await(int na, int nb) {
        expectA += na;
        expectB += nb;
        while (seenA < expectA || seenB < expectB) {
            boolean got = false;
            if (cqB.pollCq(wc)) {
                check();
                seenB++;
                got = true;
            }
            if (cqA.pollCq(wc)) {
                check();
                seenA++;
                got = true;
            }
            if (!got) {
                idle();
            }
        }
    }

    private void check() {
        if (wc.status() != WcStatus.SUCCESS) {
            throw new IllegalStateException("completion failed: " + wc);
        }
    }

    /**
     * A window of 64-byte SENDs: time per message (the message rate is its inverse). B's receive queue holds
     * {@link #receivesAhead} more receives than the window's.
     *
     * @return a wr id
     */
    @Benchmark
    @OperationsPerInvocation(WINDOW)
    public long sendRate() {
        for (int i = 0; i < WINDOW; i++) {
            b.postRecv(recvB);
        }
        for (int i = 0; i < WINDOW; i++) {
            a.postSend(send64);
        }
        await(WINDOW, WINDOW);
        ops += WINDOW;
        return wc.wrId();
    }

    /**
     * {@link #sendRate} with the window's SENDs posted as one list (perftest's {@code -l 64}, ibverbs' one doorbell):
     * one drain on the posting thread, so the packets leave in {@code sendmmsg} batches rather than one call each.
     *
     * @return a wr id
     */
    @Benchmark
    @OperationsPerInvocation(WINDOW)
    public long sendRateList() {
        for (int i = 0; i < WINDOW; i++) {
            b.postRecv(recvB);
        }
        a.postSend(send64List);
        await(WINDOW, WINDOW);
        ops += WINDOW;
        return wc.wrId();
    }

    /**
     * One 8-byte SEND there and one back: the round-trip time (half of it is the one-way latency).
     *
     * @return a wr id
     */
    @Benchmark
    public long pingPong8() {
        b.postRecv(recvB);
        a.postRecv(recvA);
        a.postSend(send8a);
        await(0, 1); // b's receive (a's send completion may come before or after)
        b.postSend(send8b);
        await(2, 1); // a's send completion and receive, b's send completion
        ops++;
        return wc.wrId();
    }

    /**
     * One RDMA WRITE of {@code size} bytes (16 packets of 4 KiB).
     *
     * @return a wr id
     */
    @Benchmark
    public long rdmaWrite() {
        a.postSend(write);
        await(1, 0);
        ops++;
        return wc.wrId();
    }
}
