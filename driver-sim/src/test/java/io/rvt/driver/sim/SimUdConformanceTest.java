package io.rvt.driver.sim;

import io.rvt.testkit.UdConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/** The UD conformance suite on driver-sim, deterministic and in real time. */
class SimUdConformanceTest extends UdConformanceTest {
    static List<Variant> variants() {
        return List.of(SimFixture.DETERMINISTIC, SimFixture.REAL_TIME);
    }
}
