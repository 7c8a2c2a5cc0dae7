package io.rvt.cm.impl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.rvt.api.Errno;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.cm.CmEvent;
import io.rvt.cm.CmException;
import io.rvt.cm.ConnectOptions;
import io.rvt.cm.ConnectRequest;
import io.rvt.cm.Connection;
import io.rvt.cm.ConnectionManager;
import io.rvt.cm.RejectReason;
import io.rvt.cm.SimLab;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * SIDR in rdma_cm's UDP port space with its Q_Key, and Timeout REJs as Linux's ib_cm sends and looks them up (by
 * the rejecting CA's GUID in the ARI and its communication ID, the remote one being 0 before a REP).
 */
class LinuxCmDatagramAndRejectTest {
    private static final int PORT = 7471; // 0x1D2F

    @Test
    void shouldServeAndResolveUdServicesInTheUdpPortSpaceAsRdmaCmDoes() {
        try (SimLab lab = new SimLab(64)) {
            SimLab.Host server = lab.host();
            QueuePair ud = udQp(server, ConnectionManager.RDMA_UDP_QKEY);
            server.cm.listenDatagram(PORT, ud, new byte[] {5});
            server.cm.listen(PORT); // the TCP port space is apart: no EADDRINUSE
            RawGsi raw = new RawGsi(lab.bareDevice());

            CmMad sidr = new CmMad();
            sidr.attrId = CmMad.SIDR_REQ;
            sidr.tid = 0x1_0000_2468L;
            sidr.localCommId = 0x2468;
            sidr.pkey = 0xFFFF;
            sidr.serviceId = 0x0000_0000_0111_1D2FL; // cma_resolve_ib_udp: RDMA_PS_UDP << 16 | port
            byte[] hdr = new byte[IpCmHeader.LENGTH];
            IpCmHeader.write(hdr, raw.gid(), server.gid(), 40001);
            sidr.privateData(hdr, 0, hdr.length);
            raw.send(lab, server.gid(), sidr);
            CmMad rep = raw.receive(lab);
            assertThat(rep.attrId).isEqualTo(CmMad.SIDR_REP);
            assertThat(rep.sidrStatus).as("IB_SIDR_SUCCESS").isZero();
            assertThat(rep.localCommId).as("the request ID").isEqualTo(0x2468);
            assertThat(rep.serviceId).isEqualTo(sidr.serviceId);
            assertThat(rep.remoteQpn).isEqualTo(ud.qpNum());
            assertThat(rep.qkey).as("RDMA_UDP_QKEY, which librdmacm's UD side insists on").isEqualTo(0x0123_4567);
            assertThat(rep.privateData[0]).isEqualTo((byte) 5);

            sidr.serviceId = ConnectionManager.serviceId(PORT);
            sidr.localCommId = 0x2469;
            raw.send(lab, server.gid(), sidr);
            assertThat(raw.receive(lab).sidrStatus).as("no UD service in the TCP port space: IB_SIDR_UNSUPPORTED")
                    .isEqualTo(1);

            SimLab.Host client = lab.host();
            client.cm.resolveDatagramAsync(new ConnectOptions().destination(raw.gid()).port(PORT));
            CmMad own = raw.receive(lab);
            assertThat(own.attrId).isEqualTo(CmMad.SIDR_REQ);
            assertThat(own.serviceId).isEqualTo(ConnectionManager.datagramServiceId(PORT))
                    .isEqualTo(0x0000_0000_0111_1D2FL);
        }
    }

    @Test
    void aTimeoutRejShouldNameTheCaGuidAndALinuxOneShouldWithdrawThePendingRequest() {
        try (SimLab lab = new SimLab(65)) {
            SimLab.Host client = lab.host();
            SimLab.Host server = lab.host();
            LinuxCmPeer linux = new LinuxCmPeer(lab.bareDevice());

            Connection c = client.cm.connectAsync(new ConnectOptions().destination(linux.gid()).port(5)
                    .qp(client.qp()));
            CmMad req = linux.gsi.receive(lab);
            c.close(); // gives up before any answer
            CmMad rej = linux.gsi.receive(lab);
            assertThat(rej.attrId).isEqualTo(CmMad.REJ);
            assertThat(rej.reason).isEqualTo(RejectReason.TIMEOUT.code());
            assertThat(rej.localCommId).isEqualTo(req.localCommId);
            assertThat(rej.ariLength).as("the ARI of a Timeout REJ: the rejecting CA's GUID").isEqualTo(8);
            assertThat(ByteBuffer.wrap(rej.ari, 0, 8).getLong())
                    .isEqualTo(client.device.queryDevice().nodeGuid());

            List<ConnectRequest> requests = new CopyOnWriteArrayList<>();
            List<CmEvent> events = new CopyOnWriteArrayList<>();
            server.cm.addEventListener(events::add);
            server.cm.listen(PORT, requests::add);
            CmMad lreq = linux.req(server.gid(), PORT, 0x8A5F_2C12, 0x12_3456, 7, 7);
            linux.gsi.send(lab, server.gid(), lreq);
            lab.runUntil("the request", () -> requests.size() == 1);
            CmMad lrej = new CmMad(); // ib_send_cm_rej from REQ_SENT (rdma_destroy_id): remote ID still 0
            lrej.attrId = CmMad.REJ;
            lrej.tid = lreq.tid;
            lrej.localCommId = lreq.localCommId;
            lrej.remoteCommId = 0;
            lrej.messageCode = CmMad.MSG_REQ;
            lrej.reason = RejectReason.TIMEOUT.code();
            ByteBuffer.wrap(lrej.ari).putLong(0, linux.device.queryDevice().nodeGuid());
            lrej.ariLength = 8;
            linux.gsi.send(lab, server.gid(), lrej);
            lab.runUntil("the request withdrawn", () -> server.cm.idCount() == 1);
            List<String> seen = new ArrayList<>();
            for (CmEvent e : events) {
                seen.add(e.type() + " " + e.previousState() + ">" + e.state());
            }
            assertThat(seen).contains("REJECTED REQ_RCVD>CLOSED");
            CmException e = assertThrows(CmException.class, () -> requests.get(0).acceptAsync(server.qp(), null));
            assertThat(e.errno()).isEqualTo(Errno.EBUSY);
        }
    }

    private static QueuePair udQp(SimLab.Host h, int qkey) {
        QpInitAttr init = new QpInitAttr().qpType(QpType.UD).sendCq(h.cq).recvCq(h.cq);
        init.cap().maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1);
        QueuePair ud = h.pd.createQp(init);
        ud.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(qkey),
                QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.QKEY));
        return ud;
    }
}
