package io.rvt.transport;

import io.rvt.api.AhAttr;
import io.rvt.api.PortCounter;
import io.rvt.api.QpType;
import io.rvt.api.spi.DriverPort;
import io.rvt.api.spi.DriverQp;
import io.rvt.api.spi.SgeState;
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
        int end = index + length;
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
        DriverPort port = qp.iport();
        if (port != null) {
            port.addCounter(counter, 1);
        }
    }

    /**
     * Asks the driver to run its send engine on {@code qp} ({@code schedule_send}). Caller holds {@code sendLock}.
     *
     * @param qp the QP
     */
    public static void scheduleSend(DriverQp qp) {
        qp.device().driver().scheduleSend(qp);
    }
}
