package io.rvt.core.qp;

import io.rvt.api.Errno;
import io.rvt.api.Gid;
import io.rvt.api.QpType;
import io.rvt.api.VerbsException;
import io.rvt.api.spi.DriverParams;
import io.rvt.core.base.Errors;

/**
 * A UD QP's multicast verbs ({@code ib_attach_mcast}, {@code ib_detach_mcast} over {@code rvt_attach_mcast} and
 * {@code rvt_detach_mcast}): the address checks, the port's multicast table and the driver's notification.
 */
final class QpMcast {
    private QpMcast() {
    }

    static void attachMcast(RvtQp qp, Gid gid, int lid) {
        qp.checkNotDestroyed();
        qp.dev.checkAlive();
        checkMcastAddress(qp, "attachMcast", gid, lid);
        if (qp.type != QpType.UD) {
            throw Errors.inval("attachMcast: QP 0x" + Integer.toHexString(qp.qpNum) + " is " + qp.type + ", not UD");
        }
        RvtIbport port = qp.iport();
        if (port == null) {
            throw Errors.inval("attachMcast: QP 0x" + Integer.toHexString(qp.qpNum) + " has no port (state " + qp.state
                    + ")");
        }
        if (!port.mcastTable().attach(qp, gid, lid)) {
            return; // attached already: nothing changes, the driver was told before
        }
        try {
            qp.driver.notifyMcastAttach(qp.dev, port, gid, lid);
        } catch (RuntimeException e) {
            port.mcastTable().detach(qp, gid, lid); // the driver refused: as if nothing happened
            throw new VerbsException(Errno.EINVAL, "attachMcast: driver '" + qp.driver.name() + "' refused group " + gid
                    + " (LID 0x" + Integer.toHexString(lid) + ") for QP 0x" + Integer.toHexString(qp.qpNum) + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * {@code ib_attach_mcast}'s address checks, done before anything changes: a multicast GID (IPv6 {@code ff00::/8}
     * or IPv4-mapped {@code 224.0.0.0/4}, {@code rdma_is_multicast_addr}) and a multicast LID ({@code 0xC000..0xFFFE},
     * on OPA from {@code 0xF0000000}, the permissive LID excluded).
     */
    static void checkMcastAddress(RvtQp qp, String verb, Gid gid, int lid) {
        if (gid == null) {
            throw Errors.inval(verb + ": gid is null");
        }
        boolean v4Mapped = gid.subnetPrefix() == 0 && (gid.interfaceId() >>> 32) == 0xFFFF
                && ((gid.interfaceId() >>> 28) & 0xF) == 0xE;
        if (!gid.isMulticast() && !v4Mapped) {
            throw Errors.inval(verb + ": gid " + gid + " is not a multicast GID (ff00::/8 or IPv4-mapped 224.0.0.0/4)");
        }
        boolean opa = (qp.dev.params().coreCapFlags() & DriverParams.CORE_CAP_OPA_AH) != 0;
        boolean ok = opa ? Integer.compareUnsigned(lid, RvtQp.OPA_MULTICAST_BASE) >= 0 && lid != -1
                : lid >= RvtQp.IB_MULTICAST_LID_BASE && lid < 0xFFFF;
        if (!ok) {
            throw Errors.inval(verb + ": lid 0x" + Integer.toHexString(lid) + " is not a multicast LID ("
                    + (opa ? "0xf0000000..0xfffffffe" : "0xc000..0xfffe") + ")");
        }
    }

    static void detachMcast(RvtQp qp, Gid gid, int lid) {
        qp.checkNotDestroyed();
        if (gid == null) {
            throw Errors.inval("detachMcast: gid is null");
        }
        RvtIbport port = qp.iport();
        if (port == null) {
            throw Errors.inval("detachMcast: QP 0x" + Integer.toHexString(qp.qpNum) + " has no port");
        }
        port.mcastTable().detach(qp, gid, lid);
        io.rvt.api.spi.McastGroup left = port.mcastTable().find(gid, lid);
        if (left == null) {
            qp.driver.notifyMcastDetach(qp.dev, port, gid, lid);
        } else {
            left.release();
        }
    }
}
