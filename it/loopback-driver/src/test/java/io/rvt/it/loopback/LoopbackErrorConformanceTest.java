package io.rvt.it.loopback;

import io.rvt.testkit.ErrorConformanceTest;
import io.rvt.testkit.Variant;
import java.util.List;

/**
 * The error conformance suite on the loopback driver: QPs of one device through rvt-core's loopback, connected directly
 * and through rvt-cm (its REQ, REP and RTU over the device's GSI QP to itself).
 */
class LoopbackErrorConformanceTest extends ErrorConformanceTest {
    static List<Variant> variants() {
        return List.of(LoopbackFixture.ONE_DEVICE, LoopbackFixture.CM_CONNECTED);
    }
}
