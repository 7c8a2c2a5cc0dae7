package io.rvt.driver.sim;

import io.rvt.testkit.RcConformanceTest;
import io.rvt.testkit.DriverFixture;

/** The Rc conformance suite on deterministic driver-sim. */
class SimRcConformanceTest extends RcConformanceTest {
    @Override
    protected DriverFixture createFixture(long seed) {
        return new SimFixture(seed, true);
    }
}
