package io.rvt.it.loopback;

import io.rvt.testkit.RcConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/** The RC conformance suite on the loopback driver: QPs of one device through rvt-core's loopback. */
class LoopbackRcConformanceTest extends RcConformanceTest {
    static List<Variant> variants() {
        return List.of(LoopbackFixture.ONE_DEVICE);
    }
}
