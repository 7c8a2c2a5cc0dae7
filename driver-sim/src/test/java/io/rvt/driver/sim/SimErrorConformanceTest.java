package io.rvt.driver.sim;

import io.rvt.testkit.ErrorConformanceTest;
import io.rvt.testkit.DriverFixture;

/** The Error conformance suite on deterministic driver-sim. */
class SimErrorConformanceTest extends ErrorConformanceTest {
    @Override
    protected DriverFixture createFixture(long seed) {
        return new SimFixture(seed, true);
    }
}
