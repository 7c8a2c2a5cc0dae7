package io.rvt.driver.jni;

import io.rvt.testkit.DriverFixture;
import io.rvt.testkit.RcConformanceTest;

/** The Rc conformance suite on driver-jni: two HCAs over UDP on ::1. */
class JniRcIpv6ConformanceTest extends RcConformanceTest {
    @Override
    protected DriverFixture createFixture(long seed) {
        return new JniFixture(seed, "::1");
    }
}
