package io.rvt.transport.ud;

import io.rvt.api.AhAttr;
import io.rvt.api.MigState;
import io.rvt.api.PortCounter;
import io.rvt.api.QpState;
import io.rvt.api.QpState.Ops;
import io.rvt.api.QpType;
import io.rvt.api.SendFlag;
import io.rvt.api.WcFlag;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.DriverPort;
import io.rvt.api.spi.engine.EngineQp;
import io.rvt.api.spi.engine.QpFlags;
import io.rvt.api.spi.engine.ResponderState;
import io.rvt.api.spi.engine.SendQueue;
import io.rvt.api.spi.engine.SendWqe;
import io.rvt.api.spi.engine.SgeState;
import io.rvt.transport.engine.Packets;
import io.rvt.transport.engine.ProtocolEngine;
import io.rvt.transport.engine.RequestBuilder;
import io.rvt.transport.engine.RxInfo;
import io.rvt.transport.engine.TxInfo;
import io.rvt.transport.header.BthDescriptor;
import io.rvt.transport.header.DethDescriptor;
import io.rvt.transport.header.ImmDtDescriptor;
import io.rvt.transport.header.LrhDescriptor;
import io.rvt.transport.header.Opcode;
import io.rvt.transport.header.PacketHeaders;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.Lock;

/**
 * The Unreliable Datagram transport, for UD, GSI and SMI QPs ({@code make_ud_req} and {@code ud_rcv} of qib/hfi1).
 * Each WQE is one packet (BTH, DETH, optional ImmDt, payload) to the address and QPN of its work request, and completes
 * as soon as it is built. The receiver checks the Q_Key (a work request's Q_Key with the top bit set stands for the
 * sending QP's own, IBTA 10.2.5), puts the GRH (or 40 unwritten bytes) in front of the payload in the receive buffer
 * and reports {@code byte_len} = payload + 40. A packet larger than the receive WQE is dropped and the WQE kept for
 * the next packet ({@code RVT_R_REUSE_SGE}). Drivers use {@code io.rvt.transport.Transport}.
 */
public final class UdEngine implements ProtocolEngine<UdState> {
    /** Creates the engine. */
    public UdEngine() {
    }

    /**
     * The next packet of a UD QP, or (SQE/ERR) the flush of its posted WQEs. Takes {@code sendLock}.
     *
     * @param qp the QP
     * @param st its state
     * @param buf the packet buffer
     * @param off where the BTH goes
     * @param tx filled when a packet was written
     * @return transport bytes written, or 0
     */
    @Override
    public int makePacket(EngineQp qp, UdState st, ByteBuffer buf, int off, TxInfo tx) {
        SendQueue sq = qp.sendQueue();
        Lock sl = qp.sendLock();
        sl.lock();
        try {
            QpState state = qp.state();
            if (!RequestBuilder.canSendOrFlush(qp, state, Ops.PROCESS_NEXT_SEND_OK)) {
                return 0; // SQD (nothing is ever half sent) or not yet RTS
            }
            while (true) {
                int cur = qp.requester().cur;
                if (cur == sq.head()) {
                    return 0;
                }
                SendWqe wqe = sq.swqe(cur);
                WrOpcode w = wqe.opcode();
                int len = wqe.length();
                if (w != WrOpcode.SEND && w != WrOpcode.SEND_WITH_IMM) {
                    sq.sendComplete(wqe, WcStatus.LOC_QP_OP_ERR);
                    continue;
                }
                if (off + Packets.MAX_TRANSPORT_HEADER + len + 3 > buf.limit()) {
                    // Longer than the driver's buffer (setup_wqe lets nothing above the path MTU through).
                    sq.sendComplete(wqe, WcStatus.LOC_LEN_ERR);
                    continue;
                }
                AhAttr ah = wqe.ahAttr();
                boolean multicast = Packets.isMulticast(ah);
                int destQpn = multicast ? BthDescriptor.MULTICAST_QPN : wqe.remoteQpn();
                int op;
                int hdr = off + BthDescriptor.LENGTH;
                // IBTA 10.2.5: a Q_Key with the high-order bit set means "use the QP's own".
                int qkey = wqe.remoteQkey() < 0 ? qp.qkey() : wqe.remoteQkey();
                hdr = DethDescriptor.write(buf, hdr, qkey, qp.qpNum());
                if (w == WrOpcode.SEND_WITH_IMM) {
                    op = Opcode.UD_SEND_ONLY_WITH_IMMEDIATE;
                    hdr = ImmDtDescriptor.write(buf, hdr, wqe.immData());
                } else {
                    op = Opcode.UD_SEND_ONLY;
                }
                SgeState ss = qp.requester().sge;
                ss.init(wqe.sgList(), 0, wqe.numSge(), len);
                // Copied, never referenced: the WQE completes below, before the driver sends the packet.
                int end = Packets.writePayload(buf, hdr, ss, len);
                int pkey = pkeyFor(qp, wqe);
                int psn = wqe.psn() & BthDescriptor.MASK_24;
                BthDescriptor.write(buf, off, op, SendFlag.SOLICITED.in(wqe.sendFlags()),
                        qp.migState() == MigState.MIGRATED, Packets.padCount(len), pkey, destQpn, false, psn);
                tx.ah().copyFrom(ah);
                tx.set(qp.qpNum(), destQpn, pkey, op, psn, end - off, len, qp.portNum(), false, multicast);
                sq.sendComplete(wqe, WcStatus.SUCCESS); // UD sends complete once sent; moves sendCur on
                return end - off;
            }
        } finally {
            sl.unlock();
        }
    }

    /** SMI: the default P_Key; GSI: the work request's P_Key index; others: the QP's. */
    private static int pkeyFor(EngineQp qp, SendWqe wqe) {
        if (qp.type() == QpType.GSI) {
            DriverPort port = qp.iport();
            return port == null ? BthDescriptor.DEFAULT_PKEY : port.pkey(wqe.pkeyIndex());
        }
        return Packets.pkeyOf(qp);
    }

    /**
     * Delivers a UD packet to {@code qp}. Takes {@code recvLock}.
     *
     * @param qp the QP
     * @param st its state
     * @param buf the packet's buffer
     * @param hdr its parsed headers (already checked for transport and P_Key)
     * @param rx the framing information (LIDs, SL, GRH)
     * @param pkeyIndex the P_Key table index that matched (reported by GSI completions)
     */
    @Override
    public void receive(EngineQp qp, UdState st, ByteBuffer buf, PacketHeaders hdr, RxInfo rx, int pkeyIndex) {
        ResponderState rs = qp.responder();
        Lock rl = qp.recvLock();
        rl.lock();
        try {
            if (!qp.state().can(Ops.PROCESS_RECV_OK)) {
                drop(qp);
                return;
            }
            if (qp.qpNum() != 0) {
                // The permissive LID belongs to QP0 (IBTA 9.6.1.4.1)
                if (rx.slid() == LrhDescriptor.PERMISSIVE_LID || rx.dlid() == LrhDescriptor.PERMISSIVE_LID) {
                    drop(qp);
                    return;
                }
                if (hdr.dethQkey() != qp.qkey()) {
                    Packets.count(qp, PortCounter.QKEY_VIOLATIONS);
                    return;
                }
            }
            WorkCompletion wc = st.recvWc.clear();
            if (hdr.opcode() == Opcode.UD_SEND_ONLY_WITH_IMMEDIATE) {
                wc.wcFlags(WcFlag.WITH_IMM.bit()).immData(hdr.immediateData());
            }
            int tlen = hdr.payloadLength();
            int byteLen = tlen + Packets.GRH_AREA;
            int r = rs.datagramRwqe();
            if (r < 0) {
                qp.rcError(WcStatus.LOC_QP_OP_ERR);
                return;
            }
            if (r == 0) {
                drop(qp); // no receive WQE: UD just loses the packet
                return;
            }
            if (Integer.compareUnsigned(byteLen, rs.len) > 0) {
                // Too big for this receive WQE: drop the packet, keep the WQE for the next one.
                rs.flags |= QpFlags.R_REUSE_SGE;
                drop(qp);
                return;
            }
            SgeState ss = rs.sge;
            if (rx.hasGrh()) {
                ss.copyIn(rx.grhBuffer(), rx.grhOffset(), Packets.GRH_AREA, true, false);
                wc.wcFlags(wc.wcFlags() | WcFlag.GRH.bit());
            } else {
                ss.skipSge(Packets.GRH_AREA, true);
            }
            if (tlen > 0) {
                hdr.copyPayload(buf, ss, tlen, true);
            }
            ss.putSs();
            if (!rs.testAndClearAflags(QpFlags.RA_WRID_VALID)) {
                return;
            }
            int dlid = rx.dlid();
            int lmc = qp.iport() == null ? 0 : qp.iport().lmc();
            wc.wrId(rs.wrId).status(WcStatus.SUCCESS).opcode(WcOpcode.RECV).byteLen(byteLen)
                    .qpNum(qp.qpNum()).srcQp(hdr.dethSrcQp())
                    .pkeyIndex(qp.type() == QpType.GSI ? pkeyIndex : 0).slid(rx.slid()).sl(rx.sl())
                    .dlidPathBits(dlid >= LrhDescriptor.MULTICAST_LID_BASE ? 0 : dlid & ((1 << lmc) - 1))
                    .portNum(qp.portNum());
            qp.recvCq(wc, hdr.solicitedEvent());
        } finally {
            rl.unlock();
        }
    }

    private static void drop(EngineQp qp) {
        Packets.count(qp, PortCounter.PKT_DROPS);
    }
}
