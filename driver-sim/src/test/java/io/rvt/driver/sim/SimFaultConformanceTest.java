package io.rvt.driver.sim;

import io.rvt.testkit.FaultConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/** The fault conformance suite on driver-sim, deterministic and in real time. */
class SimFaultConformanceTest extends FaultConformanceTest {
    static List<Variant> variants() {
        return List.of(SimFixture.DETERMINISTIC, SimFixture.REAL_TIME);
    }
}
