package io.rvt.cm.impl;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a CM sent, received and left alone, the MADs it dropped counted by reason (the counters
 * {@link io.rvt.cm.ConnectionManager#counters()} shows; docs/cm.md lists them). Guarded by the engine's monitor.
 */
final class CmCounters {
    /** Why a received MAD changed nothing. */
    enum Drop {
        /** Not a CM MAD of class version 2 with method SEND, or shorter than a MAD. */
        MALFORMED("dropped_malformed"),
        /** Not sent from a GSI QP (source QP other than 1): the CM only talks to CMs. */
        NOT_FROM_GSI("dropped_not_from_gsi"),
        /** An attribute the CM does not handle (LAP, APR, ...). */
        UNKNOWN_ATTRIBUTE("dropped_unknown_attribute"),
        /** Names no ID here: an unknown local ID, or the peer's ID or the QPN does not match the ID's. */
        NO_SUCH_ID("dropped_no_such_id"),
        /** Both IDs match an ID, but the MAD came from another GID than the ID's peer. */
        FOREIGN_SOURCE("dropped_foreign_source"),
        /** The ID is in a state the MAD does nothing in (a duplicate, a late copy). */
        WRONG_STATE("dropped_wrong_state"),
        /** A REQ for a listener whose backlog of unanswered requests is full (dropped unanswered, as rdma_ucm). */
        BACKLOG_FULL("dropped_backlog_full"),
        /** Its handling failed (logged). */
        FAILED("dropped_failed");

        final String key;

        Drop(String key) {
            this.key = key;
        }
    }

    private long madsSent;
    private long madsReceived;
    private long sendsDropped;
    private final long[] drops = new long[Drop.values().length];
    private long reqsRefusedIpHeader;
    private long reqsExpired;

    void sent() {
        madsSent++;
    }

    void received() {
        madsReceived++;
    }

    void sendDropped() {
        sendsDropped++;
    }

    void dropped(Drop why) {
        drops[why.ordinal()]++;
    }

    /** A REQ or SIDR_REQ refused for its IP CM header (answered with a REJ or SIDR_REP). */
    void refusedIpHeader() {
        reqsRefusedIpHeader++;
    }

    /** A request the application had not answered when the CM's hold on it ran out. */
    void expired() {
        reqsExpired++;
    }

    /** @return MADs dropped for any reason */
    long droppedTotal() {
        long n = 0;
        for (long d : drops) {
            n += d;
        }
        return n;
    }

    /** @return every counter by name, in a fixed order */
    Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("mads_sent", madsSent);
        m.put("mads_received", madsReceived);
        m.put("mads_dropped", droppedTotal());
        for (Drop d : Drop.values()) {
            m.put(d.key, drops[d.ordinal()]);
        }
        m.put("sends_dropped", sendsDropped);
        m.put("reqs_refused_ip_header", reqsRefusedIpHeader);
        m.put("reqs_expired", reqsExpired);
        return Collections.unmodifiableMap(m);
    }
}
