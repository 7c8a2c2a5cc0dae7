package io.rvt.transport.rc;

import io.rvt.api.PortCounter;
import io.rvt.api.QpState.Ops;
import io.rvt.api.WcStatus;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.QpFlags;
import io.rvt.transport.Packets;
import io.rvt.transport.ProtocolEngine;
import io.rvt.transport.RxInfo;
import io.rvt.transport.TxInfo;
import io.rvt.transport.header.Opcode;
import io.rvt.transport.header.PacketHeaders;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.Lock;

/**
 * The RC transport's entry for {@code io.rvt.transport.Transport}: takes the QP's locks and hands the work to the
 * requester ({@link RcRequester}, {@link RcAckProcessor}) and the responder ({@link RcResponder},
 * {@link RcResponseBuilder}). Stateless: everything per QP is in {@link RcState}. Drivers use {@code Transport}.
 */
public final class RcEngine implements ProtocolEngine<RcState> {
    /** Creates the engine. */
    public RcEngine() {
    }

    /**
     * The next packet of an RC QP: a pending response first (ACK/NAK, RDMA READ response, atomic ACK), else a request;
     * in ERR the posted WQEs are flushed instead. Takes {@code sendLock} (and, to fail the QP on an operation the
     * transport does not know, {@code recvLock} after releasing it).
     *
     * @param qp the QP
     * @param st its state
     * @param buf the packet buffer
     * @param off where the BTH goes
     * @param tx filled when a packet was written
     * @return transport bytes written, or 0
     */
    @Override
    public int makePacket(DriverQp qp, RcState st, ByteBuffer buf, int off, TxInfo tx) {
        int n;
        Lock sl = qp.sendLock();
        sl.lock();
        try {
            if ((qp.requester().flags & (QpFlags.S_RESP_PENDING | QpFlags.S_ACK_PENDING)) != 0) {
                n = RcResponseBuilder.makeResponse(qp, st, buf, off, tx);
                if (n > 0) {
                    return n;
                }
            }
            n = RcRequester.makeRequest(qp, st, buf, off, tx);
        } finally {
            sl.unlock();
        }
        if (n == RcRequester.FATAL) {
            Lock rl = qp.recvLock();
            rl.lock();
            try {
                qp.rcError(WcStatus.WR_FLUSH_ERR);
            } finally {
                rl.unlock();
            }
            return 0;
        }
        return n;
    }

    /**
     * Processes an RC packet: requests go to the responder, responses to the requester. Takes {@code recvLock} (and
     * {@code sendLock} inside it where the send side is involved).
     *
     * @param qp the QP
     * @param st its state
     * @param buf the packet's buffer
     * @param hdr its parsed headers (already checked for transport and P_Key)
     * @param rx what the framing told the driver (only UD needs it)
     * @param pkeyIndex the P_Key index that matched (only UD needs it)
     */
    @Override
    public void receive(DriverQp qp, RcState st, ByteBuffer buf, PacketHeaders hdr, RxInfo rx, int pkeyIndex) {
        Lock rl = qp.recvLock();
        rl.lock();
        try {
            do { // a run (PacketHeaders.run): its packets one by one, as if each had come alone, under one lock
                if (!qp.state().can(Ops.PROCESS_RECV_OK)) {
                    Packets.count(qp, PortCounter.PKT_DROPS, 1 + hdr.endRun());
                    return;
                }
                if (Opcode.isResponse(hdr.opcode())) {
                    Lock sl = qp.sendLock();
                    sl.lock();
                    try {
                        RcAckProcessor.receiveResponse(qp, st, buf, hdr);
                    } finally {
                        sl.unlock();
                    }
                } else {
                    RcResponder.receiveRequest(qp, st, buf, hdr);
                }
            } while (hdr.nextInRun());
        } finally {
            rl.unlock();
        }
    }

    /**
     * The QP entered ERR ({@code recvLock} and {@code sendLock} held): forgets the READ response being built (its
     * source reference is the ack queue's, which the core drops next).
     *
     * @param qp the QP
     * @param st its state
     */
    @Override
    public void error(DriverQp qp, RcState st) {
        qp.ackQueue().rdmaSge.clear();
        qp.requester().rdmaReadLen = 0;
    }

    /**
     * Go-back-N after a retry timeout ({@code notifyRestartRc}; {@code recvLock} and {@code sendLock} held).
     *
     * @param qp the QP
     * @param st its state
     * @param psn the PSN to resend from
     * @param wait non-zero to send one packet and wait for its ACK
     */
    @Override
    public void restart(DriverQp qp, RcState st, int psn, int wait) {
        if (!qp.state().can(Ops.PROCESS_SEND_OK)) {
            return;
        }
        RcRequester.restart(qp, st, psn, wait != 0);
    }
}
