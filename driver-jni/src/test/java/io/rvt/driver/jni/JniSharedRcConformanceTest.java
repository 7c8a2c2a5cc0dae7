package io.rvt.driver.jni;

import io.rvt.testkit.DriverFixture;
import io.rvt.testkit.RcConformanceTest;

/** The Rc conformance suite on driver-jni over 127.0.0.1 with one shared engine thread ({@code doWork}). */
class JniSharedRcConformanceTest extends RcConformanceTest {
    @Override
    protected DriverFixture createFixture(long seed) {
        return new JniFixture(seed, "127.0.0.1", true, Wire.NATIVE);
    }
}
