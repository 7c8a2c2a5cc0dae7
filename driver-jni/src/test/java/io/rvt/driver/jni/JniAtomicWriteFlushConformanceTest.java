package io.rvt.driver.jni;

import io.rvt.testkit.AtomicWriteFlushConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/** The ATOMIC_WRITE and FLUSH conformance suite on driver-jni: two HCAs over UDP on 127.0.0.1. */
class JniAtomicWriteFlushConformanceTest extends AtomicWriteFlushConformanceTest {
    static List<Variant> variants() {
        return List.of(JniFixture.IPV4);
    }
}
