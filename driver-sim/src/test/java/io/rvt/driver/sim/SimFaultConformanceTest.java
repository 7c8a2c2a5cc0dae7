package io.rvt.driver.sim;

import io.rvt.testkit.FaultConformanceTest;
import io.rvt.testkit.DriverFixture;

/** The Fault conformance suite on deterministic driver-sim. */
class SimFaultConformanceTest extends FaultConformanceTest {
    @Override
    protected DriverFixture createFixture(long seed) {
        return new SimFixture(seed, true);
    }
}
