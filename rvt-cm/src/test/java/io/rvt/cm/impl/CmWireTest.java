package io.rvt.cm.impl;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Gid;
import io.rvt.api.PathMtu;
import io.rvt.cm.CmEventType;
import io.rvt.cm.CmException;
import io.rvt.cm.CmState;
import io.rvt.cm.ConnectOptions;
import io.rvt.cm.Connection;
import io.rvt.cm.ConnectionManager;
import io.rvt.cm.RejectReason;
import io.rvt.cm.SimLab;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** The CM's MADs as a peer sees them, and its answers to MADs written by hand. */
class CmWireTest {
    static CmMad req(RawGsi raw, Gid to, int commId, int qpn, int port) {
        CmMad m = new CmMad();
        m.attrId = CmMad.REQ;
        m.tid = 0x1234_0000_0000_0000L | commId;
        m.localCommId = commId;
        m.serviceId = ConnectionManager.serviceId(port);
        m.localCaGuid = 0x1122;
        m.localQpn = qpn;
        m.responderResources = 4;
        m.initiatorDepth = 4;
        m.remoteCmResponseTimeout = 16;
        m.transportType = CmMad.TRANSPORT_RC;
        m.startingPsn = 0xABCDE;
        m.localCmResponseTimeout = 16;
        m.retryCount = 7;
        m.pkey = 0xFFFF;
        m.pathMtu = PathMtu.MTU_4096.value();
        m.rnrRetryCount = 7;
        m.maxCmRetries = 15;
        m.primaryLocalGid = raw.gid();
        m.primaryRemoteGid = to;
        m.hopLimit = 64;
        m.localAckTimeout = 14;
        byte[] hdr = new byte[IpCmHeader.LENGTH];
        IpCmHeader.write(hdr, raw.gid(), to, 40000);
        m.privateData(hdr, 0, hdr.length);
        return m;
    }

    @Test
    void shouldSendAReqWithRdmaCmServiceIdAndIpHeader() {
        try (SimLab lab = new SimLab(21)) {
            SimLab.Host client = lab.host();
            RawGsi raw = new RawGsi(lab.bareDevice());
            Connection c = client.cm.connectAsync(new ConnectOptions().destination(raw.gid()).port(4791)
                    .qp(client.qp()).privateData(new byte[] {7, 8}).sourcePort(33333));
            CmMad m = raw.receive(lab);
            assertThat(m.attrId).isEqualTo(CmMad.REQ);
            assertThat(raw.lastSource).isEqualTo(client.gid());
            assertThat(m.serviceId).isEqualTo(0x0000_0000_0106_12B7L);
            assertThat(m.localCommId).isEqualTo(c.localCommId());
            assertThat(m.localQpn).isEqualTo(c.qp().qpNum());
            assertThat(m.startingPsn).as("the PSN the active QP receives first").isEqualTo(c.receivePsn())
                    .isBetween(0, 0xFF_FFFF);
            assertThat(m.transportType).isEqualTo(CmMad.TRANSPORT_RC);
            assertThat(m.pathMtu).isEqualTo(PathMtu.MTU_4096.value());
            assertThat(m.primaryLocalGid).isEqualTo(client.gid());
            assertThat(m.primaryRemoteGid).isEqualTo(raw.gid());
            assertThat(m.remoteCmResponseTimeout).isEqualTo(16);
            assertThat(m.maxCmRetries).isEqualTo(15);
            assertThat(m.retryCount).isEqualTo(7);
            assertThat(m.rnrRetryCount).isEqualTo(7);
            assertThat(m.localAckTimeout).isEqualTo(14);
            byte[] pd = m.privateData;
            assertThat(IpCmHeader.present(pd, CmMad.REQ_PRIVATE)).isTrue();
            assertThat(pd[0]).as("cma version").isZero();
            assertThat(pd[1] & 0xFF).as("IP version 6 (GIDs not IPv4-mapped)").isEqualTo(0x60);
            assertThat(IpCmHeader.sourcePort(pd)).isEqualTo(33333);
            assertThat(Gid.of(java.util.Arrays.copyOfRange(pd, 4, 20))).isEqualTo(client.gid());
            assertThat(Gid.of(java.util.Arrays.copyOfRange(pd, 20, 36))).isEqualTo(raw.gid());
            assertThat(pd[36]).isEqualTo((byte) 7);
            assertThat(pd[37]).isEqualTo((byte) 8);

            CmMad rej = new CmMad();
            rej.attrId = CmMad.REJ;
            rej.tid = m.tid;
            rej.localCommId = 0x55;
            rej.remoteCommId = m.localCommId;
            rej.reason = RejectReason.CONSUMER_DEFINED.code();
            rej.privateData(new byte[] {'x'}, 0, 1);
            raw.send(lab, client.gid(), rej);
            lab.runUntil("refused", () -> c.established().isDone());
            CmException e = (CmException) org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                    () -> c.established().join()).getCause();
            assertThat(e.rejectReason()).isEqualTo(RejectReason.CONSUMER_DEFINED);
            assertThat(e.rejectPrivateData()).startsWith('x');
        }
    }

    @Test
    void shouldResendTheRepForADuplicateReqAndRejectAStaleOne() {
        try (SimLab lab = new SimLab(22)) {
            SimLab.Host server = lab.host();
            List<Connection> accepted = new ArrayList<>();
            server.cm.listen(5, r -> accepted.add(r.acceptAsync(server.qp(), new byte[] {3})));
            RawGsi raw = new RawGsi(lab.bareDevice());
            CmMad req = req(raw, server.gid(), 0x1111, 0x77, 5);
            raw.send(lab, server.gid(), req);
            CmMad rep = raw.receive(lab);
            assertThat(rep.attrId).isEqualTo(CmMad.REP);
            assertThat(rep.remoteCommId).isEqualTo(0x1111);
            assertThat(rep.tid).as("a response carries the request's transaction ID").isEqualTo(req.tid);
            assertThat(rep.privateData[0]).isEqualTo((byte) 3);
            Connection s = accepted.get(0);
            assertThat(rep.localQpn).isEqualTo(s.qp().qpNum());
            assertThat(s.sendPsn()).as("the passive QP sends from the REQ's Starting PSN").isEqualTo(0xABCDE);
            assertThat(s.remoteQpn()).isEqualTo(0x77);

            raw.send(lab, server.gid(), req); // the REP was "lost": the same REQ again
            CmMad again = raw.receive(lab);
            assertThat(again.attrId).isEqualTo(CmMad.REP);
            assertThat(again.localCommId).isEqualTo(rep.localCommId);
            assertThat(again.localQpn).isEqualTo(rep.localQpn);
            assertThat(again.startingPsn).isEqualTo(rep.startingPsn);
            assertThat(accepted).as("no second connection").hasSize(1);

            CmMad rtu = new CmMad();
            rtu.attrId = CmMad.RTU;
            rtu.tid = req.tid;
            rtu.localCommId = 0x1111;
            rtu.remoteCommId = rep.localCommId;
            raw.send(lab, server.gid(), rtu);
            lab.await("established", s.established());

            // a new REQ from the same QP while its connection is up: stale
            raw.send(lab, server.gid(), req(raw, server.gid(), 0x2222, 0x77, 5));
            CmMad rej = raw.receive(lab);
            assertThat(rej.attrId).isEqualTo(CmMad.REJ);
            assertThat(rej.reason).isEqualTo(RejectReason.STALE_CONN.code());
            assertThat(rej.remoteCommId).isEqualTo(0x2222);
            CmMad dreq = raw.receive(lab);
            assertThat(dreq.attrId).as("the old connection is ended").isEqualTo(CmMad.DREQ);
            assertThat(dreq.remoteCommId).isEqualTo(0x1111);
            assertThat(dreq.remoteQpn).isEqualTo(0x77);
            assertThat(s.state()).isEqualTo(CmState.DREQ_SENT);
        }
    }

    @Test
    void shouldAnswerAnUnknownRepWithInvalidCommIdAndDropAMalformedMad() {
        try (SimLab lab = new SimLab(23)) {
            SimLab.Host server = lab.host();
            RawGsi raw = new RawGsi(lab.bareDevice());
            CmMad rep = new CmMad();
            rep.attrId = CmMad.REP;
            rep.tid = 9;
            rep.localCommId = 0x3333;
            rep.remoteCommId = 0x4444;
            raw.send(lab, server.gid(), rep);
            CmMad rej = raw.receive(lab);
            assertThat(rej.attrId).isEqualTo(CmMad.REJ);
            assertThat(rej.reason).isEqualTo(RejectReason.INVALID_COMM_ID.code());
            assertThat(rej.remoteCommId).isEqualTo(0x3333);
            assertThat(rej.messageCode).isEqualTo(CmMad.MSG_REP);

            CmEngine engine = ((CmHandle) server.cm).engineRef();
            long dropped = engine.counters().get("dropped_malformed");
            req(raw, server.gid(), 1, 2, 5).encode(raw.sendArea(), raw.sendOffset());
            raw.sendArea().put(raw.sendOffset() + 2, (byte) 1); // class version 1
            raw.sendRaw(lab, server.gid(), raw.sendOffset());
            assertThat(raw.anyWithin(lab, 1_000_000_000L)).as("no answer to a malformed MAD").isFalse();
            assertThat(engine.counters()).containsEntry("dropped_malformed", dropped + 1)
                    .containsEntry("mads_dropped", dropped + 1);
            assertThat(server.cm.idCount()).isZero();
        }
    }

    @Test
    void shouldReportEveryStateChangeOfAConnection() {
        try (SimLab lab = new SimLab(24)) {
            SimLab.Host server = lab.host();
            SimLab.Host client = lab.host();
            List<String> s = new ArrayList<>();
            List<String> c = new ArrayList<>();
            server.cm.addEventListener(e -> s.add(e.type() + " " + e.previousState() + ">" + e.state()));
            client.cm.addEventListener(e -> c.add(e.type() + " " + e.previousState() + ">" + e.state()));
            server.cm.listen(6, r -> r.acceptAsync(server.qp(), null));
            Connection conn = client.cm.connectAsync(new ConnectOptions().destination(server.gid()).port(6)
                    .qp(client.qp()));
            lab.await("established", conn.established());
            conn.disconnect();
            lab.await("disconnected", conn.disconnected());
            lab.runUntil("out of timewait", () -> client.cm.idCount() == 0 && server.cm.idCount() == 1);
            assertThat(c).containsExactly("REQUEST_SENT IDLE>REQ_SENT", "REPLY_RECEIVED REQ_SENT>REP_RCVD",
                    "ESTABLISHED REP_RCVD>ESTABLISHED", "DISCONNECT_REQUESTED ESTABLISHED>DREQ_SENT",
                    "DISCONNECTED DREQ_SENT>TIMEWAIT", "TIMEWAIT_EXIT TIMEWAIT>CLOSED");
            assertThat(s).containsExactly("CONNECT_REQUEST IDLE>REQ_RCVD", "REPLY_SENT REQ_RCVD>REP_SENT",
                    "ESTABLISHED REP_SENT>ESTABLISHED", "DISCONNECT_RECEIVED ESTABLISHED>DREQ_RCVD",
                    "DISCONNECTED DREQ_RCVD>TIMEWAIT", "TIMEWAIT_EXIT TIMEWAIT>CLOSED");
            assertThat(CmEventType.values()).hasSizeGreaterThan(10);
        }
    }
}
