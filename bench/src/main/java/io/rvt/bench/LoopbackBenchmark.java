package io.rvt.bench;

import io.rvt.api.AccessFlag;
import io.rvt.api.MemoryRegion;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
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
 * rdmavt's software loopback between two RC QPs of one device: a 64-byte SEND (post receive, post send, poll both
 * completions), and an RDMA WRITE of {@code size} bytes beside a plain {@link ByteBuffer} copy of the same size
 * (target: the write at 70% or more of the copy's bandwidth).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LoopbackBenchmark {
    /** Bytes per RDMA WRITE and per plain copy. */
    @Param({"65536"})
    public int size;

    private Fixture fx;
    private CmPair pair;
    private QueuePair a;
    private QueuePair b;
    private SendWorkRequest send;
    private SendWorkRequest write;
    private RecvWorkRequest recv;
    private final WorkCompletion wc = new WorkCompletion();
    private ByteBuffer copySrc;
    private ByteBuffer copyDst;

    /** Two connected RC QPs, regions on both sides and reusable work requests. */
    @Setup(Level.Trial)
    public void setUp() {
        fx = new Fixture(BenchDriver.Mode.LOOPBACK);
        pair = fx.connectedPair();
        a = pair.first();
        b = pair.second();
        int acc = AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE);
        MemoryRegion src = fx.pd.regMr(ByteBuffer.allocateDirect(size), acc);
        MemoryRegion dst = fx.pd.regMr(ByteBuffer.allocateDirect(size), acc);
        send = new SendWorkRequest(1).opcode(WrOpcode.SEND).sge(src, 0, 64);
        recv = new RecvWorkRequest(1).sge(dst, 0, 64);
        write = new SendWorkRequest(1).opcode(WrOpcode.RDMA_WRITE).sge(src, 0, size).remoteAddr(dst.addr())
                .rkey(dst.rkey());
        copySrc = ByteBuffer.allocateDirect(size);
        copyDst = ByteBuffer.allocateDirect(size);
    }

    /** Disconnects the QPs and removes the device. */
    @TearDown(Level.Trial)
    public void tearDown() {
        pair.close();
        fx.close();
    }

    private void expect(int n) {
        for (int i = 0; i < n; i++) {
            if (!fx.cq.pollCq(wc) || wc.status() != WcStatus.SUCCESS) {
                throw new IllegalStateException("expected a successful completion, got " + wc);
            }
        }
    }

    /**
     * @return a completion's wr id
     */
    @Benchmark
    public long send64() {
        b.postRecv(recv);
        a.postSend(send);
        expect(2);
        return wc.wrId();
    }

    /**
     * @return a completion's wr id
     */
    @Benchmark
    public long rdmaWrite() {
        a.postSend(write);
        expect(1);
        return wc.wrId();
    }

    /**
     * @return a byte of the destination
     */
    @Benchmark
    public byte byteBufferCopy() {
        copyDst.put(0, copySrc, 0, size);
        return copyDst.get(size - 1);
    }
}
