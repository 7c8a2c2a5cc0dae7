package io.rvt.transport.rc;

import io.rvt.api.spi.Seq24;
import io.rvt.api.spi.engine.EngineQp;
import io.rvt.api.spi.engine.QpFlags;
import io.rvt.api.spi.engine.RequesterState;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How many RC PSNs a requester may have in flight, so that it does not overrun its peer (an rvt extension: IBTA RC
 * is go-back-N and leaves the sending rate to the requester, rdmavt sends as fast as the send engine runs). Two
 * limits, both counted in PSNs sent and not yet acknowledged ({@code [s_last_psn + 1, s_psn)}, which includes the
 * responses an RDMA READ has asked for, since they come back into this port's receive buffer):
 *
 * <ul>
 * <li>per QP on a port with a budget, a congestion window ({@link RcState#cwnd}): unlimited until the QP loses a
 * packet (a sequence NAK, an implicit NAK of a READ, a retry timeout), then halved from the PSNs that were in
 * flight, at least {@link #FLOOR}, and opened by one PSN per window's worth of PSNs acknowledged (additive
 * increase, multiplicative decrease), so that a congested path stops resending whole send queues;</li>
 * <li>per port, when the driver sets one ({@link RcEngine#limitInFlight}), a budget shared by the port's RC QPs: what
 * the peer's receive buffer holds (a driver over kernel sockets derives it from the buffer the kernel granted). A QP
 * with fewer than {@link #FLOOR} PSNs in flight may always send, so that a QP waiting on the budget always has an
 * ACK (or its retry timer) coming that wakes it; the budget may thus be exceeded by {@code FLOOR} per QP.</li>
 * </ul>
 *
 * A requester stopped by either waits with {@code RVT_S_WAIT_PSN} until an acknowledgement moves
 * {@code s_last_psn} (or go-back-N rewinds it), and asks for an ACK on the packet that fills its window, so that the
 * responder's ACK coalescing does not keep the window shut.
 */
final class RcWindow {
    /** The smallest congestion window, and the PSNs a QP may always have in flight whatever the port's budget. */
    static final int FLOOR = 8;
    /** The most PSNs between two packets that ask for an ACK while a window limits (hfi1's PSN credit). */
    static final int ACK_SPACING_MAX = 16;
    /** A window that does not limit. */
    static final int UNLIMITED = Integer.MAX_VALUE;

    /** The port's budget, PSNs. */
    final int packets;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger peak = new AtomicInteger();
    private final AtomicLong waits = new AtomicLong();

    /**
     * @param packets the port's budget, at least 1
     */
    RcWindow(int packets) {
        if (packets < 1) {
            throw new IllegalArgumentException("an RC window must hold at least 1 packet, got " + packets);
        }
        this.packets = packets;
    }

    /** @return PSNs in flight on the port now */
    int inFlight() {
        return inFlight.get();
    }

    /** @return the most PSNs that were in flight on the port at once */
    int peak() {
        return peak.get();
    }

    /** @return how often a requester of the port stopped at its window or the port's budget */
    long waits() {
        return waits.get();
    }

    // ------------------------------------------------------------------ per QP (sendLock held)

    /** @return the PSNs {@code qp} has sent and not had acknowledged */
    static int outstanding(EngineQp qp) {
        RequesterState rq = qp.requester();
        if (rq.acked == rq.tail) {
            return 0;
        }
        return Math.max(0, Seq24.delta(rq.psn, rq.lastPsn + 1));
    }

    /**
     * Whether the next packet, which takes {@code span} PSNs, may leave; if not, sets {@code S_WAIT_PSN}.
     *
     * @param w the port's budget, or null
     * @return true if it may
     */
    static boolean admit(EngineQp qp, RcState st, RcWindow w, int span) {
        int out = outstanding(qp);
        if (out == 0) {
            return true;
        }
        int after = out + span;
        if (after <= st.cwnd && (w == null || after <= w.packets
                && (after <= FLOOR || w.inFlight.get() + span <= w.packets))) {
            return true;
        }
        qp.requester().flags |= QpFlags.S_WAIT_PSN;
        if (w != null) {
            w.waits.incrementAndGet();
        }
        return false;
    }

    /**
     * Whether the packet just built (and {@link #settle settled}) asks for an ACK: the one that fills the QP's window or the
     * port's budget, and one every half window of PSNs ({@value #ACK_SPACING_MAX} at most), so that losing the last
     * packet of a window, or one ACK, does not leave the requester waiting for its retry timer: a later ACK opens the
     * window, the packets it lets out show the responder the gap, and its sequence NAK starts go-back-N.
     *
     * @param psn the packet's PSN
     * @param pending PSNs built but not yet settled: 1 when asked before the packet is counted (a run), else 0
     * @return true to set AckReq
     */
    static boolean asksForAck(EngineQp qp, RcState st, RcWindow w, int psn, int pending) {
        int limit = w != null ? Math.min(st.cwnd, w.packets) : st.cwnd;
        if (limit == UNLIMITED) {
            return false;
        }
        int out = outstanding(qp) + pending;
        if (out >= limit || w != null && w.inFlight.get() + pending >= w.packets) {
            return true;
        }
        int spacing = Math.max(1, Math.min(ACK_SPACING_MAX, limit / 2));
        return (psn & Seq24.MASK) % spacing == 0;
    }

    /** Brings the port's count of the QP's PSNs in flight up to date (after a packet, an ACK, a rewind). */
    static void settle(EngineQp qp, RcState st, RcWindow w) {
        if (st.chargedTo != w) {
            refund(st);
            st.chargedTo = w;
        }
        if (w == null) {
            return;
        }
        int out = outstanding(qp);
        int delta = out - st.charged;
        if (delta != 0) {
            st.charged = out;
            int now = w.inFlight.addAndGet(delta);
            if (delta > 0 && now > w.peak.get()) {
                w.peak.accumulateAndGet(now, Math::max);
            }
        }
    }

    /** Gives back everything the QP holds of its port's budget (ERR, RESET). */
    static void refund(RcState st) {
        RcWindow w = st.chargedTo;
        if (w != null && st.charged != 0) {
            w.inFlight.addAndGet(-st.charged);
        }
        st.charged = 0;
    }

    /**
     * A loss: halves the QP's congestion window from what was in flight, on a port with a budget (a driver over a
     * real network, where loss means a queue overflowed). Without one (driver-sim, whose faults are random and whose
     * round trip is long against the time a packet takes there) nothing changes: halving made go-back-N resend 10 %
     * of the frames instead of 79 % at 1 % loss, but moved a fifth of the data per second.
     */
    static void lost(EngineQp qp, RcState st) {
        if (st.chargedTo == null) {
            return;
        }
        int out = outstanding(qp);
        st.cwnd = Math.max(FLOOR, Math.min(st.cwnd, out) / 2);
        st.cwndAcked = 0;
    }

    /** {@code acked} PSNs were acknowledged: opens the QP's window by one PSN per window acknowledged. */
    static void acked(RcState st, int acked) {
        int c = st.cwnd;
        if (c == UNLIMITED || acked <= 0) {
            return;
        }
        int a = st.cwndAcked + acked;
        while (a >= c && c != UNLIMITED) {
            a -= c;
            c++;
        }
        st.cwnd = c;
        st.cwndAcked = a;
    }
}
