package io.rvt.driver.sim;

import io.rvt.testkit.ChannelConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/** The completion channel suite on driver-sim: deterministic (only the test's thread runs the fabric) and in
 * real time (the waiter in getCqEvent and the fabric's backstop share the engines, ThreadingMode.PROGRESS). */
class SimChannelConformanceTest extends ChannelConformanceTest {
    static List<Variant> variants() {
        return List.of(SimFixture.DETERMINISTIC, SimFixture.REAL_TIME);
    }
}
