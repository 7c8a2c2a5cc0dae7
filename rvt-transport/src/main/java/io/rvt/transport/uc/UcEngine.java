package io.rvt.transport.uc;

import io.rvt.api.AccessFlag;
import io.rvt.api.MigState;
import io.rvt.api.PortCounter;
import io.rvt.api.QpState;
import io.rvt.api.QpState.Ops;
import io.rvt.api.WcFlag;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.Seq24;
import io.rvt.api.spi.engine.EngineQp;
import io.rvt.api.spi.engine.QpFlags;
import io.rvt.api.spi.engine.RequesterState;
import io.rvt.api.spi.engine.ResponderState;
import io.rvt.api.spi.engine.SendQueue;
import io.rvt.api.spi.engine.SendWqe;
import io.rvt.transport.engine.Packets;
import io.rvt.transport.engine.ProtocolEngine;
import io.rvt.transport.engine.RequestBuilder;
import io.rvt.transport.engine.RxInfo;
import io.rvt.transport.engine.TxInfo;
import io.rvt.transport.header.BthDescriptor;
import io.rvt.transport.header.Opcode;
import io.rvt.transport.header.PacketHeaders;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.Lock;

/**
 * The Unreliable Connection transport ({@code make_uc_req} and {@code uc_rcv} of qib/hfi1). The requester segments
 * SENDs and RDMA WRITEs by the path MTU and completes each WQE as soon as its last packet is built: there are no ACKs.
 * The responder accepts packets in PSN order; a gap (or any malformed packet) drops the rest of the message, and a
 * SEND's partly filled receive WQE is kept for the next SEND rather than completed. Errors never NAK; only a receive
 * WQE whose SGEs fail validation moves the QP to ERR. Drivers use {@code io.rvt.transport.Transport}.
 */
public final class UcEngine implements ProtocolEngine<UcState> {
    /** Creates the engine. */
    public UcEngine() {
    }

    /**
     * The next packet of a UC QP, or (SQE/ERR) the flush of its posted WQEs. Takes {@code sendLock}.
     *
     * @param qp the QP
     * @param st its state
     * @param buf the packet buffer
     * @param off where the BTH goes
     * @param tx filled when a packet was written
     * @return transport bytes written, or 0
     */
    @Override
    public int makePacket(EngineQp qp, UcState st, ByteBuffer buf, int off, TxInfo tx) {
        RequesterState rq = qp.requester();
        SendQueue sq = qp.sendQueue();
        Lock sl = qp.sendLock();
        sl.lock();
        try {
            QpState state = qp.state();
            if (!RequestBuilder.canSendOrFlush(qp, state, Ops.PROCESS_SEND_OK)) {
                return 0;
            }
            while (true) {
                int cur = rq.cur;
                SendWqe wqe = sq.swqe(cur);
                int pmtu = qp.pmtu();
                int op;
                switch (rq.state) {
                    case Opcode.UC_SEND_FIRST:
                    case Opcode.UC_SEND_MIDDLE:
                    case Opcode.UC_RDMA_WRITE_FIRST:
                    case Opcode.UC_RDMA_WRITE_MIDDLE:
                        op = RequestBuilder.opcode(Opcode.UC, wqe.opcode(), false, rq.len, pmtu);
                        break;
                    default: {
                        if (!state.can(Ops.PROCESS_NEXT_SEND_OK) || cur == sq.head()) {
                            return 0;
                        }
                        WrOpcode w = wqe.opcode();
                        if (w == WrOpcode.REG_MR || w == WrOpcode.LOCAL_INV || w == WrOpcode.BIND_MW) {
                            RequestBuilder.completeLocalOp(qp, wqe);
                            continue;
                        }
                        rq.psn = wqe.psn();
                        rq.sge.init(wqe.sgList(), 0, wqe.numSge(), wqe.length());
                        rq.len = wqe.length();
                        if (w != WrOpcode.SEND && w != WrOpcode.SEND_WITH_IMM && w != WrOpcode.RDMA_WRITE
                                && w != WrOpcode.RDMA_WRITE_WITH_IMM) {
                            // Not a UC operation (a driver-reserved one the driver did not handle).
                            sq.sendComplete(wqe, WcStatus.LOC_QP_OP_ERR);
                            continue;
                        }
                        op = RequestBuilder.opcode(Opcode.UC, w, true, rq.len, pmtu);
                        break;
                    }
                }
                int len = Math.min(rq.len, pmtu);
                int hdr = RequestBuilder.writeHeaders(buf, off + BthDescriptor.LENGTH, op, wqe);
                boolean se = RequestBuilder.solicited(op, wqe);
                int psn = rq.psn;
                rq.psn = psn + 1;
                rq.len -= len;
                rq.state = op;
                // The last packet completes the WQE here, before the driver sends it: its payload must be copied now.
                int end = RequestBuilder.endsMessage(op) ? Packets.writePayload(buf, hdr, rq.sge, len)
                        : Packets.referencePayload(buf, hdr, rq.sge, len, tx);
                int pkey = Packets.pkeyOf(qp);
                int maskedPsn = psn & BthDescriptor.MASK_24;
                BthDescriptor.write(buf, off, op, se, qp.migState() == MigState.MIGRATED, Packets.padCount(len),
                        pkey, qp.remoteQpn(), false, maskedPsn);
                tx.ah().copyFrom(qp.remoteAhAttr());
                tx.set(qp.qpNum(), qp.remoteQpn(), pkey, op, maskedPsn, end - off, len, qp.portNum(), false, false);
                if (RequestBuilder.endsMessage(op)) {
                    // No ACK will come: the WQE is done once its last packet is built (this moves sendCur on).
                    sq.sendComplete(wqe, WcStatus.SUCCESS);
                }
                return end - off;
            }
        } finally {
            sl.unlock();
        }
    }

    /**
     * Processes a UC packet. Takes {@code recvLock}.
     *
     * @param qp the QP
     * @param st its state
     * @param buf the packet's buffer
     * @param hdr its parsed headers (already checked for transport and P_Key)
     * @param rx what the framing told the driver (only UD needs it)
     * @param pkeyIndex the P_Key index that matched (only UD needs it)
     */
    @Override
    public void receive(EngineQp qp, UcState st, ByteBuffer buf, PacketHeaders hdr, RxInfo rx, int pkeyIndex) {
        Lock rl = qp.recvLock();
        rl.lock();
        try {
            if (!qp.state().can(Ops.PROCESS_RECV_OK)) {
                drop(qp);
                return;
            }
            receiveLocked(qp, st, buf, hdr);
        } finally {
            rl.unlock();
        }
    }

    private static void receiveLocked(EngineQp qp, UcState st, ByteBuffer buf, PacketHeaders hdr) {
        ResponderState rs = qp.responder();
        int opcode = hdr.opcode();
        int psn = hdr.psn();
        boolean inSequence = Seq24.cmpMsn(psn, rs.psn) == 0;
        if (!inSequence) {
            rs.psn = psn; // resynchronise on whatever arrives
        }
        if (!inSequence || !opcodeInSequence(rs.state, opcode)) {
            // Abandon the message in progress; only a packet that starts a message can be used.
            abandonMessage(qp, st);
            if (!Opcode.isStart(opcode)) {
                drop(qp);
                return;
            }
        }
        if (qp.state() == QpState.RTR && (rs.flags & QpFlags.R_COMM_EST) == 0) {
            qp.commEst();
        }
        int pmtu = qp.pmtu();
        WorkCompletion wc = st.recvWc;
        switch (opcode) {
            case Opcode.UC_SEND_FIRST:
            case Opcode.UC_SEND_ONLY:
            case Opcode.UC_SEND_ONLY_WITH_IMMEDIATE:
                if (st.rewind) {
                    st.rewind = false;
                    st.restore(rs.sge); // reuse the receive WQE the broken SEND had taken
                } else {
                    int r = rs.getRwqe(false);
                    if (r < 0) {
                        qp.rcError(WcStatus.LOC_QP_OP_ERR);
                        return;
                    }
                    if (r == 0) {
                        drop(qp); // UC has no RNR NAK: the message is lost
                        return;
                    }
                    st.save(rs.sge);
                }
                rs.rcvLen = 0;
                if (opcode == Opcode.UC_SEND_FIRST) {
                    if (!sendMiddle(qp, st, buf, hdr, pmtu)) {
                        return;
                    }
                    break;
                }
                // fall through
            case Opcode.UC_SEND_LAST:
            case Opcode.UC_SEND_LAST_WITH_IMMEDIATE: {
                wc.clear();
                if (opcode == Opcode.UC_SEND_ONLY_WITH_IMMEDIATE || opcode == Opcode.UC_SEND_LAST_WITH_IMMEDIATE) {
                    wc.wcFlags(WcFlag.WITH_IMM.bit()).immData(hdr.immediateData());
                }
                int tlen = hdr.payloadLength();
                int byteLen = tlen + rs.rcvLen;
                if (tlen > pmtu || Integer.compareUnsigned(byteLen, rs.len) > 0) {
                    rewind(qp, st);
                    return;
                }
                if (tlen > 0) {
                    hdr.copyPayload(buf, rs.sge, tlen, true);
                }
                rs.sge.putSs();
                st.release();
                complete(qp, wc, WcOpcode.RECV, byteLen, hdr);
                break;
            }
            case Opcode.UC_SEND_MIDDLE:
                if (!sendMiddle(qp, st, buf, hdr, pmtu)) {
                    return;
                }
                break;
            case Opcode.UC_RDMA_WRITE_FIRST:
            case Opcode.UC_RDMA_WRITE_ONLY:
            case Opcode.UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE: {
                if (!AccessFlag.REMOTE_WRITE.in(qp.accessFlags())) {
                    drop(qp);
                    return;
                }
                int len = hdr.rethDmaLength();
                rs.len = len;
                rs.rcvLen = 0;
                if (len != 0) {
                    if (!qp.rkeyOk(st.target, len, hdr.rethVirtualAddress(), hdr.rethRkey(),
                            AccessFlag.REMOTE_WRITE.bit())) {
                        drop(qp);
                        return;
                    }
                    rs.sge.initSingle(st.target, len);
                } else {
                    rs.sge.clear();
                }
                if (opcode == Opcode.UC_RDMA_WRITE_FIRST) {
                    if (!writeMiddle(qp, st, buf, hdr, pmtu)) {
                        return;
                    }
                } else if (!writeLast(qp, st, buf, hdr, pmtu, opcode == Opcode.UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE)) {
                    return;
                }
                break;
            }
            case Opcode.UC_RDMA_WRITE_MIDDLE:
                if (!writeMiddle(qp, st, buf, hdr, pmtu)) {
                    return;
                }
                break;
            case Opcode.UC_RDMA_WRITE_LAST:
            case Opcode.UC_RDMA_WRITE_LAST_WITH_IMMEDIATE:
                if (!writeLast(qp, st, buf, hdr, pmtu, opcode == Opcode.UC_RDMA_WRITE_LAST_WITH_IMMEDIATE)) {
                    return;
                }
                break;
            default:
                drop(qp);
                return;
        }
        rs.psn = (psn + 1) & BthDescriptor.MASK_24;
        rs.state = opcode;
    }

    /** IBTA: MIDDLE/LAST only continue a message of their kind; FIRST/ONLY only start one. */
    static boolean opcodeInSequence(int recvState, int opcode) {
        switch (recvState) {
            case Opcode.UC_SEND_FIRST:
            case Opcode.UC_SEND_MIDDLE:
                return opcode == Opcode.UC_SEND_MIDDLE || opcode == Opcode.UC_SEND_LAST
                        || opcode == Opcode.UC_SEND_LAST_WITH_IMMEDIATE;
            case Opcode.UC_RDMA_WRITE_FIRST:
            case Opcode.UC_RDMA_WRITE_MIDDLE:
                return opcode == Opcode.UC_RDMA_WRITE_MIDDLE || opcode == Opcode.UC_RDMA_WRITE_LAST
                        || opcode == Opcode.UC_RDMA_WRITE_LAST_WITH_IMMEDIATE;
            default:
                return Opcode.isStart(opcode);
        }
    }

    /** A gap or an out-of-place opcode: a SEND in progress keeps its receive WQE for reuse, a WRITE just ends. */
    private static void abandonMessage(EngineQp qp, UcState st) {
        ResponderState rs = qp.responder();
        int state = rs.state;
        // The cursor's references go either way; a SEND's receive WQE lives on in the saved copy.
        rs.sge.putSs();
        if (state == Opcode.UC_SEND_FIRST || state == Opcode.UC_SEND_MIDDLE) {
            st.rewind = true;
        }
        rs.state = Opcode.UC_SEND_LAST;
    }

    private static boolean sendMiddle(EngineQp qp, UcState st, ByteBuffer buf, PacketHeaders hdr, int pmtu) {
        ResponderState rs = qp.responder();
        if (hdr.payloadLength() != pmtu) {
            rewind(qp, st);
            return false;
        }
        rs.rcvLen += pmtu;
        if (Integer.compareUnsigned(rs.rcvLen, rs.len) > 0) {
            rewind(qp, st);
            return false;
        }
        hdr.copyPayload(buf, rs.sge, pmtu, true);
        return true;
    }

    /** A SEND that cannot be placed: keep its receive WQE for the next SEND and drop the packet. */
    private static void rewind(EngineQp qp, UcState st) {
        qp.responder().sge.putSs();
        st.rewind = true;
        qp.responder().state = Opcode.UC_SEND_LAST;
        drop(qp);
    }

    private static boolean writeMiddle(EngineQp qp, UcState st, ByteBuffer buf, PacketHeaders hdr, int pmtu) {
        ResponderState rs = qp.responder();
        if (hdr.payloadLength() != pmtu) {
            drop(qp);
            return false;
        }
        rs.rcvLen += pmtu;
        if (Integer.compareUnsigned(rs.rcvLen, rs.len) > 0) {
            drop(qp);
            return false;
        }
        hdr.copyPayload(buf, rs.sge, pmtu, true);
        return true;
    }

    private static boolean writeLast(EngineQp qp, UcState st, ByteBuffer buf, PacketHeaders hdr, int pmtu,
            boolean withImm) {
        ResponderState rs = qp.responder();
        int tlen = hdr.payloadLength();
        if (tlen > pmtu || tlen + rs.rcvLen != rs.len) {
            drop(qp);
            return false;
        }
        if (withImm) {
            if (st.rewind) {
                // The receive WQE a broken SEND left behind takes this completion (its id is still pending).
                st.release();
            } else {
                int r = rs.getRwqe(true);
                if (r < 0) {
                    rs.sge.putSs();
                    qp.rcError(WcStatus.LOC_QP_OP_ERR);
                    return false;
                }
                if (r == 0) {
                    rs.sge.putSs();
                    drop(qp);
                    return false;
                }
            }
        }
        if (tlen > 0) {
            hdr.copyPayload(buf, rs.sge, tlen, true);
        }
        rs.sge.putSs();
        if (withImm) {
            WorkCompletion wc = st.recvWc.clear();
            wc.wcFlags(WcFlag.WITH_IMM.bit()).immData(hdr.immediateData());
            complete(qp, wc, WcOpcode.RECV_RDMA_WITH_IMM, rs.len, hdr);
        }
        return true;
    }

    private static void complete(EngineQp qp, WorkCompletion wc, WcOpcode opcode, int byteLen, PacketHeaders hdr) {
        if (!qp.responder().testAndClearAflags(QpFlags.RA_WRID_VALID)) {
            return;
        }
        wc.wrId(qp.responder().wrId).status(WcStatus.SUCCESS).opcode(opcode).byteLen(byteLen).qpNum(qp.qpNum())
                .srcQp(qp.remoteQpn()).slid(qp.remoteAhAttr().dlid() & 0xFFFF).sl(qp.remoteAhAttr().sl())
                .portNum(qp.portNum());
        qp.recvCq(wc, hdr.solicitedEvent());
    }

    private static void drop(EngineQp qp) {
        Packets.count(qp, PortCounter.PKT_DROPS);
    }

    /**
     * The QP entered ERR ({@code recvLock} and {@code sendLock} held): drops the saved receive position's references
     * (the receive WQE itself is completed by the core, which still sees it as in progress).
     *
     * @param qp the QP
     * @param st its state
     */
    @Override
    public void error(EngineQp qp, UcState st) {
        st.release();
    }
}
