package io.rvt.transport.rc;

import io.rvt.api.MigState;
import io.rvt.api.PortCounter;
import io.rvt.api.QpState;
import io.rvt.api.QpState.Ops;
import io.rvt.api.SendFlag;
import io.rvt.api.WcStatus;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.Seq24;
import io.rvt.api.spi.engine.EngineQp;
import io.rvt.api.spi.engine.QpFlags;
import io.rvt.api.spi.engine.RequesterState;
import io.rvt.api.spi.engine.SendQueue;
import io.rvt.api.spi.engine.SendWqe;
import io.rvt.transport.engine.Packets;
import io.rvt.transport.engine.RequestBuilder;
import io.rvt.transport.engine.TxInfo;
import io.rvt.transport.header.AtomicEthDescriptor;
import io.rvt.transport.header.BthDescriptor;
import io.rvt.transport.header.FethDescriptor;
import io.rvt.transport.header.Opcode;
import io.rvt.transport.header.RethDescriptor;
import java.nio.ByteBuffer;

/**
 * The RC requester's packet builder ({@code make_rc_req}) and its go-back-N rewind ({@code restart_rc},
 * {@code reset_psn}). Everything here runs with the QP's {@code sendLock} held.
 *
 * <p>The cursors are rdmavt's: WQEs in {@code [sendAcked, sendTail)} have been (at least partly) sent and wait for
 * their ACK or response; {@code sendCur} is the WQE being turned into packets, {@code sendPsn} the next PSN to send;
 * {@code sendState} the opcode of the last packet built. Because completions happen as soon as a WQE is acknowledged
 * (there is no send DMA to wait for), {@code sendLast == sendAcked} whenever the lock is free.
 *
 * <p>As in qib and hfi1, three response opcodes that a requester never sends mark in {@code sendState} that the ACK
 * path rewound the requester into the middle of a message: {@link #RESTART_SEND}, {@link #RESTART_WRITE} and
 * {@link #RESTART_READ}; the next packet then re-seeks the WQE's scatter list (or re-requests the rest of the READ).
 */
final class RcRequester {
    private RcRequester() {
    }

    /** Ask for an ACK every this many packets of a long message (hfi1 {@code HFI1_PSN_CREDIT}). */
    static final int ACK_REQUEST_INTERVAL = 16;
    /** {@code sendState}: resend a SEND from the middle ({@code sendPsn} inside it). */
    static final int RESTART_SEND = Opcode.RC_RDMA_READ_RESPONSE_FIRST;
    /** {@code sendState}: resend an RDMA WRITE from the middle. */
    static final int RESTART_WRITE = Opcode.RC_RDMA_READ_RESPONSE_LAST;
    /** {@code sendState}: re-request the rest of an RDMA READ. */
    static final int RESTART_READ = Opcode.RC_RDMA_READ_RESPONSE_MIDDLE;
    /** {@code sendState}: at a message boundary (the core's initial value). */
    static final int IDLE = Opcode.RC_SEND_LAST;
    /**
     * With {@link RcEngine#backOffRetries}: the local ACK timeout code up to which a retry's timer keeps doubling
     * (4.096 us x 2^18 = 1.07 s, longer than a busy machine kept a process off its cores, 0.35-1 s measured).
     */
    static final int BACKOFF_CEILING_TIMEOUT = 18;
    /** {@link #makeRequest} result: the WQE at {@code sendCur} cannot be sent; the QP must go to ERR. */
    static final int FATAL = -1;

    /** The waits that stop the requester until an ACK, a timer or credits clear them. */
    private static final int WAIT_MASK = QpFlags.S_WAIT_RNR | QpFlags.S_WAIT_ACK | QpFlags.S_WAIT_FENCE
            | QpFlags.S_WAIT_RDMAR | QpFlags.S_WAIT_SSN_CREDIT | QpFlags.S_WAIT_PSN;

    /**
     * Builds the next request packet, or flushes in SQE/ERR; stops (with {@code S_WAIT_PSN}) when the QP's window
     * or its port's budget is full ({@link RcWindow}).
     *
     * @param window the budget of the QP's port, or null
     * @param backoff whether the timer a retransmission arms backs off ({@link RcEngine#backOffRetries})
     * @return bytes written, 0 if there is nothing to send now, {@link #FATAL} if the WQE at {@code sendCur} has an
     *         operation the transport does not know (it was completed with {@code LOC_QP_OP_ERR})
     */
    static int makeRequest(EngineQp qp, RcState st, ByteBuffer buf, int off, TxInfo tx, RcWindow window,
            boolean backoff) {
        RequesterState rq = qp.requester();
        SendQueue sq = qp.sendQueue();
        QpState state = qp.state();
        if (!RequestBuilder.canSendOrFlush(qp, state, Ops.PROCESS_SEND_OK)) {
            return 0;
        }
        while (true) {
            if ((rq.flags & WAIT_MASK) != 0) {
                return 0;
            }
            int cur = rq.cur;
            SendWqe wqe = sq.swqe(cur);
            if ((window != null || st.cwnd != RcWindow.UNLIMITED) && !admitted(qp, st, window, wqe, cur)) {
                return 0;
            }
            int pmtu = qp.pmtu();
            int hdr = off + BthDescriptor.LENGTH;
            int op;
            int len;
            int psn;
            boolean ackReq = false;
            boolean se = false;
            switch (rq.state) {
                case RESTART_SEND:
                case RESTART_WRITE:
                    rq.len = rq.sge.restart(wqe, Seq24.delta(rq.psn,
                            wqe.psn()) * pmtu);
                    // fall through
                case Opcode.RC_SEND_FIRST:
                case Opcode.RC_SEND_MIDDLE:
                case Opcode.RC_RDMA_WRITE_FIRST:
                case Opcode.RC_RDMA_WRITE_MIDDLE:
                    psn = rq.psn;
                    rq.psn = psn + 1;
                    op = RequestBuilder.opcode(Opcode.RC, wqe.opcode(), false, rq.len, pmtu);
                    len = Math.min(rq.len, pmtu);
                    hdr = RequestBuilder.writeHeaders(buf, hdr, op, wqe);
                    se = RequestBuilder.solicited(op, wqe);
                    if (RequestBuilder.endsMessage(op)) {
                        ackReq = true;
                        rq.cur = sq.swqeIncr(cur);
                    }
                    break;
                case RESTART_READ: {
                    int done = Seq24.delta(rq.psn, wqe.psn()) * pmtu;
                    hdr = RethDescriptor.write(buf, hdr, wqe.remoteAddr() + done, wqe.rkey(), wqe.length() - done);
                    op = Opcode.RC_RDMA_READ_REQUEST;
                    psn = rq.psn;
                    rq.psn = wqe.lpsn() + 1;
                    len = 0;
                    ackReq = true;
                    rq.cur = sq.swqeIncr(cur);
                    break;
                }
                default: {
                    // A message boundary: start the WQE at sendCur (new, or resent from its first PSN).
                    if (!state.can(Ops.PROCESS_NEXT_SEND_OK)) {
                        return 0; // SQD: finish what was started, start nothing new
                    }
                    boolean newReq = false;
                    if (cur == rq.tail) {
                        if (cur == sq.head()) {
                            return 0;
                        }
                        if (SendFlag.FENCE.in(wqe.sendFlags()) && rq.numRdAtomic > 0) {
                            rq.flags |= QpFlags.S_WAIT_FENCE;
                            return 0;
                        }
                        WrOpcode w = wqe.opcode();
                        if (w == WrOpcode.REG_MR || w == WrOpcode.LOCAL_INV || w == WrOpcode.BIND_MW) {
                            // Local operations run once everything before them has completed.
                            if (sq.last() != cur) {
                                return 0;
                            }
                            completeLocalOp(qp, wqe, cur);
                            continue;
                        }
                        newReq = true;
                    }
                    psn = wqe.psn();
                    len = wqe.length();
                    switch (wqe.opcode()) {
                        case SEND:
                        case SEND_WITH_IMM:
                        case SEND_WITH_INV:
                        case RDMA_WRITE_WITH_IMM:
                            if (!rq.creditAvail(wqe)) {
                                return 0;
                            }
                            // fall through
                        case RDMA_WRITE:
                            op = RequestBuilder.opcode(Opcode.RC, wqe.opcode(), true, len, pmtu);
                            len = Math.min(len, pmtu);
                            hdr = RequestBuilder.writeHeaders(buf, hdr, op, wqe);
                            se = RequestBuilder.solicited(op, wqe);
                            if (RequestBuilder.endsMessage(op)) {
                                ackReq = true;
                                rq.cur = sq.swqeIncr(cur);
                            }
                            break;
                        case RDMA_READ:
                            if (newReq && !takeReadAtomicSlot(qp)) {
                                return 0;
                            }
                            hdr = RethDescriptor.write(buf, hdr, wqe.remoteAddr(), wqe.rkey(), len);
                            op = Opcode.RC_RDMA_READ_REQUEST;
                            len = 0;
                            ackReq = true;
                            rq.cur = sq.swqeIncr(cur);
                            break;
                        case ATOMIC_CMP_AND_SWP:
                        case ATOMIC_FETCH_AND_ADD:
                            if (newReq && !takeReadAtomicSlot(qp)) {
                                return 0;
                            }
                            if (wqe.opcode() == WrOpcode.ATOMIC_CMP_AND_SWP) {
                                op = Opcode.RC_COMPARE_SWAP;
                                hdr = AtomicEthDescriptor.write(buf, hdr, wqe.remoteAddr(), wqe.rkey(), wqe.swap(),
                                        wqe.compareAdd());
                            } else {
                                op = Opcode.RC_FETCH_ADD;
                                hdr = AtomicEthDescriptor.write(buf, hdr, wqe.remoteAddr(), wqe.rkey(),
                                        wqe.compareAdd(), 0L);
                            }
                            len = 0;
                            ackReq = true;
                            rq.cur = sq.swqeIncr(cur);
                            break;
                        case ATOMIC_WRITE:
                            // IBTA 1.5 as rxe sends it: RETH (length 8) and the 8 bytes of the one SGE; answered
                            // with a zero-length RDMA READ RESPONSE ONLY, and a responder resource like an atomic.
                            if (newReq && !takeReadAtomicSlot(qp)) {
                                return 0;
                            }
                            op = Opcode.RC_ATOMIC_WRITE;
                            hdr = RethDescriptor.write(buf, hdr, wqe.remoteAddr(), wqe.rkey(), 8);
                            len = 8;
                            ackReq = true;
                            rq.cur = sq.swqeIncr(cur);
                            break;
                        case FLUSH:
                            // IBTA 1.5 as rxe sends it: FETH (placement type, selectivity level), RETH (the range).
                            if (newReq && !takeReadAtomicSlot(qp)) {
                                return 0;
                            }
                            op = Opcode.RC_FLUSH;
                            hdr = FethDescriptor.write(buf, hdr, wqe.flushType(), wqe.flushLevel());
                            hdr = RethDescriptor.write(buf, hdr, wqe.remoteAddr(), wqe.rkey(), wqe.flushLength());
                            len = 0;
                            ackReq = true;
                            rq.cur = sq.swqeIncr(cur);
                            break;
                        default:
                            // An operation this transport does not implement (e.g. a driver-reserved one the
                            // driver did not handle): fail it as rdmavt's loopback does.
                            rq.cur = sq.swqeIncr(cur);
                            if (newReq) {
                                rq.tail = sq.swqeIncr(rq.tail);
                            }
                            sq.sendComplete(wqe, WcStatus.LOC_QP_OP_ERR);
                            return FATAL;
                    }
                    rq.sge.init(wqe.sgList(), 0, wqe.numSge(), wqe.length());
                    rq.len = wqe.length();
                    if (newReq) {
                        rq.tail = sq.swqeIncr(rq.tail);
                    }
                    rq.psn = wqe.opcode() == WrOpcode.RDMA_READ ? wqe.lpsn() + 1 : psn + 1;
                    break;
                }
            }
            int delta = Seq24.delta(psn, wqe.psn());
            if (delta != 0 && delta % ACK_REQUEST_INTERVAL == 0) {
                ackReq = true;
            }
            int flags = rq.flags;
            if ((flags & QpFlags.S_SEND_ONE) != 0) {
                // After a timeout: one packet, then wait for its ACK before sending more.
                flags = (flags & ~QpFlags.S_SEND_ONE) | QpFlags.S_WAIT_ACK;
                rq.flags = flags;
                ackReq = true;
            }
            if (window != null || st.cwnd != RcWindow.UNLIMITED) {
                RcWindow.settle(qp, st, window);
                ackReq |= RcWindow.asksForAck(qp, st, window, psn, 0);
            }
            rq.len -= len;
            rq.state = op;
            int end = Packets.referencePayload(buf, hdr, rq.sge, len, tx);
            int pkey = Packets.pkeyOf(qp);
            BthDescriptor.write(buf, off, op, se, qp.migState() == MigState.MIGRATED, Packets.padCount(len), pkey,
                    qp.remoteQpn(), ackReq, psn & BthDescriptor.MASK_24);
            int limit = op == Opcode.RC_RDMA_READ_REQUEST ? wqe.lpsn() + 1 : psn + 1;
            if (!st.sentAny || Seq24.cmpMsn(limit, st.psnLimit) > 0) {
                st.psnLimit = limit;
                st.sentAny = true;
            }
            if ((flags & (QpFlags.S_TIMER | QpFlags.S_WAIT_RNR)) == 0) {
                rq.addRetryTimerExt(backoff ? backoffShift(qp, rq) : 0);
            }
            tx.ah().copyFrom(qp.remoteAhAttr());
            tx.set(qp.qpNum(), qp.remoteQpn(), pkey, op, psn & BthDescriptor.MASK_24, end - off, len, qp.portNum(),
                    false, false);
            if (tx.runLimit() > 1 && len == pmtu && !RequestBuilder.endsMessage(op) && tx.isPayloadByReference()
                    && op != Opcode.RC_RDMA_READ_REQUEST) {
                Packets.startRun(tx, ackReq);
                extendRun(qp, st, wqe, pmtu, tx, window);
            }
            return end - off;
        }
    }

    /**
     * The backoff of the retry timer a packet arms ({@link RcEngine#backOffRetries}): one doubling per retry since the
     * last ACK that made progress ({@code retry_cnt - s_retry}: timeouts and sequence NAKs, as both count retries),
     * none past {@link #BACKOFF_CEILING_TIMEOUT}; none for timeout 0 (no timer) or above the ceiling.
     *
     * @return the shift for {@code addRetryTimerExt}
     */
    static int backoffShift(EngineQp qp, RequesterState rq) {
        int used = qp.retryCnt() - rq.retry;
        int room = BACKOFF_CEILING_TIMEOUT - qp.timeout();
        return qp.timeout() == 0 || used <= 0 || room <= 0 ? 0 : Math.min(used, room);
    }

    /**
     * Makes the packets that follow a FIRST or MIDDLE of a SEND or RDMA WRITE, as part of the same run
     * ({@code TxInfo.runLimit}): each advances the requester as its own {@link #makeRequest} would (PSN, opcode, AckReq
     * every {@value #ACK_REQUEST_INTERVAL} packets and on the last, the WQE cursor at the message's end, the PSN
     * limit), until the limit, a LAST that carries an ImmDt or IETH, or a payload that cannot be referenced.
     * {@code sendLock} held.
     */
    /**
     * @param state {@code s_state}
     * @return true if {@link #makeRequest} would start a new WQE in it (not inside a message, not resending one)
     */
    static boolean betweenMessages(int state) {
        switch (state) {
            case RESTART_SEND:
            case RESTART_WRITE:
            case RESTART_READ:
            case Opcode.RC_SEND_FIRST:
            case Opcode.RC_SEND_MIDDLE:
            case Opcode.RC_RDMA_WRITE_FIRST:
            case Opcode.RC_RDMA_WRITE_MIDDLE:
                return false;
            default:
                return true;
        }
    }

    private static void extendRun(EngineQp qp, RcState st, SendWqe wqe, int pmtu, TxInfo tx, RcWindow window) {
        RequesterState rq = qp.requester();
        boolean windowed = window != null || st.cwnd != RcWindow.UNLIMITED;
        while (rq.len > 0 && (rq.flags & WAIT_MASK) == 0) {
            if (windowed && !RcWindow.admit(qp, st, window, 1)) {
                return; // the window is full: the run ends here and the requester waits for an ACK
            }
            int op = RequestBuilder.opcode(Opcode.RC, wqe.opcode(), false, rq.len, pmtu);
            int operation = op & Opcode.OPERATION_MASK;
            if (operation != Opcode.SEND_MIDDLE && operation != Opcode.RDMA_WRITE_MIDDLE
                    && operation != Opcode.SEND_LAST && operation != Opcode.RDMA_WRITE_LAST) {
                return; // ImmDt or IETH: a packet of its own
            }
            int len = Math.min(rq.len, pmtu);
            int psn = rq.psn;
            boolean ends = RequestBuilder.endsMessage(op);
            int delta = Seq24.delta(psn, wqe.psn());
            boolean ackReq = ends || delta != 0 && delta % ACK_REQUEST_INTERVAL == 0
                    || windowed && RcWindow.asksForAck(qp, st, window, psn, 1);
            if (!Packets.extendRun(tx, rq.sge, op, len, ackReq, RequestBuilder.solicited(op, wqe))) {
                return;
            }
            rq.psn = psn + 1;
            if (windowed) {
                RcWindow.settle(qp, st, window);
            }
            rq.len -= len;
            rq.state = op;
            if (Seq24.cmpMsn(psn + 1, st.psnLimit) > 0) {
                st.psnLimit = psn + 1;
            }
            if (ends) {
                rq.cur = qp.sendQueue().swqeIncr(rq.cur);
                return;
            }
        }
    }

    /**
     * Whether the packet the WQE at {@code cur} would give next fits the window ({@link RcWindow#admit}): one PSN, or
     * for an RDMA READ request the PSNs of the responses it asks for. True when there is nothing to send.
     */
    private static boolean admitted(EngineQp qp, RcState st, RcWindow window, SendWqe wqe, int cur) {
        RequesterState rq = qp.requester();
        int span = 1;
        switch (rq.state) {
            case RESTART_READ:
                span = Seq24.delta(wqe.lpsn(), rq.psn) + 1;
                break;
            case RESTART_SEND:
            case RESTART_WRITE:
            case Opcode.RC_SEND_FIRST:
            case Opcode.RC_SEND_MIDDLE:
            case Opcode.RC_RDMA_WRITE_FIRST:
            case Opcode.RC_RDMA_WRITE_MIDDLE:
                break;
            default:
                if (cur == rq.tail && cur == qp.sendQueue().head()) {
                    return true; // nothing to send
                }
                if (wqe.opcode() == WrOpcode.RDMA_READ) {
                    span = Seq24.delta(wqe.lpsn(), wqe.psn()) + 1;
                }
                break;
        }
        return RcWindow.admit(qp, st, window, Math.max(1, span));
    }

    /** Counts a new RDMA READ/atomic against {@code max_rd_atomic}; false (and WAIT_RDMAR) if none is left. */
    private static boolean takeReadAtomicSlot(EngineQp qp) {
        RequesterState rq = qp.requester();
        if (rq.numRdAtomic >= qp.maxRdAtomic()) {
            rq.flags |= QpFlags.S_WAIT_RDMAR;
            return false;
        }
        rq.numRdAtomic = rq.numRdAtomic + 1;
        return true;
    }

    /** REG_MR (already done at post) or LOCAL_INV (deferred by a fence or earlier invalidations) at sendCur. */
    private static void completeLocalOp(EngineQp qp, SendWqe wqe, int cur) {
        RequesterState rq = qp.requester();
        rq.cur = qp.sendQueue().swqeIncr(cur);
        rq.tail = qp.sendQueue().swqeIncr(rq.tail);
        RequestBuilder.completeLocalOp(qp, wqe);
    }

    /**
     * {@code restart_rc}: rewinds to {@code psn} (go-back-N), counting a retry; with none left, completes the oldest
     * WQE with {@code RETRY_EXC_ERR} and moves the QP to ERR. {@code recvLock} and {@code sendLock} held.
     *
     * @param wait true to send one packet and wait for its ACK ({@code SEND_ONE}), as after a timeout
     */
    static void restart(EngineQp qp, RcState st, int psn, boolean wait) {
        RequesterState rq = qp.requester();
        if (rq.acked == rq.tail) {
            return; // nothing outstanding: a stale timer or NAK
        }
        SendWqe wqe = qp.sendQueue().swqe(rq.acked);
        if (rq.retry == 0) {
            qp.sendQueue().sendComplete(wqe, WcStatus.RETRY_EXC_ERR);
            qp.rcError(WcStatus.WR_FLUSH_ERR);
            return;
        }
        rq.retry = rq.retry - 1;
        if (qp.iport() != null) {
            int resent = wqe.opcode() == WrOpcode.RDMA_READ ? 1 : Math.max(0, Seq24.delta(rq.psn, psn));
            qp.iport().addCounter(PortCounter.RC_RESENDS, resent);
        }
        int flags = rq.flags & ~(QpFlags.S_WAIT_FENCE | QpFlags.S_WAIT_RDMAR | QpFlags.S_WAIT_SSN_CREDIT
                | QpFlags.S_WAIT_PSN | QpFlags.S_WAIT_ACK);
        if (wait) {
            flags |= QpFlags.S_SEND_ONE;
        }
        rq.flags = flags;
        RcWindow.lost(qp, st);
        resetPsn(qp, psn);
    }

    /**
     * {@code reset_psn}: points {@code sendCur} at the WQE holding {@code psn} (searching from {@code sendAcked})
     * and {@code sendState} at the boundary or at a restart marker, so that the next packet built carries
     * {@code psn}.
     */
    static void resetPsn(EngineQp qp, int psn) {
        RequesterState rq = qp.requester();
        SendQueue sq = qp.sendQueue();
        int n = rq.acked;
        SendWqe wqe = sq.swqe(n);
        rq.cur = n;
        rq.psn = psn;
        if (Seq24.cmpMsn(psn, wqe.psn()) <= 0) {
            rq.state = IDLE;
            return;
        }
        WrOpcode op = wqe.opcode();
        int tail = rq.tail;
        while (true) {
            n = sq.swqeIncr(n);
            if (n == tail) {
                break;
            }
            wqe = sq.swqe(n);
            int diff = Seq24.cmpMsn(psn, wqe.psn());
            if (diff < 0) {
                break;
            }
            rq.cur = n;
            if (diff == 0) {
                rq.state = IDLE;
                return;
            }
            op = wqe.opcode();
        }
        switch (op) {
            case SEND:
            case SEND_WITH_IMM:
            case SEND_WITH_INV:
                rq.state = RESTART_SEND;
                break;
            case RDMA_WRITE:
            case RDMA_WRITE_WITH_IMM:
                rq.state = RESTART_WRITE;
                break;
            case RDMA_READ:
                rq.state = RESTART_READ;
                break;
            default:
                rq.state = IDLE; // atomics span one PSN
                break;
        }
    }
}
