package io.rvt.it.interop;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * rxe0's {@code hw_counters} (port 1) at one moment, or what changed between two readings ({@link #since}). rxe
 * drops a bad packet silently: one that fails its header or ICRC check is not in {@code rcvd_pkts} and in no other
 * counter, so a case reads them before and after and compares {@code rcvd_pkts} with what rvt sent. The names are
 * rxe's ({@code drivers/infiniband/sw/rxe/rxe_hw_counters.c}): {@code sent_pkts}, {@code rcvd_pkts},
 * {@code duplicate_request}, {@code out_of_seq_request}, {@code rcvd_rnr_err}, {@code send_rnr_err},
 * {@code rcvd_seq_err}, {@code ack_deferred}, {@code retry_exceeded_err}, {@code retry_rnr_exceeded_err},
 * {@code completer_retry_err}, {@code send_err}, {@code link_downed}, {@code rdma_sends}, {@code rdma_recvs}.
 *
 * @param values the counters by name
 */
record RxeCounters(Map<String, Long> values) {
    /**
     * The counters that count a lost or refused packet: none moves in a loss-free case. {@code rcvd_seq_err} (rxe got
     * a sequence NAK: one of its packets did not reach rvt's QP), {@code out_of_seq_request} (a gap in rvt's
     * requests), the RNR pair, the give-ups and {@code send_err}. Not here: {@code duplicate_request} and
     * {@code completer_retry_err}, which a retransmission after an ACK timeout moves with nothing lost (rxe under TCG
     * on a busy machine can answer later than rvt's 1.07 s).
     */
    static final String[] LOSS = {"rcvd_seq_err", "out_of_seq_request", "rcvd_rnr_err", "send_rnr_err",
        "retry_exceeded_err", "retry_rnr_exceeded_err", "send_err"};
    /** What must stay 0 also under loss: a give-up, an RNR, a failed transmission. */
    static final String[] FAILURES = {"rcvd_rnr_err", "send_rnr_err", "retry_exceeded_err", "retry_rnr_exceeded_err",
        "send_err"};

    /** @param values copied in order */
    RxeCounters {
        values = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    /**
     * @param peer the guest
     * @return its counters now
     * @throws InterruptedException if interrupted
     */
    static RxeCounters read(LinuxPeer peer) throws InterruptedException {
        return new RxeCounters(peer.hwCounters());
    }

    /**
     * @param before an earlier reading
     * @return each counter's change since then
     */
    RxeCounters since(RxeCounters before) {
        Map<String, Long> d = new LinkedHashMap<>();
        values.forEach((k, v) -> d.put(k, v - before.values.getOrDefault(k, 0L)));
        return new RxeCounters(d);
    }

    /**
     * @param name a counter's name
     * @return its value
     * @throws IllegalStateException naming the counters there are if rxe has no such counter
     */
    long get(String name) {
        Long v = values.get(name);
        if (v == null) {
            throw new IllegalStateException("rxe0 has no hw_counter " + name + " (has " + values.keySet() + ")");
        }
        return v;
    }

    /** @return the counters that are not 0, {@code name=value} separated by spaces (a difference's changes) */
    String nonZero() {
        StringBuilder sb = new StringBuilder();
        values.forEach((k, v) -> {
            if (v != 0 && !k.equals("lifespan")) {
                sb.append(sb.length() == 0 ? "" : " ").append(k).append('=').append(v);
            }
        });
        return sb.toString();
    }
}
