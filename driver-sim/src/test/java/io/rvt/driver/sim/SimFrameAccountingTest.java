package io.rvt.driver.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Device;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WrOpcode;
import io.rvt.driver.sim.fabric.FramePool;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every frame an HCA takes from its port's pool goes back, including the one a QP keeps for its next packet. */
class SimFrameAccountingTest {
    private static final int MESSAGES = 200;
    private SimFixture fixture;

    @BeforeEach
    void setUp() {
        fixture = new SimFixture(0x5EA1L, true);
    }

    @AfterEach
    void tearDown() {
        fixture.close();
    }

    private FramePool pool(int hca) {
        return fixture.drivers().get(hca).fabricPort(1).pool();
    }

    @Test
    void shouldReturnEveryFrameToThePoolWhenTheQpsAreDestroyed() {
        Device[] devs = fixture.open(2);
        Verbs verbs = new Verbs(fixture);
        Endpoint[] pair = verbs.connected(devs[0], devs[1], QpType.RC, 4096, 7, 1);
        Endpoint a = pair[0];
        Endpoint b = pair[1];
        for (int i = 0; i < MESSAGES; i++) {
            b.qp.postRecv(new RecvWorkRequest(1).wrId(i).sge(b.mr, 0, 64));
            a.qp.postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.SEND).sge(a.mr, 0, 64));
            verbs.await(b.recvCq, 1);
            verbs.await(a.sendCq, 1);
        }
        // Each QP (the RC QP; a CM's GSI QP where the fixture connects through one) may hold one frame for its next
        // packet while it lives...
        assertThat(pool(0).available()).isBetween(pool(0).frames() - 2, pool(0).frames());
        assertThat(pool(1).available()).isBetween(pool(1).frames() - 2, pool(1).frames());

        a.qp.destroyQp();
        b.qp.destroyQp();
        verbs.close(); // the connector's (a CM's GSI QPs, where it had any) go too

        // ...and gives it back when it is destroyed (once any CM's last DREQs are delivered).
        verbs.awaitTrue("every frame back in its pool", () -> pool(0).available() == pool(0).frames()
                && pool(1).available() == pool(1).frames());
    }
}
