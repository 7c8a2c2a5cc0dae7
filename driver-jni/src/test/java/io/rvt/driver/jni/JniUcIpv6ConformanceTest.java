package io.rvt.driver.jni;

import io.rvt.testkit.DriverFixture;
import io.rvt.testkit.UcConformanceTest;

/** The Uc conformance suite on driver-jni: two HCAs over UDP on ::1. */
class JniUcIpv6ConformanceTest extends UcConformanceTest {
    @Override
    protected DriverFixture createFixture(long seed) {
        return new JniFixture(seed, "::1");
    }
}
