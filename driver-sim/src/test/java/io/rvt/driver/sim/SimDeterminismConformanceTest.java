package io.rvt.driver.sim;

import io.rvt.testkit.DeterminismConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/** The determinism conformance suite on deterministic driver-sim. */
class SimDeterminismConformanceTest extends DeterminismConformanceTest {
    static List<Variant> variants() {
        return List.of(SimFixture.DETERMINISTIC);
    }
}
