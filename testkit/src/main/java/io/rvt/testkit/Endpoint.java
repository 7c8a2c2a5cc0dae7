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

    /**
     * The {@link PairConnector}'s handle of the QP's connection (rvt-cm's {@code Connection} when the pair was
     * connected through rvt-cm), or null: for a pair connected directly, and for an endpoint whose QP the test moves
     * itself.
     */
    public final Object connection;

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

    private Endpoint(Resources r, QueuePair qp, Object connection, int initialPsn) {
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
     * @param connected the QP a {@link PairConnector} connected on them
     * @return the endpoint of that QP (its first send PSN: e.g. the Starting PSN the peer's CM sent)
     */
    public static Endpoint of(Resources r, PairConnector.Connected connected) {
        return new Endpoint(r, connected.qp(), connected.connection(), connected.sendPsn());
    }

    /** What an endpoint holds before it has a QP: the PD, the CQs and the registered buffer. */
    public static final class Resources {
        /** The device. */
        public final Device device;
        /** The PD. */
        public final ProtectionDomain pd;
        /** The send CQ. */
        public final CompletionQueue sendCq;
        /** The receive CQ. */
        public final CompletionQueue recvCq;
        /** The buffer behind {@link #mr}. */
        public final ByteBuffer buffer;
        /** A region over {@link #buffer} with {@link #ALL_ACCESS}. */
        public final MemoryRegion mr;
        /** Send and receive queue depth the QP is made with; each CQ holds four times as many. */
        public final int queueDepth;

        /**
         * @param device the device
         * @param bufferBytes the registered buffer's size
         * @param queueDepth the QP's queue depth
         */
        public Resources(Device device, int bufferBytes, int queueDepth) {
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
