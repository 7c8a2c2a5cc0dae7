package io.rvt.it.app;

import io.rvt.api.AccessFlag;
import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
import io.rvt.api.MemoryRegion;
import io.rvt.api.PortAttr;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import java.nio.ByteBuffer;

/**
 * One end of an RC connection: a PD, a send and a receive CQ, an RC QP on port 1 and one registered buffer. A port
 * without a LID (RoCE: driver-jni) is reached through a GRH with the peer's GID 0; other ports by LID.
 */
public final class RcEndpoint {
    private static final int ACCESS = AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE);

    final Device device;
    final ProtectionDomain pd;
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    final QueuePair qp;
    final ByteBuffer buffer;
    final MemoryRegion mr;

    private RcEndpoint(Device device, int bufferBytes, int depth) {
        this.device = device;
        pd = device.allocPd();
        sendCq = device.createCq(depth, 0, null, null);
        recvCq = device.createCq(depth, 0, null, null);
        QpInitAttr init = new QpInitAttr().qpType(QpType.RC).sendCq(sendCq).recvCq(recvCq);
        init.cap().maxSendWr(depth).maxRecvWr(depth).maxSendSge(1).maxRecvSge(1);
        qp = pd.createQp(init);
        buffer = ByteBuffer.allocateDirect(bufferBytes);
        mr = pd.regMr(buffer, ACCESS);
    }

    /**
     * Creates an endpoint on each device and connects their QPs (RESET → INIT → RTR → RTS, each with the other's
     * LID and QPN). {@code a} and {@code b} may be the same device: two of its QPs then talk to each other.
     *
     * @param a           the first device
     * @param b           the second device
     * @param bufferBytes each endpoint's buffer
     * @param depth       the send and receive queue depth (and CQ size)
     * @return the two endpoints, a's first
     */
    public static RcEndpoint[] connected(Device a, Device b, int bufferBytes, int depth) {
        RcEndpoint ea = new RcEndpoint(a, bufferBytes, depth);
        RcEndpoint eb = new RcEndpoint(b, bufferBytes, depth);
        ea.connectTo(eb);
        eb.connectTo(ea);
        return new RcEndpoint[] {ea, eb};
    }

    private int lid() {
        return device.queryPort(1, new PortAttr()).lid();
    }

    private void connectTo(RcEndpoint peer) {
        qp.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(ACCESS),
                QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(device.queryPort(1, new PortAttr()).activeMtu())
                .destQpNum(peer.qp.qpNum()).rqPsn(0).maxDestRdAtomic(1).minRnrTimer(12);
        int dlid = peer.lid();
        rtr.ahAttr().dlid(dlid).portNum(1);
        if (dlid == 0) { // RoCE has no LIDs: the GID (an IP address) is the only way to the peer
            rtr.ahAttr().dgid(peer.device.queryGid(1, 0)).sgidIndex(0).hopLimit(64);
        }
        qp.modifyQp(rtr, QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER));
        qp.modifyQp(new QpAttr().qpState(QpState.RTS).timeout(14).retryCnt(7).rnrRetry(7).sqPsn(0).maxRdAtomic(1),
                QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY,
                        QpAttrMask.SQ_PSN, QpAttrMask.MAX_QP_RD_ATOMIC));
    }

    /** Destroys the QP, CQs, MR and PD, in that order. Only for a device that is still alive. */
    void destroy() {
        qp.destroyQp();
        sendCq.destroyCq();
        recvCq.destroyCq();
        mr.deregMr();
        pd.deallocPd();
    }
}
