package io.rvt.it.interop;

import io.rvt.api.AccessFlag;
import io.rvt.api.AddressHandle;
import io.rvt.api.AhAttr;
import io.rvt.api.CompletionQueue;
import io.rvt.api.Gid;
import io.rvt.api.MemoryRegion;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.core.RvtDevice;
import io.rvt.driver.jni.JniDriver;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;

/**
 * The rvt side of {@link LinuxPeerIT}'s reachability case, run in a child JVM in the peer's namespace: a driver-jni
 * HCA on the host end's address (UDP 4791) and one UD QP with the GSI Q_Key (0x80010000) that sends {@code count}
 * management datagrams to the general services QP (QP1) of the guest's rxe0: each a Get of vendor class 0x09, which
 * no agent in the guest serves, so Linux's MAD layer answers it with a GetResp of status "unsupported"
 * ({@code ib_mad}'s unmatched-request response). QP1 exists on every RDMA port, so nothing has to be started in the
 * guest; rxe counts a datagram in {@code rcvd_pkts} only if its headers and ICRC passed.
 *
 * <p>Prints {@code SENT <n>} once every send has completed successfully, then {@code REPLIES <n>}: the GetResps
 * that reached the QP within {@code replyMillis}. Arguments: {@code <local-ip> <peer-ip> <count> <replyMillis>}.
 */
public final class GsiProbe {
    /** The Q_Key of every QP1 (IBTA: GSI_QKEY); a top bit set means a privileged Q_Key. */
    static final int GSI_QKEY = 0x8001_0000;
    /** A management datagram: 256 bytes, its common header first (IBTA vol 1 13.4.2). */
    static final int MAD_BYTES = 256;
    static final int GRH_BYTES = 40;
    static final int VENDOR_CLASS = 0x09;
    static final int METHOD_GET = 0x01;
    static final int METHOD_GET_RESP = 0x81;

    private GsiProbe() {
    }

    /**
     * @param args local address, guest address, count, how long to wait for replies (ms)
     * @throws Exception on any failure (the parent reads the exit status and stderr)
     */
    public static void main(String[] args) throws Exception {
        InetAddress local = InetAddress.getByName(args[0]);
        InetAddress peer = InetAddress.getByName(args[1]);
        int count = Integer.parseInt(args[2]);
        long replyMillis = Long.parseLong(args[3]);
        RvtDevice dev = RvtDevice.register(JniDriver.builder().name("probe").address(local).build());
        try {
            run(dev, gidOf(peer), count, replyMillis);
        } finally {
            dev.unregister();
        }
    }

    private static void run(RvtDevice dev, Gid peer, int count, long replyMillis) throws InterruptedException {
        ProtectionDomain pd = dev.allocPd();
        CompletionQueue sendCq = dev.createCq(2 * count, 0, null, null);
        CompletionQueue recvCq = dev.createCq(2 * count, 0, null, null);
        QpInitAttr init = new QpInitAttr().qpType(QpType.UD).sendCq(sendCq).recvCq(recvCq);
        init.cap().maxSendWr(count).maxRecvWr(count).maxSendSge(1).maxRecvSge(1);
        QueuePair qp = pd.createQp(init);
        ByteBuffer buf = ByteBuffer.allocateDirect(2 * count * (GRH_BYTES + MAD_BYTES));
        MemoryRegion mr = pd.regMr(buf, AccessFlag.mask(AccessFlag.LOCAL_WRITE));
        qp.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(GSI_QKEY),
                QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.QKEY));
        qp.modifyQp(new QpAttr().qpState(QpState.RTR), QpAttrMask.STATE.bit());
        qp.modifyQp(new QpAttr().qpState(QpState.RTS).sqPsn(0), QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.SQ_PSN));
        int recvBase = count * MAD_BYTES;
        for (int i = 0; i < count; i++) {
            qp.postRecv(new RecvWorkRequest(1).wrId(i).sge(mr, recvBase + i * (GRH_BYTES + MAD_BYTES),
                    GRH_BYTES + MAD_BYTES));
        }
        AddressHandle ah = pd.createAh(new AhAttr().portNum(1).global(true).dgid(peer).sgidIndex(0).hopLimit(64));
        for (int i = 0; i < count; i++) {
            madGet(buf, i * MAD_BYTES, 0x7276_7400_0000_0000L | i);
            qp.postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.SEND).sge(mr, i * MAD_BYTES, MAD_BYTES)
                    .ah(ah).remoteQpn(1).remoteQkey(GSI_QKEY));
        }
        WorkCompletion wc = new WorkCompletion();
        long deadline = System.nanoTime() + 20_000_000_000L;
        for (int done = 0; done < count; ) {
            if (sendCq.pollCq(wc)) {
                if (wc.status() != WcStatus.SUCCESS) {
                    throw new AssertionError("send " + done + " of " + count + ": " + wc);
                }
                done++;
            } else if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("only " + done + " of " + count + " sends completed in 20 s");
            } else {
                Thread.onSpinWait();
            }
        }
        System.out.println("SENT " + count);
        System.out.flush();
        int replies = 0;
        deadline = System.nanoTime() + replyMillis * 1_000_000L;
        while (replies < count && System.nanoTime() - deadline < 0) {
            if (recvCq.pollCq(wc)) {
                int mad = recvBase + (int) wc.wrId() * (GRH_BYTES + MAD_BYTES) + GRH_BYTES;
                if (wc.status() == WcStatus.SUCCESS && (buf.get(mad + 3) & 0xFF) == METHOD_GET_RESP) {
                    replies++;
                }
            } else {
                Thread.onSpinWait();
            }
        }
        System.out.println("REPLIES " + replies);
        System.out.flush();
    }

    /** Writes a MAD: the common header of a Get of {@link #VENDOR_CLASS}, transaction id {@code tid}, zeros after. */
    static void madGet(ByteBuffer buf, int off, long tid) {
        for (int i = 0; i < MAD_BYTES; i++) {
            buf.put(off + i, (byte) 0);
        }
        buf.put(off, (byte) 1); // BaseVersion
        buf.put(off + 1, (byte) VENDOR_CLASS); // MgmtClass
        buf.put(off + 2, (byte) 1); // ClassVersion
        buf.put(off + 3, (byte) METHOD_GET); // R (0) and Method
        buf.putLong(off + 8, tid); // TransactionID (status, class specific: 0)
        buf.putShort(off + 16, (short) 0x0010); // AttributeID
    }

    private static Gid gidOf(InetAddress a) {
        if (a instanceof Inet4Address) {
            return Gid.ipv4Mapped(ByteBuffer.wrap(a.getAddress()).getInt());
        }
        return Gid.of(a.getAddress());
    }
}
