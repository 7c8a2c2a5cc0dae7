package io.rvt.driver.sim;

import io.rvt.testkit.UcConformanceTest;
import io.rvt.testkit.DriverFixture;

/** The Uc conformance suite on deterministic driver-sim. */
class SimUcConformanceTest extends UcConformanceTest {
    @Override
    protected DriverFixture createFixture(long seed) {
        return new SimFixture(seed, true);
    }
}
