package io.rvt.launcher;

import io.rvt.api.CompletionQueue;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;

/**
 * Busy-polling for completions with a safety deadline: a lost message on an unreliable transport, or a stuck fabric,
 * ends the command with a clear error instead of a hang. Between polls the host moves its network on
 * ({@link Host#progress()}: a spin, or with {@code --threading invoker} the network's own work). Allocates nothing
 * unless it fails.
 */
final class Completions {
    /** How long a command waits for one expected completion before giving up (wall time). */
    static final long DEADLINE_NANOS = 10_000_000_000L;

    private Completions() {
    }

    /**
     * Polls {@code cq} until it yields a completion, and checks its status.
     *
     * @param host the devices' host, whose network progresses while the CQ is empty
     * @param cq the CQ
     * @param wc filled with the completion
     * @param what names the wait in an error, e.g. "the receive on sim1"
     * @param hint appended to a timeout error (why it may have happened), or ""
     * @throws IllegalStateException on a failed completion or when {@link #DEADLINE_NANOS} pass
     */
    static void await(Host host, CompletionQueue cq, WorkCompletion wc, String what, String hint) {
        take(host, cq, wc, what, hint);
        check(wc, what);
    }

    /**
     * {@link #await(Host, CompletionQueue, WorkCompletion, String, String)}, or with perftest's {@code -e} its
     * {@code ctx_notify_events} before each poll: while {@code cq} is empty, waits for its completion event on
     * {@code events}' channel (each wait at most a millisecond, the host's network moved between).
     *
     * @param host the devices' host
     * @param cq the CQ, on {@code events}' channel and armed
     * @param events the CQ's completion channel, or null to busy-poll
     * @param wc filled with the completion
     * @param what names the wait in an error
     * @param hint appended to a timeout error, or ""
     * @throws IllegalStateException on a failed completion or when {@link #DEADLINE_NANOS} pass
     */
    static void await(Host host, CompletionQueue cq, io.rvt.launcher.pingpong.CqEvents events, WorkCompletion wc,
            String what, String hint) {
        if (events == null) {
            await(host, cq, wc, what, hint);
            return;
        }
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        while (!cq.pollCq(wc)) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no completion for " + what + " within "
                        + DEADLINE_NANOS / 1_000_000_000L + " s" + hint);
            }
            events.awaitEvent(cq, host::progress);
        }
        check(wc, what);
    }

    /**
     * Polls {@code cq} until it yields a completion, whatever its status.
     *
     * @param host the devices' host, whose network progresses while the CQ is empty
     * @param cq the CQ
     * @param wc filled with the completion
     * @param what names the wait in an error
     * @param hint appended to a timeout error, or ""
     * @throws IllegalStateException when {@link #DEADLINE_NANOS} pass
     */
    static void take(Host host, CompletionQueue cq, WorkCompletion wc, String what, String hint) {
        if (!cq.pollCq(wc)) {
            long deadline = System.nanoTime() + DEADLINE_NANOS;
            while (!cq.pollCq(wc)) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("no completion for " + what + " within "
                            + DEADLINE_NANOS / 1_000_000_000L + " s" + hint);
                }
                host.progress();
            }
        }
    }

    /**
     * @param wc a completion
     * @param what names the work request in an error
     * @throws IllegalStateException unless it succeeded
     */
    static void check(WorkCompletion wc, String what) {
        if (wc.status() != WcStatus.SUCCESS) {
            throw new IllegalStateException(what + " failed: " + wc.status() + " (wr_id " + wc.wrId() + ")");
        }
    }

    /**
     * @param transport the transport a wait is on
     * @return why a completion may never come on it, for a timeout error
     */
    static String lossHint(Transport transport) {
        return transport == Transport.RC ? " (the RC retry limit should have ended it first, unless the peer"
                + " RNR-NAKs for want of posted receives, which rnr_retry 7 retries for ever: is the fabric stuck, or"
                + " has the peer stopped receiving?)"
                : " (" + transport.option().toUpperCase(java.util.Locale.ROOT)
                        + " does not retransmit: with --loss a lost message ends the run)";
    }
}
