package io.rvt.driver.jni;

import io.rvt.testkit.ChannelConformanceTest;
import io.rvt.testkit.DriverFixture;

/** The completion channel suite on driver-jni: two HCAs over UDP on 127.0.0.1. */
class JniChannelConformanceTest extends ChannelConformanceTest {
    @Override
    protected DriverFixture createFixture(long seed) {
        return new JniFixture(seed, "127.0.0.1");
    }
}
