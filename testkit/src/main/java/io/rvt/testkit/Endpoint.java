package io.rvt.testkit;

import io.rvt.api.AccessFlag;
import io.rvt.api.AhAttr;
import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
import io.rvt.api.MemoryRegion;
import io.rvt.api.PortAttr;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import java.nio.ByteBuffer;

/**
 * One side of a conformance test: a device's PD, send and receive CQs, a QP and a registered buffer with every
 * access right. Built by {@link Verbs}.
 */
public final class Endpoint {
    /** Access rights of {@link #mr}. */
    public static final int ALL_ACCESS = AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);

    /** The device. */
    public final Device device;
    /** The PD. */
    public final ProtectionDomain pd;
    /** The send CQ. */
    public final CompletionQueue sendCq;
    /** The receive CQ. */
    public final CompletionQueue recvCq;
    /** The QP. */
    public final QueuePair qp;
    /** The buffer behind {@link #mr}. */
    public final ByteBuffer buffer;
    /** A region over {@link #buffer} with {@link #ALL_ACCESS}. */
    public final MemoryRegion mr;
    /**
     * The QP's first send PSN (24 bits, random as rdma_cm picks it; a peer's expected receive PSN): a PSN that always
     * starts at 0 is an attacker's easy guess, and a random one also makes the suite cross PSN wrap-around.
     */
    public final int initialPsn;

    Endpoint(Device device, QpType type, int bufferBytes, int queueDepth, int maxSge, int initialPsn) {
        this.initialPsn = initialPsn & 0xFF_FFFF;
        this.device = device;
        this.pd = device.allocPd();
        this.sendCq = device.createCq(4 * queueDepth, 0, null, null);
        this.recvCq = device.createCq(4 * queueDepth, 0, null, null);
        QpInitAttr init = new QpInitAttr().qpType(type).sendCq(sendCq).recvCq(recvCq);
        init.cap().maxSendWr(queueDepth).maxRecvWr(queueDepth).maxSendSge(maxSge).maxRecvSge(maxSge);
        this.qp = pd.createQp(init);
        this.buffer = ByteBuffer.allocateDirect(bufferBytes);
        this.mr = pd.regMr(buffer, ALL_ACCESS);
    }

    /** @return this device's port 1 LID */
    public int lid() {
        return device.queryPort(1, new PortAttr()).lid();
    }

    /**
     * Fills {@code out} with the address of this endpoint's port 1 (LID and GID 0, global).
     *
     * @param out the address to fill
     * @return {@code out}
     */
    public AhAttr address(AhAttr out) {
        return out.clear().dlid(lid()).portNum(1).dgid(device.queryGid(1, 0)).sgidIndex(0).hopLimit(64);
    }

    @Override
    public String toString() {
        return device.name() + "/qp 0x" + Integer.toHexString(qp.qpNum());
    }
}
