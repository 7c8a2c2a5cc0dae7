package io.rvt.driver.sim;

import io.rvt.testkit.DeterminismConformanceTest;
import io.rvt.testkit.DriverFixture;

/** The Determinism conformance suite on deterministic driver-sim. */
class SimDeterminismConformanceTest extends DeterminismConformanceTest {
    @Override
    protected DriverFixture createFixture(long seed) {
        return new SimFixture(seed, true);
    }
}
