package io.rvt.driver.jni;

import io.rvt.testkit.DriverFixture;
import io.rvt.testkit.MwConformanceTest;

/** The memory-window conformance suite on driver-jni: two HCAs over UDP on 127.0.0.1. */
class JniMwConformanceTest extends MwConformanceTest {
    @Override
    protected DriverFixture createFixture(long seed) {
        return new JniFixture(seed, "127.0.0.1");
    }
}
