package io.rvt.driver.jni;

import io.rvt.testkit.DriverFixture;
import io.rvt.testkit.FaultConformanceTest;

/**
 * The Fault conformance suite on driver-jni over 127.0.0.1 with every datagram received carrying a numbered IPv4
 * Identification, as Linux's do ({@link Ipv4IdNumbering}): each packet is accepted by solving its ICRC for the ID,
 * and the suite's corrupted packets (one bit flipped on the way) are still all caught.
 */
class JniIpv4IdFaultConformanceTest extends FaultConformanceTest {
    @Override
    protected DriverFixture createFixture(long seed) {
        return new JniFixture(seed, "127.0.0.1").numberIpv4Ids(true);
    }
}
