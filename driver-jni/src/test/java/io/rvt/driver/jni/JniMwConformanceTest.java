package io.rvt.driver.jni;

import io.rvt.testkit.MwConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/** The memory-window conformance suite on driver-jni: two HCAs over UDP on 127.0.0.1. */
class JniMwConformanceTest extends MwConformanceTest {
    static List<Variant> variants() {
        return List.of(JniFixture.IPV4);
    }
}
