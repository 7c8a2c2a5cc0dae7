package io.rvt.cm.impl;

import io.rvt.api.Gid;
import io.rvt.cm.RejectReason;

/**
 * Finds the ID a MRA, REJ, RTU, DREQ or DREP names, as ib_cm does ({@code cm_acquire_id}, which takes an ID only
 * when both communication IDs match it, and its REJ and MRA variants {@code cm_acquire_rejected_id} and
 * {@code cm_acquire_mraed_id}), and then checks what ib_cm leaves to the fabric: that the MAD came from the GID of
 * that ID's peer. A MAD that names one ID right (a guess, a spoof) thus changes nothing; it is counted by why
 * ({@link CmCounters.Drop#NO_SUCH_ID}, {@link CmCounters.Drop#FOREIGN_SOURCE}). Under the engine's monitor.
 */
final class ResponseMatcher {
    private final CmEngine engine;

    ResponseMatcher(CmEngine engine) {
        this.engine = engine;
    }

    /**
     * {@code cm_acquire_id}: the connection ID whose local ID is {@code localId} and whose peer's ID is
     * {@code remoteId} (0: the peer's ID is not known yet, as before its REP); nothing counted.
     *
     * @return the ID, or null
     */
    ConnId find(int localId, int remoteId) {
        ConnId id = engine.byLocalId.get(localId);
        return id == null || id.kind != ConnId.Kind.CONNECT || id.remoteId != remoteId ? null : id;
    }

    /**
     * {@link #find} for a MAD from {@code sgid}, counting a miss.
     *
     * @return the ID if both IDs match and the MAD came from its peer, else null
     */
    ConnId acquire(Gid sgid, int localId, int remoteId) {
        ConnId id = find(localId, remoteId);
        if (id == null) {
            engine.counters.dropped(CmCounters.Drop.NO_SUCH_ID);
            return null;
        }
        return fromPeer(id, sgid) ? id : null;
    }

    /**
     * The ID a REJ names ({@code cm_acquire_rejected_id}): for reason TIMEOUT the ID that knows the sender's ID as
     * its peer's (ib_cm finds it by the rejecter's CA GUID in the additional information; the table of peers' IDs is
     * keyed by GID here, which is checked anyway), with the REJ's remote ID ours or not yet known; for a REJ of a REQ
     * the ID ours that has no peer ID yet; for any other REJ the ID both IDs name. A TIMEOUT REJ of a REQ that
     * names no known peer ID (a passive side whose hold on an unanswered request ran out) is matched as a REJ of a
     * REQ.
     *
     * @return the ID if it matches and the REJ came from its peer, else null (counted)
     */
    ConnId rejected(Gid sgid, CmMad m) {
        if (m.reason == RejectReason.TIMEOUT.code()) {
            ConnId id = engine.byRemoteId.get(new RemoteKey(sgid, m.localCommId));
            if (id != null && id.kind == ConnId.Kind.CONNECT
                    && (m.remoteCommId == 0 || m.remoteCommId == id.localId)) {
                return id;
            }
            if (m.messageCode != CmMad.MSG_REQ) {
                engine.counters.dropped(CmCounters.Drop.NO_SUCH_ID);
                return null;
            }
        }
        if (m.messageCode == CmMad.MSG_REQ) {
            return acquire(sgid, m.remoteCommId, 0);
        }
        return acquire(sgid, m.remoteCommId, m.localCommId);
    }

    /**
     * The ID a MRA names ({@code cm_acquire_mraed_id}): for a MRA of a REQ the ID ours that has no peer ID yet, for
     * a MRA of a REP the ID both IDs name; another "message MRAed" names none.
     *
     * @return the ID if it matches and the MRA came from its peer, else null (counted)
     */
    ConnId mraed(Gid sgid, CmMad m) {
        switch (m.messageCode) {
            case CmMad.MSG_REQ:
                return acquire(sgid, m.remoteCommId, 0);
            case CmMad.MSG_REP:
                return acquire(sgid, m.remoteCommId, m.localCommId);
            default:
                engine.counters.dropped(CmCounters.Drop.NO_SUCH_ID);
                return null;
        }
    }

    /** @return true if {@code sgid} is the GID of the ID's peer; counts a foreign source */
    boolean fromPeer(ConnId id, Gid sgid) {
        if (sgid.equals(id.remoteGid)) {
            return true;
        }
        engine.counters.dropped(CmCounters.Drop.FOREIGN_SOURCE);
        return false;
    }

    /** Counts a MAD that matched an ID in a state it does nothing in. */
    void wrongState() {
        engine.counters.dropped(CmCounters.Drop.WRONG_STATE);
    }
}
