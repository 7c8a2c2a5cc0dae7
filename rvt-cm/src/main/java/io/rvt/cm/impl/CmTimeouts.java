package io.rvt.cm.impl;

import io.rvt.api.Errno;
import io.rvt.cm.CmEventType;
import io.rvt.cm.CmException;
import io.rvt.cm.CmState;
import io.rvt.cm.DatagramPeer;
import io.rvt.cm.RejectReason;
import java.util.concurrent.CompletableFuture;

/**
 * The CM's MAD retransmission schedule (IBTA vol 1 ch 12.7.27 and 12.9.2): each ID's one timer, armed for the
 * response timeout of what it sent (4.096 us x 2^code), a MRA's service timeout, or timewait; when it expires an
 * unanswered REQ, REP, DREQ or SIDR_REQ is sent again up to Max CM Retries, then the attempt fails with ETIMEDOUT,
 * and a timewait ends. Called under the engine's monitor, except {@link #onTimer}.
 */
final class CmTimeouts {
    private final CmEngine engine;

    CmTimeouts(CmEngine engine) {
        this.engine = engine;
    }

    /** @return the nanoseconds of an IBTA timeout code: 4.096 us x 2^code */
    static long codeNanos(int code) {
        return 4096L << Math.min(Math.max(code, 0), 31);
    }

    /**
     * The transport timer code that covers a round trip and the responder's ACK delay (IBTA 12.7.34: 2 x packet
     * life time + the CA's ACK delay), as ib_cm's {@code cm_ack_timeout} rounds it: the larger of the two codes
     * (packet life time + 1 stands for the doubled life time), one more when the smaller is within one code of it
     * (their sum is then near double), at most 31.
     *
     * @param caAckDelay a CA's ACK delay code
     * @param packetLifeTime the path's packet life time code
     * @return the ACK timeout code
     */
    static int ackTimeout(int caAckDelay, int packetLifeTime) {
        int hi = Math.max(packetLifeTime + 1, caAckDelay);
        int lo = Math.min(packetLifeTime + 1, caAckDelay);
        return Math.min(31, lo >= hi - 1 ? hi + 1 : hi);
    }

    /**
     * The REQ's Local ACK Timeout for the active QP's own ACK timeout: rdma_cm after {@code rdma_set_ack_timeout}
     * takes the packet life time as that timeout less one and sends {@link #ackTimeout} of it and its CA's ACK
     * delay; the passive QP uses the result. 0 (no timer) stays 0.
     *
     * @param caAckDelay the active CA's ACK delay code
     * @param qpTimeout the active QP's ACK timeout code
     * @return the Local ACK Timeout to send
     */
    static int reqAckTimeout(int caAckDelay, int qpTimeout) {
        return qpTimeout == 0 ? 0 : ackTimeout(caAckDelay, qpTimeout - 1);
    }

    /** Arms an ID's timer {@code nanos} from now. */
    void arm(ConnId id, long nanos) {
        id.deadline = engine.timers.nanoTime() + nanos;
        id.timer.arm(nanos);
    }

    /** Arms an ID's timer for the response timeout of the peer. */
    void armResponse(ConnId id) {
        arm(id, codeNanos(id.peerResponseTimeout));
    }

    /**
     * Holds a request the application has not answered, from its first copy: as long as the peer retries (its Max
     * CM Retries + 1 times its response timeout and our MRA's service timeout, which a REQ may stretch to 39 hours),
     * but no longer than {@link io.rvt.cm.CmConfig#maxRequestHold()} after the peer's last copy of it: a peer that
     * still asks keeps its request (a slow application's, or one on a deterministic fabric whose virtual time leaps
     * while the application has not run), one that stopped asking, or never will (a spoofed REQ), loses it.
     */
    void holdRequest(ConnId id) {
        long now = engine.timers.nanoTime();
        if (id.holdUntil == 0) {
            id.holdUntil = now + (id.maxRetries + 1L) * (codeNanos(id.peerResponseTimeout)
                    + codeNanos(engine.config().serviceTimeout()));
        }
        arm(id, Math.max(0, Math.min(id.holdUntil - now, engine.config().maxRequestHold().toNanos())));
    }

    /** Stops an ID's timer. */
    static void disarm(ConnId id) {
        id.deadline = Long.MAX_VALUE;
        id.timer.cancel();
    }

    /** @return how long an ID stays in timewait: its QP's local ACK timeout, doubled, and at least 1 ms */
    long timewaitNanos(ConnId id) {
        return Math.max(CmEngine.MIN_TIMEWAIT_NANOS, codeNanos(id.localAckTimeout + 1));
    }

    /** An ID's timer fired (its own thread, or the fabric's in virtual time). */
    void onTimer(ConnId id) {
        synchronized (engine) {
            if (!engine.isOpen() || id.state == CmState.CLOSED) {
                return;
            }
            if (!engine.device.isAlive()) {
                engine.deviceGone();
            } else if (engine.timers.nanoTime() >= id.deadline) {
                expire(id);
            }
        }
        engine.drain();
    }

    /** A response timeout, the end of an unanswered request's wait, or the end of timewait. */
    private void expire(ConnId id) {
        id.deadline = Long.MAX_VALUE;
        switch (id.state) {
            case REQ_SENT:
            case MRA_REQ_RCVD:
                if (id.retries < id.maxRetries) {
                    id.retries++;
                    engine.sendFor(id, id.lastSent);
                    id.state = CmState.REQ_SENT;
                    engine.emit(id, CmEventType.REQUEST_SENT, CmState.REQ_SENT, null, null, null, id.retries + 1,
                            null);
                    armResponse(id);
                } else {
                    engine.sendRej(id, 0, CmMad.MSG_REQ, RejectReason.TIMEOUT);
                    engine.fail(id, timeout(id, "no answer to the connection request"), CmEventType.CONNECT_ERROR,
                            null, null);
                }
                break;
            case REP_SENT:
            case MRA_REP_RCVD:
                if (id.retries < id.maxRetries) {
                    id.retries++;
                    engine.sendFor(id, id.lastSent);
                    id.state = CmState.REP_SENT;
                    armResponse(id);
                } else {
                    engine.sendRej(id, id.remoteId, CmMad.MSG_REP, RejectReason.TIMEOUT);
                    engine.fail(id, timeout(id, "no ready-to-use for the reply"), CmEventType.CONNECT_ERROR, null,
                            null);
                }
                break;
            case REQ_RCVD:
            case MRA_REQ_SENT:
                // the application never answered: the peer has given up by now, or the hold's cap ran out
                engine.counters.expired();
                engine.sendRej(id, id.remoteId, CmMad.MSG_REQ, RejectReason.TIMEOUT);
                id.answered = true;
                id.listener.release(id);
                engine.fail(id, timeout(id, "the connection request was never answered"), CmEventType.CONNECT_ERROR,
                        null, null);
                break;
            case DREQ_SENT:
                if (id.retries < id.maxRetries) {
                    id.retries++;
                    engine.sendFor(id, id.lastSent);
                    armResponse(id);
                } else {
                    engine.enterTimewait(id, CmEventType.DISCONNECTED, null);
                }
                break;
            case SIDR_REQ_SENT:
                if (id.retries < id.maxRetries) {
                    id.retries++;
                    engine.sendFor(id, id.lastSent);
                    engine.emit(id, CmEventType.REQUEST_SENT, id.state, null, null, null, id.retries + 1, null);
                    armResponse(id);
                } else {
                    CmException err = timeout(id, "no answer to the service ID resolution request");
                    CompletableFuture<DatagramPeer> f = id.sidr;
                    engine.later(() -> f.completeExceptionally(err));
                    engine.remove(id);
                    engine.transition(id, CmState.CLOSED, CmEventType.CONNECT_ERROR, null, null, err);
                }
                break;
            case TIMEWAIT:
                engine.remove(id);
                engine.transition(id, CmState.CLOSED, CmEventType.TIMEWAIT_EXIT, null, null, null);
                break;
            default:
                break;
        }
    }

    private CmException timeout(ConnId id, String what) {
        return new CmException(Errno.ETIMEDOUT, what + ": timed out after " + id.retries + " retries of "
                + codeNanos(id.peerResponseTimeout) / 1000 + " us", id.remoteGid, id.cmPort, id.serviceId, null,
                null, id.retries);
    }
}
