package io.rvt.driver.jni;

import io.rvt.testkit.AtomicWriteFlushConformanceTest;
import io.rvt.testkit.DriverFixture;

/** The ATOMIC_WRITE and FLUSH conformance suite on driver-jni: two HCAs over UDP on 127.0.0.1. */
class JniAtomicWriteFlushConformanceTest extends AtomicWriteFlushConformanceTest {
    @Override
    protected DriverFixture createFixture(long seed) {
        return new JniFixture(seed, "127.0.0.1");
    }
}
