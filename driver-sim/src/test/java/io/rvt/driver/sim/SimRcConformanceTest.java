package io.rvt.driver.sim;

import io.rvt.testkit.RcConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/** The RC conformance suite on driver-sim, deterministic and in real time (fabric and send engines on their own threads). */
class SimRcConformanceTest extends RcConformanceTest {
    static List<Variant> variants() {
        return List.of(SimFixture.DETERMINISTIC, SimFixture.REAL_TIME);
    }
}
