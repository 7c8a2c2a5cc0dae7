package io.rvt.transport;

import io.rvt.api.AccessFlag;
import io.rvt.api.AddressHandle;
import io.rvt.api.AhAttr;
import io.rvt.api.CompletionQueue;
import io.rvt.api.MemoryRegion;
import io.rvt.api.MigState;
import io.rvt.api.PathMtu;
import io.rvt.api.PortCounter;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SigType;
import io.rvt.api.WorkCompletion;
import io.rvt.core.RvtDevice;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** One device on the {@link Fabric} with a PD, a send and a receive CQ, and helpers to make and wire up QPs. */
final class Node {
    static final int ALL_ACCESS = AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);
    static final int QKEY = 0x1111_2222;

    final WireDriver driver;
    final RvtDevice dev;
    final Fabric fabric;
    final ProtectionDomain pd;
    final CompletionQueue scq;
    final CompletionQueue rcq;

    /** Connection attributes used by {@link #connect}; tests change them before connecting. */
    int accessFlags = ALL_ACCESS;
    int timeout = 14;
    int retryCnt = 7;
    int rnrRetry = 7;
    int minRnrTimer = 1;
    int maxRdAtomic = 4;
    int maxDestRdAtomic = 4;
    int sqPsn = 0x100;
    PathMtu pathMtu;
    SigType sigType = SigType.SIGNAL_ALL_WR;

    Node(WireDriver driver, RvtDevice dev, Fabric fabric) {
        this.driver = driver;
        this.dev = dev;
        this.fabric = fabric;
        this.pd = dev.allocPd();
        this.scq = dev.createCq(4096, 0, null, null);
        this.rcq = dev.createCq(4096, 0, null, null);
        this.pathMtu = PathMtu.MTU_256;
    }

    int lid() {
        return driver.lid();
    }

    long counter(PortCounter c) {
        return dev.portCounter(1, c);
    }

    QueuePair createQp(QpType type, int maxWr, int maxSge) {
        QpInitAttr init = new QpInitAttr().qpType(type).sendCq(scq).recvCq(rcq).sigType(sigType);
        init.cap().maxSendWr(maxWr).maxRecvWr(maxWr).maxSendSge(maxSge).maxRecvSge(maxSge);
        return pd.createQp(init);
    }

    MemoryRegion reg(int size) {
        return reg(size, ALL_ACCESS);
    }

    MemoryRegion reg(int size, int access) {
        return pd.regMr(ByteBuffer.allocateDirect(size), access);
    }

    /**
     * Brings {@code qp} (RC or UC, fresh) to RTS connected to {@code remote} on {@code peer}. By hand, not through
     * rvt-cm: the transport's tests set the PSNs (wrap-around included), MTU, timers and depths they exercise.
     */
    void connect(QueuePair qp, Node peer, QueuePair remote, int rqPsn) {
        boolean rc = qp.type() == QpType.RC;
        QpAttr a = new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(accessFlags);
        qp.modifyQp(a, QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT,
                QpAttrMask.ACCESS_FLAGS));
        a = new QpAttr().qpState(QpState.RTR).pathMtu(pathMtu).destQpNum(remote.qpNum()).rqPsn(rqPsn)
                .maxDestRdAtomic(maxDestRdAtomic).minRnrTimer(minRnrTimer);
        a.ahAttr().dlid(peer.lid()).portNum(1).sl(0);
        int rtr = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                QpAttrMask.RQ_PSN);
        if (rc) {
            rtr |= QpAttrMask.mask(QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER);
        }
        qp.modifyQp(a, rtr);
        a = new QpAttr().qpState(QpState.RTS).sqPsn(sqPsn).timeout(timeout).retryCnt(retryCnt).rnrRetry(rnrRetry)
                .maxRdAtomic(maxRdAtomic).pathMigState(MigState.MIGRATED);
        int rts = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.SQ_PSN);
        if (rc) {
            rts |= QpAttrMask.mask(QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY,
                    QpAttrMask.MAX_QP_RD_ATOMIC);
        }
        qp.modifyQp(a, rts);
    }

    /** Creates a connected pair of RC or UC QPs between {@code a} and {@code b}. */
    static QueuePair[] pair(QpType type, Node a, Node b, int maxWr, int maxSge) {
        QueuePair qa = a.createQp(type, maxWr, maxSge);
        QueuePair qb = b.createQp(type, maxWr, maxSge);
        a.connect(qa, b, qb, b.sqPsn);
        b.connect(qb, a, qa, a.sqPsn);
        return new QueuePair[] {qa, qb};
    }

    /** Brings a fresh UD QP to RTS with the Q_Key {@link #QKEY}. */
    void udUp(QueuePair qp) {
        qp.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(QKEY),
                QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.QKEY));
        qp.modifyQp(new QpAttr().qpState(QpState.RTR), QpAttrMask.STATE.bit());
        qp.modifyQp(new QpAttr().qpState(QpState.RTS).sqPsn(0), QpAttrMask.mask(QpAttrMask.STATE,
                QpAttrMask.SQ_PSN));
    }

    AddressHandle ah(Node peer, boolean global) {
        AhAttr attr = new AhAttr().dlid(peer.lid()).portNum(1).sl(0);
        if (global) {
            attr.dgid(peer.driver.gid()).hopLimit(64);
        }
        return pd.createAh(attr);
    }

    void postRecv(QueuePair qp, long wrId, MemoryRegion mr, int offset, int length) {
        qp.postRecv(new RecvWorkRequest(1).wrId(wrId).sge(mr, offset, length));
    }

    /** @return references SGEs hold on the region (the count less its own and the lkey table's) */
    static int sgeRefs(MemoryRegion mr) {
        return ((io.rvt.core.mr.RvtMr) mr).refCount() - 2;
    }

    static List<WorkCompletion> poll(CompletionQueue cq) {
        List<WorkCompletion> out = new ArrayList<>();
        WorkCompletion wc = new WorkCompletion();
        while (cq.pollCq(wc)) {
            out.add(new WorkCompletion().copyFrom(wc));
        }
        return out;
    }

    @Override
    public String toString() {
        return driver.toString();
    }
}
