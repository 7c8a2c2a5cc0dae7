package io.rvt.driver.sim;

import io.rvt.testkit.ChannelConformanceTest;
import io.rvt.testkit.DriverFixture;

/** The completion channel suite on deterministic driver-sim: only the test's thread runs the fabric. */
class SimChannelConformanceTest extends ChannelConformanceTest {
    @Override
    protected DriverFixture createFixture(long seed) {
        return new SimFixture(seed, true);
    }
}
