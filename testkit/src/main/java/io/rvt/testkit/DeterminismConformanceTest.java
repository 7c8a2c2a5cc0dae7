package io.rvt.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Device;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WrOpcode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A seeded run is a function of its seed: same seed, same packet trace; another seed, another trace. */
@Tag("DETERMINISTIC")
@Tag("FAULT_INJECTION")
public abstract class DeterminismConformanceTest extends ConformanceTest {
    private long run(long runSeed) {
        try (DriverFixture f = createFixture(runSeed)) {
            Verbs v = new Verbs(f);
            Device[] d = f.open(2);
            Endpoint[] p = v.connected(d[0], d[1], QpType.RC, 1 << 16, 7, 1);
            f.faults(Faults.all(0.05));
            for (int i = 0; i < 40; i++) {
                p[1].qp.postRecv(new RecvWorkRequest(1).wrId(i).sge(p[1].mr, 0, 1 << 15));
                p[0].qp.postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.SEND).sge(p[0].mr, 0, 100 + 50 * i));
            }
            v.await(p[0].sendCq, 40);
            v.await(p[1].recvCq, 40);
            return f.traceHash();
        }
    }

    /** Two runs with one seed give one trace; a different seed gives another. */
    @Test
    void shouldReproduceTraceWhenSeedIsTheSame() {
        require(Feature.DETERMINISTIC);
        require(Feature.FAULT_INJECTION);
        long first = run(seed);
        long second = run(seed);
        long other = run(seed + 1);
        assertThat(second).as("trace hash of a second run with seed %d", seed).isEqualTo(first);
        assertThat(other).as("trace hash with seed %d vs %d", seed + 1, seed).isNotEqualTo(first);
    }
}
