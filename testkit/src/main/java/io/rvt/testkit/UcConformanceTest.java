package io.rvt.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.PortAttr;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcOpcode;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Unreliable connected service: sends and writes between two devices, no ACKs. */
public abstract class UcConformanceTest extends ConformanceTest {
    private static final int BUF = 1 << 16;
    private Endpoint[] p;

    /** A connected UC pair. */
    @BeforeEach
    void connect() {
        require(Feature.UC);
        p = verbs.connected(dev[0], dev[1], QpType.UC, BUF, 0, 0);
    }

    /** Sends of several sizes arrive byte-exact. */
    @Test
    void shouldDeliverSendsWhenReceivesArePosted() {
        int m = dev[0].queryPort(1, new PortAttr()).activeMtu().bytes();
        long id = 1;
        for (int len : new int[] {0, 1, m, 2 * m + 7}) {
            Verbs.fill(p[0].buffer, 0, len, seed + len);
            p[1].qp.postRecv(new RecvWorkRequest(1).wrId(id).sge(p[1].mr, 0, BUF));
            p[0].qp.postSend(new SendWorkRequest(1).wrId(id).opcode(WrOpcode.SEND).sge(p[0].mr, 0, len));
            Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), id);
            WorkCompletion r = verbs.await(p[1].recvCq, 1).get(0);
            Verbs.assertSuccess(r, id++);
            assertThat(r.byteLen()).isEqualTo(len);
            Verbs.assertPattern(p[1].buffer, 0, len, seed + len);
        }
    }

    /** RDMA WRITE with immediate reports RECV_RDMA_WITH_IMM; the bytes land. */
    @Test
    void shouldWriteWhenRdmaWriteWithImm() {
        Verbs.fill(p[0].buffer, 0, 3000, seed);
        p[1].qp.postRecv(new RecvWorkRequest(1).wrId(5).sge(p[1].mr, 0, 8));
        p[0].qp.postSend(new SendWorkRequest(1).wrId(5).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(3)
                .sge(p[0].mr, 0, 3000).remoteAddr(p[1].mr.addr() + 100).rkey(p[1].mr.rkey()));
        Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 5);
        WorkCompletion r = verbs.await(p[1].recvCq, 1).get(0);
        assertThat(r.opcode()).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
        assertThat(r.immData()).isEqualTo(3);
        Verbs.assertPattern(p[1].buffer, 100, 3000, seed);
    }

    /** Without a posted receive the message is dropped, yet the send completes successfully. */
    @Test
    void shouldCompleteSendWhenNoReceiveIsPosted() {
        p[0].qp.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.SEND).sge(p[0].mr, 0, 64));
        Verbs.assertSuccess(verbs.await(p[0].sendCq, 1).get(0), 1);
        verbs.assertQuiet(p[1].recvCq, 50);
    }
}
