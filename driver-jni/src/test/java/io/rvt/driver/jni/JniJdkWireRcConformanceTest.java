package io.rvt.driver.jni;

import io.rvt.testkit.DriverFixture;
import io.rvt.testkit.RcConformanceTest;

/** The RC conformance suite on driver-jni over the JDK's DatagramChannel ({@link Wire#JDK}) on ::1. */
class JniJdkWireRcConformanceTest extends RcConformanceTest {
    @Override
    protected DriverFixture createFixture(long seed) {
        return new JniFixture(seed, "::1", false, Wire.JDK);
    }
}
