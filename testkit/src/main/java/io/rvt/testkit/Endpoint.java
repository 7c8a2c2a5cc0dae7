package io.rvt.testkit;

import io.rvt.api.AccessFlag;
import io.rvt.api.AhAttr;
import io.rvt.api.CompletionChannel;
import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
import io.rvt.api.MemoryRegion;
import io.rvt.api.PortAttr;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.cm.Connection;
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

    /** The QP's connection through rvt-cm, or null for an endpoint whose QP the test moves itself. */
    public final Connection connection;

    Endpoint(Device device, QpType type, int bufferBytes, int queueDepth, int maxSge, int initialPsn) {
        this(new Resources(device, bufferBytes, queueDepth), type, maxSge, initialPsn);
    }

    private Endpoint(Resources r, QpType type, int maxSge, int initialPsn) {
        this(r, createQp(r, type, maxSge), null, initialPsn);
    }

    private static QueuePair createQp(Resources r, QpType type, int maxSge) {
        QpInitAttr init = new QpInitAttr().qpType(type).sendCq(r.sendCq).recvCq(r.recvCq);
        init.cap().maxSendWr(r.queueDepth).maxRecvWr(r.queueDepth).maxSendSge(maxSge).maxRecvSge(maxSge);
        return r.pd.createQp(init);
    }

    private Endpoint(Resources r, QueuePair qp, Connection connection, int initialPsn) {
        this.initialPsn = initialPsn & 0xFF_FFFF;
        this.device = r.device;
        this.pd = r.pd;
        this.sendCq = r.sendCq;
        this.recvCq = r.recvCq;
        this.buffer = r.buffer;
        this.mr = r.mr;
        this.qp = qp;
        this.connection = connection;
    }

    /**
     * @param r the endpoint's PD, CQs and region
     * @param connection the connection rvt-cm made for them
     * @return the endpoint of {@code connection}'s QP (its first send PSN: the Starting PSN the peer's CM sent)
     */
    static Endpoint of(Resources r, Connection connection) {
        return new Endpoint(r, connection.qp(), connection, connection.sendPsn());
    }

    /** What an endpoint holds before it has a QP: the PD, the CQs and the registered buffer. */
    static final class Resources {
        final Device device;
        final ProtectionDomain pd;
        final CompletionQueue sendCq;
        final CompletionQueue recvCq;
        final ByteBuffer buffer;
        final MemoryRegion mr;
        final int queueDepth;

        Resources(Device device, int bufferBytes, int queueDepth) {
            this(device, bufferBytes, queueDepth, null);
        }

        /** With both CQs on {@code channel} (null for none). */
        Resources(Device device, int bufferBytes, int queueDepth, CompletionChannel channel) {
            this.device = device;
            this.queueDepth = queueDepth;
            this.pd = device.allocPd();
            this.sendCq = device.createCq(4 * queueDepth, 0, channel, null, null);
            this.recvCq = device.createCq(4 * queueDepth, 0, channel, null, null);
            this.buffer = ByteBuffer.allocateDirect(bufferBytes);
            this.mr = pd.regMr(buffer, ALL_ACCESS);
        }
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
