package io.rvt.driver.sim;

import io.rvt.testkit.AtomicWriteFlushConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/** The ATOMIC_WRITE and FLUSH conformance suite on deterministic driver-sim. */
class SimAtomicWriteFlushConformanceTest extends AtomicWriteFlushConformanceTest {
    static List<Variant> variants() {
        return List.of(SimFixture.DETERMINISTIC);
    }
}
