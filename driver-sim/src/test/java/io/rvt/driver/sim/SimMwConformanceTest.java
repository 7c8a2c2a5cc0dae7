package io.rvt.driver.sim;

import io.rvt.testkit.MwConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/** The memory-window conformance suite on deterministic driver-sim. */
class SimMwConformanceTest extends MwConformanceTest {
    static List<Variant> variants() {
        return List.of(SimFixture.DETERMINISTIC);
    }
}
