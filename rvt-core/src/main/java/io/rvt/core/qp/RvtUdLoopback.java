package io.rvt.core.qp;

import io.rvt.api.AhAttr;
import io.rvt.api.PortCounter;
import io.rvt.api.QpState.Ops;
import io.rvt.api.QpType;
import io.rvt.api.SendFlag;
import io.rvt.api.WcFlag;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.GidLookup;
import io.rvt.api.spi.engine.QpFlags;
import io.rvt.api.spi.engine.ResponderState;
import io.rvt.api.spi.engine.SgeState;
import io.rvt.core.base.SpinningLock;
import java.nio.ByteBuffer;

/**
 * The datagram half of {@code rucLoopback}: delivers a UD, GSI or SMI QP's send WQEs straight into the local QP each
 * work request names, as hfi1's and qib's {@code ud_loopback} do for a destination on the local port. It is an rvt
 * extension (rdmavt's {@code rvt_ruc_loopback} takes RC and UC only; its drivers carry their own UD loopback): a
 * driver with no wire calls {@code rucLoopback} for every QP, and its GSI QPs then carry the MADs of rvt-cm between
 * the QPs of the device, so that those QPs connect through the CM like any others.
 *
 * <p>What the receiver sees is what rvt-transport's UD receive gives: the Q_Key checked (a work request's Q_Key with
 * the top bit set stands for the sender's own, IBTA 10.2.5; QP0 takes any), a GRH (built from the address handle and
 * the sender's port GID) or 40 unwritten bytes in front of the payload, {@code byte_len} = payload + 40, the source
 * QPN, the sender's LID and the GSI P_Key index. A message with no receive WQE, a wrong Q_Key or a receiver that does
 * not receive is dropped and counted; one larger than the receive WQE is dropped and the WQE kept for the next
 * ({@code RVT_R_REUSE_SGE}). The send completes with SUCCESS either way, as a UD send does once it left. Every address
 * is taken to be this device: the driver decided so by calling the loopback.
 *
 * <p>{@link RvtLoopback} runs it: it takes {@code S_BUSY}, walks the send queue and completes each WQE, so the locks
 * are its: the sender's {@code sendLock} is never held while a {@code recvLock} is taken (a GSI QP sends to itself).
 * One instance per QP, used only by the thread that holds {@code S_BUSY}.
 */
final class RvtUdLoopback {
    /** The GRH's size, in front of every UD payload in a receive buffer. */
    private static final int GRH = 40;
    /** BTH + DETH + ICRC: what the GRH's payload length counts besides the payload, pad and ImmDt. */
    private static final int TRANSPORT_BYTES = 12 + 8 + 4;
    /** The GRH's next header for an IBA transport header. */
    private static final int NEXT_HEADER_IBA = 0x1B;

    private final RvtQp sqp;
    private final WorkCompletion wc = new WorkCompletion();
    private final ByteBuffer grh = ByteBuffer.allocate(GRH);

    RvtUdLoopback(RvtQp sqp) {
        this.sqp = sqp;
    }

    /** @return true for the QP types this loopback serves */
    static boolean serves(QpType type) {
        return type == QpType.UD || type == QpType.GSI || type == QpType.SMI;
    }

    /**
     * Delivers one send WQE of the sender, which holds {@code S_BUSY} and no lock; {@link RvtLoopback} completes it.
     *
     * @return the send's status: SUCCESS, delivered or not (as a datagram that left), LOC_QP_OP_ERR for an opcode a
     *         datagram QP cannot send
     */
    WcStatus deliver(RvtSwqe wqe) {
        if (wqe.opcode() != WrOpcode.SEND && wqe.opcode() != WrOpcode.SEND_WITH_IMM) {
            return WcStatus.LOC_QP_OP_ERR;
        }
        RvtIbport port = sqp.iport();
        RvtQp qp = port == null ? null : sqp.device().lookupQpnAndRetain(port, wqe.remoteQpn());
        if (qp == null) {
            drop(port, PortCounter.PKT_DROPS);
            return WcStatus.SUCCESS;
        }
        try {
            SpinningLock rl = qp.recvLock();
            rl.lock();
            try {
                receive(qp, port, wqe);
            } finally {
                rl.unlock();
            }
        } finally {
            qp.release();
        }
        return WcStatus.SUCCESS;
    }

    /** The receiver's side, {@code qp.recvLock} held. */
    private void receive(RvtQp qp, RvtIbport port, RvtSwqe wqe) {
        if (!serves(qp.type()) || !qp.state().can(Ops.PROCESS_RECV_OK)) {
            drop(port, PortCounter.PKT_DROPS);
            return;
        }
        int qkey = wqe.remoteQkey() < 0 ? sqp.qkey() : wqe.remoteQkey();
        if (qp.qpNum() != 0 && qkey != qp.qkey()) {
            drop(port, PortCounter.QKEY_VIOLATIONS);
            return;
        }
        int len = wqe.length();
        ResponderState rs = qp.responder();
        int r = rs.datagramRwqe();
        if (r < 0) {
            qp.rcError(WcStatus.LOC_QP_OP_ERR);
            return;
        }
        if (r == 0) {
            drop(port, PortCounter.PKT_DROPS); // no receive WQE: a datagram is lost
            return;
        }
        if (Integer.compareUnsigned(len + GRH, rs.len) > 0) {
            rs.flags |= QpFlags.R_REUSE_SGE; // too big: keep the WQE for the next one
            drop(port, PortCounter.PKT_DROPS);
            return;
        }
        wc.clear();
        boolean imm = wqe.opcode() == WrOpcode.SEND_WITH_IMM;
        if (imm) {
            wc.wcFlags(WcFlag.WITH_IMM.bit()).immData(wqe.immData());
        }
        AhAttr ah = wqe.ahAttr();
        SgeState dst = rs.sge;
        if (ah.isGlobal()) {
            writeGrh(port, ah, len, imm);
            dst.copyIn(grh, 0, GRH, true, false);
            wc.wcFlags(wc.wcFlags() | WcFlag.GRH.bit());
        } else {
            dst.skipSge(GRH, true);
        }
        if (len > 0) {
            SgeState src = sqp.requester().sge;
            src.init(wqe.sgList(), 0, wqe.numSge(), len);
            dst.copyFrom(src, len, true, false, false);
        }
        dst.putSs();
        if (!rs.testAndClearAflags(QpFlags.RA_WRID_VALID)) {
            return;
        }
        wc.wrId(rs.wrId).status(WcStatus.SUCCESS).opcode(WcOpcode.RECV).byteLen(len + GRH)
                .qpNum(qp.qpNum()).srcQp(sqp.qpNum()).pkeyIndex(qp.type() == QpType.GSI ? wqe.pkeyIndex() : 0)
                .slid(port.lid()).sl(ah.sl()).dlidPathBits(0).portNum(qp.portNum());
        qp.recvCq(wc, SendFlag.SOLICITED.in(wqe.sendFlags()));
    }

    /** The GRH the packet would have carried (IBTA 8.3): the sender's port GID as SGID, the handle's as DGID. */
    private void writeGrh(RvtIbport port, AhAttr ah, int len, boolean imm) {
        int payload = TRANSPORT_BYTES + (imm ? 4 : 0) + len + ((4 - (len & 3)) & 3);
        grh.putInt(0, (6 << 28) | ((ah.trafficClass() & 0xFF) << 20) | (ah.flowLabel() & 0xF_FFFF));
        grh.putShort(4, (short) payload);
        grh.put(6, (byte) NEXT_HEADER_IBA);
        grh.put(7, (byte) ah.hopLimit());
        grh.putLong(8, port.gidPrefix());
        GidLookup gids = sqp.device().gidLookup();
        grh.putLong(16, gids == null ? 0 : gids.getGuidBe(sqp.device(), port, ah.sgidIndex()));
        ah.dgid().write(grh, 24);
    }

    private static void drop(RvtIbport port, PortCounter counter) {
        if (port != null) {
            port.addCounter(counter, 1);
        }
    }
}
