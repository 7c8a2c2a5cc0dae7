package io.rvt.driver.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Device;
import io.rvt.api.PortCounter;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WrOpcode;
import io.rvt.core.RvtDevice;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A sending HCA leaves its ICRC to be written on demand; an HCA that checks every ICRC still gets it, because the
 * fabric writes it before delivering to a receiver that does not accept deferred checksums.
 */
class SimIcrcOffloadTest {
    private SimFixture fixture;

    @BeforeEach
    void setUp() {
        fixture = new SimFixture(0x1C4CL, false); // real time: no trace, which would write every checksum
    }

    @AfterEach
    void tearDown() {
        fixture.close();
    }

    @Test
    void shouldPassEveryIcrcCheckOfAStrictHcaWhenItsPeerDefersItsIcrc() {
        Device relaxed = fixture.open(1)[0];
        RvtDevice strict = RvtDevice.register(SimDriver.builder(fixture.fabric()).name("strict").checkEveryIcrc(true)
                .build());
        try {
            Verbs verbs = new Verbs(fixture);
            Endpoint[] pair = verbs.connected(relaxed, strict, QpType.RC, 8192, 7, 1);
            for (int i = 0; i < 50; i++) {
                for (int dir = 0; dir < 2; dir++) {
                    Endpoint from = pair[dir];
                    Endpoint to = pair[1 - dir];
                    Verbs.fill(from.buffer, 0, 5000, i);
                    to.qp.postRecv(new RecvWorkRequest(1).wrId(i).sge(to.mr, 0, 8192));
                    from.qp.postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.SEND).sge(from.mr, 0, 5000));
                    Verbs.assertSuccess(verbs.await(to.recvCq, 1).get(0), i);
                    Verbs.assertSuccess(verbs.await(from.sendCq, 1).get(0), i);
                    Verbs.assertPattern(to.buffer, 0, 5000, i);
                }
            }
            assertThat(strict.portCounter(1, PortCounter.RX_MALFORMED)).isZero();
            assertThat(relaxed.portCounter(1, PortCounter.RX_MALFORMED)).isZero();
            assertThat(strict.portCounter(1, PortCounter.RX_PACKETS)).isGreaterThanOrEqualTo(100);
        } finally {
            strict.unregister();
        }
    }
}
