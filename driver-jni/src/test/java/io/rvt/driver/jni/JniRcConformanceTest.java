package io.rvt.driver.jni;

import io.rvt.testkit.RcConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/** The RC conformance suite on driver-jni: two HCAs over UDP on 127.0.0.1 and on ::1, with one shared engine
 * thread, with flows spread over three UDP source ports, and over the JDK's DatagramChannel. */
class JniRcConformanceTest extends RcConformanceTest {
    static List<Variant> variants() {
        return List.of(JniFixture.IPV4, JniFixture.IPV6, JniFixture.SHARED_ENGINE, JniFixture.SOURCE_PORTS, JniFixture.JDK_WIRE);
    }
}
