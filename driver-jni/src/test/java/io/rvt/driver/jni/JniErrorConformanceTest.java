package io.rvt.driver.jni;

import io.rvt.testkit.ErrorConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/** The error conformance suite on driver-jni: two HCAs over UDP on 127.0.0.1 and on ::1. */
class JniErrorConformanceTest extends ErrorConformanceTest {
    static List<Variant> variants() {
        return List.of(JniFixture.IPV4, JniFixture.IPV6);
    }
}
