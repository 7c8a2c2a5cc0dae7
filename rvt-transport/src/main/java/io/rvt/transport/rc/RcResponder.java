package io.rvt.transport.rc;

import io.rvt.api.AccessFlag;
import io.rvt.api.PortCounter;
import io.rvt.api.QpState;
import io.rvt.api.WcFlag;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.spi.DriverMr;
import io.rvt.api.spi.Seq24;
import io.rvt.api.spi.engine.AckEntry;
import io.rvt.api.spi.engine.AckQueue;
import io.rvt.api.spi.engine.EngineQp;
import io.rvt.api.spi.engine.QpFlags;
import io.rvt.api.spi.engine.RequesterState;
import io.rvt.api.spi.engine.ResponderState;
import io.rvt.transport.engine.Packets;
import io.rvt.transport.engine.RxInfo;
import io.rvt.transport.header.BthDescriptor;
import io.rvt.transport.header.Opcode;
import io.rvt.transport.header.PacketHeaders;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.Lock;

/**
 * The RC responder ({@code rc_rcv} and {@code rc_rcv_error} of qib/hfi1): request packets in PSN order, placing SEND
 * data into receive WQEs and RDMA WRITE data into rkey-checked regions, queueing RDMA READ and atomic requests in the
 * ack queue (bounded by the responder resources, {@code max_dest_rd_atomic}), answering duplicates from that queue,
 * and queueing ACKs and NAKs for {@link RcResponseBuilder} to send. Runs with the QP's {@code recvLock} held and takes
 * its {@code sendLock} for what it shares with the send side.
 *
 * <p>Errors follow hfi1 and rdmavt's loopback (spec §8.6): an invalid request or a remote operational error moves the
 * responder to ERR with {@code LOC_QP_OP_ERR} for the receive WQE in progress, a remote access error with
 * {@code LOC_PROT_ERR}; in each case the NAK still goes out (hfi1 sends it straight from the receive path), so the
 * requester completes its WQE with {@code REM_INV_REQ_ERR}, {@code REM_OP_ERR} or {@code REM_ACCESS_ERR}.
 */
final class RcResponder {
    private RcResponder() {
    }

    /** AETH syndromes the responder sends (IBTA 9.7.5.2.8). */
    static final int SYNDROME_RNR_NAK = 0x20;
    static final int SYNDROME_NAK_PSN_ERROR = 0x60;
    static final int SYNDROME_NAK_INVALID_REQUEST = 0x61;
    static final int SYNDROME_NAK_REMOTE_ACCESS = 0x62;
    static final int SYNDROME_NAK_REMOTE_OPERATIONAL = 0x63;
    /** Queue an ACK at least every this many request packets, even if none asked for one. */
    static final int ACK_COALESCE_LIMIT = 16;

    /** Processes a request packet, {@code recvLock} held. */
    static void receiveRequest(EngineQp qp, RcState st, ByteBuffer buf, PacketHeaders hdr, RxInfo rx) {
        ResponderState rs = qp.responder();
        int opcode = hdr.opcode();
        int psn = hdr.psn();
        int diff = Seq24.delta(psn, rs.psn);
        if (diff != 0) {
            if (!receiveOutOfSequence(qp, st, hdr, opcode, psn, diff)) {
                queueAck(qp, st);
            }
            return;
        }
        if (!opcodeInSequence(rs.state, opcode)) {
            nak(qp, st, SYNDROME_NAK_INVALID_REQUEST, WcStatus.LOC_QP_OP_ERR);
            return;
        }
        if (qp.state() == QpState.RTR && (rs.flags & QpFlags.R_COMM_EST) == 0) {
            qp.commEst();
        }
        WorkCompletion wc = st.recvWc;
        switch (opcode) {
            case Opcode.RC_SEND_FIRST:
                if (!takeRwqe(qp, st, false)) {
                    return;
                }
                rs.rcvLen = 0;
                if (!middle(qp, st, buf, hdr)) {
                    return;
                }
                break;
            case Opcode.RC_SEND_MIDDLE:
            case Opcode.RC_RDMA_WRITE_MIDDLE:
                if (!middle(qp, st, buf, hdr)) {
                    return;
                }
                break;
            case Opcode.RC_SEND_ONLY:
            case Opcode.RC_SEND_ONLY_WITH_IMMEDIATE:
            case Opcode.RC_SEND_ONLY_WITH_INVALIDATE:
                if (!takeRwqeForOnePacket(qp, st)) {
                    return;
                }
                rs.rcvLen = 0;
                // fall through
            case Opcode.RC_SEND_LAST:
            case Opcode.RC_SEND_LAST_WITH_IMMEDIATE:
            case Opcode.RC_SEND_LAST_WITH_INVALIDATE:
                wc.clear();
                if (opcode == Opcode.RC_SEND_ONLY_WITH_IMMEDIATE || opcode == Opcode.RC_SEND_LAST_WITH_IMMEDIATE) {
                    wc.wcFlags(WcFlag.WITH_IMM.bit()).immData(hdr.immediateData());
                } else if (opcode == Opcode.RC_SEND_ONLY_WITH_INVALIDATE
                        || opcode == Opcode.RC_SEND_LAST_WITH_INVALIDATE) {
                    // An invalidation that fails is ignored, as in hfi1: the SEND itself succeeds.
                    if (qp.invalidateRkey(hdr.iethRkey()) == 0) {
                        wc.wcFlags(WcFlag.WITH_INVALIDATE.bit()).invalidateRkey(hdr.iethRkey());
                    }
                }
                if (!last(qp, st, buf, hdr, WcOpcode.RECV, false)) {
                    return;
                }
                break;
            case Opcode.RC_RDMA_WRITE_LAST:
                wc.clear();
                if (!last(qp, st, buf, hdr, WcOpcode.RECV_RDMA_WITH_IMM, true)) {
                    return;
                }
                break;
            case Opcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE:
                if (!takeRwqe(qp, st, true)) {
                    return;
                }
                wc.clear().wcFlags(WcFlag.WITH_IMM.bit()).immData(hdr.immediateData());
                if (!last(qp, st, buf, hdr, WcOpcode.RECV_RDMA_WITH_IMM, true)) {
                    return;
                }
                break;
            case Opcode.RC_RDMA_WRITE_FIRST:
            case Opcode.RC_RDMA_WRITE_ONLY:
            case Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE: {
                if (!AccessFlag.REMOTE_WRITE.in(qp.accessFlags())) {
                    nak(qp, st, SYNDROME_NAK_INVALID_REQUEST, WcStatus.LOC_QP_OP_ERR);
                    return;
                }
                int len = hdr.rethDmaLength();
                rs.len = len;
                rs.rcvLen = 0;
                if (len != 0) {
                    if (!qp.rkeyOk(st.target, len, hdr.rethVirtualAddress(), hdr.rethRkey(),
                            AccessFlag.REMOTE_WRITE.bit())) {
                        nak(qp, st, SYNDROME_NAK_REMOTE_ACCESS, WcStatus.LOC_PROT_ERR);
                        return;
                    }
                    rs.sge.initSingle(st.target, len);
                } else {
                    rs.sge.clear();
                }
                wc.clear();
                if (opcode == Opcode.RC_RDMA_WRITE_FIRST) {
                    if (!middle(qp, st, buf, hdr)) {
                        return;
                    }
                } else if (opcode == Opcode.RC_RDMA_WRITE_ONLY) {
                    if (!last(qp, st, buf, hdr, WcOpcode.RECV_RDMA_WITH_IMM, true)) {
                        return;
                    }
                } else {
                    int r = rs.getRwqe(true);
                    if (r <= 0) {
                        rs.sge.putSs();
                        if (r < 0) {
                            nak(qp, st, SYNDROME_NAK_REMOTE_OPERATIONAL, WcStatus.LOC_QP_OP_ERR);
                        } else {
                            rnrNak(qp, st);
                        }
                        return;
                    }
                    wc.wcFlags(WcFlag.WITH_IMM.bit()).immData(hdr.immediateData());
                    if (!last(qp, st, buf, hdr, WcOpcode.RECV_RDMA_WITH_IMM, true)) {
                        return;
                    }
                }
                break;
            }
            case Opcode.RC_RDMA_READ_REQUEST:
                readRequest(qp, st, hdr, psn);
                return;
            case Opcode.RC_COMPARE_SWAP:
            case Opcode.RC_FETCH_ADD:
                atomicRequest(qp, st, hdr, opcode, psn);
                return;
            case Opcode.RC_ATOMIC_WRITE:
            case Opcode.RC_FLUSH:
                atomicWriteOrFlush(qp, st, buf, hdr, opcode, psn);
                return;
            default:
                nak(qp, st, SYNDROME_NAK_INVALID_REQUEST, WcStatus.LOC_QP_OP_ERR);
                return;
        }
        rs.psn = (psn + 1) & BthDescriptor.MASK_24;
        rs.state = opcode;
        rs.ackPsn = psn;
        rs.nakState = 0;
        if (hdr.ackReq() || ++st.unackedPackets >= ACK_COALESCE_LIMIT) {
            deferAck(qp, st, rx);
        }
    }

    /**
     * An ACK of {@code ackPsn} is due: owed to the end of the receive batch when the driver has one (the QP's ACK then
     * goes out once per batch, for its newest PSN, as it did when each was queued, but with one {@code sendLock} per
     * batch instead of one per packet), else queued now.
     */
    private static void deferAck(EngineQp qp, RcState st, RxInfo rx) {
        if (!st.ackListed) {
            if (rx == null || !rx.deferAck(st)) {
                queueAck(qp, st);
                return;
            }
            st.ackListed = true;
        }
        st.unackedPackets = 0;
        if (st.ackDeferred) {
            st.ackCoalesced++;
        }
        st.ackDeferred = true;
    }

    /** IBTA 9.7.5.1.2: MIDDLE/LAST only continue a message of their kind; a new message may not start inside one. */
    static boolean opcodeInSequence(int recvState, int opcode) {
        switch (recvState) {
            case Opcode.RC_SEND_FIRST:
            case Opcode.RC_SEND_MIDDLE:
                return opcode == Opcode.RC_SEND_MIDDLE || opcode == Opcode.RC_SEND_LAST
                        || opcode == Opcode.RC_SEND_LAST_WITH_IMMEDIATE
                        || opcode == Opcode.RC_SEND_LAST_WITH_INVALIDATE;
            case Opcode.RC_RDMA_WRITE_FIRST:
            case Opcode.RC_RDMA_WRITE_MIDDLE:
                return opcode == Opcode.RC_RDMA_WRITE_MIDDLE || opcode == Opcode.RC_RDMA_WRITE_LAST
                        || opcode == Opcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE;
            default:
                return !(Opcode.isMiddle(opcode) || Opcode.isLast(opcode));
        }
    }

    /** Consumes a receive WQE; on failure queues the RNR NAK or the remote operational error NAK. */
    private static boolean takeRwqe(EngineQp qp, RcState st, boolean wrIdOnly) {
        return tookRwqe(qp, st, qp.responder().getRwqe(wrIdOnly));
    }

    /**
     * {@link #takeRwqe} for a SEND that ends in this packet: its SGEs hold no region references while this
     * {@code recvLock} hold places the data and completes it ({@code ResponderState.getRwqeForOnePacket}).
     */
    private static boolean takeRwqeForOnePacket(EngineQp qp, RcState st) {
        return tookRwqe(qp, st, qp.responder().getRwqeForOnePacket());
    }

    private static boolean tookRwqe(EngineQp qp, RcState st, int r) {
        if (r > 0) {
            return true;
        }
        if (r < 0) {
            nak(qp, st, SYNDROME_NAK_REMOTE_OPERATIONAL, WcStatus.LOC_QP_OP_ERR);
        } else {
            rnrNak(qp, st);
        }
        return false;
    }

    /** A FIRST or MIDDLE packet: exactly one MTU of data, within what the receive WQE (or RETH) allows. */
    private static boolean middle(EngineQp qp, RcState st, ByteBuffer buf, PacketHeaders hdr) {
        ResponderState rs = qp.responder();
        int pmtu = qp.pmtu();
        if (hdr.payloadLength() != pmtu) {
            nak(qp, st, SYNDROME_NAK_INVALID_REQUEST, WcStatus.LOC_QP_OP_ERR);
            return false;
        }
        rs.rcvLen += pmtu;
        if (Integer.compareUnsigned(rs.rcvLen, rs.len) > 0) {
            nak(qp, st, SYNDROME_NAK_INVALID_REQUEST, WcStatus.LOC_QP_OP_ERR);
            return false;
        }
        hdr.copyPayload(buf, rs.sge, pmtu, true);
        return true;
    }

    /**
     * A LAST or ONLY packet: places the rest of the data, bumps the MSN and completes the receive WQE (if one was
     * consumed) with the flags already in {@code st.recvWc}.
     *
     * @param write true for RDMA WRITE, whose data must add up to the RETH length exactly
     */
    private static boolean last(EngineQp qp, RcState st, ByteBuffer buf, PacketHeaders hdr, WcOpcode wcOpcode,
            boolean write) {
        ResponderState rs = qp.responder();
        int tlen = hdr.payloadLength();
        int byteLen = tlen + rs.rcvLen;
        int cmp = Integer.compareUnsigned(byteLen, rs.len);
        if (tlen > qp.pmtu() || cmp > 0 || (write && cmp != 0)) {
            nak(qp, st, SYNDROME_NAK_INVALID_REQUEST, WcStatus.LOC_QP_OP_ERR);
            return false;
        }
        if (tlen > 0) {
            hdr.copyPayload(buf, rs.sge, tlen, true);
        }
        rs.sge.putSs();
        rs.msn = (rs.msn + 1) & Seq24.MASK;
        if (!rs.testAndClearAflags(QpFlags.RA_WRID_VALID)) {
            return true; // RDMA WRITE without immediate: no receive WQE
        }
        WorkCompletion wc = st.recvWc;
        wc.wrId(rs.wrId).status(WcStatus.SUCCESS).opcode(wcOpcode).byteLen(byteLen).qpNum(qp.qpNum())
                .srcQp(qp.remoteQpn()).slid(qp.remoteAhAttr().dlid() & 0xFFFF).sl(qp.remoteAhAttr().sl())
                .portNum(qp.portNum());
        qp.recvCq(wc, hdr.solicitedEvent());
        return true;
    }

    /** An RDMA READ request: validate the source now, queue the response. */
    private static void readRequest(EngineQp qp, RcState st, PacketHeaders hdr, int psn) {
        ResponderState rs = qp.responder();
        if (!AccessFlag.REMOTE_READ.in(qp.accessFlags())) {
            nak(qp, st, SYNDROME_NAK_INVALID_REQUEST, WcStatus.LOC_QP_OP_ERR);
            return;
        }
        int nakSyndrome = 0;
        Lock sl = qp.sendLock();
        sl.lock();
        try {
            int next = claimAckEntry(qp);
            if (next < 0) {
                nakSyndrome = SYNDROME_NAK_INVALID_REQUEST;
            } else {
                AckEntry e = qp.ackQueue().entry(qp.ackQueue().head);
                int len = hdr.rethDmaLength();
                if (len != 0) {
                    if (!qp.rkeyOk(e.rdmaSge(), len, hdr.rethVirtualAddress(), hdr.rethRkey(),
                            AccessFlag.REMOTE_READ.bit())) {
                        nakSyndrome = SYNDROME_NAK_REMOTE_ACCESS;
                    } else {
                        // The response takes one PSN per MTU; the request's last PSN is the response's last.
                        rs.psn = (rs.psn + qp.divMtu(len - 1)) & BthDescriptor.MASK_24;
                    }
                } else {
                    e.rdmaSge().clear();
                }
                if (nakSyndrome == 0) {
                    e.opcode(Opcode.RC_RDMA_READ_REQUEST).sent(false).psn(psn).lpsn(rs.psn);
                    queued(qp, st, Opcode.RC_RDMA_READ_REQUEST, next);
                }
            }
        } finally {
            sl.unlock();
        }
        nakIfRefused(qp, st, nakSyndrome);
    }

    /** A compare-and-swap or fetch-and-add: execute it now, queue the atomic ACK with the original value. */
    private static void atomicRequest(EngineQp qp, RcState st, PacketHeaders hdr, int opcode, int psn) {
        if (!AccessFlag.REMOTE_ATOMIC.in(qp.accessFlags())) {
            nak(qp, st, SYNDROME_NAK_INVALID_REQUEST, WcStatus.LOC_QP_OP_ERR);
            return;
        }
        int nakSyndrome = 0;
        Lock sl = qp.sendLock();
        sl.lock();
        try {
            int next = claimAckEntry(qp);
            long vaddr = hdr.atomicVirtualAddress();
            if (next < 0 || (vaddr & 7) != 0) {
                nakSyndrome = SYNDROME_NAK_INVALID_REQUEST;
            } else if (!qp.rkeyOk(st.target, 8, vaddr, hdr.atomicRkey(), AccessFlag.REMOTE_ATOMIC.bit())) {
                nakSyndrome = SYNDROME_NAK_REMOTE_ACCESS;
            } else {
                DriverMr mr = st.target.mr();
                long at = st.target.vaddr(); // the region's address (a zero-based window's offset translated)
                long old = opcode == Opcode.RC_FETCH_ADD
                        ? mr.atomicFetchAdd(at, hdr.atomicSwapAddData())
                        : mr.atomicCompareSwap(at, hdr.atomicCompareData(), hdr.atomicSwapAddData());
                st.target.release();
                AckEntry e = qp.ackQueue().entry(qp.ackQueue().head);
                e.atomicData(old).opcode(opcode).sent(false).psn(psn).lpsn(psn);
                queued(qp, st, opcode, next);
            }
        } finally {
            sl.unlock();
        }
        nakIfRefused(qp, st, nakSyndrome);
    }

    /**
     * IBTA 1.5's ATOMIC_WRITE and FLUSH, as rxe's responder does them ({@code check_qp_attr_access},
     * {@code check_rkey}, {@code atomic_write_reply}, {@code process_flush}): the QP must allow the operation
     * (REMOTE_WRITE; the FLUSH's placement type as FLUSH_GLOBAL/FLUSH_PERSISTENT access) or the request is NAKed as
     * invalid; the key must grant it over the range (REMOTE_WRITE for 8 bytes at an 8-byte aligned address; FLUSH:
     * the RETH's range, or for FLUSH_MR only its address) or it is a remote access error. An ATOMIC_WRITE stores its
     * 8 payload bytes as one atomic release store; a FLUSH to global visibility is a full fence (rvt has no
     * persistent memory, so no region grants FLUSH_PERSISTENT). Both take a responder resource and are answered by
     * a zero-length RDMA READ RESPONSE ONLY (rxe's {@code send_read_response_ack}), which a duplicate replays without
     * executing the operation again.
     */
    private static void atomicWriteOrFlush(EngineQp qp, RcState st, ByteBuffer buf, PacketHeaders hdr, int opcode,
            int psn) {
        boolean write = opcode == Opcode.RC_ATOMIC_WRITE;
        int need;
        if (write) {
            need = AccessFlag.REMOTE_WRITE.bit();
        } else {
            int placement = hdr.fethPlacementType();
            need = ((placement & 1) != 0 ? AccessFlag.FLUSH_GLOBAL.bit() : 0)
                    | ((placement & 2) != 0 ? AccessFlag.FLUSH_PERSISTENT.bit() : 0);
        }
        boolean badFlush = !write && (need == 0 || (hdr.fethPlacementType() & ~3) != 0
                || hdr.fethSelectivityLevel() > 1 || hdr.rethDmaLength() < 0); // rxe: DMA length over 2^31
        if (badFlush || (qp.accessFlags() & need) != need || (write && hdr.payloadLength() != 8)) {
            nak(qp, st, SYNDROME_NAK_INVALID_REQUEST, WcStatus.LOC_QP_OP_ERR);
            return;
        }
        int nakSyndrome = 0;
        Lock sl = qp.sendLock();
        sl.lock();
        try {
            int next = claimAckEntry(qp);
            long vaddr = hdr.rethVirtualAddress();
            if (next < 0 || (write && (vaddr & 7) != 0)) {
                nakSyndrome = SYNDROME_NAK_INVALID_REQUEST;
            } else if (AccessFlag.FLUSH_PERSISTENT.in(need)
                    || !qp.rkeyOk(st.target, write ? 8 : hdr.fethSelectivityLevel() == 1 ? 0 : hdr.rethDmaLength(),
                            vaddr, hdr.rethRkey(), write ? need : AccessFlag.FLUSH_GLOBAL.bit())) {
                nakSyndrome = SYNDROME_NAK_REMOTE_ACCESS;
            } else {
                if (write) {
                    st.target.mr().atomicWrite(st.target.vaddr(),
                            buf.order() == java.nio.ByteOrder.nativeOrder() ? buf.getLong(hdr.payloadOffset())
                                    : Long.reverseBytes(buf.getLong(hdr.payloadOffset())));
                } else {
                    java.lang.invoke.VarHandle.fullFence(); // global visibility of every earlier store
                }
                st.target.release();
                AckEntry e = qp.ackQueue().entry(qp.ackQueue().head);
                e.rdmaSge().clear();
                e.opcode(Opcode.RC_RDMA_READ_REQUEST).sent(false).psn(psn).lpsn(psn);
                queued(qp, st, opcode, next);
            }
        } finally {
            sl.unlock();
        }
        nakIfRefused(qp, st, nakSyndrome);
    }

    /** NAKs a READ, atomic, ATOMIC_WRITE or FLUSH its handler refused ({@code nakSyndrome} 0: nothing to do). */
    private static void nakIfRefused(EngineQp qp, RcState st, int nakSyndrome) {
        if (nakSyndrome == SYNDROME_NAK_REMOTE_ACCESS) {
            nak(qp, st, nakSyndrome, WcStatus.LOC_PROT_ERR);
        } else if (nakSyndrome != 0) {
            nak(qp, st, nakSyndrome, WcStatus.LOC_QP_OP_ERR);
        }
    }

    /**
     * Makes room for a new ack-queue entry at {@code recvHeadAckQueue}, {@code sendLock} held: refuses if the
     * responder already owes {@code max_dest_rd_atomic} responses or the ring is full of unsent ones; otherwise
     * evicts the oldest sent entry if the ring is full and drops the reference the reused entry still holds.
     *
     * @return the index after the head, or -1 to NAK the request as invalid
     */
    private static int claimAckEntry(EngineQp qp) {
        AckQueue aq = qp.ackQueue();
        int head = aq.head;
        int next = incr(qp, head);
        if (owedResponses(qp) >= qp.maxDestRdAtomic()) {
            return -1;
        }
        if (next == aq.tail) {
            if (!aq.entry(next).sent()) {
                return -1;
            }
            aq.tail = incr(qp, next);
            aq.state = Opcode.RC_ACKNOWLEDGE;
        }
        AckEntry e = aq.entry(head);
        if (e.opcode() == Opcode.RC_RDMA_READ_REQUEST) {
            e.rdmaSge().release();
        }
        return next;
    }

    /** @return entries from {@code sendTailAckQueue} to the head whose response is not completely sent */
    private static int owedResponses(EngineQp qp) {
        AckQueue aq = qp.ackQueue();
        int n = 0;
        int head = aq.head;
        for (int i = aq.tail; i != head; i = incr(qp, i)) {
            if (!aq.entry(i).sent()) {
                n++;
            }
        }
        return n;
    }

    /** Publishes a new ack-queue entry and schedules its response; {@code sendLock} held. */
    private static void queued(EngineQp qp, RcState st, int opcode, int next) {
        ResponderState rs = qp.responder();
        // The MSN counts the request now, not when its response goes out: a duplicate must not count it again.
        rs.msn = (rs.msn + 1) & Seq24.MASK;
        rs.psn = (rs.psn + 1) & BthDescriptor.MASK_24;
        rs.state = opcode;
        rs.nakState = 0;
        qp.ackQueue().head = next;
        st.unackedPackets = 0;
        qp.requester().flags |= QpFlags.S_RESP_PENDING;
        st.scheduleSend();
    }

    /**
     * {@code rc_rcv_error}: a packet whose PSN is not the expected one.
     *
     * @return true if handled, false if the caller must queue an ACK (for a duplicate that asked for one)
     */
    private static boolean receiveOutOfSequence(EngineQp qp, RcState st, PacketHeaders hdr, int opcode, int psn,
            int diff) {
        RequesterState rq = qp.requester();
        ResponderState rs = qp.responder();
        AckQueue aq = qp.ackQueue();
        if (diff > 0) {
            // Ahead: packets were lost. Every such packet is dropped and counted; NAK once (the NAK implicitly ACKs
            // everything before the expected PSN).
            Packets.count(qp, PortCounter.RC_OUT_OF_SEQ);
            if (rs.nakState == 0) {
                Packets.count(qp, PortCounter.SEQ_NAKS);
                rs.nakState = SYNDROME_NAK_PSN_ERROR;
                rs.ackPsn = rs.psn;
                queueAck(qp, st);
            }
            return true;
        }
        // Behind: a duplicate. Never re-execute a SEND, WRITE or atomic; answer from the ack queue instead.
        Packets.count(qp, PortCounter.RC_DUPREQ);
        Lock sl = qp.sendLock();
        sl.lock();
        try {
            int size = aq.size();
            int head = aq.head;
            int tail = aq.tail;
            AckEntry e = null;
            // oldReq: a response older than the one this duplicate asks for is still to be sent.
            boolean oldReq = true;
            int i = head;
            int prev = head;
            if (size > 0) {
                for (i = head;; i = prev) {
                    if (i == tail) {
                        oldReq = false;
                    }
                    prev = i == 0 ? size - 1 : i - 1;
                    if (prev == head) {
                        e = null;
                        break;
                    }
                    e = aq.entry(prev);
                    if (e.opcode() == 0) {
                        e = null;
                        break;
                    }
                    if (Seq24.cmpMsn(psn, e.psn()) >= 0) {
                        if (prev == tail && Seq24.cmpMsn(psn, e.lpsn()) <= 0) {
                            oldReq = false;
                        }
                        break;
                    }
                }
            }
            switch (opcode) {
                case Opcode.RC_RDMA_READ_REQUEST: {
                    if (e == null || e.opcode() != Opcode.RC_RDMA_READ_REQUEST) {
                        return true;
                    }
                    // The re-request must end where the original did and start on an MTU boundary of it.
                    int offset = Seq24.delta(psn, e.psn()) * qp.pmtu();
                    int len = hdr.rethDmaLength();
                    if (offset + len != e.rdmaSge().sgeLength()) {
                        return true;
                    }
                    e.rdmaSge().release();
                    if (len != 0) {
                        if (!qp.rkeyOk(e.rdmaSge(), len, hdr.rethVirtualAddress(), hdr.rethRkey(),
                                AccessFlag.REMOTE_READ.bit())) {
                            return true;
                        }
                    } else {
                        e.rdmaSge().clear();
                    }
                    e.psn(psn);
                    if (oldReq) {
                        return true;
                    }
                    aq.tail = prev;
                    break;
                }
                case Opcode.RC_ATOMIC_WRITE:
                case Opcode.RC_FLUSH:
                    // Replay the zero-length response; never write or flush twice.
                    if (e == null || e.opcode() != Opcode.RC_RDMA_READ_REQUEST || e.rdmaSge().sgeLength() != 0
                            || Seq24.cmpMsn(psn, e.psn()) != 0 || oldReq) {
                        return true;
                    }
                    aq.tail = prev;
                    break;
                case Opcode.RC_COMPARE_SWAP:
                case Opcode.RC_FETCH_ADD:
                    // Replay the saved result; never execute the atomic twice.
                    if (e == null || e.opcode() != opcode || oldReq) {
                        return true;
                    }
                    aq.tail = prev;
                    break;
                default:
                    if (!hdr.ackReq() || oldReq) {
                        return true;
                    }
                    if (i == head) {
                        // After every READ/atomic: re-ACK everything received so far.
                        rs.nakState = 0;
                        rs.ackPsn = rs.psn - 1;
                        return false;
                    }
                    if ((rq.flags & QpFlags.S_RESP_PENDING) == 0) {
                        // A plain ACK of what precedes the next READ/atomic.
                        rs.nakState = 0;
                        rs.ackPsn = aq.entry(i).psn() - 1;
                        return false;
                    }
                    aq.tail = i; // resend the READ/atomic response, which ACKs this duplicate
                    break;
            }
            aq.state = Opcode.RC_ACKNOWLEDGE;
            rq.flags |= QpFlags.S_RESP_PENDING;
            rs.nakState = 0;
            st.scheduleSend();
            return true;
        } finally {
            sl.unlock();
        }
    }

    /** Queues an RNR NAK: no receive WQE; the requester retries after the QP's minimum RNR timer. */
    private static void rnrNak(EngineQp qp, RcState st) {
        ResponderState rs = qp.responder();
        rs.nakState = SYNDROME_RNR_NAK | (qp.minRnrTimer() & 0x1F);
        rs.ackPsn = rs.psn;
        queueAck(qp, st);
    }

    /**
     * Fails the request: moves the responder to ERR ({@code rvt_rc_error}, completing the receive WQE in progress
     * with {@code err}) and queues the NAK.
     */
    static void nak(EngineQp qp, RcState st, int syndrome, WcStatus err) {
        ResponderState rs = qp.responder();
        qp.rcError(err);
        rs.nakState = syndrome;
        rs.ackPsn = rs.psn;
        queueAck(qp, st);
    }

    /**
     * {@code queue_rc_ack}: hands the ACK/NAK now due to the send engine. Coalesces: a newer ACK replaces one not yet
     * sent (it acknowledges more). Takes {@code sendLock}.
     */
    static void queueAck(EngineQp qp, RcState st) {
        ResponderState rs = qp.responder();
        AckQueue aq = qp.ackQueue();
        st.unackedPackets = 0;
        st.ackDeferred = false; // this ACK (or NAK) is newer and covers the one owed
        int coalesced = st.ackCoalesced;
        st.ackCoalesced = 0;
        int nakState = rs.nakState;
        int msn = rs.msn;
        Lock sl = qp.sendLock();
        sl.lock();
        try {
            int flags = qp.requester().flags;
            if ((flags & QpFlags.S_ACK_PENDING) != 0) {
                coalesced++;
            }
            if (coalesced != 0) {
                Packets.count(qp, PortCounter.RC_QACKS, coalesced);
            }
            aq.nakState = nakState;
            aq.nakMsn = msn;
            aq.psn = rs.ackPsn;
            qp.requester().flags = flags | QpFlags.S_ACK_PENDING | QpFlags.S_RESP_PENDING;
            st.scheduleSend();
        } finally {
            sl.unlock();
        }
    }

    static int incr(EngineQp qp, int i) {
        return i + 1 == qp.ackQueue().size() ? 0 : i + 1;
    }
}
