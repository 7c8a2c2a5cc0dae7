package io.rvt.driver.sim;

import io.rvt.testkit.UdConformanceTest;
import io.rvt.testkit.DriverFixture;

/** The Ud conformance suite on deterministic driver-sim. */
class SimUdConformanceTest extends UdConformanceTest {
    @Override
    protected DriverFixture createFixture(long seed) {
        return new SimFixture(seed, true);
    }
}
