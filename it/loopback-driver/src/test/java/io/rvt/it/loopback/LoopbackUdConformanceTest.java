package io.rvt.it.loopback;

import io.rvt.testkit.UdConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/** The UD conformance suite on the loopback driver: QPs of one device through rvt-core's loopback. */
class LoopbackUdConformanceTest extends UdConformanceTest {
    static List<Variant> variants() {
        return List.of(LoopbackFixture.ONE_DEVICE);
    }
}
