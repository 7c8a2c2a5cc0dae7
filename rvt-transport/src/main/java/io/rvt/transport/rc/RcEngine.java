package io.rvt.transport.rc;

import io.rvt.api.PortCounter;
import io.rvt.api.QpState.Ops;
import io.rvt.api.WcStatus;
import io.rvt.api.spi.Seq24;
import io.rvt.api.spi.engine.EngineQp;
import io.rvt.api.spi.engine.QpFlags;
import io.rvt.api.spi.engine.RequesterState;
import io.rvt.transport.engine.Packets;
import io.rvt.transport.engine.ProtocolEngine;
import io.rvt.transport.engine.RxInfo;
import io.rvt.transport.engine.TxInfo;
import io.rvt.transport.header.Opcode;
import io.rvt.transport.header.PacketHeaders;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.locks.Lock;

/**
 * The RC transport's entry for {@code io.rvt.transport.Transport}: takes the QP's locks and hands the work to the
 * requester ({@link RcRequester}, {@link RcAckProcessor}) and the responder ({@link RcResponder},
 * {@link RcResponseBuilder}). Stateless: everything per QP is in {@link RcState}. Drivers use {@code Transport}.
 */
public final class RcEngine implements ProtocolEngine<RcState> {
    /** Per port (index = port number), its budget of RC PSNs in flight, or null; copied on write. */
    private volatile RcWindow[] windows = new RcWindow[0];

    /** Whether a retry after a timeout waits longer each time ({@link #backOffRetries(boolean)}). */
    private volatile boolean retryBackoff;

    /** Creates the engine. */
    public RcEngine() {
    }

    /**
     * Backs the RC retry timer off: after the n-th retry since the last ACK that made progress, the timer the
     * retransmission arms is the QP's local ACK timeout times 2^n, growing no longer once it reaches
     * {@link RcRequester#BACKOFF_CEILING_TIMEOUT} (4.096 us x 2^18, 1.07 s); the first timeout and the retry count are
     * the QP's ({@code retry_cnt} retries, then {@code RETRY_EXC_ERR}). An rvt extension for a driver whose peer's
     * "HCA" is a process that a busy machine may not run for longer than {@code retry_cnt + 1} timeouts: with the
     * examples' 67 ms and 7 retries a peer silent for 0.54 s was given up, with the backoff after 5.3 s. Off by
     * default (rdmavt, hfi1 and rxe re-arm the same timeout every time).
     *
     * @param on true to back off
     */
    public void backOffRetries(boolean on) {
        retryBackoff = on;
    }

    /** @return whether retries back off ({@link #backOffRetries(boolean)}) */
    public boolean backsOffRetries() {
        return retryBackoff;
    }

    /**
     * Caps the RC PSNs in flight on a port, summed over its QPs ({@link RcWindow}); an rvt extension. Applies to
     * packets built from now on.
     *
     * @param portNum the port, 1-based
     * @param packets the budget, at least 1; 0 removes it
     */
    public synchronized void limitInFlight(int portNum, int packets) {
        if (portNum < 1) {
            throw new IllegalArgumentException("port numbers start at 1, got " + portNum);
        }
        if (packets < 0) {
            throw new IllegalArgumentException("an RC window must be >= 0 packets, got " + packets);
        }
        RcWindow[] w = windows.length > portNum ? windows.clone() : Arrays.copyOf(windows, portNum + 1);
        w[portNum] = packets == 0 ? null : new RcWindow(packets);
        windows = w;
    }

    private RcWindow window(int portNum) {
        RcWindow[] w = windows;
        return portNum < w.length ? w[portNum] : null;
    }

    /**
     * @param portNum a port
     * @return {budget, PSNs in flight now, most in flight at once, waits}, or null if the port has no budget
     */
    public long[] inFlight(int portNum) {
        RcWindow w = window(portNum);
        return w == null ? null : new long[] {w.packets, w.inFlight(), w.peak(), w.waits()};
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
    public int makePacket(EngineQp qp, RcState st, ByteBuffer buf, int off, TxInfo tx) {
        int n;
        Lock sl = qp.sendLock();
        sl.lock();
        try {
            if ((qp.requester().flags & (QpFlags.S_RESP_PENDING | QpFlags.S_ACK_PENDING)) != 0) {
                n = RcResponseBuilder.makeResponse(qp, st, buf, off, tx);
                if (n > 0) {
                    markIfDrained(qp, tx);
                    return n;
                }
            }
            n = RcRequester.makeRequest(qp, st, buf, off, tx, window(qp.portNum()), retryBackoff);
            if (n > 0) {
                markIfDrained(qp, tx);
            }
        } finally {
            sl.unlock();
        }
        if (n == RcRequester.FATAL) {
            st.letGoOfSendLock(); // a drain's hold of it (LockPolicy.sendLockOverDrains) goes first
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
     * Tells the drain that the packet just made was the QP's last for now ({@link TxInfo#markDrained()}), in the case
     * that is cheap to recognise and the common one of a stream: no response owed, the requester between messages and
     * every posted WQE started. {@code sendLock} held.
     */
    private static void markIfDrained(EngineQp qp, TxInfo tx) {
        RequesterState rq = qp.requester();
        if ((rq.flags & (QpFlags.S_RESP_PENDING | QpFlags.S_ACK_PENDING)) == 0 && RcRequester.betweenMessages(rq.state)
                && rq.cur == qp.sendQueue().head() && qp.state().can(Ops.PROCESS_SEND_OK)) {
            tx.markDrained();
        }
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
    public void receive(EngineQp qp, RcState st, ByteBuffer buf, PacketHeaders hdr, RxInfo rx, int pkeyIndex) {
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
                        int last = qp.requester().lastPsn;
                        RcAckProcessor.receiveResponse(qp, st, buf, hdr);
                        afterResponse(qp, st, last);
                    } finally {
                        sl.unlock();
                    }
                } else {
                    RcResponder.receiveRequest(qp, st, buf, hdr, rx);
                }
            } while (hdr.nextInRun());
        } finally {
            // An ONLY packet's receive WQE is taken without region references (getRwqeForOnePacket) and used up
            // under this lock; should any path leave it live, it takes them now, before the lock goes.
            qp.responder().sge.pin();
            rl.unlock();
        }
    }

    /**
     * What a response changed for the window: PSNs acknowledged open it, the port's count follows, and a requester
     * stopped at it goes on. {@code recvLock} and {@code sendLock} held.
     */
    private void afterResponse(EngineQp qp, RcState st, int lastBefore) {
        RequesterState rq = qp.requester();
        int acked = Seq24.delta(rq.lastPsn, lastBefore);
        if (acked > 0) {
            RcWindow.acked(st, acked);
        }
        RcWindow.settle(qp, st, st.chargedTo != null ? st.chargedTo : window(qp.portNum()));
        if ((rq.flags & QpFlags.S_WAIT_PSN) != 0 && acked > 0) {
            rq.flags &= ~QpFlags.S_WAIT_PSN;
            st.scheduleSend();
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
    public void error(EngineQp qp, RcState st) {
        qp.ackQueue().rdmaSge.clear();
        qp.requester().rdmaReadLen = 0;
        RcWindow.refund(st);
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
    public void restart(EngineQp qp, RcState st, int psn, int wait) {
        if (!qp.state().can(Ops.PROCESS_SEND_OK)) {
            return;
        }
        RcRequester.restart(qp, st, psn, wait != 0);
    }
}
