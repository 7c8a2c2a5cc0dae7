package io.rvt.driver.sim;

import io.rvt.testkit.DriverFixture;
import io.rvt.testkit.FaultConformanceTest;

/** The Fault conformance suite on driver-sim in real-time mode (fabric and send engines on their own threads). */
class SimRealTimeFaultConformanceTest extends FaultConformanceTest {
    @Override
    protected DriverFixture createFixture(long seed) {
        return new SimFixture(seed, false);
    }
}
