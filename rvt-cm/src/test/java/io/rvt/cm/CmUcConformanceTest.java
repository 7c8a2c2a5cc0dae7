package io.rvt.cm;

import io.rvt.testkit.UcConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/** The UC conformance suite on driver-sim with its pairs connected through rvt-cm, deterministic and in real time. */
class CmUcConformanceTest extends UcConformanceTest {
    static List<Variant> variants() {
        return List.of(CmSimFixture.DETERMINISTIC, CmSimFixture.REAL_TIME);
    }
}
