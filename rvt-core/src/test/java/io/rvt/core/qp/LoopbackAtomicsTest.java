package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.QpType;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.SigType;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.core.LoopbackTestDriver;
import io.rvt.core.mr.RvtMr;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Loopback atomics from two QPs in two threads on one 8-byte target (semantics §11.7 item 68): every FETCH_AND_ADD
 * returns a distinct prior value and the target sums exactly; compare-and-swap increments lose nothing.
 */
class LoopbackAtomicsTest {
    private static final int PER_THREAD = 500;
    private static final int CAS_PER_THREAD = 200;

    @ParameterizedTest(name = "direct buffer: {0}")
    @ValueSource(booleans = {true, false})
    @Timeout(30)
    void shouldSumExactlyWhenTwoQpsFetchAndAddConcurrently(boolean direct) throws Exception {
        LoopbackTestDriver driver = new LoopbackTestDriver();
        QpEnv env = new QpEnv(driver);
        RvtQp[] senders = new RvtQp[2];
        for (int i = 0; i < 2; i++) {
            senders[i] = env.createOwnCqs(QpType.RC, 4, 4, 1, SigType.SIGNAL_ALL_WR);
            RvtQp responder = env.createOwnCqs(QpType.RC, 4, 4, 1, SigType.SIGNAL_ALL_WR);
            env.connect(senders[i], responder);
        }
        ByteBuffer mem = direct ? ByteBuffer.allocateDirect(64) : ByteBuffer.allocate(64);
        RvtMr target = (RvtMr) env.pd.regMr(mem, QpEnv.ALL_ACCESS);
        long addr = target.addr() + 16;
        CyclicBarrier start = new CyclicBarrier(2);
        CyclicBarrier faddsDone = new CyclicBarrier(2);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long[][] olds = new long[2][PER_THREAD];
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            int id = t;
            Thread th = new Thread(() -> {
                try {
                    RvtQp qp = senders[id];
                    RvtMr res = env.reg(8 * PER_THREAD);
                    SendWorkRequest wr = new SendWorkRequest(1).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                            .rkey(target.rkey()).remoteAddr(addr).compareAdd(1);
                    WorkCompletion wc = new WorkCompletion();
                    start.await(10, TimeUnit.SECONDS);
                    for (int i = 0; i < PER_THREAD; i++) {
                        qp.postSend(wr.wrId(i).sge(res, 8 * i, 8));
                        driver.drain();
                        if (!qp.sendCompletionQueue().pollCq(wc) || wc.status() != WcStatus.SUCCESS
                                || wc.wrId() != i || wc.opcode() != WcOpcode.FETCH_ADD || wc.byteLen() != 8) {
                            throw new AssertionError("thread " + id + " FADD " + i + ": " + wc);
                        }
                        olds[id][i] = res.buffer().getLong(8 * i);
                    }
                    faddsDone.await(10, TimeUnit.SECONDS);
                    // compare-and-swap increments: read, try old -> old + 1 until it takes.
                    SendWorkRequest cas = new SendWorkRequest(1).opcode(WrOpcode.ATOMIC_CMP_AND_SWP)
                            .rkey(target.rkey()).remoteAddr(addr).sge(res, 0, 8);
                    long guess = 0;
                    for (int i = 0; i < CAS_PER_THREAD; i++) {
                        while (true) {
                            qp.postSend(cas.wrId(10_000 + i).compareAdd(guess).swap(guess + 1));
                            driver.drain();
                            if (!qp.sendCompletionQueue().pollCq(wc) || wc.status() != WcStatus.SUCCESS
                                    || wc.opcode() != WcOpcode.COMP_SWAP) {
                                throw new AssertionError("thread " + id + " CAS " + i + ": " + wc);
                            }
                            long old = res.buffer().getLong(0);
                            if (old == guess) {
                                guess = old + 1;
                                break;
                            }
                            guess = old;
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "fadd-" + t);
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) {
            th.join(TimeUnit.SECONDS.toMillis(25));
            assertThat(th.isAlive()).as(th.getName() + " finished").isFalse();
        }
        assertThat(failure.get()).isNull();

        assertThat(target.buffer().getLong(16)).isEqualTo(2L * PER_THREAD + 2L * CAS_PER_THREAD);
        BitSet seen = new BitSet();
        for (long[] perThread : olds) {
            long prev = -1;
            for (long v : perThread) {
                assertThat(v).as("one thread's FADDs see increasing values").isGreaterThan(prev);
                assertThat(seen.get((int) v)).as("prior value %d returned twice", v).isFalse();
                seen.set((int) v);
                prev = v;
            }
        }
        assertThat(seen.cardinality()).isEqualTo(2 * PER_THREAD);
        assertThat(seen.nextClearBit(0)).as("prior values are exactly 0..999").isEqualTo(2 * PER_THREAD);
        assertThat(target.buffer().getLong(8)).as("neighbour untouched").isZero();
        assertThat(target.buffer().getLong(24)).as("neighbour untouched").isZero();
    }
}
