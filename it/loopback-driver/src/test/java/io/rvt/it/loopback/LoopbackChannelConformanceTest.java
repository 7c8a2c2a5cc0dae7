package io.rvt.it.loopback;

import io.rvt.testkit.ChannelConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/** The completion channel conformance suite on the loopback driver: QPs of one device through rvt-core's loopback. */
class LoopbackChannelConformanceTest extends ChannelConformanceTest {
    static List<Variant> variants() {
        return List.of(LoopbackFixture.ONE_DEVICE);
    }
}
