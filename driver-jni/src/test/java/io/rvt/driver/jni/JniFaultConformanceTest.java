package io.rvt.driver.jni;

import io.rvt.testkit.FaultConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/** The fault conformance suite on driver-jni: two HCAs over UDP on 127.0.0.1 and on ::1, with numbered IPv4
 * Identifications, with one shared engine thread, and with flows spread over three UDP source ports. */
class JniFaultConformanceTest extends FaultConformanceTest {
    static List<Variant> variants() {
        return List.of(JniFixture.IPV4, JniFixture.IPV6, JniFixture.IPV4_IDS, JniFixture.SHARED_ENGINE, JniFixture.SOURCE_PORTS);
    }
}
