package io.rvt.core.qp;

import static io.rvt.api.Errno.EINVAL;

import io.rvt.api.DeviceCounter;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpType;
import io.rvt.api.spi.RvtDriver;
import io.rvt.core.base.Errors;
import io.rvt.core.mr.RvtPd;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A QP's birth and death: {@code rvt_create_qp} (every use it takes is given back if any later step fails) and
 * {@code rvt_destroy_qp} (reset, wait for the last reference, give everything back in the reverse order).
 */
final class QpLifecycle {
    private QpLifecycle() {
    }

    /**
     * Mirrors {@code rvt_create_qp}: checks the request against the device limits, builds the send ring (with room
     * for the driver's reserved operations), the receive queue, the driver's private state and a QP number. The QP
     * starts in RESET, outside the QP table.
     *
     * @param dev the device
     * @param pd the PD
     * @param init the request; its {@code cap()} is updated with the sizes in effect
     * @return the QP
     */
    static RvtQp create(QpDevice dev, RvtPd pd, QpInitAttr init) {
        int recvMaxSge = QpCreateCheck.check(dev, init);

        // Every use is taken before anything else and given back on any failure (a deallocated PD, a destroyed CQ
        // or SRQ, a driver callback that fails or throws): a failed create leaves every count as it was.
        pd.retainUse();
        RvtQp qp = null;
        boolean privAllocated = false;
        int qpn = -1;
        int taken = 0; // 1: the QPN, 2: + QPS_ALLOCATED, 3: + sendCq, 4: + recvCq, 5: + srq
        try {
            qp = new RvtQp(dev, pd, init, init.cap().maxSendSge(), recvMaxSge);
            if (qp.qpPrivate != null) {
                qp.priv = qp.qpPrivate.qpPrivAlloc(dev, qp);
                privAllocated = true;
            }
            boolean aip = (init.createFlags() & QpInitAttr.CREATE_NETDEV_USE) != 0;
            qpn = dev.driver().allocQpn(dev, init.qpType(), init.portNum());
            if (qpn == RvtDriver.USE_CORE_QPN_ALLOCATOR) {
                qpn = dev.qpnTable().alloc(init.qpType(), init.portNum(), aip);
            }
            if (qpn < 0) {
                throw qpn == -EINVAL.value()
                        ? Errors.inval("createQp: port " + init.portNum() + " already has its " + init.qpType()
                                + " QP")
                        : Errors.of(qpn, "createQp: no QP number available (alloc_qpn gave " + qpn + ")");
            }
            taken = 1;
            qp.qpNum = aip ? (qpn | QpnTable.AIP_QP_BASE) : qpn;
            qp.portNum = init.qpType() == QpType.SMI || init.qpType() == QpType.GSI ? init.portNum() : 0;
            qp.initQp();
            int r = qp.qpPrivate == null ? 0 : qp.qpPrivate.qpPrivInit(dev, qp, init);
            if (r != 0) {
                // rdmavt leaks the QPN here ([quirk]); rvt frees it.
                throw Errors.of(r < 0 ? r : -EINVAL.value(), "createQp: driver qp_priv_init failed with " + r);
            }
            if (!dev.tryCount(DeviceCounter.QPS_ALLOCATED, dev.props().maxQp())) {
                throw Errors.nomem("createQp: the device's limit of " + dev.props().maxQp() + " QPs is reached");
            }
            taken = 2;
            qp.sendCq.addUser();
            taken = 3;
            qp.recvCq.addUser();
            taken = 4;
            if (qp.srq != null) {
                qp.srq.addUser();
            }
            taken = 5;
        } catch (RuntimeException e) {
            if (taken >= 4) {
                qp.recvCq.removeUser();
            }
            if (taken >= 3) {
                qp.sendCq.removeUser();
            }
            if (taken >= 2) {
                dev.uncount(DeviceCounter.QPS_ALLOCATED);
            }
            if (taken >= 1 && qpn >= 0) {
                dev.qpnTable().free(qpn, init.qpType(), init.portNum());
            }
            if (privAllocated) {
                qp.qpPrivate.qpPrivFree(dev, qp);
            }
            if (qp != null) {
                qp.req.closeTimers();
                qp.rsp.freeRq();
            }
            pd.releaseUse();
            throw e;
        }
        if (qp.type == QpType.RC) {
            dev.countRcQp(1);
        }
        init.cap().maxInlineData(0);
        if (qp.srq != null) {
            init.cap().maxRecvWr(0);
        }
        return qp;
    }

    /**
     * Mirrors {@code rvt_destroy_qp}: refuses a QP still attached to a multicast group, resets it (leaving the QP
     * table, stopping its engine and timers), waits until no one references it, then gives back its QPN, its
     * driver state, its queues and its uses of the CQs, SRQ and PD.
     *
     * @param qp the QP
     */
    static void destroy(RvtQp qp) {
        qp.checkNotDestroyed();
        QpDevice dev = qp.dev;
        dev.checkVerb(io.rvt.api.spi.Verb.DESTROY_QP);
        RvtIbport port = qp.iport();
        if (port != null && port.mcastTable().attachmentCount(qp) > 0) {
            throw Errors.busy("destroyQp: QP 0x" + Integer.toHexString(qp.qpNum) + " is still attached to "
                    + port.mcastTable().attachmentCount(qp) + " multicast group(s)");
        }
        qp.lockAll();
        try {
            if (qp.destroyed) {
                throw Errors.inval("destroyQp: QP 0x" + Integer.toHexString(qp.qpNum) + " was already destroyed");
            }
            qp.destroyed = true;
            qp.resetLocked();
        } finally {
            qp.unlockAll();
        }
        awaitNoReferences(qp);
        dev.qpnTable().free(qp.qpNum, qp.type, qp.portNum);
        dev.uncount(DeviceCounter.QPS_ALLOCATED);
        if (qp.type == QpType.RC) {
            dev.countRcQp(-1);
        }
        if (qp.qpPrivate != null) {
            qp.qpPrivate.qpPrivFree(dev, qp);
        }
        qp.req.closeTimers();
        qp.rsp.freeRq();
        qp.sendCq.removeUser();
        qp.recvCq.removeUser();
        if (qp.srq != null) {
            qp.srq.removeUser();
        }
        qp.pd.releaseUse();
    }

    /** Waits until the QP's reference count is 0, running the driver's engine first where the caller may. */
    private static void awaitNoReferences(RvtQp qp) {
        AtomicInteger refs = qp.refs;
        // rvt extension: an engine run by the application's threads drops its references when this one runs it
        while (refs.get() > 0 && qp.driver.progressWhileWaiting()) {
            continue; // it did some: look again
        }
        boolean interrupted = false;
        synchronized (refs) {
            while (refs.get() > 0) {
                try {
                    refs.wait();
                } catch (InterruptedException e) {
                    interrupted = true; // destroy does not give up: keep the status for the caller
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
