package io.rvt.driver.sim;

import io.rvt.testkit.DriverFixture;
import io.rvt.testkit.MwConformanceTest;

/** The memory-window conformance suite on deterministic driver-sim. */
class SimMwConformanceTest extends MwConformanceTest {
    @Override
    protected DriverFixture createFixture(long seed) {
        return new SimFixture(seed, true);
    }
}
