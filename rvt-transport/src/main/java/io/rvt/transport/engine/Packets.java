package io.rvt.transport.engine;

import io.rvt.api.AhAttr;
import io.rvt.api.PortCounter;
import io.rvt.api.QpType;
import io.rvt.api.spi.DriverPort;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.Sge;
import io.rvt.api.spi.engine.SgeState;
import io.rvt.transport.header.BthDescriptor;
import io.rvt.transport.header.LrhDescriptor;
import java.nio.ByteBuffer;

/**
 * Small helpers the RC, UC and UD engines share: payload and pad, P_Key rules, counters, scheduling. Allocation-free.
 */
public final class Packets {
    private Packets() {
    }

    /** The longest run of transport headers a packet carries: BTH + AtomicETH (an atomic request), 40 bytes. */
    public static final int MAX_TRANSPORT_HEADER = 40;

    /** The GRH area at the start of every UD receive buffer, 40 bytes. */
    public static final int GRH_AREA = 40;

    /**
     * @param payloadLength payload bytes
     * @return the BTH PadCnt that rounds the payload up to a multiple of 4
     */
    public static int padCount(int payloadLength) {
        return -payloadLength & 3;
    }

    /**
     * Gathers {@code length} bytes from a send cursor into {@code buf} and zeroes the pad after them. The cursor does
     * not drop region references (the WQE owns them until it completes).
     *
     * @param buf the packet buffer
     * @param index where the payload starts
     * @param src the cursor over the WQE's (or the responder's) scatter list
     * @param length payload bytes
     * @return the index after the pad
     */
    public static int writePayload(ByteBuffer buf, int index, SgeState src, int length) {
        if (length > 0) {
            src.copyOut(buf, index, length, false);
        }
        return pad(buf, index + length, length);
    }

    /**
     * {@link #writePayload}'s sibling for packets whose payload stays untouched until it is on the wire: when
     * {@code tx} asks for payload by reference ({@link TxInfo#payloadByReference}), advances the cursor over
     * {@code length} bytes and records them as slices of the regions' direct buffers in {@code tx}, writing only the
     * pad, at {@code index}. Falls back to the copy (of what was recorded, then the rest) on a heap-buffer region or
     * when the slices run out.
     *
     * @param buf the packet buffer
     * @param index where the payload would start
     * @param src the cursor over the WQE's (or the responder's) scatter list
     * @param length payload bytes
     * @param tx the packet's info, which holds the slices
     * @return the index after payload and pad as if the payload had been copied (so the packet's length is the same
     *         in both modes)
     */
    public static int referencePayload(ByteBuffer buf, int index, SgeState src, int length, TxInfo tx) {
        if (!tx.wantsReference(length)) {
            return writePayload(buf, index, src, length);
        }
        int left = length;
        while (left > 0) {
            Sge s = src.sge();
            int n = s.lengthFor(left);
            if (n <= 0) {
                throw new IllegalStateException("reference to " + left + " bytes overruns the gather list");
            }
            ByteBuffer mem = s.memory();
            if (!mem.isDirect() || !tx.addSegment(mem, s.offset(), n)) {
                // Copy after all: what was recorded goes into the buffer first, then the rest from the cursor.
                int at = tx.payload().copyTo(buf, index);
                tx.clearSegments();
                src.copyOut(buf, at, left, false);
                return pad(buf, index + length, length);
            }
            src.updateSge(n, false);
            left -= n;
        }
        pad(buf, index, length);
        return index + length + padCount(length);
    }

    /**
     * Marks the packet the engine just described in {@code tx} as the first of a possible run
     * ({@link TxInfo#runLimit(int)}), with its AckReq bit.
     *
     * @param tx the packet's info
     * @param ackReq the first packet's BTH AckReq bit
     */
    public static void startRun(TxInfo tx, boolean ackReq) {
        tx.startRun(ackReq);
    }

    /**
     * Appends the next packet of the message to the run in {@code tx}: references its {@code length} payload bytes
     * at the cursor (appended to the run's slices), and records its opcode and BTH bits. Nothing changes if the
     * payload cannot be referenced as one more slice (it crosses a scatter entry, lies in a heap buffer, or the
     * slices are used up): the packet is then left for a call of its own.
     *
     * @param tx the run's info
     * @param src the cursor over the WQE's scatter list
     * @param opcode the packet's opcode (a MIDDLE or a LAST without extension headers)
     * @param length its payload bytes
     * @param ackReq its BTH AckReq bit
     * @param solicited its BTH SE bit
     * @return true if it was appended
     */
    public static boolean extendRun(TxInfo tx, SgeState src, int opcode, int length, boolean ackReq,
            boolean solicited) {
        if (length <= 0 || tx.runPackets() >= tx.runLimit()) {
            return false;
        }
        Sge s = src.sge();
        if (s == null || s.mr() == null || s.lengthFor(length) != length) {
            return false;
        }
        ByteBuffer mem = s.memory();
        if (!mem.isDirect() || !tx.addSegment(mem, s.offset(), length)) {
            return false;
        }
        src.updateSge(length, false);
        tx.extendRun(opcode, BthDescriptor.LENGTH + length + padCount(length), length, ackReq, solicited);
        return true;
    }

    private static int pad(ByteBuffer buf, int end, int length) {
        for (int pad = padCount(length); pad > 0; pad--) {
            buf.put(end++, (byte) 0);
        }
        return end;
    }

    /**
     * The IBTA P_Key match rule (qib/hfi1 {@code pkey_ok}): the low 15 bits are non-zero and equal, and at least one
     * of the two keys is a full member.
     *
     * @param a a P_Key
     * @param b another
     * @return true if they match
     */
    public static boolean pkeyMatches(int a, int b) {
        int pa = a & 0x7FFF;
        return pa != 0 && pa == (b & 0x7FFF) && ((a | b) & 0x8000) != 0;
    }

    /**
     * @param qp a QP
     * @return the P_Key its packets carry: the port table entry at its P_Key index (SMI: the default P_Key)
     */
    public static int pkeyOf(DriverQp qp) {
        if (qp.type() == QpType.SMI) {
            return BthDescriptor.DEFAULT_PKEY;
        }
        DriverPort port = qp.iport();
        return port == null ? BthDescriptor.DEFAULT_PKEY : port.pkey(qp.pkeyIndex());
    }

    /**
     * The receive-side P_Key check: SMI QPs accept anything; GSI QPs accept a key matching any entry of the port's
     * table; other QPs a key matching their own entry.
     *
     * @param qp the receiving QP
     * @param pkey the packet's BTH P_Key
     * @return the table index that matched (0 for SMI), or -1 if the packet must be dropped
     */
    public static int checkPkey(DriverQp qp, int pkey) {
        if (qp.type() == QpType.SMI) {
            return 0;
        }
        DriverPort port = qp.iport();
        if (port == null) {
            return -1;
        }
        if (qp.type() == QpType.GSI) {
            int n = qp.device().params().npkeys();
            for (int i = 0; i < n; i++) {
                if (pkeyMatches(pkey, port.pkey(i))) {
                    return i;
                }
            }
            return -1;
        }
        return pkeyMatches(pkey, port.pkey(qp.pkeyIndex())) ? qp.pkeyIndex() : -1;
    }

    /**
     * @param ah an address
     * @return true if it names a multicast group (an IB multicast DLID other than the permissive LID, or a multicast
     *         DGID)
     */
    public static boolean isMulticast(AhAttr ah) {
        int dlid = ah.dlid();
        return (dlid >= LrhDescriptor.MULTICAST_LID_BASE && dlid != LrhDescriptor.PERMISSIVE_LID)
                || (ah.isGlobal() && ah.dgid().isMulticast());
    }

    /**
     * Adds one to a counter of the QP's port (nothing if the QP has no port yet).
     *
     * @param qp the QP
     * @param counter the counter
     */
    public static void count(DriverQp qp, PortCounter counter) {
        count(qp, counter, 1);
    }

    /**
     * Adds {@code n} to a counter of the QP's port (the packets of a run dropped together), if it has one.
     *
     * @param qp the QP
     * @param counter the counter
     * @param n how many
     */
    public static void count(DriverQp qp, PortCounter counter, int n) {
        DriverPort port = qp.iport();
        if (port != null) {
            port.addCounter(counter, n);
        }
    }
}
