package io.rvt.driver.sim;

import io.rvt.testkit.MrPiecesConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/** The regions-in-pieces conformance suite on deterministic driver-sim. */
class SimMrPiecesConformanceTest extends MrPiecesConformanceTest {
    static List<Variant> variants() {
        return List.of(SimFixture.DETERMINISTIC);
    }
}
