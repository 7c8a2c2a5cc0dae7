package io.rvt.driver.jni;

import io.rvt.testkit.DriverFixture;
import io.rvt.testkit.UdConformanceTest;

/** The Ud conformance suite on driver-jni: two HCAs over UDP on ::1. */
class JniUdIpv6ConformanceTest extends UdConformanceTest {
    @Override
    protected DriverFixture createFixture(long seed) {
        return new JniFixture(seed, "::1");
    }
}
