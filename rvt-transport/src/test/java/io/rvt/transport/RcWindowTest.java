package io.rvt.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.PortCounter;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.transport.header.LrhDescriptor;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The RC requester's window ({@link Transport#limitRcInFlight}, the per-QP congestion window): a port's budget caps
 * the PSNs in flight, shared by its QPs; the packet that fills the window asks for an ACK; ACKs reopen it; a QP that
 * fails gives its share back; after a loss go-back-N resends a halved window rather than the whole send queue; a port
 * without a budget sends as rdmavt does.
 * Driven step by step on the in-test wire, so nothing here depends on timing.
 */
class RcWindowTest extends TwoNodeTest {
    static final int MSG = 4096; // 16 packets at the path MTU of 256
    static final int PACKETS_PER_MSG = MSG / RcOperationsTest.MTU;


    @Override
    long pattern() {
        return 3;
    }

    private SendWorkRequest write(long id, int offset) {
        return new SendWorkRequest(1).wrId(id).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlag.SIGNALED.bit())
                .sge(srcA, offset, MSG).remoteAddr(dstB.addr() + offset).rkey(dstB.rkey());
    }

    private Transport transportA() {
        return a.driver.transport();
    }

    private static boolean ackReq(byte[] packet) {
        return (packet[LrhDescriptor.LENGTH + 8] & 0x80) != 0; // BTH byte 8: AckReq, then 7 reserved bits
    }

    @Test
    void shouldKeepAtMostTheBudgetInFlightAndAskForAnAckOnThePacketThatFillsIt() {
        transportA().limitRcInFlight(1, 12);
        QueuePair[] p = Node.pair(QpType.RC, a, b, 64, 1);
        List<byte[]> sent = new ArrayList<>();
        fabric.dropIf(bytes -> {
            if (bytes[LrhDescriptor.LENGTH] == (byte) 0x06 || bytes[LrhDescriptor.LENGTH] == (byte) 0x07
                    || bytes[LrhDescriptor.LENGTH] == (byte) 0x08) {
                sent.add(bytes); // RDMA WRITE FIRST/MIDDLE/LAST: the requester's packets (kept, not dropped)
            }
            return false;
        });
        for (int i = 0; i < 4; i++) {
            p[0].postSend(write(i, i * MSG));
        }
        fabric.runEngines();

        assertThat(fabric.inFlight()).as("packets on the wire before any ACK").isEqualTo(12);
        RcInFlight w = transportA().rcInFlight(1);
        assertThat(w.budget()).isEqualTo(12);
        assertThat(w.inFlight()).isEqualTo(12);
        assertThat(w.waits()).isPositive();
        fabric.deliverAll();
        assertThat(sent).hasSize(12);
        assertThat(ackReq(sent.get(11))).as("the 12th packet asks for an ACK").isTrue();

        fabric.settle();
        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status).containsOnly(WcStatus.SUCCESS).hasSize(4);
        assertThat(RcOperationsTest.bytes(dstB, 0, 4 * MSG)).isEqualTo(RcOperationsTest.bytes(srcA, 0, 4 * MSG));
        w = transportA().rcInFlight(1);
        assertThat(w.peak()).as("never more than the budget").isEqualTo(12);
        assertThat(w.inFlight()).as("everything acknowledged").isZero();
        assertThat(a.counter(PortCounter.RC_RESENDS)).isZero();
    }

    @Test
    void shouldShareTheBudgetBetweenTheQpsOfAPortLettingEachKeepEight() {
        transportA().limitRcInFlight(1, 24);
        QueuePair[] p1 = Node.pair(QpType.RC, a, b, 64, 1);
        QueuePair[] p2 = Node.pair(QpType.RC, a, b, 64, 1);
        for (int i = 0; i < 4; i++) {
            p1[0].postSend(write(i, i * MSG));
            p2[0].postSend(write(10 + i, (4 + i) * MSG));
        }
        fabric.runEngines();
        // Whichever QP ran first took packets up to the budget; the other still sends its eight.
        assertThat(fabric.inFlight()).isBetween(24, 24 + 8);
        assertThat(transportA().rcInFlight(1).inFlight()).isEqualTo(fabric.inFlight());

        fabric.settle();
        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status).containsOnly(WcStatus.SUCCESS).hasSize(8);
        assertThat(RcOperationsTest.bytes(dstB, 0, 8 * MSG)).isEqualTo(RcOperationsTest.bytes(srcA, 0, 8 * MSG));
        RcInFlight w = transportA().rcInFlight(1);
        assertThat(w.peak()).isLessThanOrEqualTo(24 + 8);
        assertThat(w.inFlight()).isZero();
    }

    @Test
    void shouldGiveItsShareBackWhenTheQpFails() {
        transportA().limitRcInFlight(1, 12);
        a.retryCnt = 1;
        QueuePair[] p = Node.pair(QpType.RC, a, b, 64, 1);
        fabric.partitioned(true);
        p[0].postSend(write(1, 0));
        p[0].postSend(write(2, MSG));
        fabric.settle();
        assertThat(p[0].state()).isEqualTo(QpState.ERR);
        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status)
                .containsExactly(WcStatus.RETRY_EXC_ERR, WcStatus.WR_FLUSH_ERR);
        assertThat(transportA().rcInFlight(1).inFlight()).isZero();

        fabric.partitioned(false);
        QueuePair[] q = Node.pair(QpType.RC, a, b, 64, 1);
        q[0].postSend(write(3, 0));
        fabric.runEngines();
        assertThat(fabric.inFlight()).as("the whole budget is free again").isEqualTo(12);
        fabric.settle();
        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
    }

    /**
     * @return a connected RC pair whose port has a budget far above the send queue (the QP's own window is unlimited
     *         until its first loss), on a wire that loses the 5th request packet
     */
    private QueuePair[] pairLosingTheFifthRequest() {
        transportA().limitRcInFlight(1, 100_000);
        QueuePair[] p = Node.pair(QpType.RC, a, b, 64, 1);
        int[] requests = {0};
        fabric.dropIf(bytes -> {
            int op = bytes[LrhDescriptor.LENGTH] & 0xFF;
            return op >= 0x06 && op <= 0x08 && ++requests[0] == 5;
        });
        return p;
    }

    @Test
    void shouldResendAHalvedWindowRatherThanTheSendQueueAfterALoss() {
        QueuePair[] p = pairLosingTheFifthRequest();
        int messages = 16;
        int total = messages * PACKETS_PER_MSG;
        for (int i = 0; i < messages; i++) {
            p[0].postSend(write(i, i * MSG));
        }
        fabric.runEngines();
        assertThat(fabric.inFlight()).as("no window before a loss: the whole send queue").isEqualTo(total);
        fabric.deliverAll(); // the responder takes 4, NAKs the gap, drops the rest
        fabric.runEngines();
        fabric.deliverAll(); // the NAK reaches the requester: go-back-N to the 5th
        fabric.runEngines();

        int rewound = total - 4;
        assertThat(a.counter(PortCounter.SEQ_NAKS)).isOne();
        assertThat(a.counter(PortCounter.RC_RESENDS)).isEqualTo(rewound);
        assertThat(fabric.inFlight()).as("resent at once: half of what was in flight")
                .isEqualTo(rewound / 2);

        fabric.settle();
        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status).containsOnly(WcStatus.SUCCESS)
                .hasSize(messages);
        assertThat(RcOperationsTest.bytes(dstB, 0, messages * MSG))
                .isEqualTo(RcOperationsTest.bytes(srcA, 0, messages * MSG));
        assertThat(a.counter(PortCounter.RC_RESENDS)).as("one loss, one rewind").isEqualTo(rewound);
    }

    @Test
    void shouldReopenAHalvedWindowByOnePacketForEveryWindowAcknowledged() {
        QueuePair[] p = pairLosingTheFifthRequest();
        int messages = 16;
        for (int i = 0; i < messages; i++) {
            p[0].postSend(write(i, i * MSG));
        }
        fabric.settle(); // the loss halves the window to 124 (248 rewound); the 248 then acknowledged open it to 125
        int rewound = messages * PACKETS_PER_MSG - 4;
        assertThat(Node.poll(a.scq)).hasSize(messages);

        for (int i = 0; i < messages; i++) {
            p[0].postSend(write(100 + i, i * MSG));
        }
        fabric.runEngines();
        // 125, or 126 if the NAK's acknowledgement of the first 4 counted after the halving
        assertThat(fabric.inFlight()).as("one more than half").isBetween(rewound / 2 + 1, rewound / 2 + 2);
        fabric.settle(); // 256 more acknowledged, one packet per window: 128 from either
        assertThat(Node.poll(a.scq)).hasSize(messages);

        for (int i = 0; i < messages; i++) {
            p[0].postSend(write(200 + i, i * MSG));
        }
        fabric.runEngines();
        assertThat(fabric.inFlight()).as("one packet more per window acknowledged").isEqualTo(rewound / 2 + 4);
        fabric.settle();
        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status).containsOnly(WcStatus.SUCCESS)
                .hasSize(messages);
        assertThat(a.counter(PortCounter.RC_RESENDS)).as("one loss, one rewind").isEqualTo(rewound);
    }

    @Test
    void shouldResendEverythingAfterALossWhenThePortHasNoBudget() {
        QueuePair[] p = Node.pair(QpType.RC, a, b, 64, 1);
        int[] requests = {0};
        fabric.dropIf(bytes -> {
            int op = bytes[LrhDescriptor.LENGTH] & 0xFF;
            return op >= 0x06 && op <= 0x08 && ++requests[0] == 5;
        });
        int messages = 16;
        int total = messages * PACKETS_PER_MSG;
        for (int i = 0; i < messages; i++) {
            p[0].postSend(write(i, i * MSG));
        }
        fabric.runEngines();
        fabric.deliverAll();
        fabric.runEngines();
        fabric.deliverAll();
        fabric.runEngines();
        assertThat(fabric.inFlight()).as("go-back-N as rdmavt: everything after the loss at once")
                .isEqualTo(total - 4);
        assertThat(transportA().rcInFlight(1)).isNull();
        fabric.settle();
        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status).containsOnly(WcStatus.SUCCESS)
                .hasSize(messages);
    }

    @Test
    void shouldRecoverFromLosingThePacketThatFillsTheWindowWithoutWaitingForTheRetryTimer() {
        transportA().limitRcInFlight(1, 12);
        QueuePair[] p = Node.pair(QpType.RC, a, b, 64, 1);
        int[] requests = {0};
        fabric.dropIf(bytes -> {
            int op = bytes[LrhDescriptor.LENGTH] & 0xFF;
            return op >= 0x06 && op <= 0x08 && ++requests[0] == 12; // the one asking for an ACK at the window's end
        });
        for (int i = 0; i < 4; i++) {
            p[0].postSend(write(i, i * MSG));
        }
        fabric.pump(); // no timer runs: ACKs asked for inside the window open it, the responder sees the gap
        assertThat(Node.poll(a.scq)).extracting(WorkCompletion::status).containsOnly(WcStatus.SUCCESS).hasSize(4);
        assertThat(a.counter(PortCounter.RC_TIMEOUTS)).isZero();
        assertThat(a.counter(PortCounter.SEQ_NAKS)).isOne();
        assertThat(RcOperationsTest.bytes(dstB, 0, 4 * MSG)).isEqualTo(RcOperationsTest.bytes(srcA, 0, 4 * MSG));
    }
}
