package io.rvt.cm.impl;

import io.rvt.api.Device;
import io.rvt.api.Errno;
import io.rvt.api.Gid;
import io.rvt.api.PathMtu;
import io.rvt.api.PortAttr;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.VerbsException;
import io.rvt.cm.CmException;
import io.rvt.cm.QpOptions;

/**
 * What the CM does to an application's QP: checks the options it is made from, creates it, and applies what the
 * REQ and REP agreed (INIT with the access flags; RTR with the peer's QPN and path and, as {@code rq_psn}, the
 * Starting PSN this side sent; RTS with the peer's Starting PSN as {@code sq_psn}, the retry counts and depth); ERR
 * and destroy when a connection ends. Mirrors what {@code rdma_cm}'s
 * {@code cma_modify_qp_rtr}/{@code cma_modify_qp_rts} and {@code ib_cm_init_qp_attr} do, in rvt's own words.
 */
final class QpSetup {
    private static final System.Logger LOG = System.getLogger(QpSetup.class.getName());

    private QpSetup() {
    }

    /** @throws CmException EINVAL naming what is wrong with the options of a connection's QP */
    static void check(Device device, QpOptions q, Gid peer, int cmPort, long sid) {
        String bad = null;
        if (q.pd() == null) {
            bad = "no protection domain";
        } else if (q.pd().device() != device) {
            bad = "the protection domain belongs to " + q.pd().device().name() + ", not " + device.name();
        } else if (q.sendCq() == null || q.recvCq() == null) {
            bad = "a send and a receive CQ are needed";
        } else if (q.type() != QpType.RC && q.type() != QpType.UC) {
            bad = "a connection is RC or UC, not " + q.type();
        } else if (q.retryCount() < 0 || q.retryCount() > 7 || q.rnrRetryCount() < 0 || q.rnrRetryCount() > 7) {
            bad = "retry counts are 0..7, got " + q.retryCount() + " and " + q.rnrRetryCount();
        } else if (q.localAckTimeout() < 0 || q.localAckTimeout() > 31 || q.minRnrTimer() < 0
                || q.minRnrTimer() > 31) {
            bad = "timer codes are 0..31, got localAckTimeout " + q.localAckTimeout() + ", minRnrTimer "
                    + q.minRnrTimer();
        } else if (q.responderResources() > 255 || q.initiatorDepth() > 255) {
            bad = "responder resources and initiator depth are at most 255";
        }
        if (bad != null) {
            throw new CmException(Errno.EINVAL, "QP options: " + bad, peer, cmPort, sid, null, null, 0);
        }
    }

    /** @return a new QP of the options, in RESET */
    static QueuePair create(QpOptions q) {
        QpInitAttr init = new QpInitAttr().qpType(q.type()).sendCq(q.sendCq()).recvCq(q.recvCq()).srq(q.srq())
                .sigType(q.sigType()).eventHandler(q.eventHandler());
        init.cap().copyFrom(q.cap());
        return q.pd().createQp(init);
    }

    /** RESET to INIT on {@code hcaPort} with the options' access flags. */
    static void toInit(QueuePair qp, QpOptions q, int hcaPort) {
        qp.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(hcaPort).qpAccessFlags(q.accessFlags()),
                QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
    }

    /** INIT to RTR with the peer's QPN and path, expecting the PSN this side sent in its REQ or REP. */
    static void toRtr(ConnId id, int dlid) {
        QpAttr a = new QpAttr().qpState(QpState.RTR).pathMtu(id.mtu).destQpNum(id.remoteQpn).rqPsn(id.recvPsn);
        a.ahAttr().dlid(id.port.roce() ? 0 : dlid).sl(id.sl).portNum(id.port.num).global(true).dgid(id.remoteGid)
                .sgidIndex(id.sgidIndex).flowLabel(id.flowLabel).hopLimit(id.hopLimit)
                .trafficClass(id.trafficClass);
        int mask = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                QpAttrMask.RQ_PSN);
        if (id.qp.type() == QpType.RC) {
            a.maxDestRdAtomic(id.responderResources).minRnrTimer(id.qpOptions.minRnrTimer());
            mask |= QpAttrMask.mask(QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER);
        }
        id.qp.modifyQp(a, mask);
    }

    /** RTR to RTS sending from the peer's Starting PSN, with the agreed retry counts and depth. */
    static void toRts(ConnId id, int rnrRetry, int initiatorDepth) {
        QpAttr a = new QpAttr().qpState(QpState.RTS).sqPsn(id.sendPsn);
        int mask = QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.SQ_PSN);
        if (id.qp.type() == QpType.RC) {
            a.timeout(id.localAckTimeout).retryCnt(id.retryCount).rnrRetry(rnrRetry).maxRdAtomic(initiatorDepth);
            mask |= QpAttrMask.mask(QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY,
                    QpAttrMask.MAX_QP_RD_ATOMIC);
        }
        id.qp.modifyQp(a, mask);
    }

    /** Moves an ID's QP to ERR (its posted work flushes), unless it is there or in RESET. */
    static void toError(ConnId id) {
        QueuePair qp = id.qp;
        if (qp != null && qp.state() != QpState.ERR && qp.state() != QpState.RESET) {
            quietly(() -> qp.modifyQp(new QpAttr().qpState(QpState.ERR), QpAttrMask.STATE.bit()));
        }
    }

    /** Destroys an ID's QP, if it still has one. */
    static void destroy(ConnId id) {
        QueuePair qp = id.qp;
        if (qp != null) {
            id.qp = null;
            quietly(qp::destroyQp);
        }
    }

    /** @return the index of {@code gid} in the port's GID table, 0 if it is not there */
    static int sgidIndexOf(Device device, GsiPort port, Gid gid) {
        PortAttr pa = device.queryPort(port.num, new PortAttr());
        for (int i = 0; i < Math.max(1, pa.gidTblLen()); i++) {
            try {
                if (device.queryGid(port.num, i).equals(gid)) {
                    return i;
                }
            } catch (VerbsException e) {
                break;
            }
        }
        return 0;
    }

    /** @return what was asked, bounded by the device (and 255, the REQ's field); the bound if nothing was asked */
    static int bound(int asked, int deviceMax) {
        return asked < 0 ? Math.min(deviceMax, 255) : Math.min(asked, deviceMax);
    }

    /** @return the smaller MTU; {@code a} if {@code b} is null */
    static PathMtu smaller(PathMtu a, PathMtu b) {
        return b == null || a.value() <= b.value() ? a : b;
    }

    /** @return the MTU of an IBTA MTU code, or null for a code that names none */
    static PathMtu mtuOf(int value) {
        try {
            return PathMtu.of(value);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Runs a cleanup step; a failure is logged, not thrown. */
    static void quietly(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "rvt-cm: cleanup step failed: " + e.getMessage());
        }
    }
}
