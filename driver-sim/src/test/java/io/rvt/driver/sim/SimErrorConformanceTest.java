package io.rvt.driver.sim;

import io.rvt.testkit.ErrorConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/** The error conformance suite on driver-sim, deterministic and in real time. */
class SimErrorConformanceTest extends ErrorConformanceTest {
    static List<Variant> variants() {
        return List.of(SimFixture.DETERMINISTIC, SimFixture.REAL_TIME);
    }
}
