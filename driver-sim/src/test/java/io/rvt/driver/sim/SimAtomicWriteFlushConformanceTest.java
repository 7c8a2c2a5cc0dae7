package io.rvt.driver.sim;

import io.rvt.testkit.AtomicWriteFlushConformanceTest;
import io.rvt.testkit.DriverFixture;

/** The ATOMIC_WRITE and FLUSH conformance suite on deterministic driver-sim. */
class SimAtomicWriteFlushConformanceTest extends AtomicWriteFlushConformanceTest {
    @Override
    protected DriverFixture createFixture(long seed) {
        return new SimFixture(seed, true);
    }
}
