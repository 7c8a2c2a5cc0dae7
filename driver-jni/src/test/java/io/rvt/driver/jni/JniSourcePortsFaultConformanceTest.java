package io.rvt.driver.jni;

import io.rvt.testkit.DriverFixture;
import io.rvt.testkit.FaultConformanceTest;

/** The Fault conformance suite on driver-jni over ::1 with flows spread over three UDP source ports per HCA. */
class JniSourcePortsFaultConformanceTest extends FaultConformanceTest {
    @Override
    protected DriverFixture createFixture(long seed) {
        return new JniFixture(seed, "::1").sourcePorts(3);
    }
}
