package io.rvt.cm;

import io.rvt.testkit.RcConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/** The RC conformance suite on driver-sim with its pairs connected through rvt-cm, deterministic and in real time. */
class CmRcConformanceTest extends RcConformanceTest {
    static List<Variant> variants() {
        return List.of(CmSimFixture.DETERMINISTIC, CmSimFixture.REAL_TIME);
    }
}
