package io.rvt.driver.jni;

import io.rvt.testkit.ChannelConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/** The completion channel suite on driver-jni: two HCAs over UDP on 127.0.0.1. */
class JniChannelConformanceTest extends ChannelConformanceTest {
    static List<Variant> variants() {
        return List.of(JniFixture.IPV4);
    }
}
