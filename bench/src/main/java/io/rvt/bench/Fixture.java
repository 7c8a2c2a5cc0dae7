package io.rvt.bench;

import io.rvt.api.AccessFlag;
import io.rvt.api.CompletionQueue;
import io.rvt.api.PathMtu;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.core.RvtDevice;

/** Builds a device, a PD, CQs and connected RC QPs for the benchmarks. */
final class Fixture implements AutoCloseable {
    final RvtDevice device;
    final ProtectionDomain pd;
    final CompletionQueue cq;

    Fixture(BenchDriver.Mode mode) {
        device = RvtDevice.register(new BenchDriver(mode));
        pd = device.allocPd();
        cq = device.createCq(4096, 0, null, null);
    }

    QueuePair rcQp() {
        QpInitAttr init = new QpInitAttr().qpType(QpType.RC).sendCq(cq).recvCq(cq);
        init.cap().maxSendWr(256).maxRecvWr(256).maxSendSge(1).maxRecvSge(1);
        return pd.createQp(init);
    }

    static void connect(QueuePair qp, int remoteQpn) {
        int all = AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ,
                AccessFlag.REMOTE_ATOMIC);
        QpAttr a = new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(all);
        qp.modifyQp(a, QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT,
                QpAttrMask.ACCESS_FLAGS));
        a = new QpAttr().qpState(QpState.RTR).pathMtu(PathMtu.MTU_4096).destQpNum(remoteQpn).rqPsn(0)
                .maxDestRdAtomic(16).minRnrTimer(1);
        a.ahAttr().dlid(1).portNum(1);
        qp.modifyQp(a, QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER));
        a = new QpAttr().qpState(QpState.RTS).timeout(14).retryCnt(7).rnrRetry(7).sqPsn(0).maxRdAtomic(16);
        qp.modifyQp(a, QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT,
                QpAttrMask.RNR_RETRY, QpAttrMask.SQ_PSN, QpAttrMask.MAX_QP_RD_ATOMIC));
    }

    @Override
    public void close() {
        device.unregister();
    }
}
