package io.rvt.it.loopback;

import io.rvt.testkit.MwConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/** The memory-window conformance suite on the loopback driver: QPs of one device through rvt-core's loopback. */
class LoopbackMwConformanceTest extends MwConformanceTest {
    static List<Variant> variants() {
        return List.of(LoopbackFixture.ONE_DEVICE);
    }
}
