package io.rvt.transport.engine;

import io.rvt.api.QpState;
import io.rvt.api.SendFlag;
import io.rvt.api.WcStatus;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.engine.EngineQp;
import io.rvt.api.spi.engine.QpFlags;
import io.rvt.api.spi.engine.SendQueue;
import io.rvt.api.spi.engine.SendWqe;
import io.rvt.transport.header.IethDescriptor;
import io.rvt.transport.header.ImmDtDescriptor;
import io.rvt.transport.header.Opcode;
import io.rvt.transport.header.RethDescriptor;
import java.nio.ByteBuffer;

/**
 * What the requesters of the RC, UC and UD engines share: segmenting a SEND or RDMA WRITE into FIRST/MIDDLE/LAST or
 * ONLY packets by the path MTU (the opcode, the extension headers after the BTH, the SE bit), completing local
 * operations, and flushing the send queue. Static and allocation-free; the caller holds the QP's {@code sendLock}.
 */
public final class RequestBuilder {
    private RequestBuilder() {
    }

    /**
     * The opcode of the next packet of a SEND or RDMA WRITE.
     *
     * @param transport {@link Opcode#RC} or {@link Opcode#UC}
     * @param w the WQE's operation: {@code SEND}, {@code SEND_WITH_IMM}, {@code SEND_WITH_INV} (RC only),
     *        {@code RDMA_WRITE} or {@code RDMA_WRITE_WITH_IMM}
     * @param first true for the message's first packet (FIRST or ONLY), false for a later one (MIDDLE or LAST)
     * @param remaining the bytes of the message not yet sent
     * @param pmtu the path MTU in bytes
     * @return the opcode: FIRST/MIDDLE while more than {@code pmtu} bytes remain, otherwise ONLY/LAST (with immediate
     *         or invalidate as the WQE asks)
     */
    public static int opcode(int transport, WrOpcode w, boolean first, int remaining, int pmtu) {
        boolean send = w == WrOpcode.SEND || w == WrOpcode.SEND_WITH_IMM || w == WrOpcode.SEND_WITH_INV;
        int operation;
        if (remaining > pmtu) {
            if (send) {
                operation = first ? Opcode.SEND_FIRST : Opcode.SEND_MIDDLE;
            } else {
                operation = first ? Opcode.RDMA_WRITE_FIRST : Opcode.RDMA_WRITE_MIDDLE;
            }
        } else if (w == WrOpcode.SEND_WITH_IMM) {
            operation = first ? Opcode.SEND_ONLY_WITH_IMMEDIATE : Opcode.SEND_LAST_WITH_IMMEDIATE;
        } else if (w == WrOpcode.SEND_WITH_INV) {
            operation = first ? Opcode.SEND_ONLY_WITH_INVALIDATE : Opcode.SEND_LAST_WITH_INVALIDATE;
        } else if (send) {
            operation = first ? Opcode.SEND_ONLY : Opcode.SEND_LAST;
        } else if (w == WrOpcode.RDMA_WRITE_WITH_IMM) {
            operation = first ? Opcode.RDMA_WRITE_ONLY_WITH_IMMEDIATE : Opcode.RDMA_WRITE_LAST_WITH_IMMEDIATE;
        } else {
            operation = first ? Opcode.RDMA_WRITE_ONLY : Opcode.RDMA_WRITE_LAST;
        }
        return transport | operation;
    }

    /**
     * Writes the extension headers that a SEND or RDMA WRITE packet with opcode {@code op} carries after its BTH:
     * the RETH of an RDMA WRITE's FIRST or ONLY packet (the WQE's whole length), then the ImmDt or the IETH of a
     * message's last packet.
     *
     * @param buf the packet buffer
     * @param index where the first extension header goes (just after the BTH)
     * @param op the packet's opcode, from {@link #opcode}
     * @param wqe the WQE being sent
     * @return the index just after the headers written, where the payload goes
     */
    public static int writeHeaders(ByteBuffer buf, int index, int op, SendWqe wqe) {
        int operation = op & Opcode.OPERATION_MASK;
        if (operation == Opcode.RDMA_WRITE_FIRST || operation == Opcode.RDMA_WRITE_ONLY
                || operation == Opcode.RDMA_WRITE_ONLY_WITH_IMMEDIATE) {
            index = RethDescriptor.write(buf, index, wqe.remoteAddr(), wqe.rkey(), wqe.length());
        }
        switch (operation) {
            case Opcode.SEND_LAST_WITH_IMMEDIATE:
            case Opcode.SEND_ONLY_WITH_IMMEDIATE:
            case Opcode.RDMA_WRITE_LAST_WITH_IMMEDIATE:
            case Opcode.RDMA_WRITE_ONLY_WITH_IMMEDIATE:
                return ImmDtDescriptor.write(buf, index, wqe.immData());
            case Opcode.SEND_LAST_WITH_INVALIDATE:
            case Opcode.SEND_ONLY_WITH_INVALIDATE:
                return IethDescriptor.write(buf, index, wqe.invalidateRkey());
            default:
                return index;
        }
    }

    /**
     * @param op a SEND or RDMA WRITE opcode, from {@link #opcode}
     * @return true if it ends the message (LAST or ONLY, with or without immediate or invalidate)
     */
    public static boolean endsMessage(int op) {
        switch (op & Opcode.OPERATION_MASK) {
            case Opcode.SEND_FIRST:
            case Opcode.SEND_MIDDLE:
            case Opcode.RDMA_WRITE_FIRST:
            case Opcode.RDMA_WRITE_MIDDLE:
                return false;
            default:
                return true;
        }
    }

    /**
     * The BTH SE bit of a SEND or RDMA WRITE packet: the WQE's {@code SOLICITED} flag on the last packet of a SEND or
     * of an RDMA WRITE with immediate, false on any other packet.
     *
     * @param op the packet's opcode, from {@link #opcode}
     * @param wqe the WQE being sent
     * @return the SE bit
     */
    public static boolean solicited(int op, SendWqe wqe) {
        switch (op & Opcode.OPERATION_MASK) {
            case Opcode.SEND_LAST:
            case Opcode.SEND_LAST_WITH_IMMEDIATE:
            case Opcode.SEND_LAST_WITH_INVALIDATE:
            case Opcode.SEND_ONLY:
            case Opcode.SEND_ONLY_WITH_IMMEDIATE:
            case Opcode.SEND_ONLY_WITH_INVALIDATE:
            case Opcode.RDMA_WRITE_LAST_WITH_IMMEDIATE:
            case Opcode.RDMA_WRITE_ONLY_WITH_IMMEDIATE:
                return SendFlag.SOLICITED.in(wqe.sendFlags());
            default:
                return false;
        }
    }

    /**
     * Checks that the QP's state lets the send engine work; if not, and the state asks for it (SQE, ERR), completes
     * every posted WQE with {@code WR_FLUSH_ERR}, in order.
     *
     * @param qp the QP
     * @param state its state, as the caller read it
     * @param ops the {@link QpState.Ops} bit the engine needs ({@code PROCESS_SEND_OK} or
     *        {@code PROCESS_NEXT_SEND_OK})
     * @return true if the state allows {@code ops}
     */
    public static boolean canSendOrFlush(EngineQp qp, QpState state, int ops) {
        if (state.can(ops)) {
            return true;
        }
        if (state.can(QpState.Ops.FLUSH_SEND)) {
            flush(qp);
        }
        return false;
    }

    /**
     * Completes every posted WQE with {@code WR_FLUSH_ERR}, in order (SQE/ERR).
     *
     * @param qp the QP
     */
    public static void flush(EngineQp qp) {
        SendQueue sq = qp.sendQueue();
        int last;
        while ((last = sq.last()) != sq.head()) {
            sq.sendComplete(sq.swqe(last), WcStatus.WR_FLUSH_ERR);
        }
    }

    /**
     * Completes a local operation: {@code REG_MR} (already done at post) or {@code LOCAL_INV} (run here, unless it
     * was done at post and only its completion was deferred), with {@code LOC_PROT_ERR} if the invalidation fails.
     * The caller has moved, or lets the completion move, the send cursors past the WQE.
     *
     * @param qp the QP
     * @param wqe the local operation's WQE
     */
    public static void completeLocalOp(EngineQp qp, SendWqe wqe) {
        WcStatus status = WcStatus.SUCCESS;
        boolean deferred = wqe.opcode() == WrOpcode.LOCAL_INV
                && (wqe.sendFlags() & QpFlags.SEND_COMPLETION_ONLY) == 0;
        if (deferred && qp.invalidateRkey(wqe.invalidateRkey()) != 0) {
            status = WcStatus.LOC_PROT_ERR;
        }
        qp.sendQueue().sendComplete(wqe, status);
        if (deferred) {
            qp.sendQueue().localOpDone();
        }
    }
}
