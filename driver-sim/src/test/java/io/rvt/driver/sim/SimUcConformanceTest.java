package io.rvt.driver.sim;

import io.rvt.testkit.UcConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/** The UC conformance suite on deterministic driver-sim. */
class SimUcConformanceTest extends UcConformanceTest {
    static List<Variant> variants() {
        return List.of(SimFixture.DETERMINISTIC);
    }
}
