package io.rvt.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.QpAttr;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RC over a faulty network: every message delivered exactly once, in order, byte-exact, with completions in order,
 * under loss, duplication, reordering and corruption.
 */
@Tag("FAULT_INJECTION")
public abstract class FaultConformanceTest extends ConformanceTest {
    private static final int MESSAGES = 120;
    private static final int SLOT = 8192;

    private void exchange(Faults faults) {
        require(Feature.FAULT_INJECTION);
        Endpoint[] p = verbs.connected(dev[0], dev[1], QpType.RC, MESSAGES * SLOT, 7, 1);
        fixture.faults(faults);
        int posted = 0;
        int completed = 0;
        int received = 0;
        long lastCompletion = System.nanoTime();
        String injectedBefore = fixture.faultsInjected();
        while (completed < MESSAGES) {
            while (posted < MESSAGES && posted - completed < 16) {
                int len = 1 + (int) Math.floorMod(seed * 31 + posted * 977L, (long) SLOT - 1);
                Verbs.fill(p[0].buffer, posted * SLOT, len, seed + posted);
                p[1].qp.postRecv(new RecvWorkRequest(1).wrId(posted).sge(p[1].mr, posted * SLOT, SLOT));
                p[0].qp.postSend(new SendWorkRequest(1).wrId(posted).opcode(WrOpcode.SEND)
                        .sge(p[0].mr, posted * SLOT, len));
                posted++;
            }
            List<WorkCompletion> s = verbs.await(p[0].sendCq, 1);
            if (s.get(0).status() != WcStatus.SUCCESS) {
                // why the RC retries ran out: how long the QP went without a completion, what both ports saw, where
                // the requester and the responder stood, and the faults injected before and since that completion
                throw new AssertionError("send " + completed + " of " + MESSAGES + ": " + s.get(0) + ", "
                        + (System.nanoTime() - lastCompletion) / 1_000_000 + " ms after the previous completion; "
                        + Verbs.nonZeroCounters(dev[0]) + "; " + Verbs.nonZeroCounters(dev[1]) + "; requester sq_psn "
                        + p[0].qp.queryQp(new QpAttr()).sqPsn() + ", responder rq_psn "
                        + p[1].qp.queryQp(new QpAttr()).rqPsn() + faults("at the previous completion", injectedBefore)
                        + faults("now", fixture.faultsInjected()) + " (seed " + seed + ")");
            }
            Verbs.assertSuccess(s.get(0), completed);
            lastCompletion = System.nanoTime();
            injectedBefore = fixture.faultsInjected();
            completed++;
        }
        List<WorkCompletion> r = verbs.await(p[1].recvCq, MESSAGES);
        for (WorkCompletion wc : r) {
            int i = (int) wc.wrId();
            Verbs.assertSuccess(wc, received);
            int len = 1 + (int) Math.floorMod(seed * 31 + i * 977L, (long) SLOT - 1);
            assertThat(wc.byteLen()).isEqualTo(len);
            Verbs.assertPattern(p[1].buffer, i * SLOT, len, seed + i);
            received++;
        }
        verbs.assertQuiet(p[1].recvCq, 20);
        fixture.faults(Faults.NONE);
    }

    private static String faults(String when, String injected) {
        return injected.isEmpty() ? "" : "; faults injected " + when + ": " + injected;
    }

    /**
     * @param percent loss probability in percent
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 10})
    void shouldDeliverExactlyOnceInOrderWhenPacketsAreLost(int percent) {
        exchange(new Faults(percent / 100.0, 0, 0, 0));
    }

    /**
     * @param percent duplication probability in percent
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 10})
    void shouldDeliverExactlyOnceInOrderWhenPacketsAreDuplicated(int percent) {
        exchange(new Faults(0, percent / 100.0, 0, 0));
    }

    /**
     * @param percent reordering probability in percent
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 10})
    void shouldDeliverExactlyOnceInOrderWhenPacketsAreReordered(int percent) {
        exchange(new Faults(0, 0, percent / 100.0, 0));
    }

    /**
     * @param percent corruption probability in percent
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 10})
    void shouldDeliverExactlyOnceInOrderWhenPacketsAreCorrupted(int percent) {
        exchange(new Faults(0, 0, 0, percent / 100.0));
    }

    /**
     * All four kinds at once, each at half the rate: 10 % of each together loses about a third of the packets, which
     * can legitimately exhaust an RC QP's seven retries.
     *
     * @param percent the rate in percent; each kind gets half of it
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 10})
    void shouldDeliverExactlyOnceInOrderWhenAllFaultsMix(int percent) {
        exchange(Faults.all(percent / 200.0));
    }
}
