package io.rvt.bench;

import io.rvt.api.AccessFlag;
import io.rvt.api.MemoryRegion;
import io.rvt.api.QueuePair;
import io.rvt.api.SendWorkRequest;
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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * rvt-core's own cost per operation: post one 64-byte SEND, let a driver whose {@code do_send} completes at once
 * retire it, poll the completion. Target: at most 100 ns/op single-threaded and 0 B/op ({@code -prof gc}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PostPollBenchmark {
    private Fixture fx;
    private CmPair pair;
    private QueuePair qp;
    private SendWorkRequest wr;
    private final WorkCompletion wc = new WorkCompletion();

    /** Builds a device, an RTS QP (connected through rvt-cm) and one reusable 64-byte SEND. */
    @Setup(Level.Trial)
    public void setUp() {
        fx = new Fixture(BenchDriver.Mode.IMMEDIATE);
        pair = fx.connectedPair(); // the peer never sees a packet: the driver completes every send at once
        qp = pair.first();
        MemoryRegion mr = fx.pd.regMr(ByteBuffer.allocateDirect(4096), AccessFlag.LOCAL_WRITE.bit());
        wr = new SendWorkRequest(1).opcode(WrOpcode.SEND).sge(mr, 0, 64);
    }

    /** Disconnects the QPs and removes the device. */
    @TearDown(Level.Trial)
    public void tearDown() {
        pair.close();
        fx.close();
    }

    /**
     * @return the completion's wr id, so the work is not eliminated
     */
    @Benchmark
    public long postCompletePoll() {
        wr.wrId(wr.wrId() + 1);
        qp.postSend(wr);
        if (!fx.cq.pollCq(wc)) {
            throw new IllegalStateException("no completion");
        }
        return wc.wrId();
    }
}
