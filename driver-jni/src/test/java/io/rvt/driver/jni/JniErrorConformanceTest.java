package io.rvt.driver.jni;

import io.rvt.testkit.DriverFixture;
import io.rvt.testkit.ErrorConformanceTest;

/** The Error conformance suite on driver-jni: two HCAs over UDP on 127.0.0.1. */
class JniErrorConformanceTest extends ErrorConformanceTest {
    @Override
    protected DriverFixture createFixture(long seed) {
        return new JniFixture(seed, "127.0.0.1");
    }
}
