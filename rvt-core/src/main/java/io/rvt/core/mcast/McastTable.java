package io.rvt.core.mcast;

import io.rvt.api.DeviceAttributes;
import io.rvt.api.DeviceCounter;
import io.rvt.api.Gid;
import io.rvt.api.QpState;
import io.rvt.api.VerbsException;
import io.rvt.api.spi.DriverQp;
import io.rvt.core.base.CoreDevice;
import io.rvt.core.base.Errors;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The multicast groups of one port (rdmavt: {@code ibp->mcast_tree} under {@code ibp->lock}; semantics §9.7): groups
 * ordered by their MGID as {@code memcmp} orders the 16 bytes ({@link Gid#compareBytes}), each holding the QPs
 * attached to it. One MGID has one MLID; one MLID may serve several MGIDs.
 *
 * <p>Threads: any. {@link #attach}, {@link #detach}, {@link #find} and the queries serialise on the table lock;
 * delivery walks {@link RvtMcast#qps()} without it. {@link #detach} may block until every finder that could still
 * deliver to the detached QP has {@link RvtMcast#release() released} the group.
 */
public final class McastTable {
    private final CoreDevice dev;
    private final int portNum;
    /** {@code ibp->lock}: guards {@link #groups} and every group's QP array replacement. */
    private final ReentrantLock lock = new ReentrantLock();
    /** {@code mcast_tree}; written under {@link #lock}. */
    private final TreeMap<Gid, RvtMcast> groups = new TreeMap<>(Gid::compareBytes);

    /**
     * @param dev the port's device (it supplies the limits and the group counter)
     * @param portNum the port whose groups this table holds, 1-based
     */
    public McastTable(CoreDevice dev, int portNum) {
        this.dev = dev;
        this.portNum = portNum;
    }

    /**
     * Mirrors {@code rvt_mcast_find}: the group with {@code mgid}, retained, if its MLID is {@code mlid}.
     * The caller delivers to {@link RvtMcast#qps()} and then calls {@link RvtMcast#release()}.
     *
     * @param mgid the multicast GID
     * @param mlid the multicast LID
     * @return the retained group, or null if there is none with that MGID and MLID
     */
    public RvtMcast find(Gid mgid, int mlid) {
        lock.lock();
        try {
            RvtMcast g = groups.get(mgid);
            if (g == null || g.mlid() != mlid) {
                return null;
            }
            g.retainForFinder();
            return g;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Mirrors {@code rvt_attach_mcast} (semantics §9.7). The QP type (UD only) and the multicast GID format are the
     * caller's checks, as in the IB core.
     * <ul>
     * <li>QPN 0 or 1, or a QP in RESET → EINVAL;</li>
     * <li>the MGID exists with another MLID → EINVAL;</li>
     * <li>the QP is already attached → success, nothing changes;</li>
     * <li>the group already has {@code max_mcast_qp_attach} QPs → ENOMEM;</li>
     * <li>a new group beyond {@code max_mcast_grp} groups on the device → ENOMEM.</li>
     * </ul>
     * A QP added to a group is retained ({@code rvt_get_qp}) until it is detached.
     *
     * @param qp the QP
     * @param mgid the multicast GID
     * @param mlid the multicast LID
     * @return true if the QP joined the group, false if it was attached already
     * @throws VerbsException ENODEV, EINVAL or ENOMEM, naming the QPN, GID and LID; nothing changes then
     */
    public boolean attach(DriverQp qp, Gid mgid, int mlid) {
        dev.checkAlive();
        int qpn = qp.qpNum();
        if (qpn <= 1) {
            throw Errors.inval("QP " + qpn + " cannot attach to multicast group " + mgid + ": QP0 and QP1 cannot");
        }
        QpState state = qp.state();
        if (state == QpState.RESET) {
            throw Errors.inval("QP " + qpn + " cannot attach to multicast group " + mgid + " in state RESET");
        }
        DeviceAttributes props = dev.props();
        lock.lock();
        try {
            RvtMcast g = groups.get(mgid);
            if (g != null) {
                if (g.mlid() != mlid) {
                    throw Errors.inval("multicast group " + mgid + " has MLID " + lid(g.mlid()) + ", not "
                            + lid(mlid) + " (QP " + qpn + ")");
                }
                if (g.indexOf(qp) >= 0) {
                    return false;
                }
                if (g.qps().length >= props.maxMcastQpAttach()) {
                    throw Errors.nomem("multicast group " + mgid + " (MLID " + lid(mlid) + ") already has "
                            + "max_mcast_qp_attach=" + props.maxMcastQpAttach() + " QPs; QP " + qpn + " not attached");
                }
                qp.retain();
                g.append(qp);
                return true;
            }
            if (!dev.tryCount(DeviceCounter.MCAST_GRPS_ALLOCATED, props.maxMcastGrp())) {
                throw Errors.nomem("device " + dev.name() + " already has max_mcast_grp=" + props.maxMcastGrp()
                        + " multicast groups; cannot create " + mgid + " (MLID " + lid(mlid) + ") for QP " + qpn);
            }
            qp.retain();
            groups.put(mgid, new RvtMcast(mgid, mlid, qp));
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Mirrors {@code rvt_detach_mcast} (semantics §9.7): QPN 0 or 1, an unknown MGID, another MLID, or a QP not
     * attached → EINVAL. Otherwise the QP leaves the group (a group left empty leaves the table); then this waits
     * until no finder holds the group, drops the QP's reference and, for a removed group, uncounts it.
     *
     * @param qp the QP
     * @param mgid the multicast GID
     * @param mlid the multicast LID
     * @throws VerbsException ENODEV or EINVAL, naming the QPN, GID and LID; nothing changes then
     */
    public void detach(DriverQp qp, Gid mgid, int mlid) {
        // No liveness check: applications must be able to clean up after the device went away.
        int qpn = qp.qpNum();
        if (qpn <= 1) {
            throw Errors.inval("QP " + qpn + " cannot detach from multicast group " + mgid + ": QP0 and QP1 cannot");
        }
        RvtMcast g;
        boolean removed;
        lock.lock();
        try {
            g = groups.get(mgid);
            if (g == null) {
                throw Errors.inval("no multicast group " + mgid + " on port " + portNum + " (QP " + qpn
                        + ", MLID " + lid(mlid) + ")");
            }
            if (g.mlid() != mlid) {
                throw Errors.inval("multicast group " + mgid + " has MLID " + lid(g.mlid()) + ", not " + lid(mlid)
                        + " (QP " + qpn + ")");
            }
            int i = g.indexOf(qp);
            if (i < 0) {
                throw Errors.inval("QP " + qpn + " is not attached to multicast group " + mgid + " (MLID "
                        + lid(mlid) + ")");
            }
            g.remove(i);
            removed = g.qps().length == 0;
            if (removed) {
                groups.remove(mgid);
            }
        } finally {
            lock.unlock();
        }
        // A finder that read the old QP array may still deliver to qp: keep qp's reference until it is done.
        g.awaitIdle();
        qp.release();
        if (removed) {
            // Out of the table, so no new finder can reach it; awaitIdle() saw the last one leave.
            g.dropTableReference();
            dev.uncount(DeviceCounter.MCAST_GRPS_ALLOCATED);
        }
    }

    /**
     * @param qp a QP
     * @return the number of groups of this port {@code qp} is attached to ({@code destroyQp} refuses with EBUSY
     *         while it is above 0)
     */
    public int attachmentCount(DriverQp qp) {
        lock.lock();
        try {
            int n = 0;
            for (RvtMcast g : groups.values()) {
                if (g.indexOf(qp) >= 0) {
                    n++;
                }
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** @return the number of groups on this port */
    public int groupCount() {
        lock.lock();
        try {
            return groups.size();
        } finally {
            lock.unlock();
        }
    }

    /** @return true if the port has no group (the leak check at unregister counts ports where this is false) */
    public boolean isEmpty() {
        lock.lock();
        try {
            return groups.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    private static String lid(int lid) {
        return "0x" + Integer.toHexString(lid);
    }

    @Override
    public String toString() {
        return "McastTable{port=" + portNum + ", groups=" + groupCount() + '}';
    }
}
