package io.rvt.testkit;

import io.rvt.api.Device;
import io.rvt.api.DeviceAttributes;
import io.rvt.api.PathMtu;
import io.rvt.api.PortAttr;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;

/**
 * {@link PairConnector#direct()}: what {@code ibv_rc_pingpong} does after its TCP exchange of LID, QPN, PSN and GID,
 * with the exchange a local one: each QP goes RESET -> INIT -> RTR -> RTS with the other's QPN, PSN and port 1
 * address (GID index 0, global; the LID where the port has one), the smaller of the two ports' active MTUs (as rvt-cm
 * agrees on) and RDMA READ/atomic depths bounded by both devices (as rvt-cm bounds its REQ's and REP's).
 */
final class DirectConnector implements PairConnector {
    static final DirectConnector INSTANCE = new DirectConnector();

    private DirectConnector() {
    }

    @Override
    public Connected[] connect(Endpoint.Resources a, Endpoint.Resources b, Spec spec, Verbs verbs) {
        QueuePair qa = create(a, spec);
        QueuePair qb = create(b, spec);
        int psnA = verbs.nextPsn();
        int psnB = verbs.nextPsn();
        PathMtu mtu = smaller(activeMtu(a.device), activeMtu(b.device));
        int rdAtomic = Math.min(spec.rdAtomic(), Math.min(rdAtomic(a.device), rdAtomic(b.device)));
        bringUp(qa, spec, psnA, b.device, qb.qpNum(), psnB, mtu, rdAtomic);
        bringUp(qb, spec, psnB, a.device, qa.qpNum(), psnA, mtu, rdAtomic);
        return new Connected[] {new Connected(qa, psnA, null), new Connected(qb, psnB, null)};
    }

    private static QueuePair create(Endpoint.Resources r, Spec spec) {
        QpInitAttr init = new QpInitAttr().qpType(spec.type()).sendCq(r.sendCq).recvCq(r.recvCq);
        init.cap().maxSendWr(spec.queueDepth()).maxRecvWr(spec.queueDepth()).maxSendSge(spec.maxSge())
                .maxRecvSge(spec.maxSge());
        return r.pd.createQp(init);
    }

    private static void bringUp(QueuePair qp, Spec spec, int sendPsn, Device peer, int peerQpn, int peerPsn,
            PathMtu mtu, int rdAtomic) {
        boolean rc = spec.type() == QpType.RC;
        qp.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(spec.accessFlags()),
                QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(mtu).destQpNum(peerQpn).rqPsn(peerPsn);
        rtr.ahAttr().dlid(peer.queryPort(1, new PortAttr()).lid()).portNum(1).global(true)
                .dgid(peer.queryGid(1, 0)).sgidIndex(0).hopLimit(64);
        int rtrMask = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                QpAttrMask.RQ_PSN);
        if (rc) {
            rtr.maxDestRdAtomic(rdAtomic).minRnrTimer(spec.minRnrTimer());
            rtrMask |= QpAttrMask.mask(QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER);
        }
        qp.modifyQp(rtr, rtrMask);
        QpAttr rts = new QpAttr().qpState(QpState.RTS).sqPsn(sendPsn);
        int rtsMask = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.SQ_PSN);
        if (rc) {
            rts.timeout(spec.localAckTimeout()).retryCnt(spec.retryCount()).rnrRetry(spec.rnrRetry())
                    .maxRdAtomic(rdAtomic);
            rtsMask |= QpAttrMask.mask(QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY,
                    QpAttrMask.MAX_QP_RD_ATOMIC);
        }
        qp.modifyQp(rts, rtsMask);
    }

    private static PathMtu activeMtu(Device d) {
        return d.queryPort(1, new PortAttr()).activeMtu();
    }

    private static PathMtu smaller(PathMtu a, PathMtu b) {
        return a.value() <= b.value() ? a : b;
    }

    private static int rdAtomic(Device d) {
        DeviceAttributes attrs = d.queryDevice();
        return Math.min(attrs.maxQpRdAtom(), attrs.maxQpInitRdAtom());
    }
}
