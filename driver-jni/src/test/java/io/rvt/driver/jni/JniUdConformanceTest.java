package io.rvt.driver.jni;

import io.rvt.testkit.UdConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/** The UD conformance suite on driver-jni: two HCAs over UDP on 127.0.0.1 and on ::1. */
class JniUdConformanceTest extends UdConformanceTest {
    static List<Variant> variants() {
        return List.of(JniFixture.IPV4, JniFixture.IPV6);
    }
}
