package io.rvt.driver.jni;

import io.rvt.testkit.MrPiecesConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/**
 * The regions-in-pieces conformance suite on driver-jni: two HCAs over UDP on 127.0.0.1, so each SEND, WRITE, READ
 * and atomic that crosses a piece boundary goes through the native receive and send paths' gathers and scatters.
 */
class JniMrPiecesConformanceTest extends MrPiecesConformanceTest {
    static List<Variant> variants() {
        return List.of(JniFixture.IPV4);
    }
}
