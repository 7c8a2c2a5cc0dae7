package io.rvt.driver.sim;

import io.rvt.testkit.DriverFixture;
import io.rvt.testkit.ErrorConformanceTest;

/** The Error conformance suite on driver-sim in real-time mode (fabric and send engines on their own threads). */
class SimRealTimeErrorConformanceTest extends ErrorConformanceTest {
    @Override
    protected DriverFixture createFixture(long seed) {
        return new SimFixture(seed, false);
    }
}
