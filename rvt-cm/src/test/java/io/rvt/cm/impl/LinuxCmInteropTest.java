package io.rvt.cm.impl;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.CompletionQueue;
import io.rvt.api.MemoryRegion;
import io.rvt.api.PathMtu;
import io.rvt.api.QpAttr;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.cm.ConnectOptions;
import io.rvt.cm.Connection;
import io.rvt.cm.QpOptions;
import io.rvt.cm.SimLab;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * rvt-cm against a peer that fills its MADs and sets its QP up as Linux's ib_cm and rdma_cm do ({@link LinuxCmPeer}):
 * the Starting PSN of a REQ or REP is the PSN its sender receives first, so each QP sends from the peer's and
 * receives from its own; the depths, retry counts and ACK timeout land on the QP attributes Linux's would get; and
 * SENDs go both ways without a PSN sequence error. The PSNs differ in each direction, or a swap would go unseen.
 */
class LinuxCmInteropTest {
    private static final int PORT = 18515;

    @Test
    void anRvtActiveSideShouldTakeTheRepsPsnAsItsSendPsnAndConnectToALinuxPassiveSide() {
        try (SimLab lab = new SimLab(61)) {
            SimLab.Host client = lab.host();
            LinuxCmPeer linux = new LinuxCmPeer(lab.bareDevice());
            QpOptions q = client.qp().retryCount(6).localAckTimeout(16);
            Connection c = client.cm.connectAsync(new ConnectOptions().destination(linux.gid()).port(PORT).qp(q));
            CmMad req = linux.gsi.receive(lab);
            assertThat(req.attrId).isEqualTo(CmMad.REQ);
            assertThat(req.startingPsn).as("the REQ's Starting PSN is the PSN the active QP expects first")
                    .isEqualTo(c.receivePsn());

            int repPsn = (req.startingPsn + 0x40_0000) & 0xFF_FFFF;
            CmMad rep = linux.rep(req, 0x7B3D_9E02, repPsn, 3, 2, 5);
            linux.setUpAsPassive(req, rep); // rdma_accept: RTR and RTS before the REP
            linux.gsi.send(lab, client.gid(), rep);
            CmMad rtu = linux.gsi.receive(lab);
            assertThat(rtu.attrId).isEqualTo(CmMad.RTU);
            lab.await("established", c.established());

            QpAttr a = c.qp().queryQp(new QpAttr());
            assertThat(a.rqPsn()).as("rq_psn: the REQ's Starting PSN").isEqualTo(req.startingPsn);
            assertThat(a.sqPsn()).as("sq_psn: the REP's Starting PSN").isEqualTo(repPsn).isEqualTo(c.sendPsn());
            assertThat(a.maxRdAtomic()).as("max_rd_atomic: the REP's responder resources").isEqualTo(3);
            assertThat(a.maxDestRdAtomic()).as("max_dest_rd_atomic: the REP's initiator depth").isEqualTo(2);
            assertThat(a.rnrRetry()).as("rnr_retry: the REP's").isEqualTo(5);
            assertThat(a.retryCnt()).as("retry_cnt: this side's, as sent in the REQ").isEqualTo(6)
                    .isEqualTo(req.retryCount);
            assertThat(a.timeout()).as("this side's ACK timeout, as after rdma_set_ack_timeout").isEqualTo(16);
            assertThat(a.destQpNum()).isEqualTo(linux.qp.qpNum());
            assertThat(c.initiatorDepth()).isEqualTo(3);
            assertThat(c.responderResources()).isEqualTo(2);

            sendBothWays(lab, c.qp(), client.cq, client.mr, client.buf, linux);
        }
    }

    @Test
    void anRvtPassiveSideShouldTakeTheReqsPsnAsItsSendPsnAndAcceptALinuxActiveSide() {
        try (SimLab lab = new SimLab(62)) {
            SimLab.Host server = lab.host();
            List<Connection> accepted = new ArrayList<>();
            server.cm.listen(PORT, r -> accepted.add(r.acceptAsync(server.qp(), null)));
            LinuxCmPeer linux = new LinuxCmPeer(lab.bareDevice());
            CmMad req = linux.req(server.gid(), PORT, 0x8A5F_2C11, 0x5E_ED01, 6, 5);
            linux.gsi.send(lab, server.gid(), req);
            CmMad rep = linux.gsi.receive(lab);
            assertThat(rep.attrId).isEqualTo(CmMad.REP);
            Connection s = accepted.get(0);

            QpAttr a = s.qp().queryQp(new QpAttr());
            assertThat(rep.startingPsn).as("the REP's Starting PSN is the PSN the passive QP expects first")
                    .isEqualTo(a.rqPsn()).isEqualTo(s.receivePsn()).isNotEqualTo(req.startingPsn);
            assertThat(a.sqPsn()).as("sq_psn: the REQ's Starting PSN").isEqualTo(0x5E_ED01).isEqualTo(s.sendPsn());
            assertThat(a.timeout()).as("the REQ's local ACK timeout, cm_ack_timeout(15, 18)").isEqualTo(19);
            assertThat(a.retryCnt()).as("retry_cnt: the REQ's").isEqualTo(6);
            assertThat(a.rnrRetry()).as("rnr_retry: the REQ's").isEqualTo(5);
            int max = server.device.queryDevice().maxQpRdAtom();
            assertThat(a.maxDestRdAtomic()).as("max_dest_rd_atomic: the REP's responder resources")
                    .isEqualTo(rep.responderResources).isEqualTo(Math.min(max, req.initiatorDepth));
            assertThat(a.maxRdAtomic()).as("max_rd_atomic: the REP's initiator depth")
                    .isEqualTo(rep.initiatorDepth).isEqualTo(Math.min(max, req.responderResources));
            assertThat(a.pathMtu()).isEqualTo(PathMtu.MTU_1024);
            assertThat(rep.targetAckDelay).as("the REP's target ACK delay: this CA's ACK delay")
                    .isEqualTo(server.device.queryDevice().localCaAckDelay());

            linux.setUpAsActive(req, rep, server.gid());
            linux.gsi.send(lab, server.gid(), LinuxCmPeer.rtu(req, rep));
            lab.await("established", s.established());

            sendBothWays(lab, s.qp(), server.cq, server.mr, server.buf, linux);
        }
    }

    @Test
    void aReqShouldCarryTheLocalAckTimeoutLinuxDerivesFromTheQpsAckTimeout() {
        // cm_ack_timeout(ca_ack_delay, packet_life_time), as rdma_cm feeds it after rdma_set_ack_timeout(t):
        // packet life time t - 1
        assertThat(CmTimeouts.ackTimeout(15, 18)).isEqualTo(19);
        assertThat(CmTimeouts.ackTimeout(15, 14)).isEqualTo(16);
        assertThat(CmTimeouts.ackTimeout(20, 10)).isEqualTo(20);
        assertThat(CmTimeouts.ackTimeout(20, 18)).isEqualTo(21);
        assertThat(CmTimeouts.ackTimeout(0, 0)).isEqualTo(2);
        assertThat(CmTimeouts.ackTimeout(0, 31)).isEqualTo(31);
        assertThat(CmTimeouts.reqAckTimeout(0, 14)).isEqualTo(14);
        assertThat(CmTimeouts.reqAckTimeout(0, 0)).as("no timer stays no timer").isZero();
        try (SimLab lab = new SimLab(63)) {
            SimLab.Host client = lab.host();
            LinuxCmPeer linux = new LinuxCmPeer(lab.bareDevice());
            client.cm.connectAsync(new ConnectOptions().destination(linux.gid()).port(PORT)
                    .qp(client.qp().localAckTimeout(1)));
            CmMad req = linux.gsi.receive(lab);
            int delay = client.device.queryDevice().localCaAckDelay();
            assertThat(req.localAckTimeout).as("cm_ack_timeout(%d, 0)", delay)
                    .isEqualTo(CmTimeouts.ackTimeout(delay, 0)).isEqualTo(2);
        }
    }

    /** A SEND each way between the rvt QP and the "Linux" one, every byte checked; a PSN mismatch fails it. */
    private static void sendBothWays(SimLab lab, QueuePair rvt, CompletionQueue rvtCq, MemoryRegion rvtMr,
            ByteBuffer rvtBuf, LinuxCmPeer linux) {
        rvt.postRecv(new RecvWorkRequest(1).wrId(11).sge(rvtMr, 2048, 64));
        linux.qp.postRecv(new RecvWorkRequest(1).wrId(21).sge(linux.mr, 2048, 64));
        for (int i = 0; i < 64; i++) {
            rvtBuf.put(i, (byte) (0x40 + i));
            linux.buf.put(i, (byte) (0x80 + i));
        }
        rvt.postSend(new SendWorkRequest(1).wrId(12).opcode(WrOpcode.SEND).sge(rvtMr, 0, 64));
        linux.qp.postSend(new SendWorkRequest(1).wrId(22).opcode(WrOpcode.SEND).sge(linux.mr, 0, 64));
        List<WorkCompletion> rvtDone = new ArrayList<>();
        List<WorkCompletion> linuxDone = new ArrayList<>();
        lab.runUntil("both SENDs and both receives complete", () -> {
            drain(rvtCq, rvtDone);
            drain(linux.cq, linuxDone);
            return rvtDone.size() == 2 && linuxDone.size() == 2;
        });
        for (WorkCompletion wc : rvtDone) {
            assertThat(wc.status()).as("rvt's %s", wc.opcode()).isEqualTo(WcStatus.SUCCESS);
        }
        for (WorkCompletion wc : linuxDone) {
            assertThat(wc.status()).as("the Linux side's %s", wc.opcode()).isEqualTo(WcStatus.SUCCESS);
        }
        assertThat(rvtDone).extracting(WorkCompletion::opcode).contains(WcOpcode.RECV, WcOpcode.SEND);
        for (int i = 0; i < 64; i++) {
            assertThat(rvtBuf.get(2048 + i)).isEqualTo((byte) (0x80 + i));
            assertThat(linux.buf.get(2048 + i)).isEqualTo((byte) (0x40 + i));
        }
    }

    private static void drain(CompletionQueue cq, List<WorkCompletion> into) {
        WorkCompletion wc = new WorkCompletion();
        while (cq.pollCq(wc)) {
            into.add(wc);
            wc = new WorkCompletion();
        }
    }
}
