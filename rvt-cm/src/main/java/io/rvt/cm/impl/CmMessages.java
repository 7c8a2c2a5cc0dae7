package io.rvt.cm.impl;

import io.rvt.api.Gid;
import io.rvt.api.QpType;
import io.rvt.cm.QpOptions;
import io.rvt.cm.RejectReason;

/**
 * The CM's messages as it builds them (IBTA vol 1 ch 12.6): the fields each carries from a communication ID, so that
 * the state machine only decides what to send.
 */
final class CmMessages {
    /** The permissive LID, which RoCE puts in the CM's LID fields (it has no LIDs). */
    static final int PERMISSIVE_LID = 0xFFFF;
    /** IB_RATE_10_GBPS, the packet rate the REQ's path names. */
    private static final int PACKET_RATE_10G = 3;

    private CmMessages() {
    }

    /**
     * @return the REQ of an active ID (its TID, comm ID and MTU are set at each send), from a CA with ACK delay
     *         {@code caAckDelay}
     */
    static CmMad req(ConnId id, long caGuid, int caAckDelay, Gid src, byte[] pdata) {
        GsiPort port = id.port;
        CmMad m = new CmMad();
        m.attrId = CmMad.REQ;
        m.localCommId = id.localId;
        m.serviceId = id.serviceId;
        m.localCaGuid = caGuid;
        m.localQpn = id.qp.qpNum();
        m.responderResources = id.responderResources;
        m.initiatorDepth = id.initiatorDepth;
        m.remoteCmResponseTimeout = id.peerResponseTimeout;
        m.transportType = id.qp.type() == QpType.UC ? CmMad.TRANSPORT_UC : CmMad.TRANSPORT_RC;
        m.e2eFlowControl = true;
        m.startingPsn = id.recvPsn; // ib_cm: the PSN this side receives first, the passive side's sq_psn
        m.localCmResponseTimeout = id.ownResponseTimeout;
        m.retryCount = id.retryCount;
        m.pkey = port.pkey;
        m.rnrRetryCount = id.qpOptions.rnrRetryCount();
        m.maxCmRetries = id.maxRetries;
        m.srq = id.qpOptions.srq() != null;
        m.primaryLocalLid = port.roce() ? PERMISSIVE_LID : port.lid;
        m.primaryRemoteLid = port.roce() ? PERMISSIVE_LID : 0;
        m.primaryLocalGid = src;
        m.primaryRemoteGid = id.remoteGid;
        m.flowLabel = id.flowLabel;
        m.packetRate = PACKET_RATE_10G;
        m.trafficClass = id.trafficClass;
        m.hopLimit = id.hopLimit;
        m.sl = id.sl;
        m.subnetLocal = true;
        m.localAckTimeout = CmTimeouts.reqAckTimeout(caAckDelay, id.localAckTimeout);
        m.privateData(pdata, 0, pdata.length);
        return m;
    }

    /** @return the REP a passive ID answers with, for its QP made from {@code q}, from a CA with that ACK delay */
    static CmMad rep(ConnId id, QpOptions q, long caGuid, int caAckDelay, byte[] privateData) {
        CmMad rep = new CmMad();
        rep.attrId = CmMad.REP;
        rep.tid = id.tid;
        rep.localCommId = id.localId;
        rep.remoteCommId = id.remoteId;
        rep.localQpn = id.qp.qpNum();
        rep.startingPsn = id.recvPsn; // as in the REQ: the passive side's rq_psn, the active side's sq_psn
        rep.responderResources = id.responderResources;
        rep.initiatorDepth = id.initiatorDepth;
        rep.e2eFlowControl = true;
        rep.targetAckDelay = caAckDelay; // cm_format_rep: the device's local_ca_ack_delay
        rep.rnrRetryCount = q.rnrRetryCount();
        rep.srq = q.srq() != null;
        rep.localCaGuid = caGuid;
        if (privateData != null) {
            rep.privateData(privateData, 0, privateData.length);
        }
        return rep;
    }

    /** @return the RTU of an active ID */
    static CmMad rtu(ConnId id) {
        CmMad rtu = new CmMad();
        rtu.attrId = CmMad.RTU;
        rtu.tid = id.tid;
        rtu.localCommId = id.localId;
        rtu.remoteCommId = id.remoteId;
        return rtu;
    }

    /** @return an MRA asking the peer for {@code serviceTimeout} more, for the message {@code what} */
    static CmMad mra(ConnId id, int what, int serviceTimeout) {
        CmMad m = new CmMad();
        m.attrId = CmMad.MRA;
        m.tid = id.tid;
        m.localCommId = id.localId;
        m.remoteCommId = id.remoteId;
        m.messageCode = what;
        m.serviceTimeout = serviceTimeout;
        return m;
    }

    /** @return a REJ of the message {@code what}, with its additional reject information and private data */
    static CmMad rej(int localId, int remoteId, long tid, int what, RejectReason reason, byte[] ari,
            byte[] privateData) {
        CmMad m = new CmMad();
        m.attrId = CmMad.REJ;
        m.tid = tid;
        m.localCommId = localId;
        m.remoteCommId = remoteId;
        m.messageCode = what;
        m.reason = reason.code();
        if (ari != null) {
            m.ariLength = Math.min(ari.length, CmMad.REJ_ARI);
            System.arraycopy(ari, 0, m.ari, 0, m.ariLength);
        }
        if (privateData != null) {
            m.privateData(privateData, 0, privateData.length);
        }
        return m;
    }

    /** @return the DREQ of an ID (its TID is the one given) */
    static CmMad dreq(ConnId id, long tid, byte[] privateData) {
        CmMad m = new CmMad();
        m.attrId = CmMad.DREQ;
        m.tid = tid;
        m.localCommId = id.localId;
        m.remoteCommId = id.remoteId;
        m.remoteQpn = id.remoteQpn;
        if (privateData != null) {
            m.privateData(privateData, 0, privateData.length);
        }
        return m;
    }

    /** @return a DREP */
    static CmMad drep(int localId, int remoteId, long tid) {
        CmMad m = new CmMad();
        m.attrId = CmMad.DREP;
        m.tid = tid;
        m.localCommId = localId;
        m.remoteCommId = remoteId;
        return m;
    }
}
