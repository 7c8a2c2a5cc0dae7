package io.rvt.driver.sim;

import io.rvt.testkit.ChannelConformanceTest;
import io.rvt.testkit.DriverFixture;

/**
 * The completion channel suite on driver-sim in real-time mode: the waiter in getCqEvent and the fabric's backstop
 * share the engines (ThreadingMode.PROGRESS).
 */
class SimRealTimeChannelConformanceTest extends ChannelConformanceTest {
    @Override
    protected DriverFixture createFixture(long seed) {
        return new SimFixture(seed, false);
    }
}
