package io.rvt.cm.impl;

import io.rvt.api.AccessFlag;
import io.rvt.api.AhAttr;
import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
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
import io.rvt.api.WcOpcode;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.cm.ConnectionManager;
import io.rvt.cm.SimLab;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** A test peer that speaks CM MADs by hand over the GSI QP of a device that has no connection manager. */
final class RawGsi {
    private static final int SLOTS = 16;
    private static final int SLOT = 40 + CmMad.SIZE;

    final Device device;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final QueuePair gsi;
    private final ByteBuffer buf;
    private final MemoryRegion mr;
    /** The source GID of the last MAD received. */
    Gid lastSource;

    RawGsi(Device device) {
        this.device = device;
        pd = device.allocPd();
        cq = device.createCq(64, 0, null, null);
        QpInitAttr init = new QpInitAttr().qpType(QpType.GSI).portNum(1).sendCq(cq).recvCq(cq);
        init.cap().maxSendWr(SLOTS).maxRecvWr(SLOTS).maxSendSge(1).maxRecvSge(1);
        gsi = pd.createQp(init);
        gsi.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).qkey(ConnectionManager.GSI_QKEY),
                QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.QKEY));
        gsi.modifyQp(new QpAttr().qpState(QpState.RTR), QpAttrMask.STATE.bit());
        gsi.modifyQp(new QpAttr().qpState(QpState.RTS).sqPsn(0), QpAttrMask.mask(QpAttrMask.STATE,
                QpAttrMask.SQ_PSN));
        buf = ByteBuffer.allocateDirect((SLOTS + 1) * SLOT).order(ByteOrder.BIG_ENDIAN);
        mr = pd.regMr(buf, AccessFlag.LOCAL_WRITE.bit());
        for (int i = 0; i < SLOTS; i++) {
            post(i);
        }
    }

    Gid gid() {
        return device.queryGid(1, 0);
    }

    private void post(int slot) {
        gsi.postRecv(new RecvWorkRequest(1).wrId(slot).sge(mr, slot * SLOT, SLOT));
    }

    /** Sends {@code m} to the GSI QP of the port with {@code dgid}. */
    void send(SimLab lab, Gid dgid, CmMad m) {
        int off = SLOTS * SLOT;
        m.encode(buf, off);
        sendRaw(lab, dgid, off);
    }

    /** Sends the 256 bytes at {@code off} of the buffer as they are (e.g. a corrupted MAD). */
    void sendRaw(SimLab lab, Gid dgid, int off) {
        gsi.postSend(new SendWorkRequest(1).wrId(1000).opcode(WrOpcode.SEND).sge(mr, off, CmMad.SIZE)
                .ah(pd.createAh(new AhAttr().portNum(1).global(true).dgid(dgid).hopLimit(64))).remoteQpn(1)
                .remoteQkey(ConnectionManager.GSI_QKEY));
        WorkCompletion wc = new WorkCompletion();
        lab.runUntil("the raw send completes", () -> cq.pollCq(wc) && wc.opcode() == WcOpcode.SEND);
    }

    /** @return the buffer and offset of the raw send area, to write a MAD by hand */
    ByteBuffer sendArea() {
        return buf;
    }

    int sendOffset() {
        return SLOTS * SLOT;
    }

    /** Drives the fabric until a MAD arrives; decodes it. */
    CmMad receive(SimLab lab) {
        WorkCompletion wc = new WorkCompletion();
        lab.runUntil("a MAD", () -> cq.pollCq(wc) && wc.opcode() == WcOpcode.RECV);
        int slot = (int) wc.wrId();
        CmMad m = new CmMad();
        if (!m.decode(buf, slot * SLOT + 40, CmMad.SIZE)) {
            throw new AssertionError("not a CM MAD");
        }
        lastSource = Gid.read(buf, slot * SLOT + 8);
        post(slot);
        return m;
    }

    /** @return true if a MAD arrives within {@code virtualNanos} */
    boolean anyWithin(SimLab lab, long virtualNanos) {
        WorkCompletion wc = new WorkCompletion();
        long end = lab.fabric.nanoTime() + virtualNanos;
        lab.fabric.runUntil(() -> lab.fabric.nanoTime() >= end, virtualNanos + 1);
        return cq.pollCq(wc);
    }
}
