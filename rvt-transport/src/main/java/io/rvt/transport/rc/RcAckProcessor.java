package io.rvt.transport.rc;

import io.rvt.api.PortCounter;
import io.rvt.api.WcStatus;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.Aeth;
import io.rvt.api.spi.Seq24;
import io.rvt.api.spi.Sge;
import io.rvt.api.spi.engine.EngineQp;
import io.rvt.api.spi.engine.QpFlags;
import io.rvt.api.spi.engine.RequesterState;
import io.rvt.api.spi.engine.ResponderState;
import io.rvt.api.spi.engine.SendQueue;
import io.rvt.api.spi.engine.SendWqe;
import io.rvt.transport.engine.Packets;
import io.rvt.transport.header.Opcode;
import io.rvt.transport.header.PacketHeaders;
import java.nio.ByteBuffer;

/**
 * The RC requester's side of responses ({@code rc_rcv_resp}, {@code do_rc_ack}, {@code do_rc_completion},
 * {@code rdma_seq_err}): ACKs complete the WQEs they cover, in order; RDMA READ responses fill the READ's scatter
 * list and atomic ACKs its first SGE; a zero-length RDMA READ RESPONSE ONLY completes an ATOMIC_WRITE or FLUSH (IBTA
 * 1.5, as rxe answers them); NAKs rewind (sequence error), wait (RNR) or fail the oldest WQE (invalid
 * request, remote access, remote operation error). Runs with the QP's {@code recvLock} and {@code sendLock} held.
 *
 * <p>A response that acknowledges PSNs beyond an unanswered RDMA READ or atomic implicitly NAKs it (the responder
 * lost the request or its response): the requester restarts from the READ/atomic once ({@code RDMAR_SEQ}) and ignores
 * everything but the PSN it expects until then.
 */
final class RcAckProcessor {
    private RcAckProcessor() {
    }

    /** NAK codes (the low five bits of a NAK's syndrome). */
    static final int NAK_PSN_ERROR = 0;
    static final int NAK_INVALID_REQUEST = 1;
    static final int NAK_REMOTE_ACCESS_ERROR = 2;
    static final int NAK_REMOTE_OPERATIONAL_ERROR = 3;

    /** Processes a response packet for the requester. */
    static void receiveResponse(EngineQp qp, RcState st, ByteBuffer buf, PacketHeaders hdr) {
        RequesterState rq = qp.requester();
        ResponderState rs = qp.responder();
        SendQueue sq = qp.sendQueue();
        int psn = hdr.psn();
        int opcode = hdr.opcode();
        if (!st.sentAny || Seq24.cmpMsn(psn, st.psnLimit) >= 0) {
            Packets.count(qp, PortCounter.PKT_DROPS); // a response to nothing we sent
            return;
        }
        int diff = Seq24.cmpMsn(psn, rq.lastPsn);
        if (diff <= 0) {
            // A duplicate; a repeated ACK may still carry newer credits ("ghost" ACK).
            if (diff == 0 && opcode == Opcode.RC_ACKNOWLEDGE && Aeth.syndromeClass(hdr.aeth()) == 0) {
                rq.getCredit(hdr.aeth());
            }
            return;
        }
        if ((rs.flags & QpFlags.R_RDMAR_SEQ) != 0) {
            // Waiting for the response to a restarted RDMA READ/atomic: skip everything else.
            if (Seq24.cmpMsn(psn, rq.lastPsn + 1) != 0) {
                return;
            }
            rs.flags &= ~QpFlags.R_RDMAR_SEQ;
        }
        if (rq.acked == rq.tail) {
            return;
        }
        SendWqe wqe = sq.swqe(rq.acked);
        int pmtu = qp.pmtu();
        int aeth = hdr.aeth();
        switch (opcode) {
            case Opcode.RC_ACKNOWLEDGE:
            case Opcode.RC_ATOMIC_ACKNOWLEDGE:
            case Opcode.RC_RDMA_READ_RESPONSE_FIRST: {
                long val = opcode == Opcode.RC_ATOMIC_ACKNOWLEDGE ? hdr.atomicAckOrigRemData() : 0L;
                if (!doRcAck(qp, st, aeth, psn, opcode, val) || opcode != Opcode.RC_RDMA_READ_RESPONSE_FIRST) {
                    return;
                }
                wqe = sq.swqe(rq.acked);
                if (wqe.opcode() != WrOpcode.RDMA_READ) {
                    fail(qp, wqe, WcStatus.LOC_QP_OP_ERR);
                    return;
                }
                // A response to a resent READ may start in the middle of the WQE's buffer.
                rq.rdmaReadLen = rq.rdmaReadSge.restart(wqe, Seq24.delta(psn,
                        wqe.psn()) * pmtu);
                readMiddle(qp, st, buf, hdr, psn, pmtu, wqe);
                return;
            }
            case Opcode.RC_RDMA_READ_RESPONSE_MIDDLE:
                if (Seq24.cmpMsn(psn, rq.lastPsn + 1) != 0) {
                    rdmaSeqErr(qp, st, psn);
                    return;
                }
                if (wqe.opcode() != WrOpcode.RDMA_READ) {
                    fail(qp, wqe, WcStatus.LOC_QP_OP_ERR);
                    return;
                }
                readMiddle(qp, st, buf, hdr, psn, pmtu, wqe);
                return;
            case Opcode.RC_RDMA_READ_RESPONSE_ONLY:
                if (hdr.payloadLength() == 0 && answersAtomicWriteOrFlush(qp, psn)) {
                    // IBTA 1.5 (rxe's send_read_response_ack): an ATOMIC_WRITE's or FLUSH's own response.
                    doRcAck(qp, st, aeth, psn, opcode, 0L);
                    return;
                }
                if (!doRcAck(qp, st, aeth, psn, opcode, 0L)) {
                    return;
                }
                wqe = sq.swqe(rq.acked);
                if (wqe.opcode() != WrOpcode.RDMA_READ) {
                    fail(qp, wqe, WcStatus.LOC_QP_OP_ERR);
                    return;
                }
                rq.rdmaReadLen = rq.rdmaReadSge.restart(wqe, Seq24.delta(psn,
                        wqe.psn()) * pmtu);
                readLast(qp, st, buf, hdr, psn, wqe);
                return;
            case Opcode.RC_RDMA_READ_RESPONSE_LAST:
                if (Seq24.cmpMsn(psn, rq.lastPsn + 1) != 0) {
                    rdmaSeqErr(qp, st, psn);
                    return;
                }
                if (wqe.opcode() != WrOpcode.RDMA_READ) {
                    fail(qp, wqe, WcStatus.LOC_QP_OP_ERR);
                    return;
                }
                if (hdr.payloadLength() == 0) {
                    fail(qp, wqe, WcStatus.LOC_LEN_ERR); // a LAST carries at least one byte
                    return;
                }
                readLast(qp, st, buf, hdr, psn, wqe);
                return;
            default:
                Packets.count(qp, PortCounter.PKT_DROPS);
        }
    }

    /** FIRST or MIDDLE read response data: exactly one MTU, and more must follow. */
    private static void readMiddle(EngineQp qp, RcState st, ByteBuffer buf, PacketHeaders hdr, int psn, int pmtu,
            SendWqe wqe) {
        RequesterState rq = qp.requester();
        if (hdr.payloadLength() != pmtu || pmtu >= rq.rdmaReadLen) {
            fail(qp, wqe, WcStatus.LOC_LEN_ERR);
            return;
        }
        // A response is progress: push the timeout out and let a SEND_ONE wait go on.
        rq.modRetryTimer();
        clearWaitAck(qp, st);
        if (hdr.opcode() == Opcode.RC_RDMA_READ_RESPONSE_MIDDLE) {
            rq.retry = qp.retryCnt();
        }
        rq.rdmaReadLen -= pmtu;
        rq.lastPsn = psn;
        hdr.copyPayload(buf, rq.rdmaReadSge, pmtu, false);
    }

    /** LAST or ONLY read response data: exactly what is left; completes the READ. */
    private static void readLast(EngineQp qp, RcState st, ByteBuffer buf, PacketHeaders hdr, int psn, SendWqe wqe) {
        RequesterState rq = qp.requester();
        int tlen = hdr.payloadLength();
        if (tlen != rq.rdmaReadLen) {
            fail(qp, wqe, WcStatus.LOC_LEN_ERR);
            return;
        }
        if (tlen > 0) {
            hdr.copyPayload(buf, rq.rdmaReadSge, tlen, false);
        }
        rq.rdmaReadLen = 0;
        doRcAck(qp, st, hdr.aeth(), psn, Opcode.RC_RDMA_READ_RESPONSE_LAST, 0L);
    }

    /**
     * {@code do_rc_ack}: completes the WQEs the AETH's PSN covers and acts on its syndrome.
     *
     * @return true if the packet is an ACK that the caller may process further (READ response data)
     */
    static boolean doRcAck(EngineQp qp, RcState st, int aeth, int psn, int opcode, long val) {
        SendQueue sq = qp.sendQueue();
        sq.beginCompletions(); // one release per region for the WQEs this ACK retires
        try {
            return doRcAck(qp, st, sq, aeth, psn, opcode, val);
        } finally {
            sq.endCompletions();
        }
    }

    private static boolean doRcAck(EngineQp qp, RcState st, SendQueue sq, int aeth, int psn, int opcode, long val) {
        RequesterState rq = qp.requester();
        ResponderState rs = qp.responder();
        int syndrome = Aeth.syndromeClass(aeth);
        // A NAK acknowledges everything before its PSN; the NAK'd PSN itself is not done.
        int ackPsn = syndrome != Aeth.SYNDROME_ACK ? psn - 1 : psn;
        SendWqe wqe = sq.swqe(rq.acked);
        boolean progress = false;
        int diff;
        while ((diff = Seq24.cmpMsn(ackPsn, wqe.lpsn())) >= 0) {
            WrOpcode w = wqe.opcode();
            boolean atomic = w == WrOpcode.ATOMIC_CMP_AND_SWP || w == WrOpcode.ATOMIC_FETCH_AND_ADD;
            boolean zeroLengthAnswer = isAtomicWriteOrFlush(w);
            if (w == WrOpcode.RDMA_READ && opcode == Opcode.RC_RDMA_READ_RESPONSE_ONLY && diff == 0) {
                // Complete what precedes the READ; the caller places the data, then completes the READ.
                afterProgress(qp, st, progress);
                return true;
            }
            if ((w == WrOpcode.RDMA_READ && (opcode != Opcode.RC_RDMA_READ_RESPONSE_LAST || diff != 0))
                    || (atomic && (opcode != Opcode.RC_ATOMIC_ACKNOWLEDGE || diff != 0))
                    || (zeroLengthAnswer && (opcode != Opcode.RC_RDMA_READ_RESPONSE_ONLY || diff != 0))) {
                // Only its own response completes a READ or atomic: this one NAKs it implicitly. Retry it.
                if ((rs.flags & QpFlags.R_RDMAR_SEQ) == 0) {
                    rs.flags |= QpFlags.R_RDMAR_SEQ;
                    RcRequester.restart(qp, st, rq.lastPsn + 1, false);
                    st.scheduleSend();
                }
                afterProgress(qp, st, progress);
                return false;
            }
            if (atomic) {
                Sge s = wqe.sge(0);
                s.putLong(val); // native order, as rvt's loopback writes it
            }
            if ((w == WrOpcode.RDMA_READ || atomic || zeroLengthAnswer) && rq.numRdAtomic > 0) {
                int n = rq.numRdAtomic - 1;
                rq.numRdAtomic = n;
                int flags = rq.flags;
                if ((flags & QpFlags.S_WAIT_FENCE) != 0 && n == 0) {
                    rq.flags = flags & ~(QpFlags.S_WAIT_FENCE | QpFlags.S_WAIT_ACK);
                    st.scheduleSend();
                } else if ((flags & QpFlags.S_WAIT_RDMAR) != 0) {
                    rq.flags = flags & ~(QpFlags.S_WAIT_RDMAR | QpFlags.S_WAIT_ACK);
                    st.scheduleSend();
                }
            }
            wqe = complete(qp, wqe);
            progress = true;
            if (rq.acked == rq.tail) {
                break;
            }
        }

        switch (syndrome) {
            case Aeth.SYNDROME_ACK:
                Packets.count(qp, PortCounter.RC_ACKS);
                if (rq.acked != rq.tail) {
                    rq.modRetryTimer(); // more ACKs expected
                    if (Seq24.cmpMsn(rq.psn, psn) <= 0) {
                        RcRequester.resetPsn(qp, psn + 1); // the responder has more than we were resending
                    }
                } else {
                    rq.stopRcTimers();
                    if (Seq24.cmpMsn(rq.psn, psn) <= 0) {
                        rq.state = RcRequester.IDLE;
                        rq.psn = psn + 1;
                    }
                }
                clearWaitAck(qp, st);
                rq.getCredit(aeth);
                rq.rnrRetry = qp.rnrRetryCnt();
                rq.retry = qp.retryCnt();
                rq.lastPsn = psn;
                afterProgress(qp, st, progress);
                return true;

            case Aeth.SYNDROME_RNR_NAK:
                Packets.count(qp, PortCounter.RNR_NAKS);
                afterProgress(qp, st, progress);
                if (rq.acked == rq.tail || (rq.flags & QpFlags.S_WAIT_RNR) != 0) {
                    return false;
                }
                if (rq.rnrRetry == 0) {
                    fail(qp, sq.swqe(rq.acked), WcStatus.RNR_RETRY_EXC_ERR);
                    return false;
                }
                if (qp.rnrRetryCnt() < 7) {
                    rq.rnrRetry = rq.rnrRetry - 1; // 7 means retry forever
                }
                rq.lastPsn = psn - 1;
                if (qp.iport() != null) {
                    qp.iport().addCounter(PortCounter.RC_RESENDS, Math.max(0, Seq24.delta(rq.psn, psn)));
                }
                RcRequester.resetPsn(qp, psn);
                rq.flags &= ~(QpFlags.S_WAIT_SSN_CREDIT | QpFlags.S_WAIT_ACK | QpFlags.S_WAIT_PSN);
                rq.stopRcTimers();
                rq.addRnrTimer(aeth);
                return false;

            case Aeth.SYNDROME_NAK:
                afterProgress(qp, st, progress);
                if (rq.acked == rq.tail) {
                    return false;
                }
                rq.lastPsn = psn - 1;
                switch (Aeth.code(aeth)) {
                    case NAK_PSN_ERROR:
                        Packets.count(qp, PortCounter.SEQ_NAKS);
                        // Go back to the responder's expected PSN (this may cut an RDMA READ response short).
                        RcRequester.restart(qp, st, psn, false);
                        st.scheduleSend();
                        break;
                    case NAK_INVALID_REQUEST:
                        Packets.count(qp, PortCounter.OTHER_NAKS);
                        fail(qp, sq.swqe(rq.acked), WcStatus.REM_INV_REQ_ERR);
                        break;
                    case NAK_REMOTE_ACCESS_ERROR:
                        Packets.count(qp, PortCounter.OTHER_NAKS);
                        fail(qp, sq.swqe(rq.acked), WcStatus.REM_ACCESS_ERR);
                        break;
                    case NAK_REMOTE_OPERATIONAL_ERROR:
                        Packets.count(qp, PortCounter.OTHER_NAKS);
                        fail(qp, sq.swqe(rq.acked), WcStatus.REM_OP_ERR);
                        break;
                    default:
                        return false; // reserved codes are ignored
                }
                rq.retry = qp.retryCnt();
                rq.rnrRetry = qp.rnrRetryCnt();
                return false;

            default:
                afterProgress(qp, st, progress); // class 2 is reserved
                return false;
        }
    }

    /**
     * {@code do_rc_completion}: completes the acknowledged WQE at {@code sendAcked} (= {@code sendLast}); if it was
     * being resent, the requester skips to the next WQE.
     *
     * @return the new WQE at {@code sendAcked}
     */
    static SendWqe complete(EngineQp qp, SendWqe wqe) {
        RequesterState rq = qp.requester();
        SendQueue sq = qp.sendQueue();
        int acked = rq.acked;
        boolean resending = acked == rq.cur;
        rq.retry = qp.retryCnt();
        rq.lastPsn = wqe.lpsn();
        // sendComplete drags sendAcked (and sendCur when it pointed here) past the slot, and ends SQD draining.
        sq.sendComplete(wqe, WcStatus.SUCCESS);
        if (resending) {
            rq.state = RcRequester.IDLE;
            if (rq.acked != rq.tail) {
                rq.psn = sq.swqe(rq.cur).psn();
            }
        }
        return sq.swqe(rq.acked);
    }

    /** @return true for the IBTA 1.5 operations answered by a zero-length RDMA READ RESPONSE ONLY */
    static boolean isAtomicWriteOrFlush(WrOpcode w) {
        return w == WrOpcode.ATOMIC_WRITE || w == WrOpcode.FLUSH;
    }

    /** @return true if the unacknowledged WQE that {@code psn} falls in is an ATOMIC_WRITE or FLUSH sent at it */
    private static boolean answersAtomicWriteOrFlush(EngineQp qp, int psn) {
        RequesterState rq = qp.requester();
        SendQueue sq = qp.sendQueue();
        for (int i = rq.acked; i != rq.tail; i = sq.swqeIncr(i)) {
            SendWqe w = sq.swqe(i);
            if (Seq24.cmpMsn(psn, w.lpsn()) <= 0) {
                return Seq24.cmpMsn(psn, w.psn()) == 0 && isAtomicWriteOrFlush(w.opcode());
            }
        }
        return false;
    }

    /** {@code rdma_seq_err}: a READ response arrived out of sequence: complete what it covers, restart the READ. */
    static void rdmaSeqErr(EngineQp qp, RcState st, int psn) {
        RequesterState rq = qp.requester();
        rq.stopRcTimers();
        SendWqe wqe = qp.sendQueue().swqe(rq.acked);
        while (rq.acked != rq.tail && Seq24.cmpMsn(psn, wqe.lpsn()) > 0) {
            WrOpcode w = wqe.opcode();
            if (w == WrOpcode.RDMA_READ || w == WrOpcode.ATOMIC_CMP_AND_SWP || w == WrOpcode.ATOMIC_FETCH_AND_ADD
                    || isAtomicWriteOrFlush(w)) {
                break;
            }
            wqe = complete(qp, wqe);
        }
        Packets.count(qp, PortCounter.RDMA_SEQ);
        qp.responder().flags |= QpFlags.R_RDMAR_SEQ;
        RcRequester.restart(qp, st, rq.lastPsn + 1, false);
        st.scheduleSend();
    }

    /**
     * IBTA class B error (and local errors on a response): completes the oldest WQE with {@code status} and moves the
     * QP to ERR; the send engine then flushes the rest.
     */
    static void fail(EngineQp qp, SendWqe wqe, WcStatus status) {
        if (qp.sendQueue().last() == qp.requester().acked) {
            qp.sendQueue().sendComplete(wqe, status);
            qp.rcError(WcStatus.WR_FLUSH_ERR);
        }
    }

    private static void clearWaitAck(EngineQp qp, RcState st) {
        int flags = qp.requester().flags;
        if ((flags & QpFlags.S_WAIT_ACK) != 0) {
            qp.requester().flags = flags & ~QpFlags.S_WAIT_ACK;
            st.scheduleSend();
        }
    }

    /** Completions may unblock the engine (a local operation waiting for them, an unsent WQE): wake it. */
    private static void afterProgress(EngineQp qp, RcState st, boolean progress) {
        if (progress && qp.requester().cur != qp.sendQueue().head()) {
            st.scheduleSend();
        }
    }
}
