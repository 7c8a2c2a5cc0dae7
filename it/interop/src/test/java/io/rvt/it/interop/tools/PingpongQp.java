package io.rvt.it.interop.tools;

import io.rvt.api.AddressHandle;
import io.rvt.api.AhAttr;
import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
import io.rvt.api.Gid;
import io.rvt.api.PathMtu;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.SigType;

/**
 * The QP of an ibv_*_pingpong example and its setup, attribute for attribute as the example's
 * {@code pp_init_ctx} and {@code pp_connect_ctx} do it: one send, {@code -r} receives, one SGE each; INIT with P_Key
 * index 0, port {@code -i} and no remote access (UD: Q_Key {@value #UD_QKEY}); RTR with the path MTU ({@code -m}),
 * the peer's QPN and PSN, one responder resource and RNR timer 12 (RC); RTS with ACK timeout 14, retry and RNR retry
 * 7, one initiator (RC) and this side's PSN. The path (or UD's address handle) is global when the peer's GID has a
 * non-zero interface ID, with hop limit 1 and the source GID index {@code -g}, else it names the LID alone (which a
 * RoCE port cannot route, as on Linux).
 */
final class PingpongQp implements AutoCloseable {
    /** The UD example's Q_Key. */
    static final int UD_QKEY = 0x1111_1111;
    /** The examples' RNR timer code (12: 0.64 ms). */
    static final int MIN_RNR_TIMER = 12;
    /** The examples' ACK timeout code (14: 67 ms). */
    static final int TIMEOUT = 14;

    private final QpType type;
    private final int port;
    private final QueuePair qp;
    private AddressHandle ah;

    /**
     * Creates the QP and moves it to INIT.
     *
     * @param pd the PD
     * @param cq the one CQ of sends and receives
     * @param type RC, UC or UD
     * @param rxDepth the receive queue's size
     * @param port the HCA port
     */
    PingpongQp(ProtectionDomain pd, CompletionQueue cq, QpType type, int rxDepth, int port) {
        this.type = type;
        this.port = port;
        QpInitAttr init = new QpInitAttr().qpType(type).sendCq(cq).recvCq(cq).sigType(SigType.SIGNAL_REQ_WR);
        init.cap().maxSendWr(1).maxRecvWr(rxDepth).maxSendSge(1).maxRecvSge(1);
        qp = pd.createQp(init);
        QpAttr a = new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(port);
        if (type == QpType.UD) {
            qp.modifyQp(a.qkey(UD_QKEY), QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT,
                    QpAttrMask.QKEY));
        } else {
            qp.modifyQp(a.qpAccessFlags(0), QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX,
                    QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        }
    }

    /** @return the QP */
    QueuePair qp() {
        return qp;
    }

    /** @return UD's address handle to the peer, once connected */
    AddressHandle ah() {
        return ah;
    }

    /**
     * {@code pp_connect_ctx}: RTR and RTS toward the peer (UD: its address handle).
     *
     * @param device the HCA (its PD made the QP)
     * @param pd the PD, for UD's address handle
     * @param myPsn this side's send PSN
     * @param mtu the path MTU (RC, UC)
     * @param sl the service level
     * @param remote the peer's destination
     * @param sgidIndex the source GID index ({@code -g})
     * @param ackTimeout rvt's ACK timeout code (the example's is {@value #TIMEOUT})
     */
    void connect(Device device, ProtectionDomain pd, int myPsn, PathMtu mtu, int sl, PingpongDest remote,
            int sgidIndex, int ackTimeout) {
        AhAttr path = path(remote, sl, sgidIndex);
        if (type == QpType.UD) {
            qp.modifyQp(new QpAttr().qpState(QpState.RTR), QpAttrMask.STATE.bit());
            qp.modifyQp(new QpAttr().qpState(QpState.RTS).sqPsn(myPsn),
                    QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.SQ_PSN));
            ah = pd.createAh(path);
            return;
        }
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(mtu).destQpNum(remote.qpn()).rqPsn(remote.psn());
        rtr.ahAttr().copyFrom(path);
        int rtrMask = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                QpAttrMask.RQ_PSN);
        if (type == QpType.RC) {
            rtr.maxDestRdAtomic(1).minRnrTimer(MIN_RNR_TIMER);
            rtrMask |= QpAttrMask.mask(QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER);
        }
        qp.modifyQp(rtr, rtrMask);
        QpAttr rts = new QpAttr().qpState(QpState.RTS).sqPsn(myPsn);
        int rtsMask = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.SQ_PSN);
        if (type == QpType.RC) {
            rts.timeout(ackTimeout).retryCnt(7).rnrRetry(7).maxRdAtomic(1);
            rtsMask |= QpAttrMask.mask(QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY,
                    QpAttrMask.MAX_QP_RD_ATOMIC);
        }
        qp.modifyQp(rts, rtsMask);
    }

    private AhAttr path(PingpongDest remote, int sl, int sgidIndex) {
        AhAttr a = new AhAttr().dlid(remote.lid()).sl(sl).srcPathBits(0).portNum(port);
        if (remote.gid().interfaceId() != 0) {
            a.global(true).hopLimit(1).dgid(remote.gid()).sgidIndex(Math.max(0, sgidIndex));
        }
        return a;
    }

    /**
     * @param device the HCA
     * @param port its port
     * @param gidIndex the tool's {@code -g}, or -1
     * @return the GID the example advertises: that index's, or zero without {@code -g}
     */
    static Gid localGid(Device device, int port, int gidIndex) {
        return gidIndex < 0 ? Gid.ZERO : device.queryGid(port, gidIndex);
    }

    @Override
    public void close() {
        qp.destroyQp();
        if (ah != null) {
            ah.destroyAh();
        }
    }
}
