package io.rvt.cm.impl;

import io.rvt.api.AccessFlag;
import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
import io.rvt.api.Gid;
import io.rvt.api.MemoryRegion;
import io.rvt.api.PathMtu;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.cm.ConnectionManager;
import java.nio.ByteBuffer;

/**
 * A Linux host's kernel CM as rvt-cm meets it on RoCEv2, played by hand on a device with no CM: the REQ and REP
 * fields as {@code cma_connect_ib}/{@code cm_format_req} and {@code cma_accept_ib}/{@code cm_format_rep} fill them
 * for rxe on a 1500-byte link, and an RC QP brought to RTS the way {@code ib_cm_init_qp_attr} and rdma_cm's
 * {@code rdma_init_qp_attr} set it: the Starting PSN a side sends is the PSN it receives first ({@code rq_psn}), the
 * peer's is where it sends from ({@code sq_psn}). Read from the kernel's cm.c and cma.c for the facts only.
 */
final class LinuxCmPeer {
    /** rxe's {@code local_ca_ack_delay} (RXE_LOCAL_CA_ACK_DELAY). */
    static final int RXE_ACK_DELAY = 15;
    /** rdma_cm's packet life time of a RoCE path (CMA_IBOE_PACKET_LIFETIME). */
    static final int IBOE_PACKET_LIFETIME = 18;
    /** rdma_cm's CM response timeout and retries (CMA_CM_RESPONSE_TIMEOUT, CMA_MAX_CM_RETRIES). */
    static final int CMA_RESPONSE_TIMEOUT = 20;
    static final int CMA_MAX_CM_RETRIES = 15;
    /** rxe's {@code max_qp_rd_atom} and {@code max_qp_init_rd_atom}: what librdmacm offers by default. */
    static final int RXE_MAX_RD_ATOM = 128;

    final RawGsi gsi;
    final Device device;
    final CompletionQueue cq;
    final ByteBuffer buf = ByteBuffer.allocateDirect(4096);
    final MemoryRegion mr;
    /** The RC QP this "Linux" side connects, in RESET until a REQ/REP pair sets it up. */
    final QueuePair qp;

    LinuxCmPeer(Device device) {
        this.device = device;
        this.gsi = new RawGsi(device);
        ProtectionDomain pd = device.allocPd();
        cq = device.createCq(64, 0, null, null);
        mr = pd.regMr(buf, AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ));
        QpInitAttr init = new QpInitAttr().qpType(QpType.RC).sendCq(cq).recvCq(cq);
        init.cap().maxSendWr(16).maxRecvWr(16).maxSendSge(1).maxRecvSge(1);
        qp = pd.createQp(init);
    }

    Gid gid() {
        return gsi.gid();
    }

    /**
     * A REQ as rdma_connect sends it: service ID in RDMA_PS_TCP, the IP CM header, CM timeouts 20 and 15 retries,
     * the local ACK timeout {@code cm_ack_timeout(15, 18)} = 19, MTU 1024 ({@code iboe_get_mtu(1500)}), hop limit
     * 64 and so permissive LIDs and "not subnet local", librdmacm's default depths (the device's maximum, 128 on
     * rxe), and the retry counts an application asked for.
     */
    CmMad req(Gid to, int port, int commId, int startingPsn, int retryCount, int rnrRetryCount) {
        CmMad m = new CmMad();
        m.attrId = CmMad.REQ;
        m.tid = (1L << 32) | (commId & 0xFFFF_FFFFL); // ib_cm: the MAD agent's hi_tid, then the local comm ID
        m.localCommId = commId;
        m.serviceId = ConnectionManager.serviceId(port);
        m.localCaGuid = device.queryDevice().nodeGuid();
        m.localQpn = qp.qpNum();
        m.responderResources = RXE_MAX_RD_ATOM;
        m.initiatorDepth = RXE_MAX_RD_ATOM;
        m.remoteCmResponseTimeout = CMA_RESPONSE_TIMEOUT;
        m.transportType = CmMad.TRANSPORT_RC;
        m.e2eFlowControl = true;
        m.startingPsn = startingPsn; // rdma_cm's seq_num: this QP's rq_psn
        m.localCmResponseTimeout = CMA_RESPONSE_TIMEOUT;
        m.retryCount = retryCount;
        m.pkey = 0xFFFF;
        m.pathMtu = PathMtu.MTU_1024.value();
        m.rnrRetryCount = rnrRetryCount;
        m.maxCmRetries = CMA_MAX_CM_RETRIES;
        m.primaryLocalLid = 0xFFFF;
        m.primaryRemoteLid = 0xFFFF;
        m.primaryLocalGid = gid();
        m.primaryRemoteGid = to;
        int sport = 45000;
        m.flowLabel = (sport * 31 + port) & 0xF_FFFF; // cma_get_roce_udp_flow_label
        m.packetRate = 3;
        m.hopLimit = 64;
        m.subnetLocal = false;
        m.localAckTimeout = CmTimeouts.ackTimeout(RXE_ACK_DELAY, IBOE_PACKET_LIFETIME);
        byte[] hdr = new byte[IpCmHeader.LENGTH];
        IpCmHeader.write(hdr, gid(), to, sport);
        m.privateData(hdr, 0, hdr.length);
        return m;
    }

    /**
     * A REP as rdma_accept sends it for {@code req}: this QP, the PSN it expects first, the depths the application
     * accepted, rxe's ACK delay as target ACK delay.
     */
    CmMad rep(CmMad req, int commId, int startingPsn, int responderResources, int initiatorDepth, int rnrRetry) {
        CmMad m = new CmMad();
        m.attrId = CmMad.REP;
        m.tid = req.tid;
        m.localCommId = commId;
        m.remoteCommId = req.localCommId;
        m.localQpn = qp.qpNum();
        m.startingPsn = startingPsn; // rdma_cm's seq_num: this QP's rq_psn
        m.responderResources = responderResources;
        m.initiatorDepth = initiatorDepth;
        m.targetAckDelay = RXE_ACK_DELAY;
        m.e2eFlowControl = true;
        m.rnrRetryCount = rnrRetry;
        m.localCaGuid = device.queryDevice().nodeGuid();
        return m;
    }

    /** Brings the QP to RTS as the passive side of {@code req} before sending {@code rep} (cma_accept_ib). */
    void setUpAsPassive(CmMad req, CmMad rep) {
        toRts(req.primaryLocalGid, req.localQpn, PathMtu.of(req.pathMtu), rep.startingPsn, rep.responderResources,
                req.startingPsn, req.retryCount, req.rnrRetryCount, rep.initiatorDepth, req.localAckTimeout);
    }

    /** Brings the QP to RTS as the active side once {@code rep} came (cma_rep_recv). */
    void setUpAsActive(CmMad req, CmMad rep, Gid peer) {
        toRts(peer, rep.localQpn, PathMtu.of(req.pathMtu), req.startingPsn, rep.initiatorDepth, rep.startingPsn,
                req.retryCount, rep.rnrRetryCount, rep.responderResources,
                CmTimeouts.ackTimeout(rep.targetAckDelay, IBOE_PACKET_LIFETIME));
    }

    private void toRts(Gid dgid, int destQpn, PathMtu mtu, int rqPsn, int maxDestRdAtomic, int sqPsn, int retry,
            int rnrRetry, int maxRdAtomic, int timeout) {
        qp.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1)
                .qpAccessFlags(AccessFlag.mask(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ,
                        AccessFlag.REMOTE_ATOMIC)),
                QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(mtu).destQpNum(destQpn).rqPsn(rqPsn)
                .maxDestRdAtomic(maxDestRdAtomic).minRnrTimer(0);
        rtr.ahAttr().portNum(1).global(true).dgid(dgid).sgidIndex(0).hopLimit(64);
        qp.modifyQp(rtr, QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER));
        qp.modifyQp(new QpAttr().qpState(QpState.RTS).sqPsn(sqPsn).retryCnt(retry).rnrRetry(rnrRetry)
                .maxRdAtomic(maxRdAtomic).timeout(timeout), QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.SQ_PSN,
                QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY, QpAttrMask.MAX_QP_RD_ATOMIC, QpAttrMask.TIMEOUT));
    }

    /** @return an RTU answering {@code rep} */
    static CmMad rtu(CmMad req, CmMad rep) {
        CmMad m = new CmMad();
        m.attrId = CmMad.RTU;
        m.tid = req.tid;
        m.localCommId = req.localCommId;
        m.remoteCommId = rep.localCommId;
        return m;
    }
}
