package io.rvt.cm.impl;

import io.rvt.api.Errno;
import io.rvt.api.Gid;
import io.rvt.api.PathMtu;
import io.rvt.api.VerbsException;
import io.rvt.cm.CmEventType;
import io.rvt.cm.CmException;
import io.rvt.cm.CmState;
import io.rvt.cm.ConnectRequest;
import io.rvt.cm.ConnectRequestHandler;
import io.rvt.cm.Connection;
import io.rvt.cm.RejectReason;
import java.util.concurrent.CompletableFuture;

/**
 * The connection state machine of the CM's IDs (IBTA vol 1 ch 12.9): what each incoming MAD does to the ID it names
 * in each state -- a REQ makes a passive ID (or is a duplicate, answered with an MRA or the REP again, or is refused:
 * no listener, stale connection, MTU), an MRA extends the wait, a REJ ends the attempt (or retries once with the
 * passive side's smaller MTU), a REP brings the active QP to RTS and is answered with an RTU, an RTU establishes the
 * passive side, a DREQ or DREP leads to timewait. Runs under the engine's monitor.
 */
final class CmStateMachine {
    private final CmEngine engine;
    private final ResponseMatcher match;

    CmStateMachine(CmEngine engine) {
        this.engine = engine;
        this.match = new ResponseMatcher(engine);
    }

    void dispatch(GsiPort port, Gid sgid, int slid, CmMad m) {
        switch (m.attrId) {
            case CmMad.REQ:
                onReq(port, sgid, slid, m);
                break;
            case CmMad.MRA:
                onMra(sgid, m);
                break;
            case CmMad.REJ:
                onRej(sgid, m);
                break;
            case CmMad.REP:
                onRep(port, sgid, slid, m);
                break;
            case CmMad.RTU:
                onRtu(sgid, m);
                break;
            case CmMad.DREQ:
                onDreq(port, sgid, slid, m);
                break;
            case CmMad.DREP:
                onDrep(sgid, m);
                break;
            case CmMad.SIDR_REQ:
                engine.sidr.onRequest(port, sgid, slid, m);
                break;
            case CmMad.SIDR_REP:
                engine.sidr.onReply(sgid, slid, m);
                break;
            default:
                engine.counters.dropped(CmCounters.Drop.UNKNOWN_ATTRIBUTE);
        }
    }

    private void onReq(GsiPort port, Gid sgid, int slid, CmMad m) {
        ConnId dup = engine.byRemoteId.get(new RemoteKey(sgid, m.localCommId));
        if (dup != null) {
            duplicateReq(dup);
            return;
        }
        ListenerImpl l = engine.listeners.get(m.serviceId);
        if (l == null || l.udQp != null) {
            engine.sendRej(port, sgid, slid, m, 0, CmMad.MSG_REQ, RejectReason.INVALID_SERVICE_ID, null);
            return;
        }
        if (m.transportType != CmMad.TRANSPORT_RC && m.transportType != CmMad.TRANSPORT_UC) {
            engine.sendRej(port, sgid, slid, m, 0, CmMad.MSG_REQ, RejectReason.INVALID_TRANSPORT_TYPE, null);
            return;
        }
        ConnId stale = engine.byRemoteQpn.get(new RemoteKey(sgid, m.localQpn));
        if (stale != null) {
            // the peer's QP is still part of a connection here: refuse the new one and end the old one
            engine.sendRej(port, sgid, slid, m, 0, CmMad.MSG_REQ, RejectReason.STALE_CONN, null);
            if (stale.state == CmState.ESTABLISHED) {
                engine.sendDreq(stale, null);
            }
            return;
        }
        PathMtu mtu = QpSetup.mtuOf(m.pathMtu);
        PathMtu active = port.activeMtu();
        if (mtu == null || mtu.value() > active.value()) {
            byte[] ari = {(byte) active.value()};
            engine.sendRej(port, sgid, slid, m, 0, CmMad.MSG_REQ, RejectReason.INVALID_MTU, ari);
            return;
        }
        byte[] pd = java.util.Arrays.copyOf(m.privateData, CmMad.REQ_PRIVATE);
        if (!IpCmHeader.present(pd, pd.length)) {
            // rdma_cm finds no listener for it (cma_save_ip_info: a version other than 0 is EINVAL, an IP version
            // other than 4 or 6 makes it an AF_IB request, which no IP listener takes), and ib_cm rejects a request
            // its consumer failed with reason CONSUMER_DEFINED and no private data
            engine.counters.refusedIpHeader();
            engine.sendRej(port, sgid, slid, m, 0, CmMad.MSG_REQ, RejectReason.CONSUMER_DEFINED, null);
            return;
        }
        if (l.unanswered >= engine.config().listenBacklog()) {
            // as rdma_ucm's full backlog: no REJ, so that the peer's retransmission may find room
            engine.counters.dropped(CmCounters.Drop.BACKLOG_FULL);
            return;
        }
        ConnId id = engine.newId(ConnId.Kind.CONNECT, false, port, m.serviceId, l.port);
        id.req = m.copy();
        id.remoteId = m.localCommId;
        id.remoteGid = sgid;
        id.remoteLid = slid;
        id.remoteQpn = m.localQpn;
        id.sendPsn = m.startingPsn; // the active side's rq_psn is where this QP sends from
        id.tid = m.tid;
        id.mtu = mtu;
        id.peerResponseTimeout = m.localCmResponseTimeout;
        id.ownResponseTimeout = m.remoteCmResponseTimeout;
        id.maxRetries = m.maxCmRetries;
        id.localAckTimeout = m.localAckTimeout;
        id.retryCount = m.retryCount;
        id.flowLabel = m.flowLabel;
        id.trafficClass = m.trafficClass;
        id.hopLimit = m.hopLimit;
        id.sl = m.sl;
        id.listener = l;
        l.hold(id);
        id.remoteAddress = IpCmHeader.address(pd, true);
        id.remotePrivate = java.util.Arrays.copyOfRange(pd, IpCmHeader.LENGTH, pd.length);
        engine.byRemoteId.put(new RemoteKey(sgid, id.remoteId), id);
        engine.byRemoteQpn.put(new RemoteKey(sgid, id.remoteQpn), id);
        id.state = CmState.REQ_RCVD;
        engine.emit(id, CmEventType.CONNECT_REQUEST, CmState.IDLE, id.remotePrivate, null, null, 0, id.request);
        engine.timeouts.holdRequest(id);
        if (l.handler != null) {
            ConnectRequestHandler h = l.handler;
            engine.later(() -> h.onRequest(id.request));
        } else {
            CompletableFuture<ConnectRequest> w = l.waiting.poll();
            if (w != null) {
                engine.later(() -> w.complete(id.request));
            } else {
                l.pending.add(id);
            }
        }
    }

    private void duplicateReq(ConnId id) {
        switch (id.state) {
            case REQ_RCVD:
                // the application is slow: ask the peer for more time (librdmacm's delayed MRA)
                id.state = CmState.MRA_REQ_SENT;
                sendMra(id);
                engine.emit(id, CmEventType.MRA_SENT, CmState.REQ_RCVD, null, null, null, 0, null);
                engine.timeouts.holdRequest(id); // the peer still asks
                break;
            case MRA_REQ_SENT:
                sendMra(id);
                engine.timeouts.holdRequest(id);
                break;
            case REP_SENT:
            case MRA_REP_RCVD:
                engine.sendFor(id, id.lastSent); // our REP was lost
                break;
            case TIMEWAIT:
                engine.sendRej(id, id.remoteId, CmMad.MSG_REQ, RejectReason.STALE_CONN);
                break;
            default:
                break; // a late copy of a REQ already answered
        }
    }

    /** Asks the peer of a request the application has not answered yet for more time (librdmacm's delayed MRA). */
    private void sendMra(ConnId id) {
        engine.send(id.port, id.remoteGid, id.remoteLid, CmMessages.mra(id, CmMad.MSG_REQ, engine.config().serviceTimeout()));
    }

    /**
     * A MRA ({@code cm_mra_handler}): the peer needs more time; the wait for its answer is extended by the MRA's
     * service timeout. The peer's ID stays unknown until its REP, as in ib_cm (a later REJ of the REQ names none).
     */
    private void onMra(Gid sgid, CmMad m) {
        ConnId id = match.mraed(sgid, m);
        if (id == null) {
            return;
        }
        long extra = CmTimeouts.codeNanos(m.serviceTimeout) + CmTimeouts.codeNanos(id.peerResponseTimeout);
        if (m.messageCode == CmMad.MSG_REQ && id.state == CmState.REQ_SENT) {
            engine.transition(id, CmState.MRA_REQ_RCVD, CmEventType.MRA_RECEIVED, null, null, null);
            engine.timeouts.arm(id, extra);
        } else if (m.messageCode == CmMad.MSG_REP && id.state == CmState.REP_SENT) {
            engine.transition(id, CmState.MRA_REP_RCVD, CmEventType.MRA_RECEIVED, null, null, null);
            engine.timeouts.arm(id, extra);
        } else {
            match.wrongState();
        }
    }

    /** A REJ ({@code cm_rej_handler}): the attempt ends, the request is withdrawn, or the connection ends. */
    private void onRej(Gid sgid, CmMad m) {
        ConnId id = match.rejected(sgid, m);
        if (id == null) {
            return;
        }
        RejectReason reason = RejectReason.of(m.reason);
        byte[] pd = java.util.Arrays.copyOf(m.privateData, CmMad.REJ_PRIVATE);
        switch (id.state) {
            case REQ_SENT:
            case MRA_REQ_RCVD:
            case REP_RCVD:
                if (reason == RejectReason.INVALID_MTU && m.ariLength >= 1 && !id.mtuRetried) {
                    PathMtu theirs = QpSetup.mtuOf(m.ari[0] & 0xFF);
                    if (theirs != null && theirs.value() < id.mtu.value()) {
                        // the passive side's port is smaller: try again once with its MTU, under a new ID
                        id.mtuRetried = true;
                        id.mtu = theirs;
                        engine.byLocalId.remove(id.localId, id);
                        int nid = engine.freeLocalId();
                        id.localId = nid;
                        engine.byLocalId.put(nid, id);
                        engine.sendReq(id);
                        return;
                    }
                }
                engine.fail(id, rejected(id, reason, pd, "the connection request was rejected"), CmEventType.REJECTED,
                        reason, pd);
                break;
            case REP_SENT:
            case MRA_REP_RCVD:
                engine.fail(id, rejected(id, reason, pd, "the reply was rejected"), CmEventType.REJECTED, reason, pd);
                break;
            case REQ_RCVD:
            case MRA_REQ_SENT:
                // the peer withdrew its request (it gave up or was closed) before the application answered
                id.answered = true;
                id.listener.release(id);
                engine.fail(id, rejected(id, reason, pd, "the peer withdrew the connection request"),
                        CmEventType.REJECTED, reason, pd);
                break;
            case ESTABLISHED:
            case DREQ_SENT:
                engine.enterTimewait(id, CmEventType.DISCONNECTED, pd);
                break;
            default:
                match.wrongState();
                break;
        }
    }

    private CmException rejected(ConnId id, RejectReason reason, byte[] pd, String what) {
        String r = reason == null ? "reason " : reason.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
        String detail;
        if (reason == RejectReason.INVALID_SERVICE_ID) {
            detail = "nobody listens on port " + id.cmPort;
        } else if (reason == RejectReason.CONSUMER_DEFINED) {
            detail = "the peer's application refused";
        } else if (reason == RejectReason.STALE_CONN) {
            detail = "stale connection";
        } else {
            detail = r;
        }
        return new CmException(Errno.ECONNREFUSED, what + ": " + detail, id.remoteGid, id.cmPort, id.serviceId,
                reason, pd, 0);
    }

    private void onRep(GsiPort port, Gid sgid, int slid, CmMad m) {
        ConnId id = engine.byLocalId.get(m.remoteCommId);
        if (id == null || id.kind != ConnId.Kind.CONNECT || !id.active) {
            engine.sendRej(port, sgid, slid, m, 0, CmMad.MSG_REP, RejectReason.INVALID_COMM_ID, null);
            return;
        }
        if (!sgid.equals(id.remoteGid)) {
            return;
        }
        switch (id.state) {
            case ESTABLISHED:
                if (m.localCommId == id.remoteId) {
                    engine.sendFor(id, id.lastSent); // our RTU was lost
                }
                return;
            case REQ_SENT:
            case MRA_REQ_RCVD:
                break;
            default:
                return;
        }
        ConnId stale = engine.byRemoteQpn.get(new RemoteKey(sgid, m.localQpn));
        if (stale != null && stale != id) {
            engine.sendRej(port, sgid, slid, m, id.localId, CmMad.MSG_REP, RejectReason.STALE_CONN, null);
            engine.fail(id, rejected(id, RejectReason.STALE_CONN, null, "the reply names a QP of another connection"),
                    CmEventType.REJECTED, RejectReason.STALE_CONN, null);
            return;
        }
        id.remoteId = m.localCommId;
        id.remoteLid = slid;
        id.remoteQpn = m.localQpn;
        id.sendPsn = m.startingPsn; // the passive side's rq_psn is where this QP sends from
        id.remotePrivate = java.util.Arrays.copyOf(m.privateData, CmMad.REP_PRIVATE);
        // ib_cm (cm_rep_handler): this QP's max_rd_atomic is the REP's responder resources and its max_dest_rd_atomic
        // the REP's initiator depth (both within what the REQ offered)
        int myDepth = Math.min(id.initiatorDepth, m.responderResources);
        id.responderResources = Math.min(id.responderResources, m.initiatorDepth);
        engine.transition(id, CmState.REP_RCVD, CmEventType.REPLY_RECEIVED, id.remotePrivate, null, null);
        try {
            QpSetup.toRtr(id, slid);
            QpSetup.toRts(id, m.rnrRetryCount, myDepth);
        } catch (VerbsException e) {
            engine.sendRej(port, sgid, slid, m, id.localId, CmMad.MSG_REP, RejectReason.NO_RESOURCES, null);
            engine.fail(id, new CmException(Errno.EINVAL, "the QP could not take the reply's parameters: "
                    + e.getMessage(), id.remoteGid, id.cmPort, id.serviceId, null, null, 0),
                    CmEventType.CONNECT_ERROR, null, null);
            return;
        }
        id.initiatorDepth = myDepth;
        engine.byRemoteId.put(new RemoteKey(sgid, id.remoteId), id);
        engine.byRemoteQpn.put(new RemoteKey(sgid, id.remoteQpn), id);
        CmTimeouts.disarm(id);
        engine.sendFor(id, CmMessages.rtu(id));
        established(id);
    }

    private void established(ConnId id) {
        engine.transition(id, CmState.ESTABLISHED, CmEventType.ESTABLISHED, null, null, null);
        CompletableFuture<Connection> f = id.established;
        engine.later(() -> f.complete(id));
    }

    /** An RTU ({@code cm_rtu_handler}): the passive side is established. */
    private void onRtu(Gid sgid, CmMad m) {
        ConnId id = match.acquire(sgid, m.remoteCommId, m.localCommId);
        if (id == null) {
            return;
        }
        if (!id.active && (id.state == CmState.REP_SENT || id.state == CmState.MRA_REP_RCVD)) {
            CmTimeouts.disarm(id);
            established(id);
        } else {
            match.wrongState();
        }
    }

    /**
     * A DREQ ({@code cm_dreq_handler}): the peer disconnects. One that names no ID here is answered with a DREP so
     * that the peer stops asking (ib_cm's {@code cm_issue_drep}); one from another GID than the peer's, or for
     * another QP than the ID's, is dropped unanswered.
     */
    private void onDreq(GsiPort port, Gid sgid, int slid, CmMad m) {
        ConnId id = match.find(m.remoteCommId, m.localCommId);
        if (id == null) {
            engine.counters.dropped(CmCounters.Drop.NO_SUCH_ID);
            sendDrep(port, sgid, slid, m.remoteCommId, m.localCommId, m.tid);
            return;
        }
        if (!match.fromPeer(id, sgid)) {
            return;
        }
        if (id.qp != null && m.remoteQpn != id.qp.qpNum()) {
            engine.counters.dropped(CmCounters.Drop.NO_SUCH_ID);
            return;
        }
        switch (id.state) {
            case ESTABLISHED:
            case REP_SENT:
            case MRA_REP_RCVD:
            case DREQ_SENT: {
                byte[] pd = java.util.Arrays.copyOf(m.privateData, CmMad.DREQ_PRIVATE);
                CmTimeouts.disarm(id);
                QpSetup.toError(id);
                engine.transition(id, CmState.DREQ_RCVD, CmEventType.DISCONNECT_RECEIVED, pd, null, null);
                sendDrep(port, sgid, slid, id.localId, id.remoteId, m.tid);
                engine.enterTimewait(id, CmEventType.DISCONNECTED, pd);
                break;
            }
            case TIMEWAIT:
                sendDrep(port, sgid, slid, id.localId, id.remoteId, m.tid); // our DREP was lost
                break;
            default:
                match.wrongState();
                break;
        }
    }

    private void sendDrep(GsiPort port, Gid dgid, int dlid, int localId, int remoteId, long tid) {
        engine.send(port, dgid, dlid, CmMessages.drep(localId, remoteId, tid));
    }

    /** A DREP ({@code cm_drep_handler}): the peer answered our DREQ. */
    private void onDrep(Gid sgid, CmMad m) {
        ConnId id = match.acquire(sgid, m.remoteCommId, m.localCommId);
        if (id == null) {
            return;
        }
        if (id.state == CmState.DREQ_SENT) {
            CmTimeouts.disarm(id);
            engine.enterTimewait(id, CmEventType.DISCONNECTED, java.util.Arrays.copyOf(m.privateData, CmMad.DREP_PRIVATE));
        } else {
            match.wrongState();
        }
    }
}
