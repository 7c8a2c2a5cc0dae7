package io.rvt.cm.impl;

import io.rvt.api.Errno;
import io.rvt.api.Gid;
import io.rvt.cm.CmEventType;
import io.rvt.cm.CmException;
import io.rvt.cm.CmState;
import io.rvt.cm.ConnectOptions;
import io.rvt.cm.ConnectionManager;
import io.rvt.cm.DatagramPeer;
import java.util.concurrent.CompletableFuture;

/**
 * The UD side of the CM (IBTA vol 1 ch 12.11, Service ID Resolution): a SIDR_REQ resolves a service ID to the QPN
 * and Q_Key of the UD QP that listens on it, a SIDR_REP answers (status 1, no such service, when nobody listens
 * with a UD QP). Guarded by the engine's monitor.
 */
final class SidrResolver {
    /** IB_SIDR_UNSUPPORTED: the service ID is not served here. */
    private static final int SIDR_UNSUPPORTED = 1;
    /** IB_SIDR_REJECT: the service refused the request (ib_cm's answer when its consumer fails the SIDR_REQ). */
    private static final int SIDR_REJECT = 2;

    private final CmEngine engine;

    SidrResolver(CmEngine engine) {
        this.engine = engine;
    }

    /** Sends a SIDR_REQ for the options' destination and port; the future gets the peer's UD QP. */
    CompletableFuture<DatagramPeer> resolve(ConnectOptions o) {
        long sid = CmEngine.serviceIdChecked(o.port(), true);
        Gid dst = o.destination();
        if (dst == null) {
            throw new CmException(Errno.EINVAL, "resolveDatagram: no destination", null, o.port(), sid, null, null,
                    0);
        }
        CmEngine.checkPrivate(o.privateData(), ConnectionManager.MAX_SIDR_REQ_PRIVATE_DATA, "SIDR_REQ", o.port(),
                sid);
        CompletableFuture<DatagramPeer> f = new CompletableFuture<>();
        synchronized (engine) {
            engine.checkOpen(o.port(), sid);
            GsiPort port = engine.port(o.hcaPort(), dst, o.port(), sid);
            Gid src = engine.device.queryGid(port.num, o.sgidIndex());
            ConnId id = engine.newId(ConnId.Kind.SIDR, true, port, sid, o.port());
            id.remoteGid = dst;
            id.sidr = f;
            id.peerResponseTimeout = o.cmResponseTimeout() >= 0 ? o.cmResponseTimeout()
                    : engine.config().cmResponseTimeout();
            id.maxRetries = o.maxCmRetries() >= 0 ? o.maxCmRetries() : engine.config().maxCmRetries();
            byte[] pdata = engine.withIpHeader(src, dst, o);
            CmMad m = new CmMad();
            m.attrId = CmMad.SIDR_REQ;
            id.tid = engine.newTid();
            m.tid = id.tid;
            m.localCommId = id.localId;
            m.pkey = port.pkey;
            m.serviceId = sid;
            m.privateData(pdata, 0, pdata.length);
            id.state = CmState.SIDR_REQ_SENT;
            engine.sendFor(id, m);
            engine.emit(id, CmEventType.REQUEST_SENT, CmState.IDLE, null, null, null, 1, null);
            engine.timeouts.armResponse(id);
        }
        engine.drain();
        return f;
    }

    /**
     * A SIDR_REQ came: answer with the listening UD QP, that the service is not here, or, for a malformed IP CM
     * header, that it is refused (rdma_cm fails such a request, as a REQ: {@code cma_save_ip_info}).
     */
    void onRequest(GsiPort port, Gid sgid, int slid, CmMad m) {
        ListenerImpl l = engine.listeners.get(m.serviceId);
        CmMad r = new CmMad();
        r.attrId = CmMad.SIDR_REP;
        r.tid = m.tid;
        r.localCommId = m.localCommId;
        r.serviceId = m.serviceId;
        if (l == null || l.udQp == null) {
            r.sidrStatus = SIDR_UNSUPPORTED;
        } else if (!IpCmHeader.present(m.privateData, CmMad.SIDR_REQ_PRIVATE)) {
            engine.counters.refusedIpHeader();
            r.sidrStatus = SIDR_REJECT;
        } else {
            r.remoteQpn = l.udQp.qpNum();
            r.qkey = l.udQkey;
            r.privateData(l.sidrPrivate, 0, l.sidrPrivate.length);
        }
        engine.send(port, sgid, slid, r);
    }

    /** A SIDR_REP came: the resolution of one of our IDs ends, if it came from the GID the request went to. */
    void onReply(Gid sgid, int slid, CmMad m) {
        ConnId id = engine.byLocalId.get(m.localCommId);
        if (id == null || id.kind != ConnId.Kind.SIDR) {
            engine.counters.dropped(CmCounters.Drop.NO_SUCH_ID);
            return;
        }
        if (!sgid.equals(id.remoteGid)) {
            engine.counters.dropped(CmCounters.Drop.FOREIGN_SOURCE);
            return;
        }
        if (id.state != CmState.SIDR_REQ_SENT) {
            engine.counters.dropped(CmCounters.Drop.WRONG_STATE);
            return;
        }
        CompletableFuture<DatagramPeer> f = id.sidr;
        engine.remove(id);
        if (m.sidrStatus == 0) {
            DatagramPeer peer = new DatagramPeer(id.remoteGid, id.port.roce() ? 0 : slid, m.remoteQpn, m.qkey,
                    m.serviceId, java.util.Arrays.copyOf(m.privateData, CmMad.SIDR_REP_PRIVATE));
            engine.transition(id, CmState.CLOSED, CmEventType.SIDR_RESOLVED, null, null, null);
            engine.later(() -> f.complete(peer));
        } else {
            CmException err = new CmException(Errno.ECONNREFUSED, "the service ID resolution was refused (SIDR "
                    + "status " + m.sidrStatus + ")", id.remoteGid, id.cmPort, id.serviceId, null, null, 0);
            engine.transition(id, CmState.CLOSED, CmEventType.REJECTED, null, null, err);
            engine.later(() -> f.completeExceptionally(err));
        }
    }
}
