package io.rvt.transport.rc;

import io.rvt.api.MigState;
import io.rvt.api.QpState.Ops;
import io.rvt.api.spi.Seq24;
import io.rvt.api.spi.Sge;
import io.rvt.api.spi.engine.AckEntry;
import io.rvt.api.spi.engine.AckQueue;
import io.rvt.api.spi.engine.EngineQp;
import io.rvt.api.spi.engine.QpFlags;
import io.rvt.api.spi.engine.ResponderState;
import io.rvt.transport.engine.Packets;
import io.rvt.transport.engine.TxInfo;
import io.rvt.transport.header.AethDescriptor;
import io.rvt.transport.header.AtomicAckEthDescriptor;
import io.rvt.transport.header.BthDescriptor;
import io.rvt.transport.header.Opcode;
import java.nio.ByteBuffer;

/**
 * The RC responder's packets ({@code make_rc_ack}): RDMA READ responses and atomic ACKs from the ack queue, in PSN
 * order, then the queued ACK or NAK (an ACK never overtakes a response to an earlier request). Runs in the send
 * engine with the QP's {@code sendLock} held.
 *
 * <p>{@code sendAckState} is the opcode of the last response built; after an RDMA READ's last packet or an atomic
 * ACK the next call retires that ack-queue entry (only then: until it is built completely, a duplicate request may
 * still rewind to it). {@link Opcode#RC_SEND_ONLY} marks "a plain ACK was just built", as in qib.
 */
final class RcResponseBuilder {
    private RcResponseBuilder() {
    }

    /**
     * Builds the next response packet.
     *
     * @return bytes written, or 0 if no response is due (the pending flags are then cleared)
     */
    static int makeResponse(EngineQp qp, RcState st, ByteBuffer buf, int off, TxInfo tx) {
        ResponderState rs = qp.responder();
        AckQueue aq = qp.ackQueue();
        if (!qp.state().can(Ops.PROCESS_RECV_OK)) {
            // The responder failed the request it NAKs (and went to ERR): the NAK still goes out, as hfi1 sends
            // it straight from its receive path. Responses to READs/atomics do not.
            if ((qp.requester().flags & QpFlags.S_ACK_PENDING) != 0 && aq.nakState != 0) {
                return plainAck(qp, st, buf, off, tx);
            }
            return bail(qp);
        }
        int pmtu = qp.pmtu();
        int hdr = off + BthDescriptor.LENGTH;
        int op;
        int psn;
        int len;
        switch (aq.state) {
            case Opcode.RC_RDMA_READ_RESPONSE_LAST:
            case Opcode.RC_RDMA_READ_RESPONSE_ONLY:
                // The READ's response is out: its source region is no longer needed.
                aq.entry(aq.tail).rdmaSge().release();
                // fall through
            case Opcode.RC_ATOMIC_ACKNOWLEDGE:
                aq.tail = RcResponder.incr(qp, aq.tail);
                // fall through
            case Opcode.RC_SEND_ONLY:
            case Opcode.RC_ACKNOWLEDGE: {
                if (aq.head == aq.tail) {
                    if ((qp.requester().flags & QpFlags.S_ACK_PENDING) != 0) {
                        return plainAck(qp, st, buf, off, tx);
                    }
                    return bail(qp);
                }
                AckEntry e = aq.entry(aq.tail);
                if (e.opcode() == Opcode.RC_RDMA_READ_REQUEST) {
                    Sge src = e.rdmaSge();
                    len = src.sgeLength();
                    if (len != 0 && src.mr() == null) {
                        // Rewound past a response whose source was already released: stop until the requester
                        // re-requests it (the duplicate re-validates the rkey).
                        aq.tail = aq.head;
                        return bail(qp);
                    }
                    aq.rdmaSge.initSingle(src, len);
                    if (len > pmtu) {
                        len = pmtu;
                        op = Opcode.RC_RDMA_READ_RESPONSE_FIRST;
                    } else {
                        op = Opcode.RC_RDMA_READ_RESPONSE_ONLY;
                        e.sent(true);
                    }
                    AethDescriptor.value(buf, hdr, rs.computeAeth());
                    hdr += AethDescriptor.LENGTH;
                    aq.rdmaPsn = e.psn();
                    psn = aq.rdmaPsn++;
                } else {
                    op = Opcode.RC_ATOMIC_ACKNOWLEDGE;
                    AethDescriptor.value(buf, hdr, rs.computeAeth());
                    hdr = AtomicAckEthDescriptor.write(buf, hdr + AethDescriptor.LENGTH, e.atomicData());
                    psn = e.psn();
                    len = 0;
                    e.sent(true);
                }
                break;
            }
            case Opcode.RC_RDMA_READ_RESPONSE_FIRST:
            case Opcode.RC_RDMA_READ_RESPONSE_MIDDLE:
                len = aq.rdmaSge.sge().sgeLength();
                if (len > pmtu) {
                    len = pmtu;
                    op = Opcode.RC_RDMA_READ_RESPONSE_MIDDLE;
                } else {
                    op = Opcode.RC_RDMA_READ_RESPONSE_LAST;
                    AethDescriptor.value(buf, hdr, rs.computeAeth());
                    hdr += AethDescriptor.LENGTH;
                    aq.entry(aq.tail).sent(true);
                }
                psn = aq.rdmaPsn++;
                break;
            default:
                return plainAck(qp, st, buf, off, tx);
        }
        aq.state = op;
        int end = Packets.referencePayload(buf, hdr, aq.rdmaSge, len, tx);
        return finish(qp, buf, off, tx, op, psn, end, len);
    }

    /** The queued ACK or NAK. */
    private static int plainAck(EngineQp qp, RcState st, ByteBuffer buf, int off, TxInfo tx) {
        AckQueue aq = qp.ackQueue();
        aq.state = Opcode.RC_SEND_ONLY;
        qp.requester().flags &= ~QpFlags.S_ACK_PENDING;
        int aeth = aq.nakState != 0
                ? (aq.nakState << 24) | (aq.nakMsn & Seq24.MASK)
                : qp.responder().computeAeth();
        int hdr = off + BthDescriptor.LENGTH;
        AethDescriptor.value(buf, hdr, aeth);
        return finish(qp, buf, off, tx, Opcode.RC_ACKNOWLEDGE, aq.psn, hdr + AethDescriptor.LENGTH, 0);
    }

    private static int finish(EngineQp qp, ByteBuffer buf, int off, TxInfo tx, int op, int psn, int end, int len) {
        int pkey = Packets.pkeyOf(qp);
        int maskedPsn = psn & BthDescriptor.MASK_24;
        BthDescriptor.write(buf, off, op, false, qp.migState() == MigState.MIGRATED, Packets.padCount(len), pkey,
                qp.remoteQpn(), false, maskedPsn);
        tx.ah().copyFrom(qp.remoteAhAttr());
        tx.set(qp.qpNum(), qp.remoteQpn(), pkey, op, maskedPsn, end - off, len, qp.portNum(), true, false);
        return end - off;
    }

    /** Nothing (more) to respond: clear the pending flags so the requester side runs. */
    private static int bail(EngineQp qp) {
        qp.ackQueue().state = Opcode.RC_ACKNOWLEDGE;
        qp.requester().flags &= ~(QpFlags.S_RESP_PENDING | QpFlags.S_ACK_PENDING);
        return 0;
    }
}
