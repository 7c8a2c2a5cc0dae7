package io.rvt.transport;

import static io.rvt.api.Errno.EINVAL;

import io.rvt.api.Gid;
import io.rvt.api.PortCounter;
import io.rvt.api.QpType;
import io.rvt.api.spi.DriverDevice;
import io.rvt.api.spi.DriverPort;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.McastGroup;
import io.rvt.api.spi.engine.CallSend;
import io.rvt.api.spi.engine.EngineQp;
import io.rvt.api.spi.engine.SendWqe;
import io.rvt.transport.engine.Packets;
import io.rvt.transport.engine.QpProtocolState;
import io.rvt.transport.engine.RxInfo;
import io.rvt.transport.engine.SendScheduler;
import io.rvt.transport.engine.TxInfo;
import io.rvt.transport.header.Opcode;
import io.rvt.transport.header.PacketHeaders;
import io.rvt.transport.header.RejectReason;
import io.rvt.transport.rc.RcEngine;
import io.rvt.transport.rc.RcState;
import io.rvt.transport.uc.UcEngine;
import io.rvt.transport.uc.UcState;
import io.rvt.transport.ud.UdEngine;
import io.rvt.transport.ud.UdState;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The IBTA transport protocol of one device, for a packet driver: the RC requester and responder (segmentation, PSNs,
 * ACK coalescing, NAKs, go-back-N retry, RNR, credits, RDMA READ and atomic responder resources), UC and UD. It is
 * what hfi1's and qib's {@code rc.c}, {@code uc.c}, {@code ud.c} and {@code ruc.c} are to rdmavt.
 *
 * <h2>How a driver uses it</h2>
 * <ul>
 * <li>{@code qpPrivAlloc}: return {@link #newQpState(DriverQp)} (the QP's {@code priv} must be that object).</li>
 * <li>{@code notifyQpReset}: call {@link #resetQp}; {@code notifyErrorQp}: call {@link #errorQp};
 * {@code notifyRestartRc}: call {@link #restartRc}; {@code setupWqe}: return {@link #setupWqe}'s verdict.</li>
 * <li>The send engine (scheduled through {@code scheduleSend}/{@code doSend}) calls {@link #makePacket} until it
 * returns 0, puts the link-level headers in front of each packet from the {@link TxInfo} and the ICRC after it.</li>
 * <li>The receive path parses a packet ({@code PacketParser}), looks the QP up with
 * {@code DriverDevice.lookupQpnAndRetain}, calls {@link #receive} and releases the QP; multicast UD packets go to
 * {@link #receiveMulticast}.</li>
 * </ul>
 *
 * <h2>Threads and locks</h2>
 * Thread-safe: the engines take the QP's locks themselves, in rdmavt's order ({@code recvLock} then
 * {@code sendLock}): {@link #makePacket} takes {@code sendLock}; {@link #receive} takes {@code recvLock} and, for
 * what the send side shares (ACK state, ack queue, requester cursors), {@code sendLock} inside it. Call them with no
 * lock of that QP held. {@link #resetQp}, {@link #errorQp} and {@link #restartRc} run inside rvt-core's callbacks,
 * which hold the locks their Javadoc names. The transport calls the {@link SendScheduler} its driver handed in (the
 * driver's {@code scheduleSend}) with {@code sendLock} held, as that callback requires.
 *
 * <h2>Errors</h2>
 * Protocol errors never throw: a bad packet is dropped and counted on the QP's port ({@link PortCounter}), a failed
 * operation becomes a work completion with the IBTA status and, where the IBTA says so, moves the QP to ERR.
 *
 * <h2>Allocation</h2>
 * None per packet: the per-QP state holds the scratch objects, and {@link TxInfo}/{@link RxInfo} are the caller's.
 */
public final class Transport {
    private final DriverDevice dev;
    private final SendScheduler scheduler;
    private final RcEngine rc = new RcEngine();
    private final UcEngine uc = new UcEngine();
    private final UdEngine ud = new UdEngine();

    /**
     * @param dev the device whose QPs this transport serves
     * @param scheduler its driver's {@code scheduleSend}, which the engines call (with {@code sendLock} held) when a
     *        QP has something to send: an ACK or response to queue, a requester to resume
     */
    public Transport(DriverDevice dev, SendScheduler scheduler) {
        this.dev = Objects.requireNonNull(dev, "dev");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    }

    /** @return the device */
    public DriverDevice device() {
        return dev;
    }

    /**
     * Creates the protocol state of a new QP; the driver returns it from {@code qpPrivAlloc}.
     *
     * @param qp the QP being created
     * @return an {@link RcState}, {@link UcState} or {@link UdState} (UD, GSI and SMI), carrying its engine and the
     *         driver's scheduler
     */
    public QpProtocolState newQpState(DriverQp qp) {
        switch (qp.type()) {
            case RC:
                return new RcState(EngineQp.of(qp), rc, scheduler);
            case UC:
                return new UcState(EngineQp.of(qp), uc, scheduler);
            default:
                return new UdState(EngineQp.of(qp), ud, scheduler);
        }
    }

    /**
     * @param qp a QP of this device
     * @return its protocol state
     * @throws IllegalStateException if its {@code priv} is not the object {@link #newQpState} made
     */
    public static QpProtocolState stateOf(DriverQp qp) {
        Object p = qp.priv();
        if (!(p instanceof QpProtocolState)) {
            throw new IllegalStateException("QP 0x" + Integer.toHexString(qp.qpNum())
                    + ": priv is not the transport's state (return Transport.newQpState from qpPrivAlloc): " + p);
        }
        return (QpProtocolState) p;
    }

    /**
     * Forgets the QP's protocol state. The driver calls it from {@code notifyQpReset} (all three locks held, region
     * references already dropped by the core).
     *
     * @param qp the QP
     */
    public void resetQp(DriverQp qp) {
        stateOf(qp).reset();
    }

    /**
     * The QP just entered ERR: drops what the engines hold (UC's saved receive position) so that the core's clean-up
     * releases every region reference. The driver calls it from {@code notifyErrorQp} ({@code recvLock} and
     * {@code sendLock} held).
     *
     * @param qp the QP
     */
    public void errorQp(DriverQp qp) {
        stateOf(qp).error();
    }

    /**
     * Caps the RC PSNs in flight on a port, summed over its QPs, so that requesters do not overrun what the peer can
     * absorb (an rvt extension; IBTA leaves the sending rate to the requester). A driver over kernel sockets sets it
     * from the receive buffer the kernel granted. Each QP of such a port also keeps a congestion window of its own,
     * unlimited until it loses a packet (then halved, and reopened by one packet per window acknowledged); a
     * requester stopped by either waits for an ACK ({@code RVT_S_WAIT_PSN}). A QP with fewer than 8 PSNs in flight
     * may always send. Ports without a budget send as rdmavt does, as fast as the send engine runs.
     *
     * @param portNum the port, 1-based
     * @param packets the budget, at least 1; 0 removes it
     */
    public void limitRcInFlight(int portNum, int packets) {
        rc.limitInFlight(portNum, packets);
    }

    /**
     * Backs off the RC retry timer after each retry since the last progress (an rvt extension, off by default): the
     * n-th retransmission waits the QP's local ACK timeout times 2^n for its ACK, doubling up to 1.07 s; the retry
     * count keeps its meaning ({@code retry_cnt} retries, then {@code RETRY_EXC_ERR}). For a driver whose peers are
     * processes that a busy machine may not run for longer than the QP's whole retry budget.
     *
     * @param on true to back off
     * @see RcEngine#backOffRetries(boolean)
     */
    public void backOffRcRetries(boolean on) {
        rc.backOffRetries(on);
    }

    /**
     * @param portNum a port
     * @return its RC budget and use, or null if {@link #limitRcInFlight} set none
     */
    public RcInFlight rcInFlight(int portNum) {
        long[] v = rc.inFlight(portNum);
        return v == null ? null : new RcInFlight((int) v[0], (int) v[1], (int) v[2], v[3]);
    }

    /**
     * Go-back-N: rewinds the RC requester to {@code psn} after the retry timer expired, counting a retry; when
     * {@code s_retry} is used up completes the oldest WQE with {@code RETRY_EXC_ERR} and moves the QP to ERR. The
     * driver calls it from {@code notifyRestartRc} ({@code recvLock} and {@code sendLock} held); the core schedules
     * the send engine afterwards. Ignored for other QP types.
     *
     * @param qp the QP
     * @param psn the PSN to resend from ({@code s_last_psn + 1})
     * @param wait 1 to send one packet and wait for its ACK before sending more
     */
    public void restartRc(DriverQp qp, int psn, int wait) {
        stateOf(qp).restart(psn, wait);
    }

    /**
     * Writes the next packet of {@code qp}: responses first (RC ACK/NAK, RDMA READ responses, atomic ACKs), then
     * requests. In SQE/ERR it instead completes the posted WQEs with {@code WR_FLUSH_ERR} and returns 0. Takes the
     * QP's {@code sendLock}; call with no lock of the QP held, until it returns 0.
     *
     * <p>The packet starts with the BTH at {@code offset}: reserve the room for the LRH/GRH (native IB) before it, and
     * at least {@link Packets#MAX_TRANSPORT_HEADER} plus the path MTU after it; append the ICRC at
     * {@code offset + result}.
     *
     * @param qp the QP
     * @param buf the packet buffer (absolute indexes; position and limit untouched)
     * @param offset where the BTH goes
     * @param out filled with the destination and sizes when a packet was written
     * @return the transport bytes written (BTH, extension headers, payload, pad), or 0 if there is nothing to send
     *         now; with {@link TxInfo#isPayloadByReference()} the packet's length, of which only headers and pad are
     *         in {@code buf}
     */
    public int makePacket(DriverQp qp, ByteBuffer buf, int offset, TxInfo out) {
        QpProtocolState st = stateOf(qp);
        out.clearSegments(); // packets without payload leave it untouched
        int n = st.makePacket(buf, offset, out);
        if (out.isDrained()) {
            QpSendEngine e = QpSendEngine.KEY.find(st);
            if (e != null) {
                e.drainedHint = true; // its drain stops here (PacketDriver.drain)
            }
        }
        return n;
    }

    /**
     * Processes a packet for {@code qp}: the responder side of requests (placing data, consuming receive WQEs,
     * completing them, queueing ACKs/NAKs), the requester side of responses (completing send WQEs, retry), UC and UD
     * delivery. Takes the QP's locks; call with none held, with the QP retained (from
     * {@code lookupQpnAndRetain}). Never throws for protocol errors: bad packets are dropped and counted.
     *
     * @param qp the destination QP
     * @param buf the buffer the packet was parsed from
     * @param hdr its parsed headers
     * @param rx what the framing told the driver
     */
    public void receive(DriverQp qp, ByteBuffer buf, PacketHeaders hdr, RxInfo rx) {
        if (hdr.result() != RejectReason.OK) {
            Packets.count(qp, PortCounter.RX_MALFORMED, hdr.runPackets());
            return;
        }
        int opcode = hdr.opcode();
        int transport = Opcode.transport(opcode);
        QpType type = qp.type();
        boolean matches = type == QpType.RC ? transport == Opcode.RC
                : type == QpType.UC ? transport == Opcode.UC : transport == Opcode.UD;
        if (!matches || !Opcode.isValid(opcode)) {
            Packets.count(qp, PortCounter.PKT_DROPS, hdr.runPackets());
            return;
        }
        QpProtocolState st = stateOf(qp);
        int pkeyIndex = Packets.checkPkey(qp, hdr.pkey());
        if (pkeyIndex < 0) {
            Packets.count(qp, PortCounter.PKEY_VIOLATIONS, hdr.runPackets());
            return;
        }
        st.receive(buf, hdr, rx, pkeyIndex);
    }

    /**
     * Delivers a UD packet sent to a multicast group to every QP attached to it on {@code port}
     * ({@code rvt_mcast_find}, then {@link #receive} per QP, then the group's release). A group that does not exist
     * counts a drop.
     *
     * @param port the port the packet arrived on
     * @param mgid the group's GID (the packet's DGID)
     * @param mlid the group's LID (the packet's DLID)
     * @param buf the buffer the packet was parsed from
     * @param hdr its parsed headers
     * @param rx what the framing told the driver
     * @return the number of QPs the packet was offered to
     */
    public int receiveMulticast(DriverPort port, Gid mgid, int mlid, ByteBuffer buf, PacketHeaders hdr,
            RxInfo rx) {
        McastGroup group = port.mcastFind(mgid, mlid);
        if (group == null) {
            port.addCounter(PortCounter.PKT_DROPS, 1);
            return 0;
        }
        try {
            DriverQp[] qps = group.qps();
            for (DriverQp qp : qps) {
                receive(qp, buf, hdr, rx);
            }
            return qps.length;
        } finally {
            group.release();
        }
    }

    /**
     * The transport's part of {@code setup_wqe}, for a driver's
     * {@link io.rvt.api.spi.engine.WqeSetup#setupWqe}: rejects a UD (or GSI/SMI) message longer than its address
     * handle's path MTU ({@code 1 << ah.logPmtu()}, set by the driver's {@code notifyNewAh}), and an RC/UC message
     * longer than 2^31 bytes, as hfi1 does. Leaves the {@code callSend} decision alone.
     *
     * @param qp the QP
     * @param wqe the WQE being posted
     * @param callSend the post's do-send decision (unchanged)
     * @return 0 to accept, {@code -EINVAL} to refuse
     */
    public static int setupWqe(DriverQp qp, SendWqe wqe, CallSend callSend) {
        long length = wqe.length() & 0xFFFF_FFFFL;
        switch (qp.type()) {
            case RC:
            case UC:
                return length > 0x8000_0000L ? -EINVAL.value() : 0;
            default:
                if (wqe.ah() == null) {
                    return -EINVAL.value();
                }
                return length > (1L << wqe.ah().logPmtu()) ? -EINVAL.value() : 0;
        }
    }
}
