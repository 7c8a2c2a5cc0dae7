package io.rvt.driver.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Device;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.driver.sim.fabric.LinkModel;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code deregMr} of a region that in-flight work references behaves alike in both modes: it moves the QP to ERR,
 * the flush drops the references and the call returns; the work completes in error. In deterministic mode the
 * flush runs on the loop, which the waiting call drives itself (rvt-core's wait calls
 * {@code RvtDriver.progressWhileWaiting}); before, nobody drove it, and the call waited its full 5 s and failed
 * EBUSY.
 */
class SimDeregMrTest {
    private static final int LEN = 1 << 20;
    private SimFixture fixture;

    @AfterEach
    void tearDown() {
        fixture.close();
    }

    private void deregMrUnderInFlightWork(boolean deterministic) {
        // A 1 Mbit/s link: the QPs connect by modify_qp, sending nothing, and the 1 MiB write (8 s on the
        // wire) is surely still in flight when deregMr runs, in real time too.
        fixture = new SimFixture(7, deterministic, b -> b.defaultLink(LinkModel.of(1_000_000L, 0)));
        Device[] devs = fixture.open(2);
        Verbs verbs = new Verbs(fixture);
        Endpoint[] p = verbs.connected(devs[0], devs[1], QpType.RC, LEN, 7, 1);
        p[0].qp.postSend(new SendWorkRequest(1).wrId(5).opcode(WrOpcode.RDMA_WRITE).sge(p[0].mr, 0, LEN)
                .remoteAddr(p[1].mr.addr()).rkey(p[1].mr.rkey()));

        long before = fixture.fabric().nanoTime();
        p[0].mr.deregMr(); // EBUSY after 5 s, in deterministic mode, before

        if (deterministic) {
            assertThat(fixture.fabric().nanoTime() - before).as("virtual time: deregMr did not wait for the network")
                    .isLessThan(1_000_000_000L);
        }
        assertThat(p[0].qp.state()).as("QP using the deregistered region").isEqualTo(QpState.ERR);
        WorkCompletion wc = verbs.await(p[0].sendCq, 1).get(0);
        assertThat(wc.wrId()).isEqualTo(5);
        assertThat(wc.status()).as("completion of the write cut off by deregMr").isNotEqualTo(WcStatus.SUCCESS);
    }

    @Test
    void shouldReturnAndMoveTheQpToErrWhenDeregMrMeetsInFlightWorkInDeterministicMode() {
        deregMrUnderInFlightWork(true);
    }

    @Test
    void shouldReturnAndMoveTheQpToErrWhenDeregMrMeetsInFlightWorkInRealTime() {
        deregMrUnderInFlightWork(false);
    }
}
