package io.rvt.bench;

import io.rvt.api.AccessFlag;
import io.rvt.api.CompletionQueue;
import io.rvt.api.MemoryRegion;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.SigType;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.agent.Agent;
import io.rvt.api.spi.agent.AgentInvoker;
import io.rvt.api.spi.agent.AgentRunner;
import io.rvt.api.spi.agent.BackoffIdleStrategy;
import io.rvt.api.spi.agent.BusySpinIdleStrategy;
import io.rvt.api.spi.agent.CompositeAgent;
import io.rvt.api.spi.agent.IdleStrategy;
import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.cm.QpOptions;
import io.rvt.core.RvtDevice;
import io.rvt.driver.sim.SimDriver;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.driver.sim.fabric.LinkModel;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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

/**
 * Two simulated HCAs on a real-time fabric (delivery and send agents with the {@code idle} strategy; ideal links),
 * one RC QP pair: SEND 64 B message rate, RDMA WRITE 64 KiB bandwidth beside a plain 64 KiB copy, and SEND
 * 8 B ping-pong (half of it is the one-way latency). The benchmark thread posts and polls; the fabric's and the
 * HCAs' agents take the machine's other cores (on 2 cores they compete, which the figures include).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SimBenchmark {
    private static final AtomicInteger FABRICS = new AtomicInteger();
    /** Messages per window of {@link #sendRate}. */
    static final int WINDOW = 64;
    /** SENDs in flight in {@link #sendStream}. */
    static final int STREAM_DEPTH = 64;
    /** {@link #sendStream} flags every this many SENDs SIGNALED (perftest's CQ moderation, below its tx depth). */
    static final int STREAM_SIGNAL_EVERY = 16;
    /** Messages per invocation of {@link #sendStream}. */
    static final int STREAM_BATCH = 256;
    /** SENDs posted and completed by {@link #sendStream} so far (it keeps its window across invocations). */
    private long streamPosted;
    private long streamCompleted;
    /** WRITEs in flight in {@link #rdmaWriteBw}. */
    static final int WRITE_WINDOW = 16;

    /** What the fabric's and HCAs' agent threads do when idle: "spin" (busy) or "backoff" (spin, yield, park). */
    @Param({"backoff"})
    public String idle;

    /**
     * "dedicated": the fabric and each HCA's send engine have their own thread; "shared": one thread runs them all
     * (with the {@code idle} strategy), leaving the other core to the benchmark thread; "invoker": the benchmark thread
     * runs them itself whenever it finds its CQ empty (Aeron's INVOKER mode: one thread, no hand-off between cores);
     * "progress" (rvt's default): the same through rvt-core's progress hook, an empty {@code pollCq} runs them, with
     * the fabric's backstop thread for when it does not.
     */
    @Param({"progress", "dedicated", "shared", "invoker"})
    public String threading;

    /** Bytes of the RDMA WRITE and of the plain copy. */
    @Param({"65536"})
    public int size;

    private Fabric fabric;
    private AgentRunner runner;
    /** threading=invoker: the fabric's and HCAs' agents, run by the benchmark thread. */
    private AgentInvoker invoker;
    private RvtDevice d0;
    private RvtDevice d1;
    private CmPair pair;
    private QueuePair a;
    private QueuePair b;
    private CompletionQueue cqA;
    private CompletionQueue cqB;
    private SendWorkRequest send64;
    private SendWorkRequest send64Signaled;
    private SendWorkRequest writeSignaled;
    private SendWorkRequest send8a;
    private SendWorkRequest send8b;
    private SendWorkRequest write;
    private RecvWorkRequest recvB;
    private RecvWorkRequest recvA;
    private final WorkCompletion wc = new WorkCompletion();
    /** Completions polled at once, as perftest polls ({@code CTX_POLL_BATCH}). */
    static final int POLL_BATCH = 16;
    private final WorkCompletion[] wcs = newCompletions(POLL_BATCH);
    private ByteBuffer copySrc;
    private ByteBuffer copyDst;

    /** Two HCAs, a connected RC pair, regions and reusable work requests. */
    @Setup(Level.Trial)
    public void setUp() {
        boolean shared = "shared".equals(threading);
        boolean invoked = "invoker".equals(threading);
        ThreadingMode mode = "progress".equals(threading) ? ThreadingMode.PROGRESS
                : shared || invoked ? ThreadingMode.INVOKER : ThreadingMode.DEDICATED;
        fabric = Fabric.builder("bench-" + FABRICS.incrementAndGet()).realTime().threading(mode)
                .idleStrategy(idleStrategy()).defaultLink(LinkModel.IDEAL).build();
        SimDriver s0 = SimDriver.builder(fabric).name("b0").threading(mode).idleStrategy(idleStrategy()).build();
        SimDriver s1 = SimDriver.builder(fabric).name("b1").threading(mode).idleStrategy(idleStrategy()).build();
        d0 = RvtDevice.register(s0);
        d1 = RvtDevice.register(s1);
        if (shared || invoked) {
            Agent network = new CompositeAgent("bench-network",
                    List.of(fabric.agent(), s0.sendAgent(), s1.sendAgent()));
            if (shared) {
                runner = AgentRunner.start(network, idleStrategy(), Throwable::printStackTrace);
            } else {
                invoker = new AgentInvoker(network);
                invoker.start();
            }
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
        int signaled = SendFlag.mask(SendFlag.SIGNALED);
        send64 = new SendWorkRequest(1).opcode(WrOpcode.SEND).sge(ma, 0, 64);
        send64Signaled = new SendWorkRequest(1).opcode(WrOpcode.SEND).sge(ma, 0, 64).sendFlags(signaled);
        send8a = new SendWorkRequest(1).opcode(WrOpcode.SEND).sge(ma, 0, 8).sendFlags(signaled);
        send8b = new SendWorkRequest(1).opcode(WrOpcode.SEND).sge(mb, 0, 8).sendFlags(signaled);
        write = new SendWorkRequest(1).opcode(WrOpcode.RDMA_WRITE).sge(ma, 0, size).remoteAddr(mb.addr())
                .rkey(mb.rkey());
        writeSignaled = new SendWorkRequest(1).opcode(WrOpcode.RDMA_WRITE).sge(ma, 0, size).remoteAddr(mb.addr())
                .rkey(mb.rkey()).sendFlags(signaled);
        recvB = new RecvWorkRequest(1).sge(mb, 0, 64);
        recvA = new RecvWorkRequest(1).sge(ma, 0, 64);
        copySrc = ByteBuffer.allocateDirect(size);
        copyDst = ByteBuffer.allocateDirect(size);
    }

    private static WorkCompletion[] newCompletions(int n) {
        WorkCompletion[] a = new WorkCompletion[n];
        for (int i = 0; i < n; i++) {
            a[i] = new WorkCompletion();
        }
        return a;
    }

    private IdleStrategy idleStrategy() {
        return "spin".equals(idle) ? new BusySpinIdleStrategy() : new BackoffIdleStrategy();
    }

    private static QpOptions qpOptions(ProtectionDomain pd, CompletionQueue cq) {
        // perftest's way: only the WRs flagged SIGNALED complete on the CQ (its --cq-mod moderation)
        QpOptions o = new QpOptions().pd(pd).cq(cq).sigType(SigType.SIGNAL_REQ_WR).minRnrTimer(1)
                .accessFlags(AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ))
                .responderResources(4).initiatorDepth(4);
        o.cap().maxSendWr(1024).maxRecvWr(1024).maxSendSge(1).maxRecvSge(1);
        return o;
    }

    /** Removes the devices and the fabric. */
    @TearDown(Level.Trial)
    public void tearDown() {
        if (pair != null) {
            pair.close();
        }
        if (runner != null) {
            runner.close();
        }
        if (invoker != null) {
            invoker.close();
        }
        d0.unregister();
        d1.unregister();
        fabric.close();
    }

    private void await(CompletionQueue cq, int n) {
        for (int i = 0; i < n;) {
            int got = cq.pollCq(wcs, Math.min(POLL_BATCH, n - i));
            for (int k = 0; k < got; k++) {
                if (wcs[k].status() != WcStatus.SUCCESS) {
                    throw new IllegalStateException("completion failed: " + wcs[k]);
                }
            }
            if (got == 0) {
                idle();
            }
            i += got;
        }
    }

    /** Nothing to poll: run the network's duty cycle (threading=invoker) or spin. */
    private void idle() {
        if (invoker == null) {
            Thread.onSpinWait();
        } else {
            invoker.invoke();
        }
    }

    /**
     * A window of 64-byte SENDs: time per message (the message rate is its inverse). As perftest moderates the send
     * CQ, only the window's last SEND is signaled; every receive completes.
     *
     * @return a wr id
     */
    @Benchmark
    @OperationsPerInvocation(WINDOW)
    public long sendRate() {
        for (int i = 0; i < WINDOW; i++) {
            b.postRecv(recvB);
        }
        for (int i = 1; i < WINDOW; i++) {
            a.postSend(send64);
        }
        a.postSend(send64Signaled); // completes the whole window (RC completes in order)
        await(cqA, 1);
        await(cqB, WINDOW);
        return wcs[0].wrId() + wc.wrId();
    }

    /**
     * 64-byte SENDs the way perftest's {@code ib_send_bw} (and {@code rvt perf}) streams them: up to
     * {@value #STREAM_DEPTH} in flight, every {@value #STREAM_SIGNAL_EVERY}th signaled and its completion letting that
     * many more go; the receiver polls its completions {@value #POLL_BATCH} at a time ({@code CTX_POLL_BATCH}) until
     * its CQ is empty and posts each receive again, as perftest's server does in a process of its own. Time per
     * message.
     *
     * <p>Draining matters with the progress hook: one empty poll of the send CQ runs the network for up to
     * {@code RvtDriver.POLL_BUDGET} units and may land the whole window at the receiver; reposting one receive per
     * loop (as this benchmark did) let the receive queue run dry, and every RNR NAK cost a 10 us RNR wait and a
     * go-back-N resend of the window.
     *
     * @return a wr id
     */
    @Benchmark
    @OperationsPerInvocation(STREAM_BATCH)
    public long sendStream() {
        if (streamPosted == 0) {
            for (int i = 0; i < 512; i++) {
                b.postRecv(recvB); // the receiver's queue, kept full from here on
            }
        }
        for (int done = 0; done < STREAM_BATCH;) {
            while (streamPosted - streamCompleted < STREAM_DEPTH) {
                streamPosted++;
                a.postSend(streamPosted % STREAM_SIGNAL_EVERY == 0 ? send64Signaled : send64);
            }
            int sent = cqA.pollCq(wcs, POLL_BATCH);
            for (int k = 0; k < sent; k++) {
                check(wcs[k]);
            }
            // one signaled completion retires the WRs before it
            streamCompleted += (long) sent * STREAM_SIGNAL_EVERY;
            done += sent * STREAM_SIGNAL_EVERY;
            int received = 0;
            int got;
            do {
                got = cqB.pollCq(wcs, POLL_BATCH);
                for (int k = 0; k < got; k++) {
                    check(wcs[k]);
                    b.postRecv(recvB);
                }
                received += got;
            } while (got == POLL_BATCH);
            if (sent == 0 && received == 0) {
                idle();
            }
        }
        return wcs[0].wrId() + wc.wrId();
    }

    private static void check(WorkCompletion c) {
        if (c.status() != WcStatus.SUCCESS) {
            throw new IllegalStateException("completion failed: " + c);
        }
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
        await(cqB, 1); // b's receive (a's send completion may come before or after)
        b.postSend(send8b);
        await(cqA, 2); // a's send completion and a's receive
        await(cqB, 1); // b's send completion
        return wcs[0].wrId() + wc.wrId();
    }

    /**
     * One RDMA WRITE of {@code size} bytes.
     *
     * @return a wr id
     */
    @Benchmark
    public long rdmaWrite() {
        a.postSend(writeSignaled);
        await(cqA, 1);
        return wcs[0].wrId() + wc.wrId();
    }

    /**
     * RDMA WRITE bandwidth, as perftest's {@code ib_write_bw} measures it: a window of {@value #WRITE_WINDOW} WRITEs of
     * {@code size} bytes in flight, the last one signaled, time per WRITE (bytes / time is the bandwidth).
     *
     * @return a wr id
     */
    @Benchmark
    @OperationsPerInvocation(WRITE_WINDOW)
    public long rdmaWriteBw() {
        for (int i = 1; i < WRITE_WINDOW; i++) {
            a.postSend(write);
        }
        a.postSend(writeSignaled);
        await(cqA, 1);
        return wcs[0].wrId() + wc.wrId();
    }

    /**
     * A plain copy of {@code size} bytes between direct buffers, for comparison.
     *
     * @return a byte of the destination
     */
    @Benchmark
    public byte byteBufferCopy() {
        copyDst.put(0, copySrc, 0, size);
        return copyDst.get(size - 1);
    }
}
