package io.rvt.driver.jni;

import io.rvt.testkit.DriverFixture;
import io.rvt.testkit.ErrorConformanceTest;

/** The Error conformance suite on driver-jni: two HCAs over UDP on ::1. */
class JniErrorIpv6ConformanceTest extends ErrorConformanceTest {
    @Override
    protected DriverFixture createFixture(long seed) {
        return new JniFixture(seed, "::1");
    }
}
