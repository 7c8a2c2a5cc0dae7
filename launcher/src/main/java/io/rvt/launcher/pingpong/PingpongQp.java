package io.rvt.launcher.pingpong;

import io.rvt.api.AddressHandle;
import io.rvt.api.AhAttr;
import io.rvt.api.CompletionQueue;
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
 * The examples' QP ({@code pp_init_ctx}, {@code pp_connect_ctx}): one CQ for sends and receives, one send WR,
 * {@code -r} receive WRs, one SGE each; INIT with P_Key index 0 (UD: Q_Key 0x11111111; RC/UC: no remote access); RTR
 * with the path MTU ({@code -m}), the peer's QPN and PSN, one responder resource and RNR timer 12 (RC); RTS with the
 * ACK timeout (14 unless rvt's {@code -u}), retry and RNR retry 7, one initiator (RC) and this side's PSN. The path
 * (or UD's address handle) is global when the peer's GID has a non-zero interface ID, with hop limit 1 and the source
 * GID index {@code -g}, else it names the LID alone, which a RoCE port cannot route (refused here, naming why).
 */
public final class PingpongQp implements AutoCloseable {
    /** The UD example's Q_Key. */
    public static final int UD_QKEY = 0x1111_1111;
    /** The examples' RNR timer code (12: 0.64 ms). */
    static final int MIN_RNR_TIMER = 12;

    private final QpType type;
    private final int port;
    private final QueuePair qp;
    private AddressHandle ah;

    /**
     * How the QP reaches its peer besides the peer's destination.
     *
     * @param mtu the path MTU (RC, UC)
     * @param sl the service level ({@code -l})
     * @param sgidIndex the source GID index ({@code -g})
     * @param ackTimeout the RC local ACK timeout code (the examples' 14)
     * @param hasLid whether the port has a LID (InfiniBand); a RoCE port has none and needs the peer's GID
     */
    public record Path(PathMtu mtu, int sl, int sgidIndex, int ackTimeout, boolean hasLid) {
    }

    /**
     * Creates the QP and moves it to INIT.
     *
     * @param pd the PD
     * @param cq the one CQ of sends and receives
     * @param type RC, UC or UD
     * @param rxDepth the receive queue's size
     * @param port the HCA port
     */
    public PingpongQp(ProtectionDomain pd, CompletionQueue cq, QpType type, int rxDepth, int port) {
        this.type = type;
        this.port = port;
        QpInitAttr init = new QpInitAttr().qpType(type).sendCq(cq).recvCq(cq).sigType(SigType.SIGNAL_REQ_WR);
        init.cap().maxSendWr(1).maxRecvWr(rxDepth).maxSendSge(1).maxRecvSge(1);
        qp = pd.createQp(init);
        QpAttr a = new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(port);
        try {
            if (type == QpType.UD) {
                qp.modifyQp(a.qkey(UD_QKEY), QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX,
                        QpAttrMask.PORT, QpAttrMask.QKEY));
            } else {
                qp.modifyQp(a.qpAccessFlags(0), QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX,
                        QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
            }
        } catch (RuntimeException e) {
            qp.destroyQp();
            throw e;
        }
    }

    /** @return the QP */
    public QueuePair qp() {
        return qp;
    }

    /** @return UD's address handle to the peer, once connected; null before and on RC/UC */
    public AddressHandle ah() {
        return ah;
    }

    /**
     * {@code pp_connect_ctx}: RTR and RTS toward the peer (UD: its address handle).
     *
     * @param pd the PD, for UD's address handle
     * @param myPsn this side's send PSN
     * @param remote the peer's destination
     * @param path the path MTU, SL, source GID index and ACK timeout
     * @throws IllegalStateException if the peer gave no GID and the port has no LID to reach it by
     */
    public void connect(ProtectionDomain pd, int myPsn, PingpongDest remote, Path path) {
        AhAttr av = addressVector(remote, path);
        if (type == QpType.UD) {
            qp.modifyQp(new QpAttr().qpState(QpState.RTR), QpAttrMask.STATE.bit());
            qp.modifyQp(new QpAttr().qpState(QpState.RTS).sqPsn(myPsn),
                    QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.SQ_PSN));
            ah = pd.createAh(av);
            return;
        }
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(path.mtu()).destQpNum(remote.qpn())
                .rqPsn(remote.psn());
        rtr.ahAttr().copyFrom(av);
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
            rts.timeout(path.ackTimeout()).retryCnt(7).rnrRetry(7).maxRdAtomic(1);
            rtsMask |= QpAttrMask.mask(QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY,
                    QpAttrMask.MAX_QP_RD_ATOMIC);
        }
        qp.modifyQp(rts, rtsMask);
    }

    private AhAttr addressVector(PingpongDest remote, Path path) {
        AhAttr a = new AhAttr().dlid(remote.lid()).sl(path.sl()).srcPathBits(0).portNum(port);
        if (remote.gid().interfaceId() != 0) {
            a.global(true).hopLimit(1).dgid(remote.gid()).sgidIndex(Math.max(0, path.sgidIndex()));
        } else if (!path.hasLid()) {
            throw new IllegalStateException("the peer sent no GID (" + remote.describe() + ") and this RoCE port "
                    + "has no LIDs: start the peer with -g, e.g. -g 1 for rxe's IPv4 GID");
        }
        return a;
    }

    @Override
    public void close() {
        if (ah != null) {
            ah.destroyAh();
        }
        qp.destroyQp();
    }
}
